//! `llv box ADDR check`: the bench check of a box, for whoever has one on a
//! desk. It uploads a phone take (`llv-check`), plays it to this computer and
//! measures the rate and how late frames arrive, uploads again while it
//! plays and counts late frames (the box's count and this computer's), has
//! the box power-cycled by hand and checks that it comes back and autoplays,
//! reads the clock source and the faults, puts the settings back, and prints
//! one report (a Markdown table, ready to paste into an issue) with pass or
//! fail per item and the figures.
//!
//! The protocol has no reboot request: the check asks for a power cycle and
//! waits until the box answers with an uptime that says it restarted.

use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use heapless::Vec as BoundedVec;
use llv_core::control::{ClockSource, Place, Request, Response, Start, Status};
use llv_core::packet::FaceFrame;
use llv_core::settings::{Autoplay, Setting, Settings, Target};
use serde::Serialize;

use super::client::{target, BoxClient};
use super::describe::clock_words;
use super::flash::{image_of, upload};
use crate::console::printable;
use crate::recording::{self, ReadOptions};

/// The take the check uploads and plays.
const CHECK_TAKE: &str = "llv-check";
/// The second upload, made while the first plays (deleted again at once).
const CHECK_UPLOAD: &str = "llv-check upload";
/// How far the take's time may run fast or slow at this computer (0.5 %:
/// far above a crystal's drift and this computer's timestamps over a few
/// seconds, under a bad clock's).
const RATE_TOLERANCE: f64 = 0.005;
/// The same for a box whose clock is an emulator's (QEMU): its time runs
/// as the emulator is scheduled, which a loaded computer stretches by a few
/// percent over seconds; 5 % still tells a 30 Hz take played at 60 fps.
const EMULATED_RATE_TOLERANCE: f64 = 0.05;

/// How far the take's time may run off at this computer on a box whose
/// clock is `clock`.
fn rate_tolerance(clock: ClockSource) -> f64 {
    match clock {
        ClockSource::Emulated => EMULATED_RATE_TOLERANCE,
        _ => RATE_TOLERANCE,
    }
}
/// How long to wait for the first autoplayed frame once the box is back.
const AUTOPLAY_WAIT: Duration = Duration::from_secs(30);
/// How often the check looks for the box during its power cycle.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// Arguments of `llv box ADDR check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The recording the check uploads and plays (a phone take; from the
    /// repository's root the default is there).
    #[arg(long, default_value = "examples/dao.gesichter")]
    pub take: PathBuf,
    /// Where the box sends the check's frames, HOST:PORT (default: this
    /// computer's address on the control connection, a free port).
    #[arg(long, value_name = "HOST:PORT")]
    pub to: Option<String>,
    /// Where this computer receives them, IP:PORT (default: the --to
    /// address, or 0.0.0.0 and --to's port when --to is given).
    #[arg(long, value_name = "IP:PORT")]
    pub listen: Option<SocketAddr>,
    /// Seconds each measured playback lasts.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// The latest a frame may be, in ms, by the box's count and at this computer.
    #[arg(long, default_value_t = 5.0)]
    pub late_ms: f64,
    /// Skip the power cycle and the autoplay check.
    #[arg(long)]
    pub no_reboot: bool,
    /// How long to wait for the box to come back from its power cycle, in s.
    #[arg(long, default_value_t = 180)]
    pub reboot_wait: u64,
}

/// One line of the report.
#[derive(Debug, Serialize)]
pub struct Item {
    /// What was checked.
    pub check: &'static str,
    /// `pass`, `FAIL` or `skipped`.
    pub result: &'static str,
    /// The figures.
    pub figures: String,
}

fn item(check: &'static str, pass: bool, figures: String) -> Item {
    Item {
        check,
        result: if pass { "pass" } else { "FAIL" },
        figures,
    }
}

/// Frames received, each with when it came and its time in the take (s).
struct Received {
    socket: UdpSocket,
    frames: Vec<(Instant, f64)>,
}

