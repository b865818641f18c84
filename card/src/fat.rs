//! The FAT16/FAT32 volume under the takes, read and written a block at a
//! time through the port, every block awaited:
//!
//! - where the volume is ([`partition`]: an MBR's first partition, or a
//!   boot sector in block 0) and how it is laid out ([`Volume::parse`]);
//!   exFAT, GPT, FAT12 and other sector sizes are refused by name;
//! - a file's clusters, followed forward ([`Chain`], [`read_chain`]);
//! - the FAT itself, changed through one cached block written to every FAT
//!   copy ([`FatTable`]: allocate, link, free a chain), and the FAT32
//!   free-cluster count ([`FsInfo`]).
//!
//! Nothing here knows of takes.

use crate::error::{Failure, VolumeError, DAMAGED, SHORT};
use crate::port::{BlockBuf, CardDriver, CardPort, BLOCK};

/// Bytes of a directory entry.
pub const ENTRY: usize = 32;
/// FAT16 volumes have fewer clusters than this, FAT32 volumes at least as many.
pub const FAT32_CLUSTERS: u32 = 65_525;
/// FAT12 volumes have fewer clusters than this.
pub const FAT16_CLUSTERS: u32 = 4_085;

/// FAT16 or FAT32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// 2-byte FAT entries, a fixed root directory.
    Fat16,
    /// 4-byte FAT entries (28 bits used), the root a cluster chain.
    Fat32,
}

/// Where a directory's entries are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// FAT16's root: a fixed run of blocks holding `entries` entries.
    Fixed {
        /// Its first block.
        block: u32,
        /// Entries it holds.
        entries: u32,
    },
    /// A cluster chain from this cluster.
    Chain(u32),
}

/// Where a volume's parts are, from its boot sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Volume {
    /// First block of the first FAT.
    pub fat: u32,
    /// FAT copies.
    pub fats: u32,
    /// Blocks of one FAT.
    pub fat_blocks: u32,
    /// Block of cluster 2.
    pub data: u32,
    /// Blocks per cluster.
    pub per_cluster: u32,
    /// Data clusters (numbered `2..clusters + 2`).
    pub clusters: u32,
    /// FAT16 or FAT32.
    pub kind: Kind,
    /// The root directory.
    pub root: Dir,
    /// FAT32's FSInfo block, if it has one.
    pub info: Option<u32>,
}

/// Where the volume starts on a card whose block 0 is `block0`: the first
/// MBR partition, or block 0 itself when it is a boot sector (a card
/// formatted without a partition table).
pub fn partition(block0: &[u8; BLOCK]) -> Result<u32, VolumeError> {
    if looks_like_boot(block0) {
        return Ok(0);
    }
    if block0[510..512] != [0x55, 0xAA] {
        return Err(VolumeError::NoPartition);
    }
    let kind = block0[446 + 4];
    let start = u32::from_le_bytes([block0[454], block0[455], block0[456], block0[457]]);
    match kind {
        0xEE => Err(VolumeError::Gpt),
        0 => Err(VolumeError::NoPartition),
        _ if start == 0 => Err(VolumeError::NoPartition),
        _ => Ok(start),
    }
}

/// Whether `b` is a FAT or exFAT boot sector rather than an MBR.
fn looks_like_boot(b: &[u8; BLOCK]) -> bool {
    if &b[3..11] == b"EXFAT   " {
        return true;
    }
    let jump = b[0] == 0xEB || b[0] == 0xE9;
    let bps = u16::from_le_bytes([b[11], b[12]]);
    let spc = b[13];
    jump && matches!(bps, 512 | 1024 | 2048 | 4096)
        && spc.is_power_of_two()
        && matches!(b[16], 1 | 2)
        && (b[21] == 0xF0 || b[21] >= 0xF8)
}

