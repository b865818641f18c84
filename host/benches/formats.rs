//! Unpack / pack throughput on a 200 000-frame take through files:
//! `cargo bench -p llv --bench formats`. Also times the native and LLV formats.
//! Clear JSON uses every core, so its figures scale with the cores free.

mod common;

use std::time::Instant;

use llv::recording::{self, Format, WriteOptions};

const FRAMES: usize = 200_000;

fn main() {
    let take = common::take(FRAMES);
    let dir = tempfile::tempdir().expect("temp dir");
    for format in [Format::Json, Format::Native, Format::Llv] {
        let path = dir.path().join("take");
        let start = Instant::now();
        recording::write(&path, format, &take, WriteOptions::default(), true).expect("write");
        let wrote = start.elapsed().as_secs_f64();
        let size = std::fs::metadata(&path).expect("size").len() as f64;
        let start = Instant::now();
        let loaded = recording::read(&path, &Default::default()).expect("read");
        let read = start.elapsed().as_secs_f64();
        assert_eq!(loaded.take, take);
        let mut memory = Vec::with_capacity(size as usize);
        let start = Instant::now();
        format
            .write(&take, &mut memory, WriteOptions::default())
            .expect("encode");
        let encoded = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let parsed = recording::read_bytes("memory", &memory).expect("parse");
        let decoded = start.elapsed().as_secs_f64();
        assert_eq!(parsed.take.len(), FRAMES);
        let name = match format {
            Format::Json => "clear JSON (unpack = write, pack = read)",
            other => other.describe(),
        };
        let rate = |secs: f64| {
            format!(
                "{:.0} frames/s ({:.0} MB/s)",
                FRAMES as f64 / secs,
                size / 1e6 / secs
            )
        };
        println!("{name}: {FRAMES} frames, {:.1} MB", size / 1e6);
        println!("  file:   write {}; read {}", rate(wrote), rate(read));
        println!("  memory: write {}; read {}", rate(encoded), rate(decoded));
        if format == Format::Json {
            // One space LLV does not print sends the file to the general
            // (serde_json) reader, as any hand-edited file goes.
            let general = [b"{ ".as_slice(), &memory[1..]].concat();
            let start = Instant::now();
            let parsed = recording::read_bytes("memory", &general).expect("parse");
            let secs = start.elapsed().as_secs_f64();
            assert_eq!(parsed.take, take);
            println!("  memory: read by serde_json alone {}", rate(secs));
        }
    }
}
