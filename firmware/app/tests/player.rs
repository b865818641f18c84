//! The player on the host: embassy-time's std clock, a recording sink and an
//! in-memory source.

use std::cell::Cell;
use std::net::{Ipv4Addr, SocketAddrV4};

use embassy_futures::block_on;
use embassy_time::Instant;
use llv_box::player::{deadline_offset_us, play, PlayError, StopSignal};
use llv_box::sink::PacketSink;
use llv_box::{Frame, FrameSource, Loops, MAX_PACKET};

struct VecSource {
    frames: Vec<(u32, Vec<u8>)>,
    period_us: u32,
    fail_at: Option<u32>,
}

impl FrameSource for VecSource {
    type Error = &'static str;

    fn frame_count(&self) -> u32 {
        self.frames.len() as u32
    }

    fn period_us(&self) -> u32 {
        self.period_us
    }

    async fn read_frame(
        &mut self,
        index: u32,
        buf: &mut [u8; MAX_PACKET],
    ) -> Result<Frame, Self::Error> {
        if self.fail_at == Some(index) {
            return Err("broken");
        }
        let (time_us, bytes) = &self.frames[index as usize];
        buf[..bytes.len()].copy_from_slice(bytes);
        Ok(Frame {
            time_us: *time_us,
            len: bytes.len(),
        })
    }
}

#[derive(Default)]
struct Recorder<'s> {
    sent: Vec<(Instant, SocketAddrV4, Vec<u8>)>,
    flushed: bool,
    stop_after: Option<(usize, &'s StopSignal)>,
    refuse_port: Option<u16>,
    /// Block the thread this long after sending datagram `.0` (a busy host).
    stall_after: Option<(usize, std::time::Duration)>,
    flush_count: Cell<u32>,
}

impl PacketSink for Recorder<'_> {
    type Error = ();

    async fn send(&mut self, packet: &[u8], target: SocketAddrV4) -> Result<(), ()> {
        assert!(!self.flushed, "send after flush");
        if self.refuse_port == Some(target.port()) {
            return Err(());
        }
        self.sent.push((Instant::now(), target, packet.to_vec()));
        if let Some((n, stall)) = self.stall_after {
            if self.sent.len() == n {
                std::thread::sleep(stall);
            }
        }
        if let Some((n, stop)) = self.stop_after {
            if self.sent.len() == n {
                stop.signal(());
            }
        }
        Ok(())
    }

    async fn flush(&mut self) {
        self.flushed = true;
        self.flush_count.set(self.flush_count.get() + 1);
    }
}

fn packet(i: u32) -> Vec<u8> {
    // Distinct, realistic-size payloads: 264..=774 bytes.
    let len = 264 + (i as usize * 37) % 511;
    (0..len)
        .map(|b| (b as u32 ^ i.wrapping_mul(2654435761)) as u8)
        .collect()
}

fn source(n: u32, step_us: u32) -> VecSource {
    VecSource {
        frames: (0..n).map(|i| (i * step_us, packet(i))).collect(),
        period_us: n * step_us,
        fail_at: None,
    }
}

fn target(port: u16) -> SocketAddrV4 {
    SocketAddrV4::new(Ipv4Addr::new(10, 0, 2, 2), port)
}

#[test]
fn deadline_offsets_do_not_accumulate() {
    assert_eq!(deadline_offset_us(0, 16_667, 0), 0);
    assert_eq!(deadline_offset_us(0, 3_000_000, 16_667), 16_667);
    // Loop k starts exactly k periods after the start.
    assert_eq!(deadline_offset_us(1000, 3_000_000, 16_667), 3_000_016_667);
    assert_eq!(deadline_offset_us(u64::MAX, u32::MAX, u32::MAX), u64::MAX);
}

#[test]
fn every_packet_to_every_target_in_order_bit_exact() {
    let mut src = source(12, 1_000);
    let mut sink = Recorder::default();
    let stop = StopSignal::new();
    let targets = [target(11111), target(11112)];
    let report = block_on(play(&mut src, &mut sink, &targets, Loops::Times(1), &stop)).unwrap();
    assert_eq!(report.frames, 12);
    assert_eq!(report.packets, 24);
    assert_eq!(report.loops_done, 1);
    assert!(!report.stopped);
    assert!(sink.flushed);
    assert_eq!(sink.sent.len(), 24);
    for (i, pair) in sink.sent.chunks(2).enumerate() {
        assert_eq!(pair[0].1, targets[0]);
        assert_eq!(pair[1].1, targets[1]);
        assert_eq!(pair[0].2, packet(i as u32));
        assert_eq!(pair[1].2, packet(i as u32));
    }
}

