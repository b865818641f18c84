//! CSV import rows per second and retarget frames per second on the real take
//! (`alex_rom_3.csv`, 4030 rows) with the real MetaHuman mapping.
//!
//! `cargo bench -p llv --bench csv_retarget`: criterion prints the throughput
//! in elements (rows or frames) per second.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use llv::commands::retarget::read_take;
use llv::metahuman::pose_asset::PoseAsset;
use llv::metahuman::retarget::{write_curves, Combine, Retargeter};
use llv::recording::csv::{self as csv_take, ImportOptions};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

fn benches(c: &mut Criterion) {
    let take = fixture("llf/alex_rom_3.csv");
    let map = fixture("mapping/mh_arkit_mapping_pose.T3D");
    let opts = ImportOptions::default();
    let rows = csv_take::import(&take, &opts).unwrap().len() as u64;

    let mut group = c.benchmark_group("alex_rom_3");
    group.sample_size(20);
    group.throughput(Throughput::Elements(rows));
    group.bench_function("csv import (rows)", |b| {
        b.iter(|| csv_take::import(&take, &opts).unwrap())
    });
    let packets = csv_take::import(&take, &opts).unwrap();
    group.bench_function("csv export (rows)", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(4 << 20);
            csv_take::export(packets.packets(), &mut out).unwrap();
            out
        })
    });
    let frames = read_take(&take, &Default::default()).unwrap();
    let asset = PoseAsset::load(&map).unwrap();
    for combine in [Combine::Sum, Combine::Max] {
        let r = Retargeter::new(&asset, combine, false);
        group.bench_function(format!("retarget {combine:?} to CSV (frames)"), |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(8 << 20);
                write_curves(&frames, &r, &mut out).unwrap();
                out
            })
        });
    }
    let r = Retargeter::new(&asset, Combine::Sum, false);
    let mut values = vec![0.0; r.curves().len()];
    group.bench_function("retarget Sum, math only (frames)", |b| {
        b.iter(|| {
            for f in &frames {
                r.apply(&f.shapes, &mut values);
            }
            values[0]
        })
    });
    group.finish();

    let mut group = c.benchmark_group("mapping");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(std::fs::metadata(&map).unwrap().len()));
    group.bench_function("T3D load (bytes)", |b| {
        b.iter(|| PoseAsset::load(&map).unwrap())
    });
    group.finish();
}

criterion_group!(csv_retarget, benches);
criterion_main!(csv_retarget);
