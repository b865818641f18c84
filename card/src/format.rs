//! A card made ready for the box ([`format`], `llv card format`): an MBR
//! with one FAT32 partition (type 0x0C), laid out as the SD Association's
//! File System Specification (Part 2, version 3.00) recommends for the
//! card's size, for cards from 64 MiB to 2 TiB (the most an MBR describes):
//!
//! | card | cluster | boundary unit |
//! |---|---|---|
//! | up to 2 GiB (SDSC) | the largest of 512 B .. 32 KiB that leaves FAT32 its 65,525 clusters | 64 KiB |
//! | 2 to 32 GiB (SDHC) | 32 KiB | 4 MiB |
//! | 32 to 128 GiB (SDXC) | 64 KiB | 16 MiB |
//! | 128 to 512 GiB | 64 KiB | 32 MiB |
//! | 512 GiB to 2 TiB | 64 KiB | 64 MiB |
//!
//! The partition starts one boundary unit in (4 MiB at least), and the
//! reserved blocks are chosen so the data area (cluster 2) starts on a
//! boundary unit too (where that would take more reserved blocks than a
//! boot sector counts, the partition starts later instead): the card's erase blocks hold whole clusters, as on a
//! card from the factory. Cards over 32 GB come formatted exFAT (the
//! specification's choice past SDHC), which the box does not read; this
//! gives them FAT32 with the SDXC boundary units and FAT32's largest
//! cluster (the specification's 128 KiB is exFAT's).
//!
//! The boot sector is written last: a format cut short leaves no volume.

use core::fmt;

use crate::error::Failure;
use crate::port::{CardDriver, CardPort, BLOCK};

/// Fewest blocks of a card this formats (64 MiB).
pub const MIN_BLOCKS: u64 = 64 << 11;
/// Most blocks an MBR describes (2 TiB less a block).
pub const MAX_BLOCKS: u64 = u32::MAX as u64;
/// Clusters a FAT32 volume has at least.
const FAT32_CLUSTERS: u32 = 65_525;
/// Reserved blocks at least (boot sector, FSInfo, their backups at 6 and 7).
const MIN_RESERVED: u32 = 32;

/// Why a card cannot be formatted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatError {
    /// Smaller than [`MIN_BLOCKS`] (this many blocks).
    TooSmall(u64),
    /// Larger than [`MAX_BLOCKS`] (this many blocks).
    TooLarge(u64),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::TooSmall(n) => write!(
                f,
                "{} MiB: a card for the box has 64 MiB at least",
                n / 2048
            ),
            FormatError::TooLarge(n) => {
                write!(f, "{} GiB: an MBR describes 2 TiB at most", n >> 21)
            }
        }
    }
}

/// Where the partition and the volume's parts go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// First block of the partition.
    pub start: u32,
    /// Blocks of the partition.
    pub blocks: u32,
    /// Blocks per cluster.
    pub per_cluster: u32,
    /// Reserved blocks at the partition's start.
    pub reserved: u32,
    /// Blocks of each of the two FATs.
    pub fat_blocks: u32,
    /// Data clusters.
    pub clusters: u32,
    /// The boundary unit in blocks.
    pub unit: u32,
}

impl Plan {
    /// The layout for a card of `card_blocks` blocks.
    pub fn for_card(card_blocks: u64) -> Result<Plan, FormatError> {
        if card_blocks < MIN_BLOCKS {
            return Err(FormatError::TooSmall(card_blocks));
        }
        if card_blocks > MAX_BLOCKS {
            return Err(FormatError::TooLarge(card_blocks));
        }
        // The classes' limits in GiB: every card sold as "32 GB" (a little
        // under 32e9 bytes) is SDHC, every one sold as "64 GB" SDXC.
        const GIB: u64 = (1 << 30) / BLOCK as u64;
        let (spec_cluster, unit): (u32, u32) = match card_blocks {
            n if n <= 2 * GIB => (64, 128),
            n if n <= 32 * GIB => (64, 8192),
            // The specification's 128 KiB clusters are exFAT's: FAT32 counts
            // 128 blocks a cluster at most.
            n if n <= 128 * GIB => (128, 32_768),
            n if n <= 512 * GIB => (128, 65_536),
            _ => (128, 131_072),
        };
        // Small cards: a smaller cluster, so FAT32 has its clusters.
        let mut per_cluster = spec_cluster;
        loop {
            let plan = Self::with_cluster(card_blocks, per_cluster, unit);
            if plan.clusters >= FAT32_CLUSTERS + 16 || per_cluster == 1 {
                return Ok(plan);
            }
            per_cluster /= 2;
        }
    }

