//! The box's black box on a FAT32 image made by `mkfs.fat`: the real phone
//! take (`alex_rom_3.csv`, 30 Hz numbered at 60 fps) recorded frame by frame
//! as it arrives, then made a take identical to the one `llv` builds from
//! the same packets; power cuts during the recording (all but the last
//! second kept) and at every stage of making the take (one take, never two,
//! never none); a recording past an hour split; a card read, never written.
//! `fsck.fat -n` finds the volume clean after every operation and after the
//! repair that follows a cut.

mod common;

use std::path::Path;

use common::{assert_clean, fat32, frames, image_file, mtools, names};
use embassy_time::{Duration, MockDriver};
use llv_card::image::{on_image, ImageFile};
use llv_card::journal::{record_block, Head, Stamp, SPLIT_US, SYNC_EVERY};
use llv_card::{Card, CardPort, Mode, Scanned};
use llv_core::blendshape::{COUNT, NAMES};
use llv_core::packet::{FaceFrame, MAX_LEN, VERSION};
use llv_core::take::{build_image, TakeImage};
use llv_core::time::{FrameRate, FrameTime};

/// The phone take's first `rows` rows as the phone sends them: when each
/// left the phone (µs from the first, by its timecode) and its packet.
fn phone(rows: usize) -> Vec<(u32, Vec<u8>)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/llf/alex_rom_3.csv"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut rows_of = text.lines();
    let columns: Vec<usize> = rows_of.next().unwrap().split(',').collect::<Vec<_>>()[2..]
        .iter()
        .map(|c| NAMES.iter().position(|n| n == c).unwrap())
        .collect();
    let mut start = None;
    let mut out = Vec::new();
    for row in rows_of.take(rows) {
        let cells: Vec<&str> = row.split(',').collect();
        let [h, m, s, f]: [f64; 4] = cells[0]
            .split(':')
            .map(|p| p.parse().unwrap())
            .collect::<Vec<_>>()
            .try_into()
            .unwrap();
        let at = ((h * 60.0 + m) * 60.0 + s) * 60.0 + f;
        let start = *start.get_or_insert(at);
        let mut values = [0.0; COUNT];
        for (cell, &i) in cells[2..].iter().zip(&columns) {
            values[i] = cell.parse().unwrap();
        }
        let frame = FaceFrame {
            version: VERSION,
            device_id: "9E8C4C1B-phone",
            subject: "alex",
            time: FrameTime {
                frame_number: at.floor() as i32,
                subframe: (at - at.floor()) as f32,
                rate: FrameRate::FPS_60,
            },
            blendshapes: values,
        };
        let mut buf = [0u8; MAX_LEN];
        let n = frame.encode(&mut buf).unwrap();
        out.push((((at - start) / 60.0 * 1e6) as u32, buf[..n].to_vec()));
    }
    out
}

/// The take `llv` builds from `packets` (the one timing rule).
fn built(name: &str, packets: &[(u32, Vec<u8>)]) -> Vec<u8> {
    let bytes: usize = packets.iter().map(|p| p.1.len()).sum();
    let mut buf = vec![0u8; 64 + 8 * packets.len() + bytes];
    let n = build_image(
        &mut buf,
        name,
        packets.iter().map(|p| p.1.as_slice()),
        FrameRate::FPS_60,
    )
    .unwrap();
    buf.truncate(n);
    buf
}

/// Records `packets` on `card` as the box does, the mock clock following
/// their arrival; returns how many were written.
async fn record(
    card: &mut Card<impl llv_card::CardDriver>,
    stamp: &mut Stamp,
    packets: &[(u32, Vec<u8>)],
) -> usize {
    let mut written = 0;
    let mut last = packets.first().map_or(0, |p| p.0);
    for (at, packet) in packets {
        MockDriver::get().advance(Duration::from_micros(u64::from(at - last)));
        last = *at;
        let head: Head = stamp.stamp(*at, packet).unwrap();
        let ok = card
            .record(|k, b| record_block(&head, packet, k, b))
            .await
            .unwrap();
        written += usize::from(ok);
    }
    written
}

/// Steps `card` until its scan (and whatever journal it made a take) is through.
async fn settle(card: &mut Card<impl llv_card::CardDriver>) -> Vec<Scanned> {
    let mut seen = Vec::new();
    for _ in 0..100_000 {
        let s = card.step().await;
        let done = matches!(s, Scanned::Done | Scanned::Idle) && !card.scanning();
        seen.push(s);
        if done {
            return seen;
        }
    }
    panic!("the scan did not end: {:?}", seen.last());
}

