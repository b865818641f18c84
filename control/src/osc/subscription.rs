//! A client's subscription to the state: when the state is due to be pushed
//! (it changed, or a heartbeat is due).

use embassy_time::{Duration, Instant};
use heapless::String;
use llv_core::chase::ChaseState;
use llv_core::control::Playing;
use llv_core::take::NAME_LEN;

use super::HEARTBEAT;

/// What changed state is: the take playing (empty when stopped) and its loop count.
#[derive(Clone, Debug, PartialEq, Eq)]
struct StateKey {
    take: String<NAME_LEN>,
    playing: bool,
    loops_done: u32,
    chase: Option<ChaseState>,
}

impl StateKey {
    fn of(playing: Option<&Playing>) -> Self {
        match playing {
            Some(p) => StateKey {
                take: p.take.clone(),
                playing: true,
                loops_done: p.loops_done,
                chase: p.chase.map(|c| c.state),
            },
            None => StateKey {
                take: String::new(),
                playing: false,
                loops_done: 0,
                chase: None,
            },
        }
    }
}

/// A client's subscription to the state.
#[derive(Clone, Debug, Default)]
pub struct Subscription {
    until: Option<Instant>,
    last: Option<StateKey>,
    next_beat: Option<Instant>,
}

impl Subscription {
    /// Subscribes for `seconds` from `now` (0 ends the subscription).
    pub fn start(&mut self, now: Instant, seconds: u32) {
        *self = Subscription::default();
        if seconds > 0 {
            self.until = Some(now + Duration::from_secs(u64::from(seconds)));
        }
    }

    /// Whether it runs at `now`.
    pub fn active(&self, now: Instant) -> bool {
        self.until.is_some_and(|until| now < until)
    }

    /// Whether the state `playing` is due to be pushed at `now`: it changed,
    /// or a heartbeat is due. Counts it as pushed.
    pub fn due(&mut self, now: Instant, playing: Option<&Playing>) -> bool {
        if !self.active(now) {
            self.until = None;
            return false;
        }
        let key = StateKey::of(playing);
        let changed = self.last.as_ref() != Some(&key);
        let beat = self.next_beat.is_none_or(|at| now >= at);
        if changed || beat {
            self.last = Some(key);
            self.next_beat = Some(now + HEARTBEAT);
            true
        } else {
            false
        }
    }
}