    /// The layout with `per_cluster` blocks per cluster.
    fn with_cluster(card_blocks: u64, per_cluster: u32, unit: u32) -> Plan {
        let first = unit.max(8192);
        let (mut start, mut reserved, mut fat_blocks) = (first, MIN_RESERVED, 0);
        // The FAT's size depends on the clusters, which depend on the
        // reserved blocks, which align the data area: settles in a few rounds.
        for _ in 0..8 {
            let blocks = (card_blocks - u64::from(start)) as u32;
            let clusters = (blocks - reserved - 2 * fat_blocks) / per_cluster;
            fat_blocks = ((clusters + 2) * 4).div_ceil(BLOCK as u32);
            let data = (first + MIN_RESERVED + 2 * fat_blocks).div_ceil(unit) * unit;
            // The reserved count is 16 bits: past that, the slack goes
            // before the partition instead.
            (start, reserved) = match data - first - 2 * fat_blocks {
                r if r <= u32::from(u16::MAX) => (first, r),
                _ => (data - 2 * fat_blocks - MIN_RESERVED, MIN_RESERVED),
            };
        }
        let blocks = (card_blocks - u64::from(start)) as u32;
        Plan {
            start,
            blocks,
            per_cluster,
            reserved,
            fat_blocks,
            clusters: (blocks - reserved - 2 * fat_blocks) / per_cluster,
            unit,
        }
    }

    /// First block of the data area (cluster 2), from the card's start.
    pub fn data(&self) -> u32 {
        self.start + self.reserved + 2 * self.fat_blocks
    }
}

/// A cylinder-head-sector address as an MBR gives it (255 heads, 63
/// sectors; past cylinder 1023, the "use LBA" mark).
fn chs(lba: u32) -> [u8; 3] {
    let cylinder = lba / (255 * 63);
    if cylinder > 1023 {
        return [0xFE, 0xFF, 0xFF];
    }
    let head = (lba / 63) % 255;
    let sector = lba % 63 + 1;
    [
        head as u8,
        sector as u8 | ((cylinder >> 2) & 0xC0) as u8,
        cylinder as u8,
    ]
}

/// The MBR: one FAT32 (LBA) partition.
fn mbr(plan: &Plan, serial: u32) -> [u8; BLOCK] {
    let mut b = [0u8; BLOCK];
    b[440..444].copy_from_slice(&serial.to_le_bytes());
    let e = &mut b[446..462];
    e[1..4].copy_from_slice(&chs(plan.start));
    e[4] = 0x0C;
    e[5..8].copy_from_slice(&chs(plan.start + plan.blocks - 1));
    e[8..12].copy_from_slice(&plan.start.to_le_bytes());
    e[12..16].copy_from_slice(&plan.blocks.to_le_bytes());
    b[510] = 0x55;
    b[511] = 0xAA;
    b
}

/// The FAT32 boot sector.
fn boot(plan: &Plan, serial: u32) -> [u8; BLOCK] {
    let mut b = [0u8; BLOCK];
    b[0..3].copy_from_slice(&[0xEB, 0x58, 0x90]);
    b[3..11].copy_from_slice(b"LLV CARD");
    b[11..13].copy_from_slice(&(BLOCK as u16).to_le_bytes());
    b[13] = plan.per_cluster as u8;
    b[14..16].copy_from_slice(&(plan.reserved as u16).to_le_bytes());
    b[16] = 2;
    b[21] = 0xF8;
    b[24..26].copy_from_slice(&63u16.to_le_bytes());
    b[26..28].copy_from_slice(&255u16.to_le_bytes());
    b[28..32].copy_from_slice(&plan.start.to_le_bytes());
    b[32..36].copy_from_slice(&plan.blocks.to_le_bytes());
    b[36..40].copy_from_slice(&plan.fat_blocks.to_le_bytes());
    b[44..48].copy_from_slice(&2u32.to_le_bytes());
    b[48..50].copy_from_slice(&1u16.to_le_bytes());
    b[50..52].copy_from_slice(&6u16.to_le_bytes());
    b[64] = 0x80;
    b[66] = 0x29;
    b[67..71].copy_from_slice(&serial.to_le_bytes());
    b[71..82].copy_from_slice(b"NO NAME    ");
    b[82..90].copy_from_slice(b"FAT32   ");
    b[510] = 0x55;
    b[511] = 0xAA;
    b
}

