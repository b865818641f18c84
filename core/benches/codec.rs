//! Decode, encode and recording-line speed on a real 320-byte packet.
//! `cargo bench -p llv-core --bench codec`

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use llv_core::blendshape::COUNT;
use llv_core::line;
use llv_core::packet::{classify, Datagram, FaceFrame, MAX_LEN, VERSION};
use llv_core::time::{FrameRate, FrameTime};

fn sample() -> ([u8; MAX_LEN], usize) {
    let mut blendshapes = [0.0f32; COUNT];
    for (i, v) in blendshapes.iter_mut().enumerate() {
        *v = i as f32 / 61.0;
    }
    let frame = FaceFrame {
        version: VERSION,
        device_id: "DEADC0DE-1337-1337-1337-CAFEBABE",
        subject: "LLV Default Device",
        time: FrameTime {
            frame_number: 5375735,
            subframe: 0.1219,
            rate: FrameRate::FPS_60,
        },
        blendshapes,
    };
    let mut buf = [0u8; MAX_LEN];
    let n = frame.encode(&mut buf).unwrap_or(0);
    (buf, n)
}

fn codec(c: &mut Criterion) {
    let (buf, n) = sample();
    let bytes = &buf[..n];
    let mut g = c.benchmark_group("packet");
    g.throughput(Throughput::Elements(1));
    g.bench_function("classify+frame (decode)", |b| {
        b.iter(|| match classify(black_box(bytes)) {
            Datagram::Face(p) => Some(p.frame()),
            _ => None,
        })
    });
    g.bench_function("classify (zero-copy view)", |b| {
        b.iter(|| matches!(classify(black_box(bytes)), Datagram::Face(_)))
    });
    let frame = FaceFrame::decode(bytes).ok();
    g.bench_function("encode", |b| {
        let mut out = [0u8; MAX_LEN];
        b.iter(|| black_box(frame.as_ref()).map(|f| f.encode(&mut out)))
    });
    g.bench_function("decode+encode", |b| {
        let mut out = [0u8; MAX_LEN];
        b.iter(|| FaceFrame::decode(black_box(bytes)).map(|f| f.encode(&mut out)))
    });
    let mut line_buf = [0u8; line::MAX_LINE_LEN];
    let text_len = line::encode(bytes, &mut line_buf)
        .map(|s| s.len())
        .unwrap_or(0);
    g.bench_function("line encode", |b| {
        let mut out = [0u8; line::MAX_LINE_LEN];
        b.iter(|| line::encode(black_box(bytes), &mut out).map(|s| s.len()))
    });
    g.bench_function("line decode", |b| {
        let mut out = [0u8; MAX_LEN];
        b.iter(|| line::decode(black_box(&line_buf[..text_len]), &mut out).map(|p| p.len()))
    });
    g.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
