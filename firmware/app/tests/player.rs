//! The player on embassy-time's mock clock: exact deadlines, per-target drops,
//! cancellation, and refusals.

mod common;

use common::*;
use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant};
use llv_box::player::{deadline_offset_us, play, PlayError, FLUSH_TIMEOUT};
use llv_core::settings::Loops;

const MS: Duration = Duration::from_millis(1);
const LIMIT: Duration = Duration::from_secs(60);

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
    let _clock = clock();
    let mut src = source(12, 5_000);
    let mut sink = Recorder::default();
    let targets = [target(11111), target(11112)];
    let report = on_mock_clock(
        play(&mut src, &mut sink, &targets, Loops::Times(1), None, |_| ()),
        MS,
        LIMIT,
    )
    .unwrap();
    assert_eq!(
        (report.frames, report.loops_done, report.dropped()),
        (12, 1, 0)
    );
    assert_eq!(report.targets.len(), 2);
    assert!(report.targets.iter().all(|t| t.sent == 12));
    assert_eq!((sink.opened, sink.flushed), (1, 1));
    assert_eq!(sink.sent.len(), 24);
    for (i, pair) in sink.sent.chunks(2).enumerate() {
        assert_eq!((pair[0].target, pair[1].target), (targets[0], targets[1]));
        assert_eq!(pair[0].bytes, packet(i as u32));
        assert_eq!(pair[1].bytes, packet(i as u32));
    }
}

#[test]
fn frames_leave_at_their_absolute_deadlines_across_loops() {
    let _clock = clock();
    let step = 5_000;
    let mut src = source(6, step);
    let mut sink = Recorder::default();
    let start = Instant::now();
    let report = on_mock_clock(
        play(
            &mut src,
            &mut sink,
            &[target(1)],
            Loops::Times(3),
            None,
            |_| (),
        ),
        MS,
        LIMIT,
    )
    .unwrap();
    assert_eq!(
        (report.frames, report.loops_done, report.late_frames),
        (18, 3, 0)
    );
    for (n, sent) in sink.sent.iter().enumerate() {
        let expected = n as u64 * u64::from(step);
        assert_eq!((sent.at - start).as_micros(), expected, "frame {n}");
        assert_eq!(sent.bytes, packet((n % 6) as u32));
    }
}

#[test]
fn late_frames_catch_up_instead_of_shifting_the_schedule() {
    let _clock = clock();
    let step = 20_000;
    let mut src = source(8, step);
    // After frame 2 (due at 40 ms) the host stalls 50 ms: frames 3 and 4
    // (due at 60 and 80 ms) are both overdue and go out at once, and frame 5
    // keeps its own deadline.
    let mut sink = Recorder {
        stall_after: Some((3, Duration::from_millis(50))),
        ..Default::default()
    };
    let start = Instant::now();
    let report = on_mock_clock(
        play(
            &mut src,
            &mut sink,
            &[target(1)],
            Loops::Times(1),
            None,
            |_| (),
        ),
        MS,
        LIMIT,
    )
    .unwrap();
    let at = |i: usize| (sink.sent[i].at - start).as_millis();
    assert_eq!((at(2), at(3), at(4), at(5)), (40, 90, 90, 100));
    assert_eq!(report.late_frames, 2, "{report:?}");
    assert_eq!(report.max_late_us, 30_000);
}

#[test]
fn a_full_target_loses_its_frames_and_holds_up_no_other() {
    let _clock = clock();
    let mut src = source(30, 16_000);
    let mut sink = Recorder {
        full: Some(1),
        refused: Some(2),
        ..Default::default()
    };
    let targets = [target(1), target(2), target(3)];
    let start = Instant::now();
    let report = on_mock_clock(
        play(&mut src, &mut sink, &targets, Loops::Times(1), None, |_| ()),
        MS,
        LIMIT,
    )
    .unwrap();
    let counts: Vec<_> = report.targets.iter().map(|t| (t.sent, t.dropped)).collect();
    assert_eq!(counts, [(30, 0), (0, 30), (0, 30)]);
    assert_eq!(report.late_frames, 0);
    for (n, sent) in sink.sent.iter().enumerate() {
        assert_eq!(sent.target, targets[0]);
        assert_eq!((sent.at - start).as_micros(), n as u64 * 16_000);
    }
}

#[test]
fn a_queue_that_never_drains_holds_the_end_for_the_flush_timeout_only() {
    let _clock = clock();
    let mut src = source(3, 5_000);
    let mut sink = Recorder {
        stuck: true,
        ..Default::default()
    };
    let start = Instant::now();
    let report = on_mock_clock(
        play(
            &mut src,
            &mut sink,
            &[target(1)],
            Loops::Times(1),
            None,
            |_| (),
        ),
        MS,
        LIMIT,
    )
    .unwrap();
    assert_eq!(report.frames, 3);
    // The last frame leaves at 10 ms; the wait for the queue is bounded.
    assert_eq!(
        Instant::now() - start,
        Duration::from_millis(10) + FLUSH_TIMEOUT
    );
}

#[test]
fn a_stop_ends_playback_wherever_it_waits() {
    let _clock = clock();
    let stop: Signal<CriticalSectionRawMutex, ()> = Signal::new();
    let mut src = source(50, 10_000);
    let mut sink = Recorder::default();
    let mut reports = 0;
    let targets = [target(1)];
    let start = Instant::now();
    let outcome = on_mock_clock(
        async {
            let playing = play(&mut src, &mut sink, &targets, Loops::Forever, None, |r| {
                reports += 1;
                if r.frames == 3 {
                    stop.signal(());
                }
            });
            select(playing, stop.wait()).await
        },
        MS,
        LIMIT,
    );
    assert!(matches!(outcome, Either::Second(())));
    // Frame 3 was in hand (due at 30 ms) when the stop came: it never left.
    assert_eq!(sink.sent.len(), 3);
    assert!(Instant::now() - start < Duration::from_millis(30));
    assert!(reports >= 6);
}

#[test]
fn errors_and_refusals() {
    let _clock = clock();
    let mut sink = Recorder::default();
    let run = |src: &mut VecSource, sink: &mut Recorder, targets: &[_]| {
        on_mock_clock(
            play(src, sink, targets, Loops::Times(1), None, |_| ()),
            MS,
            LIMIT,
        )
    };
    assert_eq!(
        run(&mut source(0, 1), &mut sink, &[target(1)]),
        Err(PlayError::EmptyTake)
    );
    assert_eq!(
        run(&mut source(3, 5_000), &mut sink, &[]),
        Err(PlayError::NoTargets)
    );
    // 240 frames a second at most: 4 frames in 16 ms loop too fast, in 17 ms not.
    let mut fast = source(4, 4_000);
    assert_eq!(
        run(&mut fast, &mut sink, &[target(1)]),
        Err(PlayError::TooFast)
    );
    fast.period_us = 16_667;
    assert!(run(&mut fast, &mut sink, &[target(1)]).is_ok());
    let mut broken = source(5, 5_000);
    broken.fail_at = Some(2);
    sink.sent.clear();
    assert_eq!(
        run(&mut broken, &mut sink, &[target(1)]),
        Err(PlayError::Source {
            index: 2,
            error: "broken"
        })
    );
    assert_eq!(sink.sent.len(), 2);
    // Zero loops send nothing.
    let report = on_mock_clock(
        play(
            &mut source(3, 5_000),
            &mut sink,
            &[target(1)],
            Loops::Times(0),
            None,
            |_| (),
        ),
        MS,
        LIMIT,
    )
    .unwrap();
    assert_eq!(report.frames, 0);
}