/// Receives frames on `socket` in a thread until `stop` is set.
fn receive(socket: UdpSocket, stop: Arc<AtomicBool>) -> JoinHandle<Received> {
    std::thread::spawn(move || {
        let mut frames = Vec::new();
        let mut buf = [0u8; 2048];
        while !stop.load(Ordering::Relaxed) {
            if let Ok(n) = socket.recv(&mut buf) {
                let at = Instant::now();
                if let Some(t) = FaceFrame::decode(&buf[..n])
                    .ok()
                    .and_then(|f| f.time.seconds())
                {
                    frames.push((at, t));
                }
            }
        }
        Received { socket, frames }
    })
}

/// Receives for `how_long`, then hands the socket back with the frames.
fn receive_for(socket: UdpSocket, how_long: Duration) -> Received {
    let stop = Arc::new(AtomicBool::new(false));
    let receiving = receive(socket, stop.clone());
    std::thread::sleep(how_long);
    stop.store(true, Ordering::Relaxed);
    receiving.join().expect("the receiving thread")
}

/// How late each frame came, in ms, against the take's own schedule: each
/// pass through a looping take on its own, its earliest frame (against its
/// time in the take) the reference.
pub fn lateness_ms(frames: &[(Instant, f64)]) -> Vec<f64> {
    let mut late = Vec::with_capacity(frames.len());
    let mut start = 0;
    for i in 1..=frames.len() {
        if i < frames.len() && frames[i].1 >= frames[i - 1].1 {
            continue;
        }
        let pass = &frames[start..i];
        let (t0, m0) = pass[0];
        let offsets: Vec<f64> = pass
            .iter()
            .map(|(at, media)| at.duration_since(t0).as_secs_f64() * 1e3 - (media - m0) * 1e3)
            .collect();
        let min = offsets.iter().copied().fold(f64::INFINITY, f64::min);
        late.extend(offsets.iter().map(|o| o - min));
        start = i;
    }
    late
}

/// The `p`th percentile (0..=100) of `values`, 0 when there are none.
fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n => sorted[((n - 1) as f64 * p / 100.0).round() as usize],
    }
}

/// Frames per second of wall time between the first and the last frame.
fn rate_hz(frames: &[(Instant, f64)]) -> f64 {
    match (frames.first(), frames.last()) {
        (Some(first), Some(last)) if frames.len() > 1 => {
            (frames.len() - 1) as f64 / last.0.duration_since(first.0).as_secs_f64()
        }
        _ => 0.0,
    }
}

/// How fast the take's time ran at this computer: the wall time between the
/// first and last frame of each pass through the take over their time in the
/// take, all passes together (1.0: exactly; 0 without two frames in a pass).
fn pace(frames: &[(Instant, f64)]) -> f64 {
    let (mut wall, mut media) = (0.0, 0.0);
    let mut start = 0;
    for i in 1..=frames.len() {
        if i < frames.len() && frames[i].1 >= frames[i - 1].1 {
            continue;
        }
        let (first, last) = (frames[start], frames[i - 1]);
        wall += last.0.duration_since(first.0).as_secs_f64();
        media += last.1 - first.1;
        start = i;
    }
    if media > 0.0 {
        wall / media
    } else {
        0.0
    }
}

fn status(client: &mut BoxClient) -> Result<Status> {
    match client.call(&Request::Status)? {
        Response::Status(s) => Ok(s),
        _ => bail!("the box answered Status with something else"),
    }
}

fn settings(client: &mut BoxClient) -> Result<Settings> {
    match client.call(&Request::GetSettings)? {
        Response::Settings { settings, .. } => Ok(settings),
        _ => bail!("the box answered GetSettings with something else"),
    }
}

fn play(client: &mut BoxClient, to: Target) -> Result<()> {
    let mut targets = BoundedVec::new();
    // One target: fits.
    let _ = targets.push(to);
    client.call(&Request::Play {
        name: CHECK_TAKE,
        targets,
        loop_count: 0,
        start: Start::Now,
    })?;
    Ok(())
}

/// The box's late frames, latest frame (µs) and frames dropped (all targets)
/// of what plays now.
fn box_lateness(s: &Status) -> (u32, u32, u32) {
    s.playing.as_ref().map_or((0, 0, 0), |p| {
        let dropped = p.targets.iter().map(|t| t.dropped).sum();
        (p.late_frames, p.max_late_us, dropped)
    })
}