/// The FSInfo block: every cluster but the root's free.
fn fs_info(plan: &Plan) -> [u8; BLOCK] {
    let mut b = [0u8; BLOCK];
    b[0..4].copy_from_slice(&0x4161_5252u32.to_le_bytes());
    b[484..488].copy_from_slice(&0x6141_7272u32.to_le_bytes());
    b[488..492].copy_from_slice(&(plan.clusters - 1).to_le_bytes());
    b[492..496].copy_from_slice(&3u32.to_le_bytes());
    b[508..512].copy_from_slice(&0xAA55_0000u32.to_le_bytes());
    b
}

/// Writes zeros to blocks `from..to`.
async fn zero<D: CardDriver>(port: &CardPort<D>, from: u32, to: u32) -> Result<(), Failure> {
    for block in from..to {
        port.write(block, &[0; BLOCK]).await?;
    }
    Ok(())
}

/// Formats the card in `port` (of `card_blocks` blocks) as `plan` says:
/// an old partition table (MBR or GPT, and GPT's copy at the card's end)
/// is overwritten, the FATs and the root folder are empty.
pub async fn format<D: CardDriver>(
    port: &CardPort<D>,
    card_blocks: u64,
    plan: &Plan,
) -> Result<(), Failure> {
    let serial = plan.blocks ^ plan.clusters.rotate_left(16) ^ 0x11C0_FFEE;
    // GPT's copy of its table lives in the last 33 blocks.
    let last = u32::try_from(card_blocks).unwrap_or(u32::MAX);
    zero(port, last.saturating_sub(33), last).await?;
    zero(port, 0, plan.start + plan.reserved).await?;
    let fats = plan.start + plan.reserved;
    zero(port, fats, plan.data() + plan.per_cluster).await?;
    let mut first = [0u8; BLOCK];
    first[0..4].copy_from_slice(&0x0FFF_FFF8u32.to_le_bytes());
    first[4..8].copy_from_slice(&0x0FFF_FFFFu32.to_le_bytes());
    first[8..12].copy_from_slice(&0x0FFF_FFFFu32.to_le_bytes());
    port.write(fats, &first).await?;
    port.write(fats + plan.fat_blocks, &first).await?;
    port.write(plan.start + 1, &fs_info(plan)).await?;
    port.write(plan.start + 7, &fs_info(plan)).await?;
    let boot = boot(plan, serial);
    port.write(plan.start + 6, &boot).await?;
    port.write(0, &mbr(plan, serial)).await?;
    port.write(plan.start, &boot).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fat::{Kind, Volume};

    #[test]
    fn cards_get_the_sd_specifications_clusters_and_alignment() {
        const GIB: u64 = 1 << 21;
        for (blocks, cluster, unit) in [
            (64 << 11, 1, 128),
            (256 << 11, 4, 128),
            (GIB, 16, 128),
            (3 * GIB, 64, 8192),
            (8 * GIB, 64, 8192),
            (30 * GIB, 64, 8192),
            (32 * GIB, 64, 8192),
            (64 * GIB, 128, 32_768),
            (256 * GIB, 128, 65_536),
            (MAX_BLOCKS, 128, 131_072),
        ] {
            let plan = Plan::for_card(blocks).unwrap();
            assert_eq!((plan.per_cluster, plan.unit), (cluster, unit), "{blocks}");
            assert_eq!(plan.data() % unit, 0, "{blocks}: data on a boundary");
            assert!(plan.reserved >= MIN_RESERVED);
            assert!(plan.fat_blocks * 128 >= plan.clusters + 2);
            assert!(plan.data() + plan.clusters * plan.per_cluster <= plan.start + plan.blocks);
            let v = Volume::parse(plan.start, &boot(&plan, 1), blocks as u32)
                .unwrap_or_else(|e| panic!("{blocks}: {plan:?}: {e:?}"));
            assert_eq!(v.kind, Kind::Fat32);
            assert_eq!(v.clusters, plan.clusters);
            assert_eq!(v.data, plan.data());
        }
        assert_eq!(
            Plan::for_card(63 << 11),
            Err(FormatError::TooSmall(63 << 11))
        );
        assert_eq!(
            Plan::for_card(MAX_BLOCKS + 1),
            Err(FormatError::TooLarge(MAX_BLOCKS + 1))
        );
    }

    #[test]
    fn chs_addresses_fit_the_mbr() {
        assert_eq!(chs(0), [0, 1, 0]);
        assert_eq!(chs(8192), [130, 3, 0]);
        assert_eq!(chs(u32::MAX), [0xFE, 0xFF, 0xFF]);
    }
}
