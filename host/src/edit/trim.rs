//! Trimming: keep the frames from an in point up to, not including, an out
//! point, given as a timecode, as seconds from the first frame, or as a frame
//! index (0-based), as editors do (in inclusive, out exclusive). Frames are
//! placed by their take time (`TakeTime`: it runs on through midnight, so
//! `--from 23:59:58:00 --to 00:00:02:00` keeps 4 s of a take that runs
//! through it). A timecode is read at each frame's own rate (drop-frame at
//! 29.97 and 59.94), within 12 hours of that frame, and a frame belongs to the
//! span its time (frame number plus subframe) falls in, so `--from
//! 13:13:04:31` keeps a frame at `13:13:04:31.652` and `--to 13:13:04:31`
//! drops it.

use std::fmt;

use anyhow::{anyhow, bail, Result};
use llv_core::time::{FrameTime, TakeTime, Timecode};

use super::{Frame, Out, Stage};

/// An in or out point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Point {
    /// A timecode `HH:MM:SS:FF[.fff]` at the frame's own rate.
    Timecode(Timecode),
    /// Seconds from the first frame's time.
    Seconds(f64),
    /// A frame index, 0-based, in the stream being trimmed.
    Index(u64),
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Point::Timecode(tc) => write!(f, "{tc}"),
            Point::Seconds(s) => write!(f, "{s} s"),
            Point::Index(i) => write!(f, "frame {i}"),
        }
    }
}

/// Whether the frame at `index`, at take time `take_ns`, comes before
/// `point`; `take` has taken the frame, so it places a timecode point by the
/// same arithmetic.
fn before(
    point: &Point,
    index: u64,
    time: &FrameTime,
    take_ns: i128,
    take: &TakeTime,
) -> Result<bool> {
    Ok(match point {
        Point::Index(i) => index < *i,
        Point::Seconds(s) => (take_ns as f64) / 1e9 < *s,
        Point::Timecode(tc) => {
            let at = tc.to_frame_time(time.rate).map_err(|e| {
                anyhow!(
                    "timecode {tc} at the rate of frame {index} ({}): {e}",
                    time.rate
                )
            })?;
            let point_ns = take
                .peek_nanos(&at)
                .ok_or_else(|| anyhow!("frame {index}: rate {} has no time", time.rate))?;
            take_ns < point_ns
        }
    })
}

/// Refuses an in point that is not before the out point when both are of
/// one kind (frame indexes, seconds), before any frame is read.
pub fn check_order(from: Option<Point>, to: Option<Point>) -> Result<()> {
    let inverted = match (from, to) {
        (Some(Point::Index(a)), Some(Point::Index(b))) => a >= b,
        (Some(Point::Seconds(a)), Some(Point::Seconds(b))) => a >= b,
        _ => false,
    };
    match (from, to) {
        (Some(a), Some(b)) if inverted => Err(inverted_error(&a, &b)),
        _ => Ok(()),
    }
}

fn inverted_error(from: &Point, to: &Point) -> anyhow::Error {
    anyhow!("trim from {from} to {to}: the in point is not before the out point, so no frame would be kept")
}

/// The trim stage.
pub struct Trim {
    from: Option<Point>,
    to: Option<Point>,
    index: u64,
    take: TakeTime,
    kept: u64,
    span: Option<(FrameTime, FrameTime)>,
    /// A frame was both before the in point and at or past the out point.
    inverted: bool,
    first: Option<FrameTime>,
    last: Option<FrameTime>,
}

impl Trim {
    /// Keeps frames at or after `from` and before `to` (either may be open).
    pub fn new(from: Option<Point>, to: Option<Point>) -> Self {
        Trim {
            from,
            to,
            index: 0,
            take: TakeTime::new(),
            kept: 0,
            span: None,
            inverted: false,
            first: None,
            last: None,
        }
    }
}

impl Stage for Trim {
    fn push(&mut self, frame: Frame, out: Out<'_>) -> Result<()> {
        let index = self.index;
        self.index += 1;
        let take_ns = self
            .take
            .next_nanos(&frame.time)
            .ok_or_else(|| anyhow!("frame {index}: rate {} has no time", frame.time.rate))?;
        let at = |p: &Point| before(p, index, &frame.time, take_ns, &self.take);
        let after_in = match &self.from {
            Some(p) => !at(p)?,
            None => true,
        };
        let before_out = match &self.to {
            Some(p) => at(p)?,
            None => true,
        };
        self.inverted |= !after_in && !before_out;
        self.first.get_or_insert(frame.time);
        self.last = Some(frame.time);
        if after_in && before_out {
            self.kept += 1;
            self.span = Some((self.span.map_or(frame.time, |(f, _)| f), frame.time));
            out(frame)?;
        }
        Ok(())
    }

    /// An empty result is an error: an empty take helps no one, and LLV cannot read it.
    fn finish(&mut self, _out: Out<'_>) -> Result<()> {
        if self.kept > 0 {
            return Ok(());
        }
        if let (true, Some(from), Some(to)) = (self.inverted, &self.from, &self.to) {
            return Err(inverted_error(from, to));
        }
        let tc = |t: Option<FrameTime>| {
            t.and_then(|t| t.timecode())
                .map_or("-".to_string(), |t| t.to_string())
        };
        let from = self.from.map_or("the start".to_string(), |p| p.to_string());
        let to = self.to.map_or("the end".to_string(), |p| p.to_string());
        bail!(
            "trim from {from} to {to} keeps none of the {} frames (the take runs from {} to {})",
            self.index,
            tc(self.first),
            tc(self.last)
        )
    }

