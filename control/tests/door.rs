//! The door policy (`llv_control::slots`): who gets a TCP connection slot
//! and who makes room for whom, on a simulated network of many clients
//! and source addresses with a simulated clock (every client a state
//! machine, every exchange one round trip), for the box's slots (3 control,
//! 2 OSC) and `llv serve`'s (16, both doors); and the door keeper telling a
//! connection to close, on embassy-time's mock clock.

mod common;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use common::{clock, on_mock_clock};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_time::{Duration, Instant};
use llv_control::keeper::DoorKeeper;
use llv_control::slots::{Admission, Door, Opened, Slots, GRACE};
use llv_control::Seat;

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

/// The slot a newcomer got at once, `None` if refused (it was not to wait).
fn got(a: Admission) -> Option<Opened> {
    match a {
        Admission::Opened(o) => Some(o),
        Admission::Refused => None,
        Admission::Wait { slot } => panic!("waits for slot {slot}"),
    }
}

const A: [u8; 4] = [10, 0, 0, 1];
const B: [u8; 4] = [10, 0, 0, 2];
const OPERATOR: [u8; 4] = [10, 0, 0, 9];
/// How often `llv` tries a connection again (`host/src/boxctl/client.rs`).
const OPERATOR_RETRIES: u32 = 3;

#[test]
fn a_newcomer_taking_the_last_slot_closes_the_oldest_without_hello_else_the_quietest() {
    let mut s = Slots::new([None; 4]);
    assert_eq!(
        got(s.open(Door::Control, A, at(0))),
        Some(Opened {
            slot: 0,
            close: None
        })
    );
    assert_eq!(
        got(s.open(Door::Osc, A, at(1000))),
        Some(Opened {
            slot: 1,
            close: None
        })
    );
    s.request(1, true, at(2000));
    assert_eq!(
        got(s.open(Door::Control, A, at(3000))),
        Some(Opened {
            slot: 2,
            close: None
        })
    );
    // The last slot: the oldest without an accepted Hello (slot 0) goes.
    let opened = got(s.open(Door::Control, A, at(4000)));
    assert_eq!(
        opened,
        Some(Opened {
            slot: 3,
            close: Some(0)
        })
    );
    // Slot 0 is closing: it counts as free, and is not chosen again.
    assert_eq!(
        got(s.open(Door::Control, A, at(5000))),
        None,
        "slot 0 is not released yet"
    );
    s.release(0);
    let opened = got(s.open(Door::Control, A, at(6000)));
    assert_eq!(
        opened,
        Some(Opened {
            slot: 0,
            close: Some(2)
        })
    );
    s.release(2);
    // Everyone said Hello: the one whose last request is oldest goes.
    s.request(0, true, at(7000));
    s.request(3, true, at(8000));
    let opened = got(s.open(Door::Control, A, at(9000)));
    assert_eq!(
        opened,
        Some(Opened {
            slot: 2,
            close: Some(1)
        })
    );
    s.release(1);
    // A status every few seconds keeps nobody in: the quietest goes next.
    s.request(3, true, at(10_000));
    s.request(2, true, at(11_000));
    let opened = got(s.open(Door::Control, A, at(12_000)));
    assert_eq!(
        opened,
        Some(Opened {
            slot: 1,
            close: Some(0)
        })
    );
    s.release(0);
    // A newcomer within GRACE of opening is spared, Hello or not: the
    // quietest of the others goes.
    assert_eq!(GRACE, Duration::from_secs(1));
    let opened = got(s.open(Door::Control, A, at(12_500)));
    assert_eq!(
        opened,
        Some(Opened {
            slot: 0,
            close: Some(3)
        })
    );
    s.release(3);
    // When everyone is that recent, the least recent goes.
    s.request(2, true, at(12_600));
    let opened = got(s.open(Door::Control, A, at(12_700)));
    assert_eq!(
        opened,
        Some(Opened {
            slot: 3,
            close: Some(1)
        })
    );
}

#[test]
fn a_connection_answered_within_grace_outlasts_a_newer_one_without_hello() {
    let mut s = Slots::new([None; 3]);
    got(s.open(Door::Control, A, at(0)));
    // The operator's Hello, answered; its Status is on its way.
    s.request(0, true, at(10));
    got(s.open(Door::Control, A, at(20)));
    // The last slot: the newer connection that has not said Hello goes.
    assert_eq!(
        got(s.open(Door::Control, A, at(30))),
        Some(Opened {
            slot: 2,
            close: Some(1)
        })
    );
}