impl Volume {
    /// The layout of the volume whose boot sector `boot` is at block
    /// `start` of a card of `card_blocks` blocks.
    pub fn parse(start: u32, boot: &[u8; BLOCK], card_blocks: u32) -> Result<Volume, VolumeError> {
        let u16_at = |i: usize| u32::from(u16::from_le_bytes([boot[i], boot[i + 1]]));
        let u32_at =
            |i: usize| u32::from_le_bytes([boot[i], boot[i + 1], boot[i + 2], boot[i + 3]]);
        match &boot[3..11] {
            b"EXFAT   " => return Err(VolumeError::ExFat),
            b"NTFS    " => return Err(VolumeError::NotFat),
            _ => {}
        }
        match u16_at(11) {
            512 => {}
            1024 | 2048 | 4096 => return Err(VolumeError::SectorSize),
            _ => return Err(VolumeError::NotFat),
        }
        let per_cluster = u32::from(boot[13]);
        let reserved = u16_at(14);
        let fats = u32::from(boot[16]);
        let root_entries = u16_at(17);
        let fat_blocks = match u16_at(22) {
            0 => u32_at(36),
            n => n,
        };
        let total = match u16_at(19) {
            0 => u32_at(32),
            n => n,
        };
        if !per_cluster.is_power_of_two() || reserved == 0 || fats == 0 || fat_blocks == 0 {
            return Err(VolumeError::NotFat);
        }
        let root_blocks = (root_entries * ENTRY as u32).div_ceil(BLOCK as u32);
        let root_at = fats
            .checked_mul(fat_blocks)
            .and_then(|n| n.checked_add(reserved))
            .ok_or(VolumeError::NotFat)?;
        let data = root_at
            .checked_add(root_blocks)
            .ok_or(VolumeError::NotFat)?;
        let clusters = total.checked_sub(data).ok_or(VolumeError::NotFat)? / per_cluster;
        let kind = if clusters < FAT16_CLUSTERS {
            return Err(VolumeError::Fat12);
        } else if clusters < FAT32_CLUSTERS {
            Kind::Fat16
        } else {
            Kind::Fat32
        };
        let width = if kind == Kind::Fat32 { 4 } else { 2 };
        // The FAT must have an entry for every cluster, or a chain could
        // send a reader past it.
        let entries = u64::from(fat_blocks) * BLOCK as u64 / width;
        if entries < u64::from(clusters) + 2 {
            return Err(VolumeError::NotFat);
        }
        let end = u64::from(start) + u64::from(total);
        if card_blocks > 0 && end > u64::from(card_blocks) {
            return Err(VolumeError::PastEnd);
        }
        let at = |n: u32| start.checked_add(n).ok_or(VolumeError::PastEnd);
        let (root, info) = match kind {
            Kind::Fat16 if root_entries == 0 => return Err(VolumeError::NotFat),
            Kind::Fat16 => (
                Dir::Fixed {
                    block: at(root_at)?,
                    entries: root_entries,
                },
                None,
            ),
            Kind::Fat32 => {
                let root = u32_at(44) & 0x0FFF_FFFF;
                if !(2..clusters + 2).contains(&root) {
                    return Err(VolumeError::NotFat);
                }
                let info = match u16_at(48) {
                    0 | 0xFFFF => None,
                    n if n < reserved => Some(at(n)?),
                    _ => None,
                };
                (Dir::Chain(root), info)
            }
        };
        Ok(Volume {
            fat: at(reserved)?,
            fats,
            fat_blocks,
            data: at(data)?,
            per_cluster,
            clusters,
            kind,
            root,
            info,
        })
    }

    /// Bytes of a cluster.
    pub fn cluster_bytes(&self) -> u32 {
        self.per_cluster * BLOCK as u32
    }

    /// Whether `cluster` is one of the volume's data clusters.
    pub fn holds(&self, cluster: u32) -> bool {
        cluster >= 2 && cluster - 2 < self.clusters
    }

    /// Block `within` of cluster `cluster`.
    pub fn block_of(&self, cluster: u32, within: u32) -> Result<u32, Failure> {
        if !self.holds(cluster) || within >= self.per_cluster {
            return Err(DAMAGED);
        }
        (cluster - 2)
            .checked_mul(self.per_cluster)
            .and_then(|b| b.checked_add(self.data))
            .and_then(|b| b.checked_add(within))
            .ok_or(DAMAGED)
    }

    /// The end-of-chain mark.
    pub fn end_mark(&self) -> u32 {
        match self.kind {
            Kind::Fat16 => 0xFFFF,
            Kind::Fat32 => 0x0FFF_FFFF,
        }
    }

