//! Playing a take to the show's Art-Net timecode ([`chase`]): a thin driver
//! of the core's chase ([`llv_core::chase::Playhead`], the engine `llv play
//! --chase` and `llv serve` run too). [`ChaseFeed`] keeps the chase; this
//! asks the playhead what to do, reads and sends the frames it cues, and
//! waits until it asks or timecode arrives. Loops do not apply: the
//! timecode says where the take is.

use embassy_futures::select::select;
use embassy_time::{Instant, Timer};
use llv_core::artnet::TimecodeLabel;
use llv_core::chase::playhead::LOOK_EVERY_US;
use llv_core::chase::{FrameTimes, Playhead, Step};
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::settings::Target;
use llv_core::time::FrameTime;

use crate::chase_feed::ChaseFeed;
use crate::player::{begin, send, PlayError, PlayReport};
use crate::sink::PacketSink;
use crate::source::FrameSource;

/// A [`FrameSource`]'s frame times, as the playhead reads them.
struct SourceTimes<'s, S>(&'s mut S);

impl<S: FrameSource> FrameTimes for SourceTimes<'_, S> {
    type Error = PlayError<S::Error>;

    fn frame_count(&self) -> u32 {
        self.0.frame_count()
    }

    fn end_us(&self) -> u32 {
        self.0.period_us()
    }

    async fn time_us(&mut self, index: u32) -> Result<u32, Self::Error> {
        self.0
            .frame_time(index)
            .await
            .map_err(|error| PlayError::Source { index, error })
    }
}

/// Plays `source` to `targets` following `timecode` (which must have begun),
/// its first frame at `offset` (its own frame time without one), until
/// cancelled. `progress` sees the report after each frame sent and each look.
pub async fn chase<S: FrameSource, K: PacketSink>(
    source: &mut S,
    sink: &mut K,
    targets: &[Target],
    timecode: &ChaseFeed,
    offset: Option<TimecodeLabel>,
    mut progress: impl FnMut(&PlayReport),
) -> Result<PlayReport, PlayError<S::Error>> {
    let (_, mut report) = begin(source, sink, targets)?;
    let mut buf = [0u8; MAX_LEN];
    let first = first_time(source, &mut buf).await?;
    if offset.is_none() && first.and_then(|f| f.timecode()).is_none() {
        return Err(PlayError::NoTimecode);
    }
    let mut head = Playhead::new(&SourceTimes(&mut *source));
    loop {
        let now = Instant::now();
        let look = timecode.with(now, |f| {
            (
                f.chase_at(now.as_micros()).clone(),
                f.offset_us(offset, first.as_ref()),
            )
        });
        let step = match look {
            Some((chase, offset_us)) => {
                head.step(
                    &mut SourceTimes(&mut *source),
                    &chase,
                    offset_us,
                    now.as_micros(),
                )
                .await?
            }
            // Nothing chases (the feed ended before the playback): look again.
            None => Step::Wait {
                until_us: now.as_micros() + LOOK_EVERY_US,
            },
        };
        match step {
            Step::Send(cue) => {
                let frame = source
                    .read_frame(cue.index, &mut buf)
                    .await
                    .map_err(|error| PlayError::Source {
                        index: cue.index,
                        error,
                    })?;
                send(sink, &mut report, cue.index, &buf[..frame.len.min(MAX_LEN)]);
                let counts = head.counts();
                report.late_frames = counts.late_frames;
                report.max_late_us = counts.max_late_us;
                progress(&report);
            }
            Step::Wait { until_us } => {
                report.due_us = until_us;
                progress(&report);
                // A timecode frame may move the position (a locate): look again then.
                select(
                    Timer::at(Instant::from_micros(until_us)),
                    timecode.arrival(),
                )
                .await;
            }
        }
    }
}

/// The take's first frame's own frame time (`None` when it does not decode).
async fn first_time<S: FrameSource>(
    source: &mut S,
    buf: &mut [u8; MAX_LEN],
) -> Result<Option<FrameTime>, PlayError<S::Error>> {
    let frame = source
        .read_frame(0, buf)
        .await
        .map_err(|error| PlayError::Source { index: 0, error })?;
    Ok(FaceFrame::decode(&buf[..frame.len.min(MAX_LEN)])
        .ok()
        .map(|f| f.time))
}