/// The files of the takes' folder (mtools' `mdir -b`).
fn files(path: &Path) -> Vec<String> {
    let image = format!("{}@@{}", path.display(), common::START * 512);
    let out = std::process::Command::new("mdir")
        .env("MTOOLS_SKIP_CHECK", "1")
        .args(["-i", &image, "-b", "::/LLV"])
        .output()
        .unwrap();
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.rsplit('/').next().map(str::to_string))
        .collect();
    names.sort();
    names
}

#[test]
fn a_recording_is_the_take_llv_builds_from_the_frames_that_arrived() {
    let (_dir, path) = fat32();
    let packets = phone(600);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            assert_eq!(card.begin_recording().await.unwrap(), "live-0001");
            let written = record(card, &mut Stamp::default(), &packets).await;
            assert_eq!(written, packets.len());
            let (name, count, bytes) = card.recording().unwrap();
            assert_eq!((name, count), ("live-0001", 600));
            assert_eq!(bytes, 512 + 600 * 1024);
            card.end_recording().await.unwrap();
            let seen = settle(card).await;
            assert!(
                seen.iter()
                    .any(|s| matches!(s, Scanned::Checked { file, verdict: Ok(h) }
                if file.as_str() == "LIVE0001.LLJ" && h.name == "live-0001")),
                "{seen:?}"
            );
            assert_eq!(names(card).await, ["live-0001"]);
            let read = frames(card, "live-0001").await.unwrap();
            let sent: Vec<Vec<u8>> = packets.iter().map(|p| p.1.clone()).collect();
            assert!(read == sent, "the take's frames are not those that arrived");
            // Header, times, period and CRC: the take llv builds.
            let header = card.header(0).await.unwrap();
            let reference = built("live-0001", &packets);
            let want = TakeImage::parse(&reference).unwrap();
            assert_eq!(&header, want.header());
        },
    );
    assert_clean(&path);
    assert_eq!(files(&path), ["LIVE-000.TAK"]);
}

/// Records `n` phone frames and cuts the power (nothing ended or closed).
fn record_then_cut(path: &Path, packets: &[(u32, Vec<u8>)]) {
    let port = Box::leak(Box::new(CardPort::new(image_file(path))));
    let mut card = Card::new(port);
    embassy_futures::block_on(async {
        settle(&mut card).await;
        card.begin_recording().await.unwrap();
        record(&mut card, &mut Stamp::default(), packets).await;
    });
    drop(card);
}

#[test]
fn a_power_cut_while_recording_keeps_all_but_the_last_second() {
    let (_dir, path) = fat32();
    let packets = phone(400);
    record_then_cut(&path, &packets);
    // At the next mount the journal is made a take.
    let read = on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            assert_eq!(names(card).await, ["live-0001"]);
            frames(card, "live-0001").await.unwrap()
        },
    );
    assert_clean(&path);
    assert_eq!(files(&path), ["LIVE-000.TAK"]);
    let last = packets.last().unwrap().0;
    let kept = read.len();
    let lost_from = packets[kept.min(packets.len() - 1)].0;
    assert!(
        kept == packets.len() || last - lost_from <= SYNC_EVERY.as_micros() as u32 + 40_000,
        "kept {kept} of {} frames: lost from {lost_from} µs of {last}",
        packets.len()
    );
    let sent: Vec<Vec<u8>> = packets[..kept].iter().map(|p| p.1.clone()).collect();
    assert!(read == sent, "the kept frames are not those that arrived");
    assert!(kept > 0);
    println!(
        "kept {kept} of {} frames; lost the last {:.0} ms",
        packets.len(),
        f64::from(last - packets[kept - 1].0) / 1e3
    );
}

