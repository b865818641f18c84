//! Playing a take to a show's timecode: a thin driver of the core's chase
//! ([`llv_core::chase::Playhead`], the engine the box and `llv serve` run
//! too). The [`Receiver`] feeds the chase from its thread; this one asks the
//! playhead what to do, sends the frames it cues and sleeps until it asks.
//! Frame times are the take image's ([`TakeTiming`]), so a take plays here
//! as it plays on a box.

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{anyhow, Result};
use embassy_futures::block_on;
use indicatif::ProgressBar;
use llv_core::artnet::TimecodeLabel;
use llv_core::chase::{ChaseState, FrameTimes, Playhead, PlayheadCounts, Step};
use llv_core::take::TakeTiming;
use llv_core::time::FrameRate;

use super::artnet::Receiver;
use super::pacer::{Pacer, Priority};
use crate::take::Take;

/// What a chased playback did.
#[derive(Clone, Debug, Default)]
pub struct ChaseReport {
    /// What the playhead cued: frames sent (each to every target), seeks
    /// (starts, locates), held frames sent again, late frames.
    pub cues: PlayheadCounts,
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

/// A take's frame times in memory.
struct TimesInMemory {
    times: Vec<u32>,
    end_us: u32,
}

impl TimesInMemory {
    /// The times `take`'s image would hold.
    fn of(take: &Take) -> Result<TimesInMemory> {
        let mut timing = TakeTiming::new(FrameRate::FPS_60);
        let times = take
            .frames()
            .enumerate()
            .map(|(i, p)| timing.next(u32::try_from(i).unwrap_or(u32::MAX), &p.time()))
            .collect::<Result<Vec<u32>, _>>()
            .map_err(|e| anyhow!("{e}"))?;
        let end_us = timing.period().map_err(|e| anyhow!("{e}"))?;
        Ok(TimesInMemory { times, end_us })
    }
}

impl FrameTimes for TimesInMemory {
    type Error = anyhow::Error;

    fn frame_count(&self) -> u32 {
        u32::try_from(self.times.len()).unwrap_or(u32::MAX)
    }

    fn end_us(&self) -> u32 {
        self.end_us
    }

    async fn time_us(&mut self, index: u32) -> Result<u32> {
        self.times
            .get(index as usize)
            .copied()
            .ok_or_else(|| anyhow!("no frame {index}"))
    }
}

/// Plays `take` following `receiver`'s chase, frame 0 at timecode `offset`
/// (its own frame time without one), until `stop` is set; `send` puts a
/// packet on the wire to every target.
pub fn play_chasing(
    take: &Take,
    offset: Option<TimecodeLabel>,
    receiver: &Receiver,
    stop: &AtomicBool,
    progress: &ProgressBar,
    mut send: impl FnMut(&[u8]),
) -> Result<ChaseReport> {
    let first = take
        .frames()
        .next()
        .ok_or_else(|| anyhow!("no frames to play"))?
        .time();
    if offset.is_none() && first.timecode().is_none() {
        return Err(anyhow!(
            "frame 1 has no usable frame time (rate {}): give --offset",
            first.rate
        ));
    }
    let mut times = TimesInMemory::of(take)?;
    let packets: Vec<&[u8]> = take.packets().collect();
    let mut head = Playhead::new(&times);
    let mut pacer = Pacer::new(true);
    let mut report = ChaseReport {
        real_time: pacer.priority() == Priority::RealTime,
        ..ChaseReport::default()
    };
    let mut state = None;
    while !stop.load(Ordering::Relaxed) {
        let (chase, offset_us, now) = receiver.with(|f, now| {
            (
                f.chase_at(now).clone(),
                f.offset_us(offset, Some(&first)),
                now,
            )
        });
        if state != Some(chase.state()) {
            state = Some(chase.state());
            progress.suspend(|| eprintln!("chase: {}", describe(chase.state())));
        }
        report.locates = chase.locates();
        match block_on(head.step(&mut times, &chase, offset_us, now))? {
            Step::Send(cue) => {
                let packet = packets
                    .get(cue.index as usize)
                    .ok_or_else(|| anyhow!("no frame {}", cue.index))?;
                send(packet);
                progress.inc(1);
                progress.set_message(format!(
                    "{} -> frame {}",
                    describe(chase.state()),
                    cue.index + 1
                ));
            }
            Step::Wait { until_us } => {
                pacer.wait_until(receiver.instant_of(until_us), stop);
            }
        }
    }
    report.cues = head.counts();
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
