//! The chase's playhead: what one step costs while a phone take plays (the
//! frame after the last, its span read once), and what a seek costs in a
//! 30-minute take (a binary search of the frame times).
//! `cargo bench -p llv-core --bench chase`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use embassy_futures::block_on;
use llv_core::artnet::TimecodeKind;
use llv_core::chase::{Chase, ChaseConfig, FrameTimes, Playhead, Step};

/// A take's frame times in memory.
struct Times {
    times: Vec<u32>,
    end: u32,
}

impl FrameTimes for Times {
    type Error = ();

    fn frame_count(&self) -> u32 {
        self.times.len() as u32
    }

    fn end_us(&self) -> u32 {
        self.end
    }

    async fn time_us(&mut self, index: u32) -> Result<u32, ()> {
        self.times.get(index as usize).copied().ok_or(())
    }
}

/// `n` frames at 30 Hz with up to ±4 ms of jitter.
fn phone_times(n: u32) -> Times {
    let times: Vec<u32> = (0..n)
        .map(|i| i * 33_333 + 4_000 + (i.wrapping_mul(2_654_435_761) >> 16) % 8_001 - 4_000)
        .collect();
    let end = times.last().copied().unwrap_or(0) + 16_667;
    Times { times, end }
}

/// A chase locked to 30 fps timecode from 01:00:00:00, its last frame at local 1 s.
fn locked() -> Chase {
    let kind = TimecodeKind::Smpte30;
    let mut chase = Chase::new(ChaseConfig::default());
    for k in 0..30u64 {
        chase.on_timecode(kind.micros(108_000 + k), kind, kind.micros(k));
    }
    chase
}

fn chase(c: &mut Criterion) {
    let kind = TimecodeKind::Smpte30;
    let offset = kind.micros(108_000);
    let chase = locked();
    let mut g = c.benchmark_group("playhead");
    // 10 s of a phone take played through: every frame cued and waited for.
    let mut times = phone_times(300);
    g.throughput(Throughput::Elements(300));
    g.bench_function("10 s of a 30 Hz take, per frame", |b| {
        b.iter(|| {
            let mut head = Playhead::new(&times);
            let mut now = 0u64;
            let mut cued = 0u32;
            for _ in 0..2_000 {
                match block_on(head.step(&mut times, &chase, Some(offset), now)) {
                    Ok(Step::Send(_)) => cued += 1,
                    Ok(Step::Wait { until_us }) => now = until_us,
                    Err(()) => break,
                }
                if cued == 300 {
                    break;
                }
            }
            black_box(cued)
        })
    });
    // A seek into a 30-minute take: the first step after a start.
    let mut long = phone_times(30 * 60 * 30);
    g.throughput(Throughput::Elements(1));
    g.bench_function("a seek in a 30-minute take", |b| {
        b.iter(|| {
            let mut head = Playhead::new(&long);
            // 20 minutes in.
            let now = 1_200_000_000;
            black_box(block_on(head.step(&mut long, &chase, Some(offset), now)))
        })
    });
    g.finish();
}

criterion_group!(benches, chase);
criterion_main!(benches);
