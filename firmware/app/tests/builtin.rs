//! The built-in take against the recording it was built from (the example
//! file, or `LLV_BOX_TAKE` when the build was given one), read here on its own.

use std::io::Read;

use embassy_futures::block_on;
use llv_box::builtin::{take, TAKE_IMAGE};
use llv_box::{FrameSource, ImageSource};
use llv_core::llv_file::Frames;
use llv_core::pacing::fixed_offset;
use llv_core::packet::{Packet, MAX_LEN as MAX_PACKET};
use llv_core::time::FrameRate;

/// The recording build.rs read: `LLV_BOX_TAKE` as this test was compiled, else the example.
fn source_path() -> std::path::PathBuf {
    option_env!("LLV_BOX_TAKE").map_or_else(
        || concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/dao.gesichter").into(),
        Into::into,
    )
}

fn source_packets() -> Vec<Vec<u8>> {
    let mut body = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(source_path()).unwrap())
        .read_to_end(&mut body)
        .unwrap();
    Frames::new(&body)
        .unwrap()
        .map(|f| f.unwrap().packet.to_vec())
        .collect()
}

#[test]
fn builtin_take_holds_every_packet_bit_exact() {
    let expected = source_packets();
    let mut source = take().unwrap();
    let stem = source_path()
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let name = source.header().name.clone();
    assert!(
        !name.is_empty() && stem.starts_with(name.as_str()),
        "{name} from {stem}"
    );
    assert_eq!(source.frame_count() as usize, expected.len());
    let mut buf = [0u8; MAX_PACKET];
    let mut previous = 0;
    for (i, packet) in expected.iter().enumerate() {
        let frame = block_on(source.read_frame(i as u32, &mut buf)).unwrap();
        assert_eq!(&buf[..frame.len], packet.as_slice(), "frame {i}");
        assert!(frame.time_us >= previous);
        previous = frame.time_us;
    }
    // The loop restarts one frame (at the first frame's rate, else 60 fps) after the last.
    let rate = Packet::new_checked(&expected[0]).unwrap().time().rate;
    let rate = if rate.is_valid() {
        rate
    } else {
        FrameRate::FPS_60
    };
    let step = fixed_offset(1, rate).unwrap().as_micros() as u32;
    assert_eq!(source.period_us(), previous + step);
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
