//! The read-ahead ring against a queue model: whatever the mix of pushes and
//! pops, frames come out whole, in order, and the ring never takes more than
//! its bytes.

use std::collections::VecDeque;

use llv_box::ring::FrameRing;
use proptest::prelude::*;

const N: usize = 2048;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn the_ring_is_a_fifo_of_whole_frames(ops in proptest::collection::vec((any::<bool>(), 0usize..800, any::<u32>()), 1..300)) {
        let mut ring = FrameRing::<N>::new();
        let mut model: VecDeque<(u32, Vec<u8>)> = VecDeque::new();
        let mut used = 0usize;
        for (i, (push, len, time)) in ops.into_iter().enumerate() {
            if push {
                let packet: Vec<u8> = (0..len).map(|b| (b ^ i) as u8).collect();
                let fits = used + 6 + len <= N;
                prop_assert_eq!(ring.fits(len), fits);
                prop_assert_eq!(ring.push(time, &packet), fits);
                if fits {
                    used += 6 + len;
                    model.push_back((time, packet));
                }
            } else {
                let mut out = [0u8; 800];
                match (ring.pop(&mut out), model.pop_front()) {
                    (Some((t, n)), Some((time, packet))) => {
                        prop_assert_eq!(t, time);
                        prop_assert_eq!(&out[..n], &packet[..]);
                        used -= 6 + n;
                    }
                    (None, None) => {}
                    (got, want) => prop_assert!(false, "{:?} vs {:?}", got, want.map(|w| w.0)),
                }
            }
            prop_assert_eq!(ring.len(), model.len());
        }
    }
}

#[test]
fn a_too_small_buffer_takes_nothing_out() {
    let mut ring = FrameRing::<64>::new();
    assert!(ring.push(7, &[1; 20]));
    let mut small = [0u8; 10];
    assert_eq!(ring.pop(&mut small), None);
    let mut out = [0u8; 20];
    assert_eq!(ring.pop(&mut out), Some((7, 20)));
    assert!(ring.is_empty());
}

#[test]
fn the_read_ahead_holds_more_than_the_worst_erase_of_the_largest_frames() {
    use llv_box::read_ahead::{READ_AHEAD, READ_AHEAD_FRAMES};
    use llv_core::packet::MAX_LEN;
    let mut ring = Box::new(FrameRing::<READ_AHEAD>::new());
    let packet = [0x5a; MAX_LEN];
    // Filled the way the player fills it: while the largest packet fits.
    while ring.fits(MAX_LEN) {
        assert!(ring.push(0, &packet));
    }
    assert_eq!(ring.len(), READ_AHEAD_FRAMES);
    // 2.33 s at 60 fps (16.667 ms apart), past the STM32H7's worst sector
    // erase (2.2 s) by more than a tenth of a second.
    assert!(READ_AHEAD_FRAMES as u64 * 16_667 >= 2_300_000);
}
