//! `llv edit` and `llv remap` frames per second: each edit operation over a
//! take of 20 000 frames (real values from `examples/dao.gesichter`), packets
//! decoded, edited and encoded as the command does; remapping the real phone
//! take (`alex_rom_3.csv`) through a rig table to a curve CSV.
//!
//! `cargo bench -p llv --bench editor`: criterion prints frames per second.

mod common;

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use llv::edit::retime::Retime;
use llv::edit::smooth::{Params, Smooth};
use llv::edit::trim::{Point, Trim};
use llv::edit::values::{mirror_map, Adjust, Clamp, Mirror, Op};
use llv::edit::{Frame, Pipeline};
use llv::metahuman::retarget::{Combine, CurveWriter, Frame as CurveFrame};
use llv::rig::RigMap;
use llv::take::Take;
use llv_core::blendshape::NAMES;
use llv_core::packet::MAX_LEN;
use llv_core::time::FrameRate;

/// Decodes, runs `pipeline`, encodes: what `llv edit` does per frame.
fn run(take: &Take, mut pipeline: Pipeline) -> usize {
    let mut buf = [0u8; MAX_LEN];
    let mut bytes = 0;
    let mut out = |f: Frame| {
        bytes += f.encode(&mut buf)?.len();
        Ok(())
    };
    for packet in take.packets() {
        pipeline
            .push(Frame::decode(packet).unwrap(), &mut out)
            .unwrap();
    }
    pipeline.finish(&mut out).unwrap();
    bytes
}

/// Adds the stages of one case.
type Build = fn(&mut Pipeline);

fn edit(c: &mut Criterion) {
    let take = common::take(20_000);
    let mut group = c.benchmark_group("edit 20000 frames");
    group.sample_size(10);
    group.throughput(Throughput::Elements(take.len() as u64));
    let ops = |f: fn(&mut Pipeline)| {
        let mut p = Pipeline::default();
        f(&mut p);
        p
    };
    let cases: [(&str, Build); 8] = [
        ("decode and encode only", |_| {}),
        ("trim by frame index", |p| {
            p.then(Trim::new(
                Some(Point::Index(1000)),
                Some(Point::Index(19_000)),
            ))
        }),
        ("retime 60 -> 30", |p| {
            p.then(Retime::new(FrameRate::new(30, 1)).unwrap())
        }),
        ("retime 60 -> 59.94", |p| {
            p.then(Retime::new(FrameRate::new(60000, 1001)).unwrap())
        }),
        ("mirror", |p| p.then(Mirror::new())),
        ("smooth (one-euro, 61 shapes)", |p| {
            p.then(Smooth::new(Params::default(), &[]).unwrap())
        }),
        ("gain, offset, zero, clamp", |p| {
            p.then(Adjust::new(vec![
                Op::Gain(17, 0.8),
                Op::Offset(43, -0.05),
                Op::Zero(51),
                Op::Clamp(Clamp::parse("0..1").unwrap()),
            ]))
        }),
        ("all of them", |p| {
            p.then(Trim::new(Some(Point::Index(1000)), None));
            p.then(Retime::new(FrameRate::new(30, 1)).unwrap());
            p.then(Mirror::new());
            p.then(Smooth::new(Params::default(), &[]).unwrap());
            p.then(Adjust::new(vec![
                Op::Gain(17, 0.8),
                Op::Clamp(Clamp::parse("0..1").unwrap()),
            ]));
        }),
    ];
    for (name, build) in cases {
        group.bench_function(name, |b| b.iter(|| run(&take, ops(build))));
    }
    group.finish();
    assert_eq!(mirror_map().len(), NAMES.len());
}

fn remap(c: &mut Criterion) {
    let csv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/llf/alex_rom_3.csv");
    let take = llv::recording::read(&csv, &Default::default())
        .unwrap()
        .take;
    let frames: Vec<CurveFrame> = take
        .frames()
        .map(|p| CurveFrame {
            time: p.time(),
            shapes: p.frame().blendshapes,
        })
        .collect();
    // A rig with a curve per ARKit coefficient, plus a corrective driven by two shapes.
    let mut table = String::from("arkit,target,weight\n");
    for name in &NAMES[..52] {
        table.push_str(&format!("{name},CC_Base_{name},1\n"));
    }
    table.push_str("JawOpen,CC_Mouth_Corrective,0.5\nMouthClose,CC_Mouth_Corrective,-0.5\n");
    let map = RigMap::from_table("bench.csv", &table).unwrap();
    let mut group = c.benchmark_group("remap alex_rom_3 (4030 frames, 53 curves)");
    group.sample_size(20);
    group.throughput(Throughput::Elements(frames.len() as u64));
    for combine in [Combine::Sum, Combine::Max] {
        let curves = map.retargeter(combine).unwrap();
        group.bench_function(format!("{combine:?} to CSV"), |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(4 << 20);
                let mut writer = CurveWriter::new(&mut out, &curves).unwrap();
                for f in &frames {
                    writer.frame(f).unwrap();
                }
                writer.finish().unwrap();
                out
            })
        });
    }
    group.finish();
}

criterion_group!(benches, edit, remap);
criterion_main!(benches);
