//! Every format path on the real phone take joined to 190,450 frames
//! ([`real::real_take`], made in setup with llv's own join from
//! `tests/fixtures/llf/alex_rom_3.csv`), written to and read from files as
//! the commands do: `cargo bench -p llv --bench formats`. Criterion prints
//! frames per second. LLV gzip deflates on every core and clear JSON prints
//! on every core, so their figures scale with the cores free; the last group
//! times the gzip writer alone against one-thread flate2.

mod real;

use std::io::Write;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use llv::recording::gzip::{self, Blocks};
use llv::recording::{self, Format, WriteOptions};

fn formats(c: &mut Criterion) {
    let take = real::real_take();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut group = c.benchmark_group("alex_rom_3 joined, 190450 frames");
    group.sample_size(10);
    group.throughput(Throughput::Elements(take.len() as u64));
    for (format, name) in [
        (Format::Llv, "LLV gzip"),
        (Format::Json, "clear JSON"),
        (Format::Csv, "CSV take"),
        (Format::Native, "native lines"),
    ] {
        let path = dir.path().join(format!("take.{name}"));
        group.bench_function(format!("write {name}"), |b| {
            b.iter(|| {
                recording::write(&path, format, &take, WriteOptions::default(), true)
                    .expect("write")
            })
        });
        group.bench_function(format!("read {name}"), |b| {
            b.iter(|| {
                let loaded = recording::read(&path, &Default::default()).expect("read");
                assert_eq!(loaded.take.len(), take.len());
            })
        });
    }
    group.finish();

    // The LLV body (length-prefixed packets), deflated alone.
    let mut body = Vec::new();
    for packet in take.packets() {
        body.extend_from_slice(&(packet.len() as u32).to_be_bytes());
        body.extend_from_slice(packet);
    }
    let mut group = c.benchmark_group("gzip the LLV body of 190450 frames");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("llv's blocks on every core", |b| {
        b.iter_batched(
            || Vec::with_capacity(body.len()),
            |out| {
                let mut blocks = Blocks::new(out);
                blocks.write_all(&body).expect("deflate");
                let (compressed, crc) = blocks.finish().expect("deflate");
                let mut file = Vec::with_capacity(compressed.len() + 64);
                gzip::member(
                    &mut file,
                    &[6, 0, 0, 0, 0],
                    &mut compressed.as_slice(),
                    &crc,
                )
                .expect("gzip");
                file
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("flate2 GzEncoder, one thread, same level", |b| {
        b.iter(|| {
            let mut gz = flate2::write::GzEncoder::new(
                Vec::with_capacity(body.len()),
                flate2::Compression::new(gzip::LEVEL),
            );
            gz.write_all(&body).expect("deflate");
            gz.finish().expect("deflate")
        })
    });
    group.finish();
}

criterion_group!(benches, formats);
criterion_main!(benches);