/// Runs the check on the box at `addr` and prints the report; fails when an
/// item failed.
pub fn run(addr: &str, token: Option<&str>, args: &CheckArgs, json: bool) -> Result<()> {
    let mut items = Vec::new();
    let mut client = BoxClient::connect(addr, token)?;
    let first = status(&mut client)?;
    let found = format!(
        "{} at {}, up {} s",
        printable(&first.firmware),
        client.addr(),
        first.uptime_ms / 1000
    );
    items.push(item("box found", true, found.clone()));
    let header = format!("llv bench check of {found}");

    let (to, listen) = endpoints(&client, args)?;
    let socket = UdpSocket::bind(listen).with_context(|| format!("receiving on {listen}"))?;
    socket.set_read_timeout(Some(Duration::from_millis(50)))?;
    let to = match &to {
        Some(to) => target(to)?,
        None => {
            let local = socket.local_addr()?;
            target(&local.to_string())?
        }
    };

    let take = recording::load(&args.take, &ReadOptions::default())?.take;
    let image = image_of(&args.take, CHECK_TAKE, &take)?;
    let crc = llv_core::take::TakeHeader::parse(&image)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .crc32;
    let second = image_of(&args.take, CHECK_UPLOAD, &take)?;
    let second_crc = llv_core::take::TakeHeader::parse(&second)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .crc32;
    let uploaded = Instant::now();
    upload(&mut client, CHECK_TAKE, &image, crc, Place::Internal)?;
    let upload_s = uploaded.elapsed().as_secs_f64();
    items.push(item(
        "upload",
        true,
        format!(
            "{} bytes of {} in {upload_s:.1} s, CRC {crc:08x}",
            image.len(),
            args.take.display()
        ),
    ));

    // Playback: rate and lateness.
    play(&mut client, to)?;
    let got = receive_for(socket, Duration::from_secs(args.seconds));
    let played = status(&mut client)?;
    let (box_late, box_worst, box_dropped) = box_lateness(&played);
    let late = lateness_ms(&got.frames);
    let hz = rate_hz(&got.frames);
    let ran = pace(&got.frames);
    let worst = percentile(&late, 100.0);
    items.push(item(
        "playback rate",
        (ran - 1.0).abs() < rate_tolerance(played.clock),
        format!(
            "the take's time ran at {:+.0} ppm at this computer (limit {:.0}); {} frames in {} s ({hz:.2} Hz)",
            (ran - 1.0) * 1e6,
            rate_tolerance(played.clock) * 1e6,
            got.frames.len(),
            args.seconds
        ),
    ));
    items.push(item(
        "playback lateness",
        worst <= args.late_ms && f64::from(box_worst) / 1e3 <= args.late_ms && box_dropped == 0,
        format!(
            "this computer: p99 {:.1} ms, latest {worst:.1} ms; the box: {box_late} frames over 2 ms late, \
             latest {:.1} ms, {box_dropped} dropped (limit {} ms)",
            percentile(&late, 99.0),
            f64::from(box_worst) / 1e3,
            args.late_ms
        ),
    ));

    // An upload (with its erases) and a delete while the take plays.
    let stop = Arc::new(AtomicBool::new(false));
    let receiving = receive(got.socket, stop.clone());
    let started = Instant::now();
    let upload_result = upload(
        &mut client,
        CHECK_UPLOAD,
        &second,
        second_crc,
        Place::Internal,
    )
    .and_then(|()| {
        client
            .call(&Request::Delete { name: CHECK_UPLOAD })
            .map(|_| ())
    });
    let busy_s = started.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::Relaxed);
    let got = receiving.join().expect("the receiving thread");
    let during = status(&mut client)?;
    let (late_after, worst_after, dropped_after) = box_lateness(&during);
    let late = lateness_ms(&got.frames);
    let worst = percentile(&late, 100.0);
    items.push(item(
        "upload while playing",
        upload_result.is_ok()
            && worst <= args.late_ms
            && f64::from(worst_after) / 1e3 <= args.late_ms
            && dropped_after == box_dropped,
        format!(
            "{} bytes up and deleted in {busy_s:.1} s{}; this computer: {} frames, latest {worst:.1} ms; \
             the box: {} more frames over 2 ms late, latest {:.1} ms, {} more dropped",
            second.len(),
            match &upload_result {
                Ok(()) => String::new(),
                Err(e) => format!(" (failed: {e:#})"),
            },
            got.frames.len(),
            late_after.saturating_sub(box_late),
            f64::from(worst_after) / 1e3,
            dropped_after.saturating_sub(box_dropped)
        ),
    ));
    client.call(&Request::Stop)?;
    let socket = got.socket;

    // A power cycle and the autoplay after it.
    let before = settings(&mut client)?;
    let mut last = during;
    if args.no_reboot {
        items.push(Item {
            check: "power cycle and autoplay",
            result: "skipped",
            figures: "--no-reboot".into(),
        });
    } else {
        let (item, after, back) = reboot(client, token, socket, to, args)?;
        items.push(item);
        client = back;
        if let Some(after) = after {
            last = after;
        }
    }

    // The clock and the faults, as the box last said.
    items.push(item(
        "clock source",
        last.clock != ClockSource::Internal,
        clock_words(last.clock).to_string(),
    ));
    let faults: Vec<String> = last
        .faults
        .iter()
        .map(|f| format!("{:?}: {}", f.code, printable(&f.detail)))
        .collect();
    items.push(item(
        "faults",
        faults.is_empty(),
        if faults.is_empty() {
            "none".into()
        } else {
            faults.join("; ")
        },
    ));

    // Leave the box as it was found.
    let _ = client.call(&Request::Stop);
    restore(&mut client, &before)?;
    client.call(&Request::Delete { name: CHECK_TAKE })?;

    print_report(&header, &items, json)?;
    let failed = items.iter().filter(|i| i.result == "FAIL").count();
    if failed > 0 {
        bail!("{failed} of {} checks failed", items.len());
    }
    Ok(())
}

