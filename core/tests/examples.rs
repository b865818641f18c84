//! Every frame of every bundled example decodes and re-encodes to the identical bytes.

use std::io::Read;
use std::path::Path;

use llv_core::llv_file::Frames;
use llv_core::packet::{classify, Datagram, FaceFrame, MAX_LEN};
use llv_core::take::{build_image, TakeImage};
use llv_core::{line, time::FrameRate};

/// The packets of an LLV 1.1+ file, gunzipped here and parsed by `llv_file`.
fn llv_frames(path: &Path) -> Vec<Vec<u8>> {
    let mut body = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut body)
        .unwrap();
    let frames = Frames::new(&body).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let count = frames.announced() as usize;
    let packets: Vec<Vec<u8>> = frames
        .map(|f| match f {
            Ok(f) => f.packet.to_vec(),
            Err(e) => panic!("{}: {e}", path.display()),
        })
        .collect();
    assert_eq!(packets.len(), count, "{}", path.display());
    packets
}

fn examples() -> Vec<(String, Vec<Vec<u8>>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gesichter"))
        // LLV's gzip files; `dao-legacy.gesichter` is LLV's legacy format
        // (base64 JSON lines), which the host reads (tests/tests/examples.rs).
        .filter(|p| std::fs::read(p).unwrap().starts_with(&[0x1f, 0x8b]))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                llv_frames(&p),
            )
        })
        .collect()
}

#[test]
fn every_example_frame_round_trips_bit_exact() {
    let mut total = 0;
    for (name, frames) in examples() {
        for (i, bytes) in frames.iter().enumerate() {
            let frame =
                FaceFrame::decode(bytes).unwrap_or_else(|e| panic!("{name} frame {i}: {e}"));
            let mut out = [0u8; MAX_LEN];
            let n = frame.encode(&mut out).unwrap();
            assert_eq!(&out[..n], &bytes[..], "{name} frame {i}");

            let mut text = [0u8; line::MAX_LINE_LEN];
            let encoded = line::encode(bytes, &mut text).unwrap();
            let mut back = [0u8; MAX_LEN];
            assert_eq!(
                line::decode(encoded.as_bytes(), &mut back).unwrap(),
                &bytes[..]
            );
            total += 1;
        }
    }
    assert_eq!(total, 4038);
}

#[test]
fn dao_capture_fields_check_out() {
    let dao = examples()
        .into_iter()
        .find(|(n, _)| n == "dao.gesichter")
        .unwrap()
        .1;
    assert_eq!(dao.len(), 180);
    let Datagram::Face(first) = classify(&dao[0]) else {
        panic!("not a face frame")
    };
    assert_eq!(first.as_bytes().len(), 320);
    assert_eq!(first.subject(), "LLV Default Device");
    assert_eq!(first.device_id(), "DEADC0DE-1337-1337-1337-CAFEBABE");
    assert_eq!(first.time().frame_number, 5375735);
    assert_eq!(first.time().rate, FrameRate::new(60, 1));
    // The clear fixture says EyeBlinkLeft = 0.00017782211943995208 in frame 0.
    assert_eq!(first.blendshape(0), Some(0.000_177_822_12_f32));
    // The count runs past a day (24:53:15:35 in frames); its label wraps.
    assert_eq!(
        first.time().timecode().unwrap().to_string(),
        "00:53:15:35.121"
    );
}

#[test]
fn take_image_of_dao_holds_every_packet() {
    let dao = examples()
        .into_iter()
        .find(|(n, _)| n == "dao.gesichter")
        .unwrap()
        .1;
    let len = llv_core::take::image_len(180, dao.iter().map(Vec::len).sum());
    let mut buf = vec![0u8; len];
    let packets = dao.iter().map(Vec::as_slice);
    assert_eq!(
        build_image(&mut buf, "dao", packets, FrameRate::FPS_60),
        Ok(len)
    );
    let image = TakeImage::parse(&buf).unwrap();
    assert_eq!(image.header().name.as_str(), "dao");
    assert_eq!(image.header().frame_count, 180);
    let frames: Vec<_> = image.frames().collect();
    assert_eq!(frames.len(), 180);
    for ((entry, packet), original) in frames.iter().zip(&dao) {
        assert_eq!(*packet, &original[..]);
        assert_eq!(entry.len as usize, original.len());
    }
    // 186 frame intervals at 60 fps (one gap of 8 frames after frame 6), plus the
    // subframe drift 0.23731613 - 0.12192535 of a frame: 3_101_923 µs.
    assert_eq!(frames[179].0.time_us, 3_101_923);
    assert_eq!(image.header().period_us, 3_101_923 + 16_666);
}