    /// Where cluster `cluster`'s FAT entry is: the block within a FAT and the byte in it.
    fn place(&self, cluster: u32) -> (u32, usize) {
        let width = match self.kind {
            Kind::Fat16 => 2,
            Kind::Fat32 => 4,
        };
        let byte = cluster * width;
        (byte / BLOCK as u32, (byte % BLOCK as u32) as usize)
    }

    /// The FAT entry at byte `at` of a FAT block.
    fn read_entry(&self, block: &[u8; BLOCK], at: usize) -> u32 {
        match self.kind {
            Kind::Fat16 => u32::from(u16::from_le_bytes([block[at], block[at + 1]])),
            Kind::Fat32 => {
                u32::from_le_bytes([block[at], block[at + 1], block[at + 2], block[at + 3]])
                    & 0x0FFF_FFFF
            }
        }
    }

    /// What an entry's value says of the chain.
    pub fn link(&self, value: u32) -> Link {
        let bad = match self.kind {
            Kind::Fat16 => 0xFFF7,
            Kind::Fat32 => 0x0FFF_FFF7,
        };
        match value {
            0 => Link::Free,
            v if v == bad => Link::Bad,
            v if v > bad => Link::End,
            v if self.holds(v) => Link::Next(v),
            _ => Link::Bad,
        }
    }
}

/// What a cluster's FAT entry says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// The chain goes on at this cluster.
    Next(u32),
    /// The chain ends here.
    End,
    /// The cluster is free.
    Free,
    /// A bad cluster, or a value outside the volume.
    Bad,
}

/// The cluster after `cluster` in the FAT (as on the card).
pub async fn next_cluster<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    cluster: u32,
) -> Result<Link, Failure> {
    if !vol.holds(cluster) {
        return Err(DAMAGED);
    }
    let (block, at) = vol.place(cluster);
    let value = port
        .read_with(vol.fat + block, |b| vol.read_entry(b, at))
        .await?;
    Ok(vol.link(value))
}

/// A file's clusters, followed forward: the cluster that holds byte
/// `index * cluster_bytes`. Clusters `0..=straight` are known to follow one
/// another on the card (as in a file written to a fresh card): any of them
/// is found at once, in either direction, without reading the FAT.
#[derive(Clone, Copy, Debug)]
pub struct Chain {
    first: u32,
    /// The cluster the chain is at.
    pub cluster: u32,
    index: u32,
    /// Clusters `0..=straight` are contiguous.
    pub straight: u32,
}

impl Chain {
    /// The chain from cluster `first`, of which clusters `0..=straight`
    /// are known to be contiguous.
    pub fn new(first: u32, straight: u32) -> Self {
        Chain {
            first,
            cluster: first,
            index: 0,
            straight,
        }
    }

    /// Moves to cluster `index` of the file: at once within the contiguous
    /// start, else on from there (or from where it is, if past it) through
    /// the FAT, learning how far the file stays contiguous. A chain that
    /// ends before is an image shorter than its size.
    pub async fn seek<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
        index: u32,
    ) -> Result<(), Failure> {
        let to = index.min(self.straight);
        if index < self.index || self.index < to {
            self.cluster = self.first.checked_add(to).ok_or(SHORT)?;
            self.index = to;
        }
        while self.index < index {
            let Link::Next(next) = next_cluster(port, vol, self.cluster).await? else {
                return Err(SHORT);
            };
            if self.index == self.straight && Some(next) == self.cluster.checked_add(1) {
                self.straight += 1;
            }
            self.cluster = next;
            self.index += 1;
        }
        Ok(())
    }
}

/// Reads `buf.len()` bytes at `offset` of the file whose clusters `chain`
/// follows (forward from where it is; from the start if `offset` is before).
pub async fn read_chain<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    chain: &mut Chain,
    offset: u32,
    buf: &mut [u8],
) -> Result<(), Failure> {
    let per = vol.cluster_bytes();
    let mut done = 0;
    while done < buf.len() {
        let at = offset.checked_add(done as u32).ok_or(SHORT)?;
        chain.seek(port, vol, at / per).await?;
        let within = at % per;
        let block = vol.block_of(chain.cluster, within / BLOCK as u32)?;
        let from = (within % BLOCK as u32) as usize;
        let n = (BLOCK - from).min(buf.len() - done);
        let out = &mut buf[done..done + n];
        port.read_with(block, |b| out.copy_from_slice(&b[from..from + n]))
            .await?;
        done += n;
    }
    Ok(())
}

