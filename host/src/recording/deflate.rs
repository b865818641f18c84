//! A deflate encoder of zlib's quickest kind (zlib-ng's `deflate_quick`,
//! zlib-rs's level 1): one hash probe per position for a match of at least
//! four bytes, no lazy matching, the fixed Huffman codes. Its hash table
//! is 16 KiB, which stays in the first-level cache where zlib's 128 KiB
//! one does not: on a real take it deflates about 1.7 times as fast as
//! zlib-rs's level 1 for files of the same size (a take's matches are
//! mostly the frame before, a few hundred bytes back).

/// How far back a match may reach: deflate's whole window.
pub const WINDOW: usize = 32 << 10;
/// Bits of the hash of four bytes (the table holds `1 << HASH_BITS` positions).
/// 15 bits (128 KiB) deflated no faster than zlib-rs; 12 bits made a real
/// take's file 0.1% larger than 15 did and took 40% less time.
const HASH_BITS: u32 = 12;
/// The shortest match sent (a shorter one costs about what its literals do).
const MIN_MATCH: usize = 4;
/// The longest match deflate can say.
const MAX_MATCH: usize = 258;

/// A deflate encoder's working memory, kept from one call to the next.
pub struct Quick {
    /// The dictionary, then the data: one run of bytes to find matches in.
    text: Vec<u8>,
    /// Per hash of four bytes, the last position in `text` plus one (0: none).
    head: Vec<u32>,
}

impl Default for Quick {
    fn default() -> Self {
        Quick {
            text: Vec::new(),
            head: vec![0; 1 << HASH_BITS],
        }
    }
}

impl Quick {
    /// Appends `data` to `out` as raw deflate that starts and ends on a
    /// byte boundary: one fixed-code block, not the last, then a sync flush
    /// (an empty stored block). Matches may reach back into `dictionary`,
    /// the bytes just before `data` (its last 32 KiB). Positions are kept
    /// as u32: for blocks (LLV gzip's are 256 KiB), not gigabytes at once.
    pub fn deflate(&mut self, dictionary: &[u8], data: &[u8], out: &mut Vec<u8>) {
        let dictionary = &dictionary[dictionary.len().saturating_sub(WINDOW)..];
        self.text.clear();
        self.text.extend_from_slice(dictionary);
        self.text.extend_from_slice(data);
        self.head.fill(0);
        let (text, head) = (&self.text[..], &mut self.head[..]);
        let end = text.len();
        out.reserve(data.len() + data.len() / 8 + 64);
        let mut bits = Bits {
            out,
            buf: 0,
            count: 0,
        };
        // BFINAL 0, BTYPE 01: fixed codes.
        bits.put(0b010, 3);
        for at in 0..dictionary.len().min(end.saturating_sub(MIN_MATCH - 1)) {
            head[hash(load4(text, at))] = at as u32 + 1;
        }
        let mut at = dictionary.len();
        while at + MIN_MATCH <= end {
            let four = load4(text, at);
            let slot = &mut head[hash(four)];
            let candidate = *slot as usize;
            *slot = at as u32 + 1;
            if candidate != 0 {
                let from = candidate - 1;
                if at - from <= WINDOW && load4(text, from) == four {
                    let most = (end - at).min(MAX_MATCH);
                    let len = MIN_MATCH
                        + common(text, from + MIN_MATCH, at + MIN_MATCH, most - MIN_MATCH);
                    bits.copy(len, at - from);
                    at += len;
                    continue;
                }
            }
            bits.literal(text[at]);
            at += 1;
        }
        for &byte in &text[at..] {
            bits.literal(byte);
        }
        // End of block (code 256: seven 0 bits), then a stored block's
        // header (BFINAL 0, BTYPE 00), to the byte boundary, its length 0.
        bits.put(0, 7 + 3);
        bits.align();
        out.extend_from_slice(&[0, 0, 0xff, 0xff]);
    }
}

/// The hash of four bytes.
fn hash(four: u32) -> usize {
    (four.wrapping_mul(0x9e37_79b1) >> (32 - HASH_BITS)) as usize
}

fn load4(text: &[u8], at: usize) -> u32 {
    let mut bytes = [0; 4];
    bytes.copy_from_slice(&text[at..at + 4]);
    u32::from_le_bytes(bytes)
}

fn load8(text: &[u8], at: usize) -> u64 {
    let mut bytes = [0; 8];
    bytes.copy_from_slice(&text[at..at + 8]);
    u64::from_le_bytes(bytes)
}

