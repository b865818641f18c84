//! Recording lines: round trips and every error.

use llv_core::line::*;
use llv_core::packet::{MAX_LEN, MIN_LEN};

fn packet(len: usize) -> [u8; MAX_LEN] {
    let mut p = [0u8; MAX_LEN];
    for (i, b) in p.iter_mut().enumerate().take(len) {
        *b = (i * 7) as u8;
    }
    p
}

#[test]
fn round_trip_at_both_bounds() {
    for len in [MIN_LEN, 320, MAX_LEN] {
        let p = packet(len);
        let mut line = [0u8; MAX_LINE_LEN];
        let text = encode(&p[..len], &mut line).unwrap();
        assert_eq!(text.len(), len.div_ceil(3) * 4);
        let mut out = [0u8; MAX_LEN];
        assert_eq!(decode(text.as_bytes(), &mut out).unwrap(), &p[..len]);
    }
    assert_eq!(MAX_LINE_LEN, 1032);
}

#[test]
fn bad_character_names_its_column() {
    let p = packet(320);
    let mut line = [0u8; MAX_LINE_LEN];
    let n = encode(&p[..320], &mut line).unwrap().len();
    line[10] = b'!';
    let mut out = [0u8; MAX_LEN];
    assert_eq!(
        decode(&line[..n], &mut out),
        Err(LineError::BadCharacter {
            column: 10,
            byte: b'!'
        })
    );
}

#[test]
fn bad_padding_and_sizes() {
    let mut out = [0u8; MAX_LEN];
    let p = packet(320);
    let mut line = [0u8; MAX_LINE_LEN];
    let n = encode(&p[..319], &mut line).unwrap().len();
    // 319 bytes end in one '=': drop it.
    assert_eq!(decode(&line[..n - 1], &mut out), Err(LineError::BadPadding));
    // '=' in the middle.
    line[8] = b'=';
    assert_eq!(decode(&line[..n], &mut out), Err(LineError::BadPadding));
    assert_eq!(
        decode(b"AAAA", &mut out),
        Err(LineError::SizeOutOfBounds(3))
    );
    let long = [b'A'; MAX_LINE_LEN + 4];
    assert_eq!(
        decode(&long, &mut out),
        Err(LineError::SizeOutOfBounds(777))
    );
    let mut small = [0u8; 10];
    assert_eq!(
        encode(&p[..320], &mut small),
        Err(LineError::BufferTooSmall(428))
    );
}