/// Where the box sends frames (`None`: to the socket's own address) and
/// where this computer listens.
fn endpoints(client: &BoxClient, args: &CheckArgs) -> Result<(Option<String>, SocketAddr)> {
    Ok(match (&args.to, args.listen) {
        (to, Some(listen)) => (to.clone(), listen),
        (Some(to), None) => {
            let t = target(to)?;
            (Some(to.clone()), SocketAddr::from(([0, 0, 0, 0], t.port)))
        }
        (None, None) => (None, SocketAddr::new(client.local_addr()?.ip(), 0)),
    })
}

/// Sets autoplay of the check's take to `to`, asks for a power cycle, waits
/// for the box to come back and for the autoplayed frames.
fn reboot(
    mut client: BoxClient,
    token: Option<&str>,
    socket: UdpSocket,
    to: Target,
    args: &CheckArgs,
) -> Result<(Item, Option<Status>, BoxClient)> {
    let mut targets = BoundedVec::new();
    let _ = targets.push(to);
    let mut changes = BoundedVec::new();
    let _ = changes.push(Setting::Targets(targets));
    let _ = changes.push(Setting::Autoplay(Some(Autoplay {
        take: CHECK_TAKE.try_into().expect("a short name"),
        loop_count: 0,
    })));
    client.call(&Request::SetSettings { changes })?;
    // Paced saves: wait until the settings are written to flash.
    let written_by = Instant::now() + Duration::from_secs(30);
    while status(&mut client)?.wear.settings_pending {
        if Instant::now() > written_by {
            bail!("the box did not write its settings within 30 s");
        }
        std::thread::sleep(LOOK_EVERY);
    }
    let uptime = status(&mut client)?.uptime_ms;
    let asked = Instant::now();
    let addr = client.addr().to_string();
    drop(client);
    eprintln!(
        "check: power-cycle the box now (unplug its power, plug it in again); waiting up to {} s",
        args.reboot_wait
    );
    let stop = Arc::new(AtomicBool::new(false));
    let receiving = receive(socket, stop.clone());
    let limit = Duration::from_secs(args.reboot_wait);
    let (mut client, back_s) = loop {
        let expected_ms = uptime + asked.elapsed().as_millis() as u64;
        if let Ok(mut c) = BoxClient::connect(&addr, token) {
            if let Ok(s) = status(&mut c) {
                if s.uptime_ms + 2000 < expected_ms {
                    break (c, asked.elapsed().as_secs_f64());
                }
            }
        }
        if asked.elapsed() > limit {
            stop.store(true, Ordering::Relaxed);
            let _ = receiving.join();
            let client = BoxClient::connect(&addr, token)?;
            return Ok((
                item(
                    "power cycle and autoplay",
                    false,
                    format!("the box did not restart within {} s", args.reboot_wait),
                ),
                None,
                client,
            ));
        }
        std::thread::sleep(LOOK_EVERY);
    };
    let came = Instant::now();
    // The autoplay's frames, then a few seconds of them.
    let mut waited = None;
    while came.elapsed() < AUTOPLAY_WAIT && waited.is_none() {
        let s = status(&mut client)?;
        if s.playing.as_ref().is_some_and(|p| p.take == CHECK_TAKE) {
            waited = Some(came.elapsed().as_secs_f64() + back_s);
        } else {
            std::thread::sleep(LOOK_EVERY);
        }
    }
    std::thread::sleep(Duration::from_secs(args.seconds.min(5)));
    stop.store(true, Ordering::Relaxed);
    let got = receiving.join().expect("the receiving thread");
    let after = status(&mut client)?;
    let since: Vec<(Instant, f64)> = got
        .frames
        .into_iter()
        .filter(|(at, _)| *at >= came)
        .collect();
    let hz = rate_hz(&since);
    let ran = pace(&since);
    let pass = waited.is_some()
        && (ran - 1.0).abs() < rate_tolerance(after.clock)
        && after.playing.as_ref().is_some_and(|p| p.take == CHECK_TAKE);
    let figures = match waited {
        Some(w) => format!(
            "back {back_s:.1} s after the request, autoplaying {w:.1} s after it (up {:.1} s); \
             {} frames at {hz:.2} Hz, the take's time at {:+.0} ppm at this computer (limit {:.0})",
            after.uptime_ms as f64 / 1e3,
            since.len(),
            (ran - 1.0) * 1e6,
            rate_tolerance(after.clock) * 1e6
        ),
        None => format!(
            "back {back_s:.1} s after the request; no autoplay within {} s",
            AUTOPLAY_WAIT.as_secs()
        ),
    };
    Ok((
        item("power cycle and autoplay", pass, figures),
        Some(after),
        client,
    ))
}