/// How many bytes, up to `most`, are the same from `earlier` and from `later`.
fn common(text: &[u8], earlier: usize, later: usize, most: usize) -> usize {
    let mut n = 0;
    while n + 8 <= most {
        let differ = load8(text, earlier + n) ^ load8(text, later + n);
        if differ != 0 {
            return n + (differ.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < most && text[earlier + n] == text[later + n] {
        n += 1;
    }
    n
}

/// Bits sent first-in-lowest-bit, as deflate packs them.
struct Bits<'a> {
    out: &'a mut Vec<u8>,
    buf: u64,
    /// Bits in `buf`, below 32 between calls.
    count: u32,
}

impl Bits<'_> {
    /// Sends the low `count` bits of `value` (at most 31; no higher bits set).
    fn put(&mut self, value: u32, count: u32) {
        self.buf |= u64::from(value) << self.count;
        self.count += count;
        if self.count >= 32 {
            self.out.extend_from_slice(&(self.buf as u32).to_le_bytes());
            self.buf >>= 32;
            self.count -= 32;
        }
    }

    fn literal(&mut self, byte: u8) {
        let (code, len) = LITERALS[usize::from(byte)];
        self.put(code, len);
    }

    /// A match: `len` bytes (4 to 258) from `distance` back (1 to 32768).
    fn copy(&mut self, len: usize, distance: usize) {
        let (code, bits) = LENGTHS[len];
        self.put(code, bits);
        let d = (distance - 1) as u32;
        if d < 4 {
            self.put(DISTANCES[d as usize], 5);
        } else {
            // Codes 4 to 29: two per power of two, `extra` bits after.
            let power = 31 - d.leading_zeros();
            let extra = power - 1;
            let code = 2 * power + ((d >> extra) & 1);
            self.put(
                DISTANCES[code as usize] | (d & ((1 << extra) - 1)) << 5,
                5 + extra,
            );
        }
    }

    /// Sends what is left, up to the byte boundary.
    fn align(&mut self) {
        let bytes = self.count.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.buf.to_le_bytes()[..bytes]);
        self.buf = 0;
        self.count = 0;
    }
}

/// `code`'s low `len` bits in reverse order (Huffman codes are sent from
/// their highest bit).
const fn reverse(code: u32, len: u32) -> u32 {
    let mut reversed = 0;
    let mut i = 0;
    while i < len {
        reversed |= ((code >> i) & 1) << (len - 1 - i);
        i += 1;
    }
    reversed
}

/// The fixed Huffman code of a literal/length symbol, reversed, and its length.
const fn fixed_code(symbol: u32) -> (u32, u32) {
    match symbol {
        0..=143 => (reverse(0x30 + symbol, 8), 8),
        144..=255 => (reverse(0x190 + symbol - 144, 9), 9),
        256..=279 => (reverse(symbol - 256, 7), 7),
        _ => (reverse(0xc0 + symbol - 280, 8), 8),
    }
}

/// Per byte, its code and the code's length.
const LITERALS: [(u32, u32); 256] = {
    let mut table = [(0, 0); 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = fixed_code(byte as u32);
        byte += 1;
    }
    table
};

/// Per match length (3 to 258), its length code and extra bits together,
/// and how many bits they are.
const LENGTHS: [(u32, u32); MAX_MATCH + 1] = {
    let mut table = [(0, 0); MAX_MATCH + 1];
    let mut len = 3;
    while len <= MAX_MATCH {
        let l = (len - 3) as u32;
        let (symbol, extra) = if len == MAX_MATCH {
            (285, 0)
        } else if l < 8 {
            (257 + l, 0)
        } else {
            // Codes 265 to 284: four per power of two, `extra` bits after.
            let power = 31 - l.leading_zeros();
            (257 + 4 * (power - 1) + ((l >> (power - 2)) & 3), power - 2)
        };
        let (code, bits) = fixed_code(symbol);
        table[len] = (code | (l & ((1 << extra) - 1)) << bits, bits + extra);
        len += 1;
    }
    table
};

/// The distance codes 0 to 29, five bits each, reversed.
const DISTANCES: [u32; 30] = {
    let mut table = [0; 30];
    let mut code = 0;
    while code < 30 {
        table[code] = reverse(code as u32, 5);
        code += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Decompress, FlushDecompress};
    use proptest::prelude::*;

    /// Inflates raw deflate data that follows `dictionary`.
    fn inflate(dictionary: &[u8], deflated: &[u8], len: usize) -> Vec<u8> {
        let mut inflate = Decompress::new(false);
        if !dictionary.is_empty() {
            inflate.set_dictionary(dictionary).unwrap();
        }
        let mut out = Vec::with_capacity(len + 64);
        inflate
            .decompress_vec(deflated, &mut out, FlushDecompress::Sync)
            .unwrap();
        assert_eq!(inflate.total_in(), deflated.len() as u64);
        out
    }

    fn round_trip(dictionary: &[u8], data: &[u8]) {
        let mut quick = Quick::default();
        let mut out = vec![7];
        quick.deflate(dictionary, data, &mut out);
        assert!(out.ends_with(&[0, 0, 0xff, 0xff]));
        let window = &dictionary[dictionary.len().saturating_sub(WINDOW)..];
        assert_eq!(inflate(window, &out[1..], data.len()), data);
    }

    #[test]
    fn every_length_and_distance_inflates() {
        // Runs of every length at every distance class, over a dictionary.
        let mut data = Vec::new();
        let mut x = 1u32;
        for len in 1..=300usize {
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                data.push(x as u8);
            }
            let from = data.len() - len.min(data.len());
            data.extend_from_within(from..from + len.min(7));
            let back = (len * 117) % data.len();
            data.extend_from_within(back..(back + len).min(data.len()));
        }
        let dictionary: Vec<u8> = (0..40_000u32).map(|i| (i * 7 % 251) as u8).collect();
        round_trip(&dictionary, &data);
        round_trip(&[], &data);
        round_trip(&data[..1000], &dictionary);
        round_trip(&dictionary, &[]);
        round_trip(&[], &[]);
        round_trip(&[], &[0; 100_000]);
        round_trip(b"abcd", b"abcdabcd");
    }

    proptest! {
        #[test]
        fn any_bytes_inflate_back(
            dictionary in proptest::collection::vec(0u8..4, 0..5000),
            data in proptest::collection::vec(0u8..4, 0..5000),
        ) {
            round_trip(&dictionary, &data);
        }
    }
}
