//! The protocol's responses as JSON, the same for every door that speaks
//! JSON (OSC replies; the HTTP API).

use llv_core::control::{CardStatus, FaultCode, LiveStatus, Status, TakeInfo};
use llv_core::settings::{Settings, Target};

use crate::json::Json;

/// Writes `"key":n`.
fn number(j: &mut Json<'_>, key: &str, n: u64) {
    j.key(key);
    j.uint(n);
}

/// The status as a JSON object.
pub fn status_json(j: &mut Json<'_>, s: &Status) {
    j.open_object();
    j.key("firmware");
    j.string(&s.firmware);
    number(j, "uptime_ms", s.uptime_ms);
    j.key("address");
    match s.address {
        Some(ip) => j.ipv4(ip),
        None => j.null(),
    }
    j.key("playing");
    match &s.playing {
        Some(p) => {
            j.open_object();
            j.key("take");
            j.string(&p.take);
            number(j, "frame", u64::from(p.frame));
            number(j, "loops_done", u64::from(p.loops_done));
            number(j, "late_frames", u64::from(p.late_frames));
            j.key("sending");
            j.bool(p.sending());
            if let Some(c) = &p.chase {
                j.key("chase");
                j.string(c.state.name());
                j.key("timecode");
                match &c.timecode {
                    Some(tc) => j.text(format_args!("{tc}")),
                    None => j.null(),
                }
                number(j, "locates", u64::from(c.locates));
            }
            number(j, "max_late_us", u64::from(p.max_late_us));
            j.key("targets");
            j.open_array();
            for t in &p.targets {
                j.open_object();
                j.key("target");
                j.text(format_args!("{}", t.target));
                number(j, "sent", u64::from(t.sent));
                number(j, "dropped", u64::from(t.dropped));
                j.close_object();
            }
            j.close_array();
            j.close_object();
        }
        None => j.null(),
    }
    number(j, "used_bytes", s.used_bytes);
    number(j, "free_bytes", s.free_bytes);
    j.key("faults");
    j.open_array();
    for f in &s.faults {
        j.open_object();
        j.key("code");
        j.string(fault_name(f.code));
        j.key("detail");
        j.string(&f.detail);
        j.close_object();
    }
    j.close_array();
    if let Some(card) = &s.card {
        j.key("card");
        card_json(j, card);
    }
    if let Some(live) = &s.live {
        j.key("live");
        live_json(j, live);
    }
    j.key("last");
    match &s.last {
        Some(l) => {
            j.open_object();
            j.key("take");
            j.string(&l.take);
            number(j, "frames", u64::from(l.frames));
            number(j, "late_frames", u64::from(l.late_frames));
            number(j, "dropped", u64::from(l.dropped));
            j.key("ended");
            j.string(l.ended.name());
            j.close_object();
        }
        None => j.null(),
    }
    j.key("clock");
    j.string(s.clock.name());
    number(j, "osc_port", u64::from(s.osc_port));
    j.close_object();
}

/// `text`, or `none` without one (the grammar's word for no value).
fn none(text: Option<&str>) -> &str {
    text.unwrap_or("none")
}

/// The settings as `{"targets":"...","autoplay":"...",...,"token_set":bool}`:
/// each key of the settings grammar (`llv_core::settings::grammar`) with its
/// value in the grammar's text, so it can be given back as it is. The token
/// is never shown: `token_set` says whether there is one.
pub fn settings_json(j: &mut Json<'_>, s: &Settings, token_set: bool) {
    let pair = |j: &mut Json<'_>, key: &str, args: core::fmt::Arguments<'_>| {
        j.key(key);
        j.text(args);
    };
    j.open_object();
    pair(j, "targets", format_args!("{}", Targets(&s.targets)));
    pair(
        j,
        "autoplay",
        format_args!("{}", none(s.autoplay.as_ref().map(|a| a.take.as_str()))),
    );
    pair(
        j,
        "autoplay-loops",
        format_args!("{}", s.autoplay.as_ref().map_or(0, |a| a.loop_count)),
    );
    pair(j, "subject", format_args!("{}", none(s.subject.as_deref())));
    match &s.address {
        Some(a) => {
            let ip = core::net::Ipv4Addr::from(a.ip);
            match a.gateway {
                Some(gw) => pair(
                    j,
                    "address",
                    format_args!("{ip}/{},{}", a.prefix_len, core::net::Ipv4Addr::from(gw)),
                ),
                None => pair(j, "address", format_args!("{ip}/{}", a.prefix_len)),
            }
        }
        None => pair(j, "address", format_args!("dhcp")),
    }
    pair(j, "name", format_args!("{}", none(s.name.as_deref())));
    match s.osc_port {
        Some(p) => pair(j, "osc-port", format_args!("{p}")),
        None => pair(j, "osc-port", format_args!("default")),
    }
    match s.reply_port {
        Some(p) => pair(j, "reply-port", format_args!("{p}")),
        None => pair(j, "reply-port", format_args!("none")),
    }
    match &s.chase {
        None => pair(j, "chase", format_args!("off")),
        Some(c) => {
            match &c.offset {
                Some(tc) => pair(
                    j,
                    "chase",
                    format_args!(
                        "{:02}:{:02}:{:02}:{:02}",
                        tc.hours, tc.minutes, tc.seconds, tc.frames
                    ),
                ),
                None => pair(j, "chase", format_args!("own")),
            }
            pair(j, "chase-stream", format_args!("{}", c.stream));
            pair(
                j,
                "chase-freewheel",
                format_args!("{}.{:03}", c.freewheel_ms / 1000, c.freewheel_ms % 1000),
            );
            pair(
                j,
                "chase-hold",
                format_args!("{}", if c.hold { "on" } else { "off" }),
            );
        }
    }
    match s.http_port {
        Some(p) => pair(j, "http-port", format_args!("{p}")),
        None => pair(j, "http-port", format_args!("default")),
    }
    j.key("token_set");
    j.bool(token_set);
    j.close_object();
}