/// Writes zeros to every block of cluster `cluster` (a new directory's).
pub async fn zero_cluster<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    cluster: u32,
) -> Result<(), Failure> {
    for within in 0..vol.per_cluster {
        port.write(vol.block_of(cluster, within)?, &[0; BLOCK])
            .await?;
    }
    Ok(())
}

/// The FAT, changed a block at a time: the block of the entries changed
/// last is kept here and written to every FAT copy when the next change is
/// in another block, or at [`FatTable::flush`]. Readers that go by the card
/// see the FAT as it was until then, which is right for every file but the
/// one being written (allocated entries) or freed.
pub struct FatTable {
    buf: BlockBuf,
    /// The block (within a FAT) held, and whether it differs from the card's.
    held: Option<(u32, bool)>,
}

impl FatTable {
    /// Nothing held.
    pub const fn new() -> Self {
        FatTable {
            buf: BlockBuf([0; BLOCK]),
            held: None,
        }
    }

    async fn load<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
        block: u32,
    ) -> Result<(), Failure> {
        if self.held.map(|(b, _)| b) == Some(block) {
            return Ok(());
        }
        self.flush(port, vol).await?;
        let buf = &mut self.buf;
        port.read_with(vol.fat + block, |b| buf.0 = *b).await?;
        self.held = Some((block, false));
        Ok(())
    }

    /// Cluster `cluster`'s entry.
    pub async fn get<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
        cluster: u32,
    ) -> Result<u32, Failure> {
        if !vol.holds(cluster) {
            return Err(DAMAGED);
        }
        let (block, at) = vol.place(cluster);
        self.load(port, vol, block).await?;
        Ok(vol.read_entry(&self.buf.0, at))
    }

    /// Sets cluster `cluster`'s entry to `value` (FAT32's top 4 bits kept).
    pub async fn set<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
        cluster: u32,
        value: u32,
    ) -> Result<(), Failure> {
        if !vol.holds(cluster) {
            return Err(DAMAGED);
        }
        let (block, at) = vol.place(cluster);
        self.load(port, vol, block).await?;
        let b = &mut self.buf.0;
        match vol.kind {
            Kind::Fat16 => b[at..at + 2].copy_from_slice(&(value as u16).to_le_bytes()),
            Kind::Fat32 => {
                let old = u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
                let new = (old & 0xF000_0000) | (value & 0x0FFF_FFFF);
                b[at..at + 4].copy_from_slice(&new.to_le_bytes());
            }
        }
        self.held = Some((block, true));
        Ok(())
    }

    /// Writes the block held, if changed, to every FAT copy.
    pub async fn flush<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
    ) -> Result<(), Failure> {
        let Some((block, true)) = self.held else {
            return Ok(());
        };
        for copy in 0..vol.fats {
            let at = copy
                .checked_mul(vol.fat_blocks)
                .and_then(|n| n.checked_add(vol.fat + block))
                .ok_or(DAMAGED)?;
            port.write(at, &self.buf.0).await?;
        }
        self.held = Some((block, false));
        Ok(())
    }

    /// Takes the first free cluster from `hint` on (wrapping round) and
    /// marks it the end of a chain; `None` when the volume is full.
    pub async fn allocate<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
        hint: u32,
    ) -> Result<Option<u32>, Failure> {
        let first = if vol.holds(hint) { hint } else { 2 };
        let last = vol.clusters + 2;
        for c in (first..last).chain(2..first) {
            if self.get(port, vol, c).await? == 0 {
                self.set(port, vol, c, vol.end_mark()).await?;
                return Ok(Some(c));
            }
        }
        Ok(None)
    }

    /// Frees the chain from `first`; returns how many clusters it freed. A
    /// chain that runs into a free or bad cluster stops there (what a cut
    /// write left).
    pub async fn free_chain<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
        first: u32,
    ) -> Result<u32, Failure> {
        let mut freed = 0;
        let mut cluster = first;
        // A chain is at most as long as the volume: a loop ends there.
        while vol.holds(cluster) && freed < vol.clusters {
            let value = self.get(port, vol, cluster).await?;
            if value == 0 {
                break;
            }
            self.set(port, vol, cluster, 0).await?;
            freed += 1;
            match vol.link(value) {
                Link::Next(next) => cluster = next,
                _ => break,
            }
        }
        Ok(freed)
    }
}

