//! Starting several boxes at the same instant without timecode: each box's
//! clock is measured over its control connection, NTP style ([`measure`]:
//! the round trip with the least delay bounds the error to half of it), and
//! each box is told to start when its own clock reaches the common instant
//! ([`Start::At`]).

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use llv_core::control::{Request, Response, Start};

use super::client::BoxClient;

/// Round trips per box; the quickest one counts.
pub const ROUND_TRIPS: usize = 8;
/// How far ahead of the last measurement the boxes start, beyond the slowest
/// round trip: time for every Play to arrive.
pub const LEAD: Duration = Duration::from_millis(300);

/// A box's clock against the host's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockOffset {
    /// The box's clock minus the host's, in µs (both since their own zero).
    pub offset_us: i64,
    /// The quickest round trip, in µs: the offset is right within half of it.
    pub rtt_us: u64,
}

impl ClockOffset {
    /// The box's clock when the host's reads `host_us`.
    pub fn box_time(&self, host_us: u64) -> u64 {
        host_us.saturating_add_signed(self.offset_us)
    }
}

/// The offset of one sample: the box read `box_us` between host times `sent_us` and `got_us`.
pub fn sample(sent_us: u64, box_us: u64, got_us: u64) -> ClockOffset {
    let mid = sent_us + got_us.saturating_sub(sent_us) / 2;
    ClockOffset {
        offset_us: box_us as i64 - mid as i64,
        rtt_us: got_us.saturating_sub(sent_us),
    }
}

/// Measures `client`'s box against `epoch` with [`ROUND_TRIPS`] Clock requests.
pub fn measure(client: &mut BoxClient, epoch: Instant) -> Result<ClockOffset> {
    let mut best: Option<ClockOffset> = None;
    for _ in 0..ROUND_TRIPS {
        let sent = micros(epoch.elapsed());
        let Response::Clock { now_us } = client.call(&Request::Clock)? else {
            bail!(
                "{}: the box answered Clock with something else",
                client.addr()
            );
        };
        let s = sample(sent, now_us, micros(epoch.elapsed()));
        if best.is_none_or(|b| s.rtt_us < b.rtt_us) {
            best = Some(s);
        }
    }
    best.ok_or_else(|| anyhow::anyhow!("no round trip"))
}

/// The [`Start::At`] of each box for a common start [`LEAD`] after now plus
/// the slowest round trip, and how far ahead that is.
pub fn starts(offsets: &[ClockOffset], epoch: Instant) -> (Vec<Start>, Duration) {
    let slowest = offsets.iter().map(|o| o.rtt_us).max().unwrap_or(0);
    let ahead = LEAD + Duration::from_micros(slowest);
    let at = micros(epoch.elapsed() + ahead);
    let starts = offsets.iter().map(|o| Start::At(o.box_time(at))).collect();
    (starts, ahead)
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_puts_the_box_reading_at_the_middle_of_the_round_trip() {
        let s = sample(1_000, 50_500, 2_000);
        assert_eq!(
            s,
            ClockOffset {
                offset_us: 49_000,
                rtt_us: 1_000
            }
        );
        assert_eq!(s.box_time(10_000), 59_000);
        // A box whose clock is behind the host's.
        let behind = sample(1_000_000, 400, 1_000_200);
        assert_eq!(behind.offset_us, -999_700);
        assert_eq!(behind.box_time(2_000_000), 1_000_300);
    }

    #[test]
    fn every_box_starts_at_the_same_host_instant_on_its_own_clock() {
        let epoch = Instant::now();
        let offsets = [
            ClockOffset {
                offset_us: 5_000_000,
                rtt_us: 400,
            },
            ClockOffset {
                offset_us: -2_000,
                rtt_us: 9_000,
            },
        ];
        let (starts, ahead) = starts(&offsets, epoch);
        assert_eq!(ahead, LEAD + Duration::from_micros(9_000));
        let [Start::At(a), Start::At(b)] = starts[..] else {
            panic!("{starts:?}");
        };
        assert_eq!(a - b, 5_002_000);
    }
}