#[test]
fn the_box_keeps_a_slot_free_at_each_door() {
    let doors = [
        Some(Door::Control),
        Some(Door::Control),
        Some(Door::Control),
        Some(Door::Osc),
        Some(Door::Osc),
    ];
    let mut s = Slots::new(doors);
    for slot in 0..5 {
        assert!(s.is_free(slot));
    }
    let opened = s.open_at(3, Door::Osc, A, at(0));
    assert_eq!(opened.close, None);
    // The last OSC slot: the OSC connection goes, never a control one.
    s.open_at(0, Door::Control, A, at(1000));
    let opened = s.open_at(4, Door::Osc, A, at(2000));
    assert_eq!(opened.close, Some(3));
    assert_eq!(got(s.open(Door::Osc, A, at(3000))), None);
    assert_eq!(
        got(s.open(Door::Control, A, at(3000))).map(|o| o.slot),
        Some(1)
    );
}

#[test]
fn a_laptop_holding_many_slots_loses_its_own_first() {
    let mut s = Slots::new([None; 8]);
    // The operator's address holds one slot, opened first (the oldest).
    got(s.open(Door::Control, OPERATOR, at(0)));
    for t in 1..7 {
        got(s.open(Door::Control, A, at(t * 1000)));
    }
    // B's newcomer takes the last slot: A's oldest goes, not the operator's.
    let opened = got(s.open(Door::Control, B, at(10_000)));
    assert_eq!(
        opened,
        Some(Opened {
            slot: 7,
            close: Some(1)
        })
    );
    s.release(1);
    // With Hellos all round, the quietest of A's goes, though the operator
    // has been quiet longer.
    for slot in [0, 2, 3, 4, 5, 6, 7] {
        s.request(slot, true, at(20_000 + slot as u64 * 1000));
    }
    let opened = got(s.open(Door::Control, B, at(30_000)));
    assert_eq!(
        opened,
        Some(Opened {
            slot: 1,
            close: Some(2)
        })
    );
}

/// A client of the simulated network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Says Hello and asks for the status every `period_ms`; reconnects at its next poll.
    Poller { period_ms: u64 },
    /// Opens a connection and never sends; opens another `reopen_ms` after it is closed.
    Idle { reopen_ms: u64 },
    /// `llv box ADDR status` every second, as `llv` runs it: Hello, Status,
    /// close; a connection refused, or closed before its Hello is answered,
    /// is tried again after 100, 200 and 400 ms, then the run fails; so is
    /// the Status (read-only) when its connection is closed before its answer.
    Operator,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Connect(usize),
    Hello(usize),
    Request(usize),
    Done(usize),
}

/// The network: clients, the box's slots and what happened to the operator.
struct Net<const N: usize> {
    slots: Slots<N>,
    clients: Vec<(Role, [u8; 4], Door)>,
    /// The slot each client holds, and since when (the connection's id).
    held: BTreeMap<usize, (usize, u64)>,
    queue: BinaryHeap<Reverse<(u64, u64, Event)>>,
    seq: u64,
    /// Operator: (asked at, answered at) of every status.
    answered: Vec<(u64, u64)>,
    /// Operator runs that failed: refused or closed four times before the
    /// Hello's answer, or four times before the Status's.
    failed: u32,
    /// Operator connections tried again.
    retried: u32,
    /// Tries the operator's current run has left, and whether the box
    /// answered its Hello.
    tries_left: u32,
    hello_answered: bool,
    asked_at: Option<u64>,
    rtt_ms: u64,
}

impl<const N: usize> Net<N> {
    fn new(slots: Slots<N>, clients: Vec<(Role, [u8; 4], Door)>, rtt_ms: u64) -> Self {
        let mut net = Net {
            slots,
            clients,
            held: BTreeMap::new(),
            queue: BinaryHeap::new(),
            seq: 0,
            answered: Vec::new(),
            failed: 0,
            retried: 0,
            tries_left: OPERATOR_RETRIES,
            hello_answered: false,
            asked_at: None,
            rtt_ms,
        };
        for c in 0..net.clients.len() {
            let start = match net.clients[c].0 {
                Role::Operator => 1000,
                _ => c as u64 * 7,
            };
            net.at(start, Event::Connect(c));
        }
        net
    }

