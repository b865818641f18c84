//! Where things sit in flash, and the small records that mark them.
//!
//! The store's region is whole erase blocks: the first two hold the settings
//! log, the rest hold takes. A take fills whole contiguous blocks (its extent):
//!
//! | offset | unit (32 bytes, each written once after erase) |
//! |---|---|
//! | 0 | begin record: `LLVB`, sequence, image length, image CRC, record CRC |
//! | 32 | commit record: `LLVC`, sequence, image CRC, record CRC (written last) |
//! | 64 | the take image |
//!
//! A take is deleted by erasing its first block. Nothing is ever written twice
//! between erases, not even after a cut write that left its unit looking blank.

use crc::{Crc, CRC_32_ISO_HDLC};

/// Bytes of one record unit; every flash write size up to this that divides it is supported.
pub const UNIT: usize = 32;
/// Offset of the commit record in an extent.
pub const COMMIT_AT: u32 = UNIT as u32;
/// Offset of the image in an extent.
pub const IMAGE_AT: u32 = 2 * UNIT as u32;
/// Erase blocks at the start of the region that hold the settings log.
pub const SETTINGS_BLOCKS: u32 = 2;

const BEGIN_MAGIC: [u8; 4] = *b"LLVB";
const COMMIT_MAGIC: [u8; 4] = *b"LLVC";
pub const CRC: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// The begin record of an extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Begin {
    /// Store-wide sequence number: later uploads have larger ones.
    pub seq: u32,
    /// Image length in bytes.
    pub total_len: u32,
    /// Image CRC (as in the take header).
    pub crc32: u32,
}

impl Begin {
    /// The record's unit.
    pub fn emit(&self) -> [u8; UNIT] {
        let mut u = [0xFF; UNIT];
        u[..4].copy_from_slice(&BEGIN_MAGIC);
        u[4..8].copy_from_slice(&self.seq.to_le_bytes());
        u[8..12].copy_from_slice(&self.total_len.to_le_bytes());
        u[12..16].copy_from_slice(&self.crc32.to_le_bytes());
        let crc = CRC.checksum(&u[..16]);
        u[16..20].copy_from_slice(&crc.to_le_bytes());
        u
    }

    /// Reads a unit; `None` unless it is a whole, valid begin record.
    pub fn parse(u: &[u8; UNIT]) -> Option<Begin> {
        (u[..4] == BEGIN_MAGIC && le32(u, 16) == CRC.checksum(&u[..16]) && u[20..] == [0xFF; 12])
            .then(|| Begin {
                seq: le32(u, 4),
                total_len: le32(u, 8),
                crc32: le32(u, 12),
            })
    }

    /// The commit record that makes this extent's take visible.
    pub fn commit(&self) -> [u8; UNIT] {
        let mut u = [0xFF; UNIT];
        u[..4].copy_from_slice(&COMMIT_MAGIC);
        u[4..8].copy_from_slice(&self.seq.to_le_bytes());
        u[8..12].copy_from_slice(&self.crc32.to_le_bytes());
        let crc = CRC.checksum(&u[..12]);
        u[12..16].copy_from_slice(&crc.to_le_bytes());
        u
    }

    /// Erase blocks the extent of this record needs.
    pub fn blocks(&self, erase_size: u32) -> u32 {
        (u64::from(IMAGE_AT) + u64::from(self.total_len))
            .div_ceil(u64::from(erase_size))
            .try_into()
            .unwrap_or(u32::MAX)
    }
}

/// Little-endian u32 at `at` (the caller guarantees 4 bytes).
pub fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_any_flipped_bit_is_refused() {
        let b = Begin {
            seq: 7,
            total_len: 1234,
            crc32: 0xDEAD_BEEF,
        };
        let u = b.emit();
        assert_eq!(Begin::parse(&u), Some(b));
        for bit in 0..UNIT * 8 {
            let mut bad = u;
            bad[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(Begin::parse(&bad), None, "bit {bit}");
        }
        assert_eq!(Begin::parse(&[0xFF; UNIT]), None);
        assert_eq!(b.blocks(1024), 2);
        assert_eq!(b.blocks(2048), 1);
        assert_ne!(b.commit(), Begin { seq: 8, ..b }.commit());
    }
}