    fn report(&self) -> String {
        let from = self.from.map_or("the start".to_string(), |p| p.to_string());
        let to = self.to.map_or("the end".to_string(), |p| p.to_string());
        let span = match self.span {
            Some((a, b)) => format!(
                " ({} to {})",
                a.timecode().map_or("-".into(), |t| t.to_string()),
                b.timecode().map_or("-".into(), |t| t.to_string())
            ),
            None => String::new(),
        };
        format!(
            "trim from {from} to {to}: kept {} of {} frames{span}",
            self.kept, self.index
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::tests_support::{frame, run};
    use llv_core::time::FrameRate;

    #[test]
    fn in_is_inclusive_out_exclusive_by_timecode_seconds_and_index() {
        let rate = FrameRate::FPS_60;
        let frames: Vec<Frame> = (0..120).map(|n| frame(3600 + n, rate, |_| 0.0)).collect();
        let numbers = |t: &mut Trim| -> Vec<i32> {
            run(t, frames.clone())
                .iter()
                .map(|f| f.time.frame_number)
                .collect()
        };
        let tc = |s: &str| Some(Point::Timecode(Timecode::parse(s).unwrap()));
        // 3600 frames at 60 fps = 00:01:00:00.
        let mut t = Trim::new(tc("00:01:00:10"), tc("00:01:00:13"));
        assert_eq!(numbers(&mut t), [3610, 3611, 3612]);
        assert_eq!(
            t.report(),
            "trim from 00:01:00:10.000 to 00:01:00:13.000: kept 3 of 120 frames \
             (00:01:00:10.000 to 00:01:00:12.000)"
        );
        let mut t = Trim::new(Some(Point::Seconds(1.0)), Some(Point::Seconds(1.05)));
        assert_eq!(numbers(&mut t), [3660, 3661, 3662]);
        let mut t = Trim::new(Some(Point::Index(118)), None);
        assert_eq!(numbers(&mut t), [3718, 3719]);
        let mut t = Trim::new(None, Some(Point::Index(2)));
        assert_eq!(numbers(&mut t), [3600, 3601]);
    }

    #[test]
    fn a_take_through_midnight_trims_by_timecode_and_seconds() {
        // 60 fps from 23:59:59:00 to 00:00:00:59.
        let rate = FrameRate::FPS_60;
        let day = 24 * 3600 * 60;
        let frames: Vec<Frame> = (0..120)
            .map(|n| frame((day - 60 + n) % day, rate, |_| 0.0))
            .collect();
        let tc = |s: &str| Some(Point::Timecode(Timecode::parse(s).unwrap()));
        let mut t = Trim::new(tc("23:59:59:58"), tc("00:00:00:02"));
        let kept: Vec<i32> = run(&mut t, frames.clone())
            .iter()
            .map(|f| f.time.frame_number)
            .collect();
        assert_eq!(kept, [day - 2, day - 1, 0, 1]);
        let mut t = Trim::new(Some(Point::Seconds(0.5)), Some(Point::Seconds(1.5)));
        assert_eq!(run(&mut t, frames).len(), 60);
    }

    #[test]
    fn subframes_belong_to_their_frame() {
        let mut f = frame(31, FrameRate::FPS_60, |_| 0.0);
        f.time.subframe = 0.652;
        let tc = |s: &str| Some(Point::Timecode(Timecode::parse(s).unwrap()));
        assert_eq!(
            run(&mut Trim::new(tc("00:00:00:31"), None), vec![f.clone()]).len(),
            1
        );
        let mut kept = 0;
        Trim::new(None, tc("00:00:00:31"))
            .push(f.clone(), &mut |_| {
                kept += 1;
                Ok(())
            })
            .unwrap();
        assert_eq!(kept, 0);
        assert_eq!(
            run(&mut Trim::new(None, tc("00:00:00:31.700")), vec![f]).len(),
            1
        );
    }

    #[test]
    fn inverted_and_empty_trims_are_refused_naming_both_bounds() {
        let rate = FrameRate::FPS_60;
        let frames: Vec<Frame> = (0..120).map(|n| frame(3600 + n, rate, |_| 0.0)).collect();
        let err = check_order(Some(Point::Index(10)), Some(Point::Index(5))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "trim from frame 10 to frame 5: the in point is not before the out point, \
             so no frame would be kept"
        );
        let err = check_order(Some(Point::Seconds(2.0)), Some(Point::Seconds(1.5))).unwrap_err();
        assert!(
            err.to_string().starts_with("trim from 2 s to 1.5 s: "),
            "{err}"
        );
        assert!(check_order(Some(Point::Index(1)), Some(Point::Seconds(0.5))).is_ok());
        // Timecodes, and mixed kinds, show their order in the take.
        let tc = |s: &str| Some(Point::Timecode(Timecode::parse(s).unwrap()));
        let finish = |t: &mut Trim| {
            let mut sink = |_: Frame| Ok(());
            for f in frames.clone() {
                t.push(f, &mut sink).unwrap();
            }
            t.finish(&mut sink).map_err(|e| e.to_string())
        };
        let mut t = Trim::new(tc("00:01:01:00"), tc("00:01:00:30"));
        assert_eq!(
            finish(&mut t).unwrap_err(),
            "trim from 00:01:01:00.000 to 00:01:00:30.000: the in point is not before the \
             out point, so no frame would be kept"
        );
        let mut t = Trim::new(tc("00:01:01:00"), Some(Point::Seconds(0.5)));
        assert!(finish(&mut t)
            .unwrap_err()
            .contains("the in point is not before"));
        // In order but past the take's end.
        let mut t = Trim::new(Some(Point::Seconds(10.0)), Some(Point::Seconds(20.0)));
        assert_eq!(
            finish(&mut t).unwrap_err(),
            "trim from 10 s to 20 s keeps none of the 120 frames \
             (the take runs from 00:01:00:00.000 to 00:01:01:59.000)"
        );
    }
}