    fn at(&mut self, t: u64, e: Event) {
        self.seq += 1;
        self.queue.push(Reverse((t, self.seq, e)));
    }

    /// The client holding `slot` is told to close: it loses its connection.
    fn close(&mut self, slot: usize, now: u64) {
        let Some((&c, _)) = self.held.iter().find(|(_, (s, _))| *s == slot) else {
            panic!("slot {slot} closed but nobody holds it");
        };
        self.held.remove(&c);
        self.slots.release(slot);
        match self.clients[c].0 {
            Role::Poller { period_ms } => self.at(now + period_ms, Event::Connect(c)),
            Role::Idle { reopen_ms } => self.at(now + reopen_ms, Event::Connect(c)),
            Role::Operator => self.retry(c, now),
        }
    }

    /// The operator's connection was refused or closed before its answer:
    /// `llv` tries again, or gives up.
    fn retry(&mut self, c: usize, now: u64) {
        if self.tries_left == 0 {
            return self.fail(c, now);
        }
        self.retried += 1;
        let wait = 100 << (OPERATOR_RETRIES - self.tries_left);
        self.tries_left -= 1;
        self.at(now + wait, Event::Connect(c));
    }

    /// The operator's run failed; the next starts a second after it began.
    fn fail(&mut self, c: usize, now: u64) {
        self.failed += 1;
        let asked = self.asked_at.take().unwrap_or(now);
        self.next_run(c, asked);
    }

    fn next_run(&mut self, c: usize, asked: u64) {
        self.tries_left = OPERATOR_RETRIES;
        self.hello_answered = false;
        self.at(asked + 1000, Event::Connect(c));
    }

    fn run(&mut self, until_ms: u64) {
        while let Some(Reverse((t, _, e))) = self.queue.pop() {
            if t > until_ms {
                break;
            }
            let ms = Instant::from_millis(t);
            match e {
                Event::Connect(c) => {
                    let (role, source, door) = self.clients[c];
                    if role == Role::Operator && self.asked_at.is_none() {
                        self.asked_at = Some(t);
                    }
                    let admitted = match self.slots.open(door, source, ms) {
                        Admission::Opened(o) => Some(o),
                        Admission::Refused => None,
                        Admission::Wait { slot } => {
                            // The victim ends at once here; the newcomer takes its slot.
                            self.close(slot, t);
                            self.slots.claim(slot, door, source, ms)
                        }
                    };
                    match admitted {
                        Some(Opened { slot, close }) => {
                            self.held.insert(c, (slot, t));
                            if let Some(victim) = close {
                                self.close(victim, t);
                            }
                            if !matches!(role, Role::Idle { .. }) {
                                self.at(t + self.rtt_ms, Event::Hello(c));
                            }
                        }
                        None => match role {
                            Role::Poller { period_ms } => self.at(t + period_ms, Event::Connect(c)),
                            Role::Idle { reopen_ms } => {
                                self.at(t + reopen_ms.max(1), Event::Connect(c))
                            }
                            Role::Operator => self.retry(c, t),
                        },
                    }
                }
                Event::Hello(c) | Event::Request(c) => {
                    let Some(&(slot, _)) = self.held.get(&c) else {
                        continue;
                    };
                    self.slots.request(slot, true, ms);
                    match self.clients[c].0 {
                        Role::Poller { period_ms } => self.at(t + period_ms, Event::Request(c)),
                        Role::Operator if matches!(e, Event::Hello(_)) => {
                            // Answered: the Status's tries start.
                            if !self.hello_answered {
                                self.hello_answered = true;
                                self.tries_left = OPERATOR_RETRIES;
                            }
                            self.at(t + self.rtt_ms, Event::Request(c))
                        }
                        Role::Operator => self.at(t + self.rtt_ms, Event::Done(c)),
                        Role::Idle { .. } => {}
                    }
                }
                Event::Done(c) => {
                    let Some((slot, _)) = self.held.remove(&c) else {
                        continue;
                    };
                    self.slots.release(slot);
                    let asked = self.asked_at.take().unwrap_or(t);
                    self.answered.push((asked, t));
                    self.next_run(c, asked);
                }
            }
        }
    }
}

