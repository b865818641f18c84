//! Playing a take to a show's timecode: the frame sent is the one whose time
//! in the take, placed at `offset` on the timecode, matches the chased
//! position ([`llv_core::chase`]), sent when the position reaches it. A locate
//! seeks; a held position sends nothing new; waiting, locking and stopped send
//! nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{anyhow, Result};
use indicatif::ProgressBar;
use llv_core::artnet::Label;
use llv_core::chase::ChaseState;
use llv_core::pacing::FrameClock;
use llv_core::time::FrameRate;

use super::artnet::Receiver;
use super::pacer::{Pacer, Priority};
use crate::take::Take;

/// A position back less than this before the frame sent keeps it (slewing);
/// further back is a locate.
const STAY_BACK_US: u64 = 100_000;

/// How often the player looks at the chase when no frame is due sooner.
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// What a chased playback did.
#[derive(Clone, Debug, Default)]
pub struct ChaseReport {
    /// Frames sent (each to every target).
    pub frames: u64,
    /// Times the frame sent jumped instead of following on (locates, starts).
    pub seeks: u64,
    /// Locates the chase made.
    pub locates: u32,
    /// Valid timecode frames received.
    pub timecode_frames: u64,
    /// Datagrams that were not valid timecode, ignored.
    pub bad_packets: u64,
    /// Timecode of another stream, ignored.
    pub other_stream: u64,
    /// Other Art-Net operations (DMX, polls...), ignored.
    pub other_ops: u64,
    /// How the chase stood at the end.
    pub last_state: Option<ChaseState>,
    /// The player ran with real-time priority.
    pub real_time: bool,
}

/// Plays `take` following `receiver`'s chase, frame 0 at timecode `offset`
/// (its own frame time without one), until `stop` is set; `send` puts a
/// packet on the wire to every target.
pub fn play_chasing(
    take: &Take,
    offset: Option<Label>,
    receiver: &Receiver,
    stop: &AtomicBool,
    progress: &ProgressBar,
    mut send: impl FnMut(&[u8]),
) -> Result<ChaseReport> {
    // Each frame's time from frame 0, in µs, by the take's own frame times.
    let first = take
        .frames()
        .next()
        .ok_or_else(|| anyhow!("no frames to play"))?;
    let own_us = match offset {
        Some(_) => 0,
        None => first
            .time()
            .micros_of_day()
            .ok_or_else(|| anyhow!("frame 1 has no usable frame time: give --offset"))?,
    };
    let mut clock = FrameClock::new(
        Some(first.time().rate)
            .filter(|r| r.is_valid())
            .unwrap_or(FrameRate::FPS_60),
    );
    let times: Vec<u64> = take
        .frames()
        .map(|p| u64::try_from(clock.next(&p.time()).as_micros()).unwrap_or(u64::MAX))
        .collect();
    let packets: Vec<&[u8]> = take.packets().collect();
    let period = u64::try_from(clock.frame_period().as_micros()).unwrap_or(u64::MAX);
    let mut pacer = Pacer::new(true);
    let mut report = ChaseReport {
        real_time: pacer.priority() == Priority::RealTime,
        ..ChaseReport::default()
    };
    let mut last: Option<usize> = None;
    let mut state = None;
    while !stop.load(Ordering::Relaxed) {
        let (now_state, position, now, locates, offset_us) = receiver.with(|f, now| {
            let c = f.chase_at(now).clone();
            (
                c.state(),
                c.position(now),
                now,
                c.locates(),
                f.offset_us(offset, own_us),
            )
        });
        report.locates = locates;
        if state != Some(now_state) {
            state = Some(now_state);
            progress.suspend(|| eprintln!("chase: {}", describe(now_state)));
        }
        let mut wake = now + u64::try_from(LOOK_EVERY.as_micros()).unwrap_or(20_000);
        if let (Some(tc), Some(offset_us)) = (position, offset_us) {
            let media = tc.checked_sub(offset_us);
            let index = media.and_then(|m| {
                let i = times.partition_point(|t| *t <= m).checked_sub(1)?;
                // Slewing may pull the position back a little: stay, never resend.
                let i = match last {
                    Some(l) if i < l && times[l] - m < STAY_BACK_US => l,
                    _ => i,
                };
                // Past the last frame's own span the take is over.
                (m < times[i].saturating_add(period)).then_some(i)
            });
            if let Some(i) = index {
                if last != Some(i) {
                    if last.is_none_or(|l| i != l + 1) {
                        report.seeks += 1;
                    }
                    send(packets[i]);
                    report.frames += 1;
                    last = Some(i);
                    progress.inc(1);
                    progress.set_message(format!("{} -> frame {}", describe(now_state), i + 1));
                }
            }
            // The next frame is due when the position reaches it.
            let next_media = match index {
                Some(i) => times.get(i + 1).copied(),
                None => media.map_or(Some(0), |_| None),
            };
            let due = next_media.and_then(|m| {
                receiver.with(|f, now| f.chase_at(now).local_time_of(offset_us.saturating_add(m)))
            });
            if let Some(due) = due {
                wake = wake.min(due.max(now));
            }
        }
        pacer.wait_until(receiver.instant_of(wake), stop);
    }
    receiver.with(|f, _| {
        let status = f.status();
        report.timecode_frames = u64::from(status.timecode_frames);
        report.bad_packets = u64::from(status.bad_packets);
        report.other_stream = u64::from(f.other_stream());
        report.other_ops = u64::from(f.other_ops());
    });
    report.last_state = state;
    Ok(report)
}

/// A state in words, as the host output and `llv box status` show it.
pub fn describe(state: ChaseState) -> &'static str {
    match state {
        ChaseState::Waiting => "waiting for timecode",
        ChaseState::Locking => "locking",
        ChaseState::Locked => "locked",
        ChaseState::Freewheel => "freewheel (timecode lost)",
        ChaseState::Stopped => "stopped (timecode lost too long)",
        ChaseState::Held => "held (timecode lost too long)",
    }
}
