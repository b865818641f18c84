//! The protocol's responses as JSON, the same for every door that speaks
//! JSON (OSC replies; the HTTP API).

use heapless::String;
use llv_core::control::{CardStatus, FaultCode, LiveStatus, Status, TakeInfo};

use crate::json::Json;

/// Writes `,"key":n`.
fn number(j: &mut Json<'_>, key: &str, n: u64) {
    j.raw(",");
    j.key(key);
    j.uint(n);
}

/// The status as a JSON object.
pub fn status_json(j: &mut Json<'_>, s: &Status) {
    j.raw("{");
    j.key("firmware");
    j.string(&s.firmware);
    number(j, "uptime_ms", s.uptime_ms);
    j.raw(",");
    j.key("address");
    match s.address {
        Some(ip) => j.ipv4(ip),
        None => j.raw("null"),
    }
    j.raw(",");
    j.key("playing");
    match &s.playing {
        Some(p) => {
            j.raw("{");
            j.key("take");
            j.string(&p.take);
            number(j, "frame", u64::from(p.frame));
            number(j, "loops_done", u64::from(p.loops_done));
            number(j, "late_frames", u64::from(p.late_frames));
            j.raw(",");
            j.key("sending");
            j.raw(if p.sending() { "true" } else { "false" });
            if let Some(c) = &p.chase {
                j.raw(",");
                j.key("chase");
                j.string(c.state.name());
                j.raw(",");
                j.key("timecode");
                match &c.timecode {
                    Some(tc) => {
                        let mut text: String<12> = String::new();
                        // 11 characters: fits.
                        let _ = core::fmt::write(&mut text, format_args!("{tc}"));
                        j.string(&text);
                    }
                    None => j.raw("null"),
                }
                number(j, "locates", u64::from(c.locates));
            }
            j.raw("}");
        }
        None => j.raw("null"),
    }
    number(j, "used_bytes", u64::from(s.used_bytes));
    number(j, "free_bytes", u64::from(s.free_bytes));
    j.raw(",");
    j.key("faults");
    j.raw("[");
    for (i, f) in s.faults.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{");
        j.key("code");
        j.string(fault_name(f.code));
        j.raw(",");
        j.key("detail");
        j.string(&f.detail);
        j.raw("}");
    }
    j.raw("]");
    if let Some(card) = &s.card {
        j.raw(",");
        j.key("card");
        card_json(j, card);
    }
    if let Some(live) = &s.live {
        j.raw(",");
        j.key("live");
        live_json(j, live);
    }
    j.raw(",");
    j.key("last");
    match &s.last {
        Some(l) => {
            j.raw("{");
            j.key("take");
            j.string(&l.take);
            number(j, "frames", u64::from(l.frames));
            number(j, "late_frames", u64::from(l.late_frames));
            number(j, "dropped", u64::from(l.dropped));
            j.raw(",");
            j.key("ended");
            j.string(l.ended.name());
            j.raw("}");
        }
        None => j.raw("null"),
    }
    j.raw("}");
}

/// The live relay as `{"state":...,"rate_mhz":N,...}`: its state in one
/// word, the source's rate and jitter, its counts and the bytes recorded.
fn live_json(j: &mut Json<'_>, l: &LiveStatus) {
    j.raw("{");
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
    j.raw("}");
}

/// The card's state as `{"scanning":...,"takes":N,"bad_files":N,"bad":[...]}`.
fn card_json(j: &mut Json<'_>, c: &CardStatus) {
    j.raw("{");
    j.key("scanning");
    j.raw(if c.scanning { "true" } else { "false" });
    number(j, "takes", u64::from(c.takes));
    number(j, "bad_files", u64::from(c.bad_files));
    j.raw(",");
    j.key("bad");
    j.raw("[");
    for (i, file) in c.bad.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.string(file);
    }
    j.raw("]}");
}

/// The takes `start..` of a list of `total` as `[{"name":...,"frames":...,"place":...}]`
/// (as many as fit one reply), then `"total":N` and, when takes follow the
/// ones shown, `"next":N`: where the next page starts.
pub fn takes_json(j: &mut Json<'_>, takes: &[TakeInfo], start: u32, total: u32) {
    // Room for `],"total":4294967295,"next":4294967295` after the list and
    // the reply's closing `}`.
    j.reserve(40);
    j.raw("[");
    let mut shown = 0;
    for t in takes {
        let mark = j.mark();
        if shown > 0 {
            j.raw(",");
        }
        j.raw("{");
        j.key("name");
        j.string(&t.name);
        number(j, "frames", u64::from(t.frame_count));
        j.raw(",");
        j.key("place");
        j.string(t.place.as_str());
        j.raw("}");
        if j.overflowed() {
            j.reset(mark);
            break;
        }
        shown += 1;
    }
    j.unreserve();
    j.raw("]");
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