/// 20 clients that say Hello and ask the status every 2 to 3 s, 16 idle
/// sockets opened again `reopen_ms` after each close, and the operator,
/// all from one address (as QEMU's user network makes every client 10.0.2.2).
fn crowd(reopen_ms: u64, door_of: impl Fn(usize) -> Door) -> Vec<(Role, [u8; 4], Door)> {
    let mut clients = Vec::new();
    for i in 0..20 {
        clients.push((
            Role::Poller {
                period_ms: 2000 + 50 * i as u64,
            },
            A,
            door_of(i),
        ));
    }
    for i in 0..16 {
        clients.push((Role::Idle { reopen_ms }, A, door_of(i)));
    }
    clients.push((Role::Operator, A, Door::Control));
    clients
}

fn assert_operator_always_gets_in<const N: usize>(net: &Net<N>, runs: usize) {
    assert!(
        net.answered.len() >= runs,
        "{} statuses, {} failed",
        net.answered.len(),
        net.failed
    );
    assert_eq!(net.failed, 0, "operator runs failed");
    let worst = net.answered.iter().map(|(a, b)| b - a).max().unwrap();
    // Two round trips when a slot is free; a refused try costs 50 ms.
    assert!(worst <= 500, "the operator waited {worst} ms");
}

#[test]
fn the_operator_always_gets_into_llv_serve_beside_a_crowd() {
    // Idle sockets opened again 10 ms after each close, ten round trips.
    let clients = crowd(10, |i| if i % 2 == 0 { Door::Control } else { Door::Osc });
    let mut net = Net::new(Slots::new([None; 16]), clients, 1);
    net.run(120_000);
    assert_operator_always_gets_in(&net, 115);
}

#[test]
fn the_operator_always_gets_into_the_box_beside_a_crowd() {
    let doors = [
        Some(Door::Control),
        Some(Door::Control),
        Some(Door::Control),
        Some(Door::Osc),
        Some(Door::Osc),
    ];
    // The box's round trips are slower (QEMU, a small MCU); the idle sockets
    // are opened again a second after each close. (Faster, on one address,
    // they can outpace a round trip to the box's three control slots: on a
    // real network the address rule makes such a laptop close its own.)
    // Round trips of 5 ms, and of 40 ms (QEMU beside two busy cores): the
    // operator's connection is closed for room now and then, before its
    // Hello's answer or its Status's, and `llv` tries again in time.
    for rtt_ms in [5, 40] {
        let clients = crowd(1000, |i| if i % 4 == 0 { Door::Osc } else { Door::Control });
        let mut net = Net::new(Slots::new(doors), clients, rtt_ms);
        net.run(120_000);
        assert_operator_always_gets_in(&net, 115);
    }
}

#[test]
fn an_address_opening_connections_as_fast_as_it_can_never_shuts_out_another() {
    // 32 idle sockets from A, each opened again one round trip after it is
    // closed, against llv serve's 16 slots; the operator on another address.
    let mut clients: Vec<_> = (0..32)
        .map(|_| (Role::Idle { reopen_ms: 1 }, A, Door::Control))
        .collect();
    clients.extend((0..8).map(|i| {
        (
            Role::Poller {
                period_ms: 1000 + i,
            },
            B,
            Door::Osc,
        )
    }));
    clients.push((Role::Operator, OPERATOR, Door::Control));
    let mut net = Net::new(Slots::new([None; 16]), clients, 1);
    net.run(10_000);
    assert_operator_always_gets_in(&net, 8);
}