impl Default for FatTable {
    fn default() -> Self {
        Self::new()
    }
}

/// FAT32's FSInfo: the free-cluster count and where to look for a free one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FsInfo {
    /// Free clusters, if known.
    pub free: Option<u32>,
    /// Where the next free cluster probably is.
    pub hint: u32,
}

/// Marks an unknown count or hint in FSInfo.
const UNKNOWN: u32 = 0xFFFF_FFFF;

impl FsInfo {
    /// What the FSInfo block says (nothing known if it does not check out).
    pub async fn read<D: CardDriver>(port: &CardPort<D>, vol: &Volume) -> Result<FsInfo, Failure> {
        let Some(block) = vol.info else {
            return Ok(FsInfo {
                free: None,
                hint: 2,
            });
        };
        let info = port
            .read_with(block, |b| {
                let at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
                let valid =
                    at(0) == 0x4161_5252 && at(484) == 0x6141_7272 && at(508) == 0xAA55_0000;
                (valid, at(488), at(492))
            })
            .await?;
        let (valid, free, hint) = info;
        Ok(FsInfo {
            free: Some(free).filter(|&f| valid && f != UNKNOWN && f <= vol.clusters),
            hint: if valid && vol.holds(hint) { hint } else { 2 },
        })
    }

    /// Writes the count (or "unknown") and the hint to the FSInfo block.
    pub async fn write<D: CardDriver>(
        &self,
        port: &CardPort<D>,
        vol: &Volume,
    ) -> Result<(), Failure> {
        let Some(block) = vol.info else {
            return Ok(());
        };
        let free = self.free.unwrap_or(UNKNOWN);
        let hint = if vol.holds(self.hint) {
            self.hint
        } else {
            UNKNOWN
        };
        port.modify(block, |b| {
            b[488..492].copy_from_slice(&free.to_le_bytes());
            b[492..496].copy_from_slice(&hint.to_le_bytes());
        })
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::string::ToString;
    use std::vec::Vec;

    use super::*;
    use crate::port::{BlockError, Blocks};

    /// A boot sector of a FAT volume with these fields (the rest as mkfs.fat writes them).
    fn boot(
        per_cluster: u8,
        reserved: u16,
        fats: u8,
        root: u16,
        fat: u32,
        total: u32,
    ) -> [u8; BLOCK] {
        let mut b = [0u8; BLOCK];
        b[0] = 0xEB;
        b[3..11].copy_from_slice(b"mkfs.fat");
        b[11..13].copy_from_slice(&512u16.to_le_bytes());
        b[13] = per_cluster;
        b[14..16].copy_from_slice(&reserved.to_le_bytes());
        b[16] = fats;
        b[17..19].copy_from_slice(&root.to_le_bytes());
        b[21] = 0xF8;
        if root == 0 {
            b[36..40].copy_from_slice(&fat.to_le_bytes());
            b[44..48].copy_from_slice(&2u32.to_le_bytes());
            b[48..50].copy_from_slice(&1u16.to_le_bytes());
        } else {
            b[22..24].copy_from_slice(&(fat as u16).to_le_bytes());
        }
        b[32..36].copy_from_slice(&total.to_le_bytes());
        b[510] = 0x55;
        b[511] = 0xAA;
        b
    }

    #[test]
    fn a_fat16_and_a_fat32_boot_sector_give_their_layouts() {
        // 64 MiB, FAT16 with 2 KiB clusters (as mkfs.fat makes it).
        let v = Volume::parse(2048, &boot(4, 4, 2, 512, 128, 129_024), 131_072).unwrap();
        assert_eq!(v.kind, Kind::Fat16);
        assert_eq!(v.fat, 2052);
        assert_eq!(v.data, 2048 + 4 + 256 + 32);
        assert_eq!(v.clusters, (129_024 - 292) / 4);
        assert_eq!(
            v.root,
            Dir::Fixed {
                block: 2052 + 256,
                entries: 512
            }
        );
        assert_eq!(v.info, None);
        // 1 GiB FAT32 with 4 KiB clusters.
        let total = (1 << 21) - 2048;
        let v = Volume::parse(2048, &boot(8, 32, 2, 0, 2048, total), 1 << 21).unwrap();
        assert_eq!(v.kind, Kind::Fat32);
        assert_eq!(v.root, Dir::Chain(2));
        assert_eq!(v.info, Some(2049));
        assert_eq!(v.block_of(2, 0), Ok(v.data));
        assert_eq!(v.block_of(3, 7), Ok(v.data + 15));
        assert_eq!(v.block_of(3, 8), Err(DAMAGED));
        assert_eq!(v.block_of(v.clusters + 2, 0), Err(DAMAGED));
    }

    #[test]
    fn fat16_ends_and_fat32_begins_at_65525_clusters() {
        // One cluster per block, one FAT of enough blocks: data starts at 1 + fat (+ root).
        let fat32 = |clusters: u32| {
            let fat = (clusters + 2).div_ceil(128);
            boot(1, 1, 1, 0, fat, 1 + fat + clusters)
        };
        let fat16 = |clusters: u32| {
            let fat = (clusters + 2).div_ceil(256);
            boot(1, 1, 1, 16, fat, 1 + fat + 1 + clusters)
        };
        assert_eq!(
            Volume::parse(0, &fat16(65_524), 0).map(|v| v.kind),
            Ok(Kind::Fat16)
        );
        assert_eq!(
            Volume::parse(0, &fat32(65_525), 0).map(|v| v.kind),
            Ok(Kind::Fat32)
        );
        assert_eq!(Volume::parse(0, &fat16(4_084), 0), Err(VolumeError::Fat12));
        assert_eq!(
            Volume::parse(0, &fat16(4_085), 0).map(|v| v.clusters),
            Ok(4_085)
        );
    }

    #[test]
    fn boot_sectors_that_do_not_add_up_are_refused() {
        // No clusters per cluster, or not a power of two.
        assert_eq!(
            Volume::parse(0, &boot(0, 4, 2, 512, 128, 129_024), 0),
            Err(VolumeError::NotFat)
        );
        assert_eq!(
            Volume::parse(0, &boot(3, 4, 2, 512, 128, 129_024), 0),
            Err(VolumeError::NotFat)
        );
        // reserved + fats * fat_size overflows 32 bits.
        let b = boot(8, 32, 2, 0, u32::MAX / 2 + 1, u32::MAX);
        assert_eq!(Volume::parse(0, &b, 0), Err(VolumeError::NotFat));
        // The FATs end past the volume.
        assert_eq!(
            Volume::parse(0, &boot(4, 4, 2, 512, 128, 200), 0),
            Err(VolumeError::NotFat)
        );
        // A FAT too small for the clusters (a chain could point past it).
        assert_eq!(
            Volume::parse(0, &boot(4, 4, 2, 512, 2, 129_024), 0),
            Err(VolumeError::NotFat)
        );
        // Past the card's end.
        assert_eq!(
            Volume::parse(2048, &boot(4, 4, 2, 512, 128, 129_024), 100_000),
            Err(VolumeError::PastEnd)
        );
        // 4 KiB sectors, exFAT, NTFS.
        let mut b = boot(4, 4, 2, 512, 128, 129_024);
        b[11..13].copy_from_slice(&4096u16.to_le_bytes());
        assert_eq!(Volume::parse(0, &b, 0), Err(VolumeError::SectorSize));
        b[3..11].copy_from_slice(b"EXFAT   ");
        assert_eq!(Volume::parse(0, &b, 0), Err(VolumeError::ExFat));
        b[3..11].copy_from_slice(b"NTFS    ");
        assert_eq!(Volume::parse(0, &b, 0), Err(VolumeError::NotFat));
    }

    #[test]
    fn the_partition_is_the_first_mbr_entry_or_block_0_itself() {
        let mut mbr = [0u8; BLOCK];
        assert_eq!(partition(&mbr), Err(VolumeError::NoPartition));
        mbr[510] = 0x55;
        mbr[511] = 0xAA;
        assert_eq!(partition(&mbr), Err(VolumeError::NoPartition));
        mbr[446 + 4] = 0x0C;
        mbr[454..458].copy_from_slice(&8192u32.to_le_bytes());
        assert_eq!(partition(&mbr), Ok(8192));
        mbr[446 + 4] = 0xEE;
        assert_eq!(partition(&mbr), Err(VolumeError::Gpt));
        assert_eq!(partition(&boot(4, 4, 2, 512, 128, 129_024)), Ok(0));
        let mut exfat = [0u8; BLOCK];
        exfat[3..11].copy_from_slice(b"EXFAT   ");
        assert_eq!(partition(&exfat), Ok(0));
    }

    /// A card in memory.
    struct Memory(Vec<u8>);

    impl Blocks for Memory {
        async fn present(&mut self) -> Option<u64> {
            Some(self.0.len() as u64 / BLOCK as u64)
        }
        async fn read(&mut self, block: u64, buf: &mut BlockBuf) -> Result<(), BlockError> {
            let at = block as usize * BLOCK;
            let src = self.0.get(at..at + BLOCK).ok_or(BlockError::Failed)?;
            buf.0.copy_from_slice(src);
            Ok(())
        }
        async fn write(&mut self, block: u64, buf: &BlockBuf) -> Result<(), BlockError> {
            let at = block as usize * BLOCK;
            let dst = self.0.get_mut(at..at + BLOCK).ok_or(BlockError::Failed)?;
            dst.copy_from_slice(&buf.0);
            Ok(())
        }
    }

    /// A volume of `mib` MiB made by `mkfs.fat -F bits` (no partition table).
    fn mkfs(mib: usize, bits: u8) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.img");
        std::fs::File::create(&path)
            .unwrap()
            .set_len((mib << 20) as u64)
            .unwrap();
        let mkfs = ["/usr/sbin/mkfs.fat", "/sbin/mkfs.fat", "/usr/bin/mkfs.fat"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .unwrap_or("mkfs.fat");
        let status = std::process::Command::new(mkfs)
            .args(["-F", &bits.to_string()])
            .arg(&path)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        std::fs::read(&path).unwrap()
    }

    fn volume_of(port: &CardPort<Memory>) -> Volume {
        embassy_futures::block_on(async {
            assert!(port.present().await);
            let blocks = port.blocks().await;
            let start = port.read_with(0, partition).await.unwrap().unwrap();
            let boot = port
                .read_with(start, |b| Volume::parse(start, b, blocks))
                .await;
            boot.unwrap().unwrap()
        })
    }

    #[test]
    fn mkfs_fat_volumes_parse_and_their_fat_allocates_links_and_frees() {
        for (mib, bits, kind) in [(64, 16, Kind::Fat16), (80, 32, Kind::Fat32)] {
            let port = CardPort::new(Memory(mkfs(mib, bits)));
            let vol = volume_of(&port);
            assert_eq!(vol.kind, kind);
            embassy_futures::block_on(async {
                let info = FsInfo::read(&port, &vol).await.unwrap();
                if kind == Kind::Fat32 {
                    // mkfs.fat counts every cluster but the root's as free.
                    assert_eq!(info.free, Some(vol.clusters - 1));
                }
                let mut fat = FatTable::new();
                // A chain of three, written through to both FATs.
                let a = fat.allocate(&port, &vol, 2).await.unwrap().unwrap();
                let b = fat.allocate(&port, &vol, a + 1).await.unwrap().unwrap();
                fat.set(&port, &vol, a, b).await.unwrap();
                let c = fat.allocate(&port, &vol, b + 1).await.unwrap().unwrap();
                fat.set(&port, &vol, b, c).await.unwrap();
                fat.flush(&port, &vol).await.unwrap();
                assert_eq!(next_cluster(&port, &vol, a).await, Ok(Link::Next(b)));
                assert_eq!(next_cluster(&port, &vol, c).await, Ok(Link::End));
                let mirror = vol.fat + vol.fat_blocks;
                let (block, at) = vol.place(a);
                let copy = port
                    .read_with(mirror + block, |x| vol.read_entry(x, at))
                    .await;
                assert_eq!(copy, Ok(b), "the second FAT has the change");
                let mut chain = Chain::new(a, 0);
                chain.seek(&port, &vol, 2).await.unwrap();
                assert_eq!(chain.cluster, c);
                assert_eq!(chain.seek(&port, &vol, 3).await, Err(SHORT));
                assert_eq!(fat.free_chain(&port, &vol, a).await, Ok(3));
                fat.flush(&port, &vol).await.unwrap();
                assert_eq!(next_cluster(&port, &vol, b).await, Ok(Link::Free));
            });
        }
    }
}