#[test]
fn frames_leave_at_their_absolute_deadlines_across_loops() {
    let step = 5_000;
    let mut src = source(6, step);
    let mut sink = Recorder::default();
    let stop = StopSignal::new();
    let before = Instant::now();
    let report = block_on(play(
        &mut src,
        &mut sink,
        &[target(1)],
        Loops::Times(3),
        &stop,
    ))
    .unwrap();
    assert_eq!(report.frames, 18);
    assert_eq!(report.loops_done, 3);
    for (n, (at, _, bytes)) in sink.sent.iter().enumerate() {
        let n = n as u64;
        let expected_us = n * u64::from(step);
        // `play` takes its start after `before`: a frame is never early...
        let actual_us = at.duration_since(before).as_micros();
        assert!(
            actual_us >= expected_us,
            "frame {n}: {actual_us} < {expected_us}"
        );
        // ...and a late one (a busy host) does not push the next ones back.
        assert!(
            actual_us < expected_us + 50_000,
            "frame {n}: {actual_us} >> {expected_us}"
        );
        assert_eq!(bytes, &packet((n % 6) as u32));
    }
}

#[test]
fn late_frames_catch_up_instead_of_shifting_the_schedule() {
    let step = 20_000;
    let mut src = source(8, step);
    // After frame 2 (due at 40 ms) the host stalls 50 ms: frames 3 and 4
    // (due at 60 and 80 ms) are both overdue and go out back to back.
    let mut sink = Recorder {
        stall_after: Some((3, std::time::Duration::from_millis(50))),
        ..Default::default()
    };
    let stop = StopSignal::new();
    let report = block_on(play(
        &mut src,
        &mut sink,
        &[target(1)],
        Loops::Times(1),
        &stop,
    ))
    .unwrap();
    assert_eq!(report.frames, 8);
    assert!(report.late_frames >= 2, "{report:?}");
    assert!(report.max_late_us >= 10_000, "{report:?}");
    let gap = sink.sent[4].0.duration_since(sink.sent[3].0).as_micros();
    assert!(
        gap < 15_000,
        "frame 4 waited {gap} us after the late frame 3"
    );
}

#[test]
fn stop_signal_ends_playback_cleanly() {
    static STOP: StopSignal = StopSignal::new();
    let mut src = source(50, 2_000);
    let mut sink = Recorder {
        stop_after: Some((3, &STOP)),
        ..Default::default()
    };
    let report = block_on(play(
        &mut src,
        &mut sink,
        &[target(1)],
        Loops::Forever,
        &STOP,
    ))
    .unwrap();
    assert!(report.stopped);
    assert_eq!(report.frames, 3);
    assert_eq!(sink.sent.len(), 3);
    assert!(sink.flushed, "a stop flushes the socket before reporting");
    assert_eq!(sink.flush_count.get(), 1);
}

#[test]
fn refused_datagrams_are_counted_and_the_rest_go_on() {
    let mut src = source(4, 500);
    let mut sink = Recorder {
        refuse_port: Some(2),
        ..Default::default()
    };
    let stop = StopSignal::new();
    let report = block_on(play(
        &mut src,
        &mut sink,
        &[target(1), target(2)],
        Loops::Times(1),
        &stop,
    ))
    .unwrap();
    assert_eq!(report.frames, 4);
    assert_eq!(report.packets, 4);
    assert_eq!(report.send_errors, 4);
}

#[test]
fn errors() {
    let stop = StopSignal::new();
    let mut sink = Recorder::default();
    let mut empty = source(0, 1);
    assert_eq!(
        block_on(play(
            &mut empty,
            &mut sink,
            &[target(1)],
            Loops::Times(1),
            &stop
        )),
        Err(PlayError::EmptyTake)
    );
    let mut src = source(3, 1);
    assert_eq!(
        block_on(play(&mut src, &mut sink, &[], Loops::Times(1), &stop)),
        Err(PlayError::NoTargets)
    );
    let mut broken = source(5, 100);
    broken.fail_at = Some(2);
    assert_eq!(
        block_on(play(
            &mut broken,
            &mut sink,
            &[target(1)],
            Loops::Times(1),
            &stop
        )),
        Err(PlayError::Source {
            index: 2,
            error: "broken"
        })
    );
    assert_eq!(sink.sent.len(), 2);
}

#[test]
fn zero_loops_sends_nothing_but_flushes() {
    let stop = StopSignal::new();
    let mut sink = Recorder::default();
    let mut src = source(3, 100);
    let report = block_on(play(
        &mut src,
        &mut sink,
        &[target(1)],
        Loops::Times(0),
        &stop,
    ))
    .unwrap();
    assert_eq!(report.frames, 0);
    assert!(sink.flushed);
}
