//! The LLV 1.1+ body parser: every frame back, and each fault named with its frame and byte.

use llv_core::llv_file::{frame_len, header, Frame, Frames, LlvError, HEADER_LEN};
use proptest::prelude::*;

/// A body announcing `count` frames that holds `packets`.
fn body(count: u32, packets: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![6];
    out.extend_from_slice(&count.to_be_bytes());
    for p in packets {
        out.extend_from_slice(&(p.len() as u32).to_be_bytes());
        out.extend_from_slice(p);
    }
    out
}

fn packets(lens: &[usize]) -> Vec<Vec<u8>> {
    lens.iter()
        .enumerate()
        .map(|(i, &n)| vec![i as u8; n])
        .collect()
}

#[test]
fn frames_come_back_with_their_offsets() {
    let p = packets(&[264, 774, 300]);
    let b = body(3, &p);
    let frames: Vec<Frame<'_>> = Frames::new(&b).unwrap().map(Result::unwrap).collect();
    assert_eq!(frames.len(), 3);
    assert_eq!(frames[0].offset, HEADER_LEN + 4);
    assert_eq!(frames[1].offset, HEADER_LEN + 4 + 264 + 4);
    assert_eq!(frames[2].index, 2);
    for (f, p) in frames.iter().zip(&p) {
        assert_eq!(f.packet, &p[..]);
    }
    assert_eq!(Frames::new(&body(0, &[])).unwrap().count(), 0);
}

#[test]
fn each_fault_names_frame_and_byte() {
    assert_eq!(header(&[]), Err(LlvError::ShortHeader(0)));
    assert_eq!(header(&[6, 0, 0]), Err(LlvError::ShortHeader(3)));
    assert_eq!(header(&[0; 5]), Err(LlvError::Version(0)));
    assert_eq!(header(&[6, 0xff, 0xff, 0xff, 0xff]), Ok(u32::MAX));

    let p = packets(&[264, 264]);
    fn last(b: &[u8]) -> Result<Frame<'_>, LlvError> {
        Frames::new(b).unwrap().last().unwrap()
    }
    // The header claims more than the body holds: ends between frames.
    assert_eq!(
        last(&body(3, &p)),
        Err(LlvError::EndsBeforeFrame {
            frame: 2,
            offset: 5 + 2 * 268,
            present: 0
        })
    );
    let mut cut = body(2, &p);
    cut.truncate(cut.len() - 10);
    assert_eq!(
        last(&cut),
        Err(LlvError::EndsInFrame {
            frame: 1,
            offset: 5 + 268 + 4,
            len: 264,
            present: 254
        })
    );
    let mut cut = body(3, &p);
    cut.extend_from_slice(&[0, 0]);
    assert_eq!(
        last(&cut),
        Err(LlvError::EndsBeforeFrame {
            frame: 2,
            offset: 5 + 2 * 268,
            present: 2
        })
    );
    let mut long = body(2, &p);
    long.extend_from_slice(b"xyz");
    assert_eq!(
        last(&long),
        Err(LlvError::Trailing {
            offset: 5 + 2 * 268,
            len: 3
        })
    );
    let mut bad = body(2, &p);
    bad[5 + 268..5 + 272].copy_from_slice(&100u32.to_be_bytes());
    assert_eq!(
        last(&bad),
        Err(LlvError::BadLength {
            frame: 1,
            offset: 5 + 268,
            len: 100
        })
    );
    assert_eq!(
        frame_len(u32::MAX.to_be_bytes(), 7, 9),
        Err(LlvError::BadLength {
            frame: 7,
            offset: 9,
            len: u32::MAX
        })
    );
    assert_eq!(
        LlvError::BadLength {
            frame: 1,
            offset: 273,
            len: 100
        }
        .to_string(),
        "frame 1: length at byte 273: 100 bytes, outside 264..=774"
    );
}

proptest! {
    #[test]
    fn any_body_yields_its_frames_then_at_most_one_error(
        lens in proptest::collection::vec(264usize..=774, 0..6),
        cut in any::<prop::sample::Index>(),
        extra in 0u32..3,
    ) {
        let p = packets(&lens);
        let whole = body(p.len() as u32 + extra, &p);
        let cut = cut.index(whole.len() + 1);
        let items: Vec<_> = match Frames::new(&whole[..cut]) {
            Ok(frames) => frames.collect(),
            Err(e) => {
                prop_assert!(cut < HEADER_LEN, "{e}");
                return Ok(());
            }
        };
        let good = items.iter().take_while(|i| i.is_ok()).count();
        prop_assert!(items.len() - good <= 1);
        for (item, packet) in items.iter().take(good).zip(&p) {
            prop_assert_eq!(item.as_ref().unwrap().packet, &packet[..]);
        }
        if cut == whole.len() && extra == 0 {
            prop_assert_eq!(good, p.len());
            prop_assert_eq!(items.len(), p.len());
        }
    }

    #[test]
    fn any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        if let Ok(frames) = Frames::new(&bytes) {
            for f in frames.take(10).flatten() {
                prop_assert!(f.offset + f.packet.len() <= bytes.len());
            }
        }
    }
}