/// The targets in the grammar's text: `IP:PORT,IP:PORT`, or `none`.
struct Targets<'a>(&'a [Target]);

impl core::fmt::Display for Targets<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        for (i, t) in self.0.iter().enumerate() {
            write!(f, "{}{t}", if i > 0 { "," } else { "" })?;
        }
        Ok(())
    }
}

/// The live relay as `{"state":...,"rate_mhz":N,...}`: its state in one
/// word, the source's rate and jitter, its counts and the bytes recorded.
fn live_json(j: &mut Json<'_>, l: &LiveStatus) {
    j.open_object();
    j.key("state");
    j.string(match l.state {
        0 => "waiting",
        1 => "live",
        2 => "fallback",
        _ => "returning",
    });
    number(j, "rate_mhz", u64::from(l.rate_mhz));
    number(j, "jitter_us", u64::from(l.jitter_us));
    number(j, "frames_in", l.frames_in);
    number(j, "lost", l.lost);
    number(j, "not_face", l.not_face);
    number(j, "fallbacks", u64::from(l.fallbacks));
    number(j, "returns", u64::from(l.returns));
    number(j, "recorded_bytes", l.recorded_bytes);
    j.close_object();
}

/// The card's state as `{"scanning":...,"takes":N,"bad_files":N,"bad":[...]}`.
fn card_json(j: &mut Json<'_>, c: &CardStatus) {
    j.open_object();
    j.key("scanning");
    j.bool(c.scanning);
    number(j, "takes", u64::from(c.takes));
    number(j, "bad_files", u64::from(c.bad_files));
    j.key("bad");
    j.open_array();
    for file in &c.bad {
        j.string(file);
    }
    j.close_array();
    j.close_object();
}

/// The takes `start..` of a list of `total` as
/// `[{"name":...,"frames":...,"period_us":...,"place":...}]`
/// (as many as fit one reply), then `"total":N` and, when takes follow the
/// ones shown, `"next":N`: where the next page starts.
pub fn takes_json(j: &mut Json<'_>, takes: &[TakeInfo], start: u32, total: u32) {
    // Room for `],"total":4294967295,"next":4294967295` after the list and
    // the reply's closing `}`.
    j.reserve(40);
    j.open_array();
    let mut shown = 0;
    for t in takes {
        let mark = j.mark();
        j.open_object();
        j.key("name");
        j.string(&t.name);
        number(j, "frames", u64::from(t.frame_count));
        number(j, "period_us", u64::from(t.period_us));
        j.key("place");
        j.string(t.place.as_str());
        j.close_object();
        if j.overflowed() {
            j.reset(mark);
            break;
        }
        shown += 1;
    }
    j.unreserve();
    j.close_array();
    number(j, "total", u64::from(total));
    let next = u64::from(start) + shown as u64;
    if next < u64::from(total) {
        number(j, "next", next);
    }
}

/// A fault code's name in JSON.
pub fn fault_name(code: FaultCode) -> &'static str {
    match code {
        FaultCode::StoreUnusable => "StoreUnusable",
        FaultCode::SettingsUnreadable => "SettingsUnreadable",
        FaultCode::BadStoredSetting => "BadStoredSetting",
        FaultCode::FactoryReset => "FactoryReset",
        FaultCode::WatchdogReset => "WatchdogReset",
        FaultCode::ClockFallback => "ClockFallback",
        FaultCode::CardRemoved => "CardRemoved",
        FaultCode::CardUnusable => "CardUnusable",
    }
}
