//! The built-in take against an independent decoding of the example file.

use std::io::Read;

use embassy_futures::block_on;
use llv_box::builtin::{take, TAKE_IMAGE};
use llv_box::{FrameSource, ImageSource};
use llv_core::packet::MAX_LEN as MAX_PACKET;

fn example_packets() -> Vec<Vec<u8>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/dao.gesichter");
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    assert_eq!(raw[0], 6);
    let n = u32::from_be_bytes(raw[1..5].try_into().unwrap()) as usize;
    let mut at = 5;
    (0..n)
        .map(|_| {
            let len = u32::from_be_bytes(raw[at..at + 4].try_into().unwrap()) as usize;
            at += 4 + len;
            raw[at - len..at].to_vec()
        })
        .collect()
}

#[test]
fn builtin_take_holds_every_example_packet_bit_exact() {
    if std::env::var_os("LLV_BOX_TAKE").is_some() {
        return; // built from another take: nothing to compare with here
    }
    let expected = example_packets();
    let mut source = take().unwrap();
    assert_eq!(source.header().name.as_str(), "dao");
    assert_eq!(source.frame_count() as usize, expected.len());
    let mut buf = [0u8; MAX_PACKET];
    let mut previous = 0;
    for (i, packet) in expected.iter().enumerate() {
        let frame = block_on(source.read_frame(i as u32, &mut buf)).unwrap();
        assert_eq!(&buf[..frame.len], packet.as_slice(), "frame {i}");
        assert!(frame.time_us >= previous);
        previous = frame.time_us;
    }
    // The loop restarts one 60 fps frame after the last frame.
    assert_eq!(source.period_us(), previous + 16_666);
    let frame1 = block_on(source.read_frame(1, &mut buf)).unwrap();
    assert!(
        (16_600..16_700).contains(&frame1.time_us),
        "{}",
        frame1.time_us
    );
}

#[test]
fn random_access_matches_sequential() {
    let mut sequential = take().unwrap();
    let count = sequential.frame_count();
    let mut a = [0u8; MAX_PACKET];
    let mut b = [0u8; MAX_PACKET];
    let all: Vec<_> = (0..count)
        .map(|i| {
            let f = block_on(sequential.read_frame(i, &mut a)).unwrap();
            (f, a[..f.len].to_vec())
        })
        .collect();
    let mut random = ImageSource::new(TAKE_IMAGE).unwrap();
    for i in [count - 1, 0, 7, 6, count / 2, count - 1] {
        let f = block_on(random.read_frame(i, &mut b)).unwrap();
        assert_eq!((f, b[..f.len].to_vec()), all[i as usize]);
    }
    assert!(block_on(random.read_frame(count, &mut b)).is_err());
}

#[test]
fn corrupted_image_is_refused() {
    let mut bytes = TAKE_IMAGE.to_vec();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    assert!(ImageSource::new(&bytes).is_err());
}