#[test]
fn a_newcomer_from_a_quieter_address_waits_for_a_slot_of_the_busiest() {
    let mut s = Slots::new([None; 4]);
    for t in 0..4 {
        got(s.open(Door::Control, A, at(t * 1000)));
    }
    // A's fourth took the last slot: A's oldest (slot 0) is closing.
    assert!(!s.is_free(0));
    // Another of A's finds no slot: A holds the most, it is refused.
    assert_eq!(s.open(Door::Control, A, at(3100)), Admission::Refused);
    // The operator's address holds none: one of A's is closed for it.
    assert_eq!(
        s.open(Door::Control, OPERATOR, at(3200)),
        Admission::Wait { slot: 1 }
    );
    assert_eq!(
        s.claim(1, Door::Control, OPERATOR, at(3300)),
        None,
        "not released yet"
    );
    s.release(0);
    s.release(1);
    // Slot 1 is the operator's: another newcomer gets slot 0, not it.
    assert_eq!(got(s.open(Door::Osc, B, at(3400))).map(|o| o.slot), Some(0));
    let claimed = s.claim(1, Door::Control, OPERATOR, at(3500)).unwrap();
    assert_eq!(claimed.slot, 1);
    // Now no address holds more than another: a newcomer is refused.
    assert_eq!(s.open(Door::Control, B, at(3600)), Admission::Refused);
    // A newcomer that gives up leaves the slot free once released.
    let mut s = Slots::new([None; 3]);
    for t in 0..3 {
        got(s.open(Door::Control, A, at(t * 1000)));
    }
    assert_eq!(
        s.open(Door::Control, B, at(2100)),
        Admission::Wait { slot: 1 }
    );
    s.forsake(1);
    s.release(1);
    assert!(s.is_free(1));
}

#[test]
fn the_keeper_tells_the_chosen_connection_to_close() {
    let _clock = clock();
    let keeper: DoorKeeper<CriticalSectionRawMutex, 3> = DoorKeeper::new([None; 3]);
    let open = |door, source| on_mock_clock(keeper.open(door, source), Duration::from_secs(2)).0;
    let first = open(Door::Control, A).unwrap();
    let second = open(Door::Osc, B).unwrap();
    keeper.seat(second).request(true);
    // The last slot: the first (no Hello) is told to close.
    let third = open(Door::Control, A).unwrap();
    let ((), took) = on_mock_clock(keeper.closing(first), Duration::from_secs(1));
    assert_eq!(took, Duration::from_ticks(0));
    // A and B hold one each (the first is closing): A's newcomer is refused.
    assert_eq!(open(Door::Control, A), None, "not released yet");
    keeper.release(first);
    keeper.seat(third).request(true);
    on_mock_clock(embassy_time::Timer::after_millis(5), Duration::from_secs(1));
    keeper.seat(third).request(true);
    // All said Hello: the quietest (the second) is told.
    let fourth = open(Door::Control, OPERATOR).unwrap();
    assert_eq!(fourth, first);
    on_mock_clock(keeper.closing(second), Duration::from_secs(1));
    // A slot opened again starts with no close pending.
    keeper.release(second);
    let fifth = open(Door::Control, B).unwrap();
    assert_eq!(fifth, second);
    let waiting = embassy_futures::poll_once(keeper.closing(fifth));
    assert!(waiting.is_pending());
}

#[test]
fn the_keeper_makes_a_newcomer_wait_for_the_slot_freed_for_it() {
    let _clock = clock();
    let keeper: DoorKeeper<CriticalSectionRawMutex, 3> = DoorKeeper::new([None; 3]);
    let open = |source| on_mock_clock(keeper.open(Door::Control, source), Duration::from_secs(2)).0;
    let a: Vec<usize> = (0..3).map(|_| open(A).unwrap()).collect();
    // A's third took the last slot: A's first is closing, and stays a moment.
    // No slot free, A holding the most: B's newcomer waits for another of A's.
    let (claimed, ()) = on_mock_clock(
        embassy_futures::join::join(keeper.open(Door::Control, B), async {
            keeper.closing(a[1]).await;
            embassy_time::Timer::after_millis(3).await;
            keeper.release(a[1]);
        }),
        Duration::from_secs(2),
    )
    .0;
    assert_eq!(claimed, Some(a[1]));
    // A connection that does not close in time: the newcomer gives up
    // after CLAIM_WAIT, and the slot is anyone's once released.
    let keeper: DoorKeeper<CriticalSectionRawMutex, 3> = DoorKeeper::new([None; 3]);
    let open = |source| on_mock_clock(keeper.open(Door::Control, source), Duration::from_secs(5));
    let a: Vec<usize> = (0..3).map(|_| open(A).0.unwrap()).collect();
    let (refused, waited) = open(B);
    assert_eq!(refused, None);
    assert_eq!(waited, llv_control::keeper::CLAIM_WAIT);
    keeper.release(a[1]);
    assert_eq!(open(OPERATOR).0, Some(a[1]));
}
