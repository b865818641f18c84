//! Take image: building, checking, streaming CRC and every error.

use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::take::{
    image_len, FrameEntry, ImageCheck, ImageCrc, ImageWriter, TakeError, TakeHeader, TakeImage,
    HEADER_LEN,
};
use llv_core::time::{FrameRate, FrameTime};

fn packet(n: i32) -> Vec<u8> {
    let frame = FaceFrame {
        version: 6,
        device_id: "dev",
        subject: "face",
        time: FrameTime {
            frame_number: n,
            subframe: 0.0,
            rate: FrameRate::FPS_60,
        },
        blendshapes: [n as f32; 61],
    };
    let mut buf = [0u8; MAX_LEN];
    let len = frame.encode(&mut buf).unwrap();
    buf[..len].to_vec()
}

fn image(frames: u32) -> Vec<u8> {
    let packets: Vec<_> = (0..frames as i32).map(packet).collect();
    let mut buf = vec![0u8; image_len(frames, packets.iter().map(Vec::len).sum())];
    let mut w = ImageWriter::new(&mut buf, "take one", frames).unwrap();
    for (i, p) in packets.iter().enumerate() {
        w.push(i as u32 * 16_667, p).unwrap();
    }
    let len = w.finish(frames * 16_667).unwrap();
    assert_eq!(len, buf.len());
    buf
}

#[test]
fn built_image_parses_with_its_frames() {
    let img = image(5);
    let take = TakeImage::parse(&img).unwrap();
    let h = take.header();
    assert_eq!(
        (h.name.as_str(), h.frame_count, h.period_us),
        ("take one", 5, 83_335)
    );
    assert_eq!(h.total_len as usize, img.len());
    let frames: Vec<_> = take.frames().collect();
    assert_eq!(frames.len(), 5);
    assert_eq!(
        frames[3].0,
        FrameEntry {
            time_us: 50_001,
            len: 277
        }
    );
    assert_eq!(frames[3].1, &packet(3)[..]);
}

#[test]
fn streaming_crc_in_any_pieces_matches() {
    let img = image(3);
    let header = TakeHeader::parse(&img).unwrap();
    for piece in [1, 7, 60, 61, 64, 100, img.len()] {
        let mut crc = ImageCrc::default();
        for chunk in img.chunks(piece) {
            crc.update(chunk);
        }
        assert_eq!(crc.finalize(), header.crc32, "pieces of {piece}");
    }
}

/// The streaming check's verdict on `img` fed in pieces of `piece` bytes.
fn streamed(img: &[u8], piece: usize) -> Result<TakeHeader, TakeError> {
    let mut check = ImageCheck::default();
    for chunk in img.chunks(piece) {
        if check.update(chunk).is_err() {
            break;
        }
    }
    check.finish()
}

#[test]
fn streaming_check_agrees_with_parse() {
    let img = image(3);
    let header = TakeHeader::parse(&img).unwrap();
    let mut corrupt = Vec::new();
    for at in [
        0,
        8,
        10,
        44,
        HEADER_LEN + 12,
        HEADER_LEN + 16,
        img.len() - 1,
    ] {
        let mut bad = img.clone();
        bad[at] ^= 0x41;
        corrupt.push(bad);
    }
    corrupt.push(img[..img.len() - 1].to_vec());
    let mut longer = img.clone();
    longer.push(0);
    corrupt.push(longer);
    for piece in [1, 7, 64, 100, img.len() + 1] {
        assert_eq!(
            streamed(&img, piece),
            Ok(header.clone()),
            "pieces of {piece}"
        );
        for bad in &corrupt {
            let parsed = TakeImage::parse(bad).map(|i| i.header().clone());
            let streamed = streamed(bad, piece);
            assert!(streamed.is_err(), "pieces of {piece}: accepted a bad image");
            if !matches!(parsed, Err(TakeError::LengthMismatch { .. })) {
                assert_eq!(streamed, parsed, "pieces of {piece}");
            }
        }
    }
}

#[test]
fn every_corruption_is_caught() {
    let img = image(3);
    let mut bad = img.clone();
    bad[0] = b'X';
    assert_eq!(TakeImage::parse(&bad).unwrap_err(), TakeError::BadMagic);
    let mut bad = img.clone();
    bad[8] = 9;
    assert_eq!(
        TakeImage::parse(&bad).unwrap_err(),
        TakeError::UnsupportedVersion(9)
    );
    let mut bad = img.clone();
    bad[10] = 40;
    assert_eq!(TakeImage::parse(&bad).unwrap_err(), TakeError::BadName);
    let mut bad = img.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(matches!(
        TakeImage::parse(&bad).unwrap_err(),
        TakeError::Crc { .. }
    ));
    assert!(matches!(
        TakeImage::parse(&img[..img.len() - 1]).unwrap_err(),
        TakeError::LengthMismatch { .. } | TakeError::Inconsistent
    ));
    let mut bad = img.clone();
    bad[HEADER_LEN + 8 + 4] = 10; // frame 1 length 277 -> 10
    bad[HEADER_LEN + 8 + 5] = 0;
    assert_eq!(
        TakeImage::parse(&bad).unwrap_err(),
        TakeError::BadFrameLength { frame: 1, len: 10 }
    );
    let mut bad = img.clone();
    bad[HEADER_LEN + 16..HEADER_LEN + 20].copy_from_slice(&1u32.to_le_bytes());
    assert_eq!(
        TakeImage::parse(&bad).unwrap_err(),
        TakeError::TimeGoesBack { frame: 2 }
    );
}

#[test]
fn writer_refuses_what_would_make_a_bad_image() {
    let p = packet(0);
    let mut small = vec![0u8; 10];
    assert_eq!(
        ImageWriter::new(&mut small, "x", 2).err(),
        Some(TakeError::BufferTooSmall(80))
    );
    let mut buf = vec![0u8; 2000];
    assert_eq!(
        ImageWriter::new(&mut buf, &"n".repeat(33), 1).err(),
        Some(TakeError::BadName)
    );
    let mut w = ImageWriter::new(&mut buf, "x", 1).unwrap();
    assert_eq!(
        w.push(0, &p[..100]),
        Err(TakeError::BadFrameLength { frame: 0, len: 100 })
    );
    w.push(5, &p).unwrap();
    assert_eq!(w.push(6, &p), Err(TakeError::FrameCount));
    let mut buf2 = vec![0u8; 2000];
    let mut w2 = ImageWriter::new(&mut buf2, "x", 2).unwrap();
    w2.push(5, &p).unwrap();
    assert_eq!(w2.push(4, &p), Err(TakeError::TimeGoesBack { frame: 1 }));
    assert_eq!(w2.finish(0), Err(TakeError::FrameCount));
}
