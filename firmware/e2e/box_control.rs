//! End to end: the box under QEMU with its take store on a flash file
//! (`flash=PATH`, a semihosted NOR flash), driven over its control port
//! (forwarded from 127.0.0.1) by the real `llv` binary.
//!
//! Checks: `llv flash` stores a take that `llv box list` shows with the same
//! CRC; `llv box play` sends every packet byte-identical to a UDP socket of
//! this test; the take is still there after a restart on the same file; a
//! power cut (QEMU killed) in the middle of a second upload leaves the first
//! take intact and no trace of the second; an autoplay take plays at power-up
//! without any command; a subject rename changes only the subject; garbage and
//! oversized frames get error responses and the box goes on serving.
//! Every wait is bounded; QEMU is killed on drop.
//!
//! Needs `qemu-system-arm` and the `thumbv7em-none-eabihf` target (see
//! `box_qemu.rs`). Lives in the root `tests` crate.

use std::io::Write;

use llv_core::control::{ErrorCode, Request, Response};
use llv_core::packet::FaceFrame;
use llv_tests::{example, llv_packets};

use flash_box::*;
use llv_tests::flash_box;

#[test]
fn flashed_take_plays_bit_exact_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let b = QemuBox::boot(&flash);
    let crc = flash_dao(&b);
    assert_only_dao(&b, &crc);
    assert_plays_dao(&b);
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(
        status["address"],
        serde_json::json!([10, 0, 2, 15]),
        "{status}"
    );
    drop(b);

    let b = QemuBox::boot(&flash);
    assert_only_dao(&b, &crc);
    assert_plays_dao(&b);
}

#[test]
fn power_cut_during_an_upload_leaves_the_first_take_intact() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let b = QemuBox::boot(&flash);
    let crc = flash_dao(&b);
    let used = b.json(&["box", "{box}", "status", "--json"])["used_bytes"].clone();

    // A second upload of a 40 KiB image, cut after its first 20 KiB.
    let frames = 124;
    let mut image = vec![0u8; llv_core::take::image_len(frames, 320 * frames as usize)];
    let mut w = llv_core::take::ImageWriter::new(&mut image, "cut", frames).unwrap();
    for i in 0..frames {
        w.push(i * 16_667, &[i as u8; 320]).unwrap();
    }
    w.finish(frames * 16_667).unwrap();
    let header = llv_core::take::TakeHeader::parse(&image).unwrap();
    let mut s = connect(b.port).unwrap();
    let begin = framed(&Request::UploadBegin {
        name: "cut",
        total_len: header.total_len,
        crc32: header.crc32,
        place: llv_core::control::Place::Internal,
    });
    assert_eq!(exchange(&mut s, &begin).unwrap(), Response::Ok);
    for (i, part) in image[..20 * 1024].chunks(1024).enumerate() {
        let chunk = framed(&Request::UploadChunk {
            offset: (i * 1024) as u32,
            data: part,
        });
        assert_eq!(exchange(&mut s, &chunk).unwrap(), Response::Ok, "chunk {i}");
    }
    drop(b); // SIGKILL: the power cut.
    drop(s);

    let b = QemuBox::boot(&flash);
    assert_only_dao(&b, &crc);
    assert_plays_dao(&b);
    // The cut upload's blocks are free again: only dao's are used.
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(status["used_bytes"], used, "{status}");
}

#[test]
fn autoplay_take_plays_at_power_up() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let b = QemuBox::boot(&flash);
    flash_dao(&b);
    let (socket, target) = receiver();
    b.llv(&[
        "box",
        "{box}",
        "config",
        "targets",
        &target,
        "autoplay",
        "dao",
        "autoplay-loops",
        "1",
        "subject",
        "Renamed",
    ])
    .success();
    drop(b);

    // Receive while the box boots: the take starts before the control port
    // answers, and a socket left unread would overflow its buffer.
    let expected = llv_packets(&example("dao.gesichter"));
    let count = expected.len();
    let receiving = std::thread::spawn(move || receive(&socket, count, TIMEOUT + PLAY_TIMEOUT));
    let _b = QemuBox::boot(&flash);
    let got = receiving.join().unwrap();
    assert_count(&got, &expected);
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        let (g, e) = (FaceFrame::decode(g).unwrap(), FaceFrame::decode(e).unwrap());
        assert_eq!(g.subject, "Renamed", "frame {i}");
        assert_eq!(
            FaceFrame {
                subject: e.subject,
                ..g
            },
            e,
            "frame {i}: only the subject changes"
        );
    }
}

#[test]
fn garbage_and_oversized_frames_leave_the_box_serving() {
    let dir = tempfile::tempdir().unwrap();
    let b = QemuBox::boot(&dir.path().join("flash.bin"));
    let error_code = |r: Response| match r {
        Response::Error { code, .. } => Some(code),
        _ => None,
    };
    let mut s = connect(b.port).unwrap();
    let r = exchange(&mut s, &[3, 0, 0xFF, 0xFF, 0xFF]).unwrap();
    assert_eq!(error_code(r), Some(ErrorCode::BadRequest));
    let mut oversized = vec![0xFF, 0xFF];
    oversized.extend(std::iter::repeat_n(0xAB, 0xFFFF));
    let r = exchange(&mut s, &oversized).unwrap();
    assert_eq!(error_code(r), Some(ErrorCode::TooLarge));
    assert!(matches!(
        exchange(&mut s, &framed(&Request::Status)).unwrap(),
        Response::Status(_)
    ));
    // A connection dropped in the middle of a frame.
    s.write_all(&[0x00, 0x04, 1, 2, 3]).unwrap();
    drop(s);
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(status["firmware"], "llv-box-qemu 0.1.0", "{status}");
}
