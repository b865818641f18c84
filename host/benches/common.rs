//! Takes for the benchmarks.

use llv::take::Take;
use llv_core::packet::{FaceFrame, MAX_LEN};

/// `frames` frames at exactly 60 fps (contiguous frame numbers, subframe 0), cycling
/// through the values of the bundled `examples/dao.gesichter` (real data, realistic floats).
pub fn take(frames: usize) -> Take {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/dao.gesichter");
    let dao = llv::recording::read(&path, &Default::default())
        .expect("examples/dao.gesichter")
        .take;
    let sources: Vec<FaceFrame<'_>> = dao.frames().map(|p| p.frame()).collect();
    let mut take = Take::with_capacity(frames);
    let mut buf = [0u8; MAX_LEN];
    for i in 0..frames {
        let mut frame = sources[i % sources.len()];
        frame.time.frame_number = 5_375_735 + i as i32;
        frame.time.subframe = 0.0;
        let len = frame.encode(&mut buf).expect("encode");
        take.push(&buf[..len]).expect("valid frame");
    }
    take
}