/// Puts back the targets and the autoplay the check changed.
fn restore(client: &mut BoxClient, before: &Settings) -> Result<()> {
    let now = settings(client)?;
    if now.targets == before.targets && now.autoplay == before.autoplay {
        return Ok(());
    }
    let mut changes = BoundedVec::new();
    let _ = changes.push(Setting::Targets(before.targets.clone()));
    let _ = changes.push(Setting::Autoplay(before.autoplay.clone()));
    client.call(&Request::SetSettings { changes })?;
    Ok(())
}

fn print_report(header: &str, items: &[Item], json: bool) -> Result<()> {
    if json {
        crate::outln!(
            "{}",
            serde_json::to_string(&serde_json::json!({ "check": header, "items": items }))?
        );
        return Ok(());
    }
    crate::outln!("## {header}");
    crate::outln!();
    crate::outln!("| check | result | figures |");
    crate::outln!("|---|---|---|");
    for i in items {
        crate::outln!(
            "| {} | {} | {} |",
            i.check,
            i.result,
            i.figures.replace('|', "/")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_is_per_pass_against_the_takes_schedule() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        // Two passes of three frames 10 ms apart; the second frame of the
        // second pass 7 ms late.
        let frames = [
            (at(0), 0.0),
            (at(10), 0.01),
            (at(20), 0.02),
            (at(30), 0.0),
            (at(47), 0.01),
            (at(50), 0.02),
        ];
        let late = lateness_ms(&frames);
        let rounded: Vec<i64> = late.iter().map(|l| l.round() as i64).collect();
        assert_eq!(rounded, [0, 0, 0, 0, 7, 0]);
        assert_eq!(percentile(&late, 100.0).round(), 7.0);
        assert!((rate_hz(&frames) - 100.0).abs() < 1e-6);
        // 40 ms of wall time for 40 ms of the take's.
        assert!((pace(&frames) - 1.0).abs() < 1e-9);
    }
}
