//! Playing a take to the show's Art-Net timecode ([`chase`]): the take's
//! first frame sits on the timecode at an offset (a label, or its own frame
//! time), and each frame goes out when the chased position
//! ([`llv_core::chase`], fed by [`ChaseFeed`]) reaches it. Frames follow on in
//! order; a jump of the position (a locate) seeks; while the chase waits,
//! locks or has stopped nothing is sent; a held position sends nothing new.
//! Loops do not apply: the timecode says where the take is.

use embassy_futures::select::select;
use embassy_time::{Duration, Instant, Timer};
use llv_core::artnet::Label;
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::settings::Target;

use crate::chase_feed::ChaseFeed;
use crate::player::{begin, send, PlayError, PlayReport, LATE_AFTER_US};
use crate::sink::PacketSink;
use crate::source::FrameSource;

/// How often the chase is looked at when no frame is due sooner.
pub const LOOK_EVERY: Duration = Duration::from_millis(20);

/// A position this far past the next frame, or back before the last one, is
/// a jump: seek instead of sending the frames between.
const SEEK_PAST_US: u32 = 100_000;

/// Plays `source` to `targets` following `timecode` (which must have begun),
/// its first frame at `offset` (its own frame time without one), until
/// cancelled. `progress` sees the report after each frame sent and each look.
pub async fn chase<S: FrameSource, K: PacketSink>(
    source: &mut S,
    sink: &mut K,
    targets: &[Target],
    timecode: &ChaseFeed,
    offset: Option<Label>,
    mut progress: impl FnMut(&PlayReport),
) -> Result<PlayReport, PlayError<S::Error>> {
    let (count, mut report) = begin(source, sink, targets)?;
    let period_us = source.period_us();
    let mut buf = [0u8; MAX_LEN];
    let own_us = match offset {
        Some(_) => 0,
        None => own_time(source, &mut buf).await?,
    };
    // The last frame sent and its time in the take.
    let mut sent: Option<(u32, u32)> = None;
    loop {
        let now = Instant::now();
        let look = timecode.with(now, |f| {
            let c = f.chase_at(now.as_micros());
            (c.position(now.as_micros()), f.offset_us(offset, own_us))
        });
        let mut wake = now + LOOK_EVERY;
        if let Some((Some(tc), Some(offset_us))) = look {
            let media = tc.checked_sub(offset_us);
            let next_media = match media {
                Some(m) if m < u64::from(period_us) => {
                    let m = m as u32;
                    let (index, sequential) = frame_at(source, m, sent, count).await?;
                    if sent.map(|s| s.0) != Some(index) {
                        let frame = source
                            .read_frame(index, &mut buf)
                            .await
                            .map_err(|error| PlayError::Source { index, error })?;
                        if sequential {
                            let late = m.saturating_sub(frame.time_us);
                            if u64::from(late) > LATE_AFTER_US {
                                report.late_frames += 1;
                            }
                            report.max_late_us = report.max_late_us.max(u64::from(late));
                        }
                        send(sink, &mut report, index, &buf[..frame.len.min(MAX_LEN)]);
                        sent = Some((index, frame.time_us));
                    }
                    match index + 1 {
                        n if n < count => Some(time_of(source, n).await?),
                        _ => None,
                    }
                }
                // Before the first frame: it is due at its time.
                None => Some(0),
                // Past the end: nothing more until the timecode goes back.
                Some(_) => None,
            };
            let due = next_media.and_then(|m| {
                timecode.with(now, |f| {
                    f.chase_at(now.as_micros())
                        .local_time_of(offset_us.saturating_add(u64::from(m)))
                })?
            });
            if let Some(due) = due {
                wake = wake.min(Instant::from_micros(due).max(now));
            }
        }
        report.due_us = wake.as_micros();
        progress(&report);
        // A timecode frame may move the position (a locate): look again then.
        select(Timer::at(wake), timecode.arrival()).await;
    }
}

/// The frame playing at `m` µs into the take (the last whose time is not
/// past it), and whether it follows `sent` on. Frames in order cost one
/// look at the next frame's time; a jump is a binary search. The position
/// going back less than a jump keeps the frame sent: time never runs
/// backwards in the output but for a locate.
async fn frame_at<S: FrameSource>(
    source: &mut S,
    m: u32,
    sent: Option<(u32, u32)>,
    count: u32,
) -> Result<(u32, bool), PlayError<S::Error>> {
    if let Some((last, last_time)) = sent {
        // Slewing may pull the position back a little: stay, never resend.
        if m < last_time && last_time - m < SEEK_PAST_US {
            return Ok((last, true));
        }
        if m >= last_time {
            let next = last + 1;
            if next >= count {
                return Ok((last, true));
            }
            let next_time = time_of(source, next).await?;
            if m < next_time {
                return Ok((last, true));
            }
            if m - next_time < SEEK_PAST_US {
                return Ok((next, true));
            }
        }
    }
    // The last frame whose time is not past m (frame 0's time is 0).
    let (mut lo, mut hi) = (0u32, count);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if time_of(source, mid).await? <= m {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok((lo, false))
}

/// Frame `index`'s time in the take.
async fn time_of<S: FrameSource>(source: &mut S, index: u32) -> Result<u32, PlayError<S::Error>> {
    source
        .frame_time(index)
        .await
        .map_err(|error| PlayError::Source { index, error })
}

/// The take's first frame's own frame time, as µs since midnight.
async fn own_time<S: FrameSource>(
    source: &mut S,
    buf: &mut [u8; MAX_LEN],
) -> Result<u64, PlayError<S::Error>> {
    let frame = source
        .read_frame(0, buf)
        .await
        .map_err(|error| PlayError::Source { index: 0, error })?;
    FaceFrame::decode(&buf[..frame.len.min(MAX_LEN)])
        .ok()
        .and_then(|f| f.time.micros_of_day())
        .ok_or(PlayError::NoTimecode)
}