#[test]
fn a_cut_at_any_step_of_making_the_take_leaves_one_whole_take() {
    let (_dir, path) = fat32();
    let packets = phone(150);
    let sent: Vec<Vec<u8>> = packets.iter().map(|p| p.1.clone()).collect();
    // The journal, ended as `live off` ends it, not yet a take.
    let port = Box::leak(Box::new(CardPort::new(image_file(&path))));
    let mut card = Card::new(port);
    embassy_futures::block_on(async {
        settle(&mut card).await;
        card.begin_recording().await.unwrap();
        record(&mut card, &mut Stamp::default(), &packets).await;
        card.end_recording().await.unwrap();
    });
    drop(card);
    assert_clean(&path);
    let journal = std::fs::read(&path).unwrap();
    // How many steps making it a take takes.
    let steps = {
        let port = Box::leak(Box::new(CardPort::new(image_file(&path))));
        let mut card = Card::new(port);
        embassy_futures::block_on(settle(&mut card)).len()
    };
    assert!(steps > 20, "{steps} steps");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("cut.img");
    let mut cut = 1;
    while cut < steps {
        std::fs::write(&copy, &journal).unwrap();
        {
            let port = Box::leak(Box::new(CardPort::new(image_file(&copy))));
            let mut card = Card::new(port);
            embassy_futures::block_on(async {
                for _ in 0..cut {
                    card.step().await;
                }
            });
        }
        let (listed, read) = on_image(
            image_file(&copy),
            Mode::Write,
            |_| {},
            async |card| (names(card).await, frames(card, "live-0001").await.unwrap()),
        );
        assert_eq!(listed, ["live-0001"], "cut after {cut} steps");
        assert!(read == sent, "cut after {cut} steps: frames differ");
        assert_clean(&copy);
        let left = files(&copy);
        assert!(
            left.len() == 1 && left[0].ends_with(".TAK"),
            "cut after {cut} steps: {left:?}"
        );
        cut += 1 + steps / 12;
    }
}

#[test]
fn a_recording_past_an_hour_goes_on_in_a_second_take() {
    let (_dir, path) = fat32();
    let packets = phone(3);
    // The third frame an hour after the first two.
    let mut late = packets.clone();
    let mut frame = FaceFrame::decode(&late[2].1).unwrap();
    frame.time.frame_number += (SPLIT_US / 1_000_000 * 60) as i32;
    let mut buf = [0u8; MAX_LEN];
    let n = frame.encode(&mut buf).unwrap();
    late[2] = (late[2].0 + SPLIT_US, buf[..n].to_vec());
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            card.begin_recording().await.unwrap();
            assert_eq!(record(card, &mut Stamp::default(), &late).await, 3);
            assert_eq!(card.recording().unwrap().0, "live-0002");
            card.end_recording().await.unwrap();
            settle(card).await;
            let mut listed = names(card).await;
            listed.sort();
            assert_eq!(listed, ["live-0001", "live-0002"]);
            assert_eq!(frames(card, "live-0001").await.unwrap().len(), 2);
            assert_eq!(
                frames(card, "live-0002").await.unwrap(),
                [late[2].1.clone()]
            );
        },
    );
    assert_clean(&path);
}

#[test]
fn a_recording_never_takes_a_name_a_take_has() {
    let (_dir, path) = fat32();
    let packets = phone(20);
    let taken = built("live-0001", &packets[..10]);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            let h = llv_core::take::TakeHeader::parse(&taken).unwrap();
            let id = card
                .begin_upload("live-0001", h.total_len, h.crc32)
                .await
                .unwrap();
            for (i, chunk) in taken.chunks(1024).enumerate() {
                card.write_chunk(id, (i * 1024) as u32, chunk)
                    .await
                    .unwrap();
            }
            card.commit_upload(id).await.unwrap();
            assert_eq!(card.begin_recording().await.unwrap(), "live-0002");
            record(card, &mut Stamp::default(), &packets).await;
            card.end_recording().await.unwrap();
            settle(card).await;
            assert_eq!(frames(card, "live-0001").await.unwrap().len(), 10);
            assert_eq!(frames(card, "live-0002").await.unwrap().len(), 20);
        },
    );
    assert_clean(&path);
}

#[test]
fn a_card_read_with_a_journal_on_it_is_left_as_it_was() {
    let (_dir, path) = fat32();
    record_then_cut(&path, &phone(100));
    let before = std::fs::read(&path).unwrap();
    let file = std::fs::OpenOptions::new().read(true).open(&path).unwrap();
    let listed = on_image(
        ImageFile::new(file).unwrap(),
        Mode::Read,
        |_| {},
        async |card| names(card).await,
    );
    assert!(listed.is_empty(), "{listed:?}");
    assert!(std::fs::read(&path).unwrap() == before, "reading wrote");
    mtools(&path, "mdir", &["::/LLV"]);
}
