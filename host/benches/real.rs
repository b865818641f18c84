//! The real take of the format benchmarks.

use llv::take::Take;
use llv_core::packet::MAX_LEN;

/// Frames of the real take the whole-process figures use.
pub const REAL_FRAMES: usize = 190_450;

/// The real phone take `tests/fixtures/llf/alex_rom_3.csv` joined to itself
/// by llv's own join (each copy continuing the time) and cut to
/// [`REAL_FRAMES`] frames: 36 MB as LLV gzip, as `scripts/bench-takes` makes
/// it with the `llv` binary.
pub fn real_take() -> Take {
    use llv::edit::join::Join;
    use llv::edit::Frame;
    let csv = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/llf/alex_rom_3.csv");
    let alex = llv::recording::read(&csv, &Default::default())
        .expect("alex_rom_3.csv")
        .take;
    let mut join = Join::new(false);
    let mut take = Take::with_capacity(REAL_FRAMES);
    let mut buf = [0u8; MAX_LEN];
    while take.len() < REAL_FRAMES {
        join.start("alex_rom_3.csv");
        for packet in alex.packets().take(REAL_FRAMES - take.len()) {
            let frame = join
                .frame(Frame::decode(packet).expect("frame"))
                .expect("join");
            take.push(frame.encode(&mut buf).expect("encode"))
                .expect("valid frame");
        }
    }
    take
}
