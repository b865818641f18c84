//! Directory entries: read in order with their long names' place
//! ([`Cursor`]), made ([`create`], [`init_dir`]), updated ([`set_entry`])
//! and deleted with every long-name entry in front of them ([`remove`]), a
//! block at a time through the port.
//!
//! Long names are read only for where they are (a delete marks them too,
//! or `fsck` finds them orphaned) and for their first character (a dot
//! marks what a laptop left). Files this code makes have 8.3 names only.

use crate::error::{CardError, Failure};
use crate::fat::{zero_cluster, Chain, Dir, Volume, ENTRY};
use crate::port::{CardDriver, CardPort, BLOCK};

/// Entries in a block.
const PER_BLOCK: u32 = (BLOCK / ENTRY) as u32;
/// The read-only attribute.
pub const READ_ONLY: u8 = 0x01;
/// The volume-label attribute.
const VOLUME: u8 = 0x08;
/// The directory attribute.
pub const DIRECTORY: u8 = 0x10;
/// The archive attribute (set on every file written).
pub const ARCHIVE: u8 = 0x20;
/// The attributes of a long-name entry.
const LONG_NAME: u8 = 0x0F;
/// The first byte of a deleted entry.
const DELETED: u8 = 0xE5;
/// 2025-01-01 as a FAT date (the box has no calendar).
const DATE: u16 = (45 << 9) | (1 << 5) | 1;

/// A file's or folder's directory entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The 8.3 name's 11 bytes.
    pub short: [u8; 11],
    /// Its attributes.
    pub attr: u8,
    /// Its first cluster (0 for an empty file).
    pub first: u32,
    /// Its size in bytes.
    pub size: u32,
    /// Its place in the directory (entries from 0).
    pub index: u32,
    /// The place of the first of its long-name entries, if it has a long name.
    pub long: Option<u32>,
    /// The first character of its long name (of its 8.3 name without one).
    pub first_char: char,
}

impl Entry {
    /// Whether it is a folder (or `.`/`..`).
    pub fn is_dir(&self) -> bool {
        self.attr & DIRECTORY != 0
    }

    /// Whether it is a file (not a folder or a volume label).
    pub fn is_file(&self) -> bool {
        self.attr & (DIRECTORY | VOLUME) == 0
    }

    /// Whether it has the read-only attribute.
    pub fn is_read_only(&self) -> bool {
        self.attr & READ_ONLY != 0
    }

    /// Where its entries start (its long name's, else its own).
    pub fn start(&self) -> u32 {
        self.long.unwrap_or(self.index)
    }
}

/// The long name being read: where it started, its checksum, the entries
/// still to come, its first character.
#[derive(Clone, Copy, Debug)]
struct Long {
    start: u32,
    sum: u8,
    left: u8,
    first: Option<char>,
}

/// Reads a directory's entries in order, skipping deleted ones.
#[derive(Clone, Debug)]
pub struct Cursor {
    dir: Dir,
    chain: Option<Chain>,
    index: u32,
    long: Option<Long>,
    ended: bool,
}

impl Cursor {
    /// A cursor at the first entry of `dir`.
    pub fn new(dir: Dir) -> Self {
        Cursor {
            dir,
            chain: match dir {
                Dir::Chain(first) => Some(Chain::new(first, 0)),
                Dir::Fixed { .. } => None,
            },
            index: 0,
            long: None,
            ended: false,
        }
    }

    /// The next entry that is in use, `None` at the directory's end.
    pub async fn next<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
    ) -> Result<Option<Entry>, Failure> {
        while !self.ended {
            let index = self.index;
            let Some((block, at)) = locate(port, vol, self.dir, &mut self.chain, index).await?
            else {
                self.ended = true;
                break;
            };
            let mut raw = [0u8; ENTRY];
            port.read_with(block, |b| raw.copy_from_slice(&b[at..at + ENTRY]))
                .await?;
            self.index += 1;
            match raw[0] {
                0 => self.ended = true,
                DELETED => self.long = None,
                _ if raw[11] & 0x3F == LONG_NAME => self.long_part(index, &raw),
                _ => {
                    let long = self
                        .long
                        .take()
                        .filter(|l| l.left == 0 && l.sum == checksum(&raw));
                    return Ok(Some(parse(&raw, index, vol, long)));
                }
            }
        }
        Ok(None)
    }

    /// Notes a long-name entry: the start of a long name, or its next part.
    fn long_part(&mut self, index: u32, raw: &[u8; ENTRY]) {
        let order = raw[0] & 0x1F;
        if raw[0] & 0x40 != 0 {
            self.long = Some(Long {
                start: index,
                sum: raw[13],
                left: order,
                first: None,
            });
        }
        self.long = self
            .long
            .filter(|l| l.left == order && l.sum == raw[13] && order > 0);
        if let Some(l) = &mut self.long {
            l.left -= 1;
            if l.left == 0 {
                l.first = char::from_u32(u32::from(u16::from_le_bytes([raw[1], raw[2]])));
            }
        }
    }
}

/// The entry in `raw` at `index`, with the long name `long` that came before it.
fn parse(raw: &[u8; ENTRY], index: u32, vol: &Volume, long: Option<Long>) -> Entry {
    let word = |i: usize| u32::from(u16::from_le_bytes([raw[i], raw[i + 1]]));
    let high = match vol.kind {
        crate::fat::Kind::Fat32 => word(20) << 16,
        crate::fat::Kind::Fat16 => 0,
    };
    let mut short = [0u8; 11];
    short.copy_from_slice(&raw[..11]);
    // A name starting with 0xE5 is stored with 0x05.
    if short[0] == 0x05 {
        short[0] = DELETED;
    }
    let first_char = long.and_then(|l| l.first).unwrap_or(char::from(short[0]));
    Entry {
        short,
        attr: raw[11],
        first: high | word(26),
        size: u32::from_le_bytes([raw[28], raw[29], raw[30], raw[31]]),
        index,
        long: long.map(|l| l.start),
        first_char,
    }
}

/// The checksum of a short name that its long-name entries carry.
fn checksum(raw: &[u8; ENTRY]) -> u8 {
    raw[..11]
        .iter()
        .fold(0u8, |sum, &b| sum.rotate_right(1).wrapping_add(b))
}

/// The block and byte of entry `index` of `dir` (`chain` is the
/// directory's, moved there); `None` past its end.
async fn locate<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    dir: Dir,
    chain: &mut Option<Chain>,
    index: u32,
) -> Result<Option<(u32, usize)>, Failure> {
    let at = (index % PER_BLOCK) as usize * ENTRY;
    match (dir, chain) {
        (Dir::Fixed { block, entries }, _) => {
            Ok((index < entries).then(|| (block + index / PER_BLOCK, at)))
        }
        (Dir::Chain(_), Some(chain)) => {
            let per_cluster = vol.per_cluster * PER_BLOCK;
            // A chain that ends (or runs into a free cluster) ends the directory.
            if chain.seek(port, vol, index / per_cluster).await.is_err() {
                return Ok(None);
            }
            let within = (index % per_cluster) / PER_BLOCK;
            Ok(Some((vol.block_of(chain.cluster, within)?, at)))
        }
        (Dir::Chain(_), None) => Ok(None),
    }
}

/// The block and byte of entry `index` of `dir`, which must exist.
async fn place<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    dir: Dir,
    index: u32,
) -> Result<(u32, usize), Failure> {
    let mut chain = Cursor::new(dir).chain;
    let found = locate(port, vol, dir, &mut chain, index).await?;
    found.ok_or(Failure::Card(CardError::Damaged))
}

/// The entry at `index` of `dir` (with its long name's place), if in use.
pub async fn entry_at<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    dir: Dir,
    index: u32,
) -> Result<Option<Entry>, Failure> {
    let mut cursor = Cursor::new(dir);
    while let Some(entry) = cursor.next(port, vol).await? {
        if entry.index >= index {
            return Ok(Some(entry).filter(|e| e.index == index));
        }
    }
    Ok(None)
}

/// A new entry's bytes: `attr`, first cluster `first`, size 0.
fn new_entry(short: &[u8; 11], attr: u8, first: u32) -> [u8; ENTRY] {
    let mut raw = [0u8; ENTRY];
    raw[..11].copy_from_slice(short);
    raw[11] = attr;
    for at in [16, 18, 24] {
        raw[at..at + 2].copy_from_slice(&DATE.to_le_bytes());
    }
    raw[20..22].copy_from_slice(&((first >> 16) as u16).to_le_bytes());
    raw[26..28].copy_from_slice(&(first as u16).to_le_bytes());
    raw
}

/// The entry of a new, empty file `short`.
pub fn file_entry(short: &[u8; 11]) -> [u8; ENTRY] {
    new_entry(short, ARCHIVE, 0)
}

/// The entry of a new folder `short` whose first cluster is `first`.
pub fn dir_entry(short: &[u8; 11], first: u32) -> [u8; ENTRY] {
    new_entry(short, DIRECTORY, first)
}

/// A directory with no unused entry: its last cluster (none for a fixed
/// root, which cannot grow) and the index the next entry gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full {
    /// The last cluster of its chain.
    pub last: Option<u32>,
    /// The index past its last entry.
    pub index: u32,
}

/// Writes `entry` in the first unused place of `dir`; its index, or where
/// the directory ends when it has no unused place.
pub async fn create<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    dir: Dir,
    entry: &[u8; ENTRY],
) -> Result<Result<u32, Full>, Failure> {
    let mut chain = Cursor::new(dir).chain;
    let mut index = 0u32;
    while let Some((block, at)) = locate(port, vol, dir, &mut chain, index).await? {
        let free = port
            .read_with(block, |b| b[at] == 0 || b[at] == DELETED)
            .await?;
        if free {
            put(port, block, at, entry).await?;
            return Ok(Ok(index));
        }
        index = index
            .checked_add(1)
            .ok_or(Failure::Card(CardError::FolderFull))?;
    }
    Ok(Err(Full {
        last: chain.map(|c| c.cluster),
        index,
    }))
}

/// Writes `entry` at `index` of `dir` (in a cluster just added to it).
pub async fn create_at<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    dir: Dir,
    index: u32,
    entry: &[u8; ENTRY],
) -> Result<(), Failure> {
    let (block, at) = place(port, vol, dir, index).await?;
    put(port, block, at, entry).await
}

async fn put<D: CardDriver>(
    port: &CardPort<D>,
    block: u32,
    at: usize,
    entry: &[u8; ENTRY],
) -> Result<(), Failure> {
    port.modify(block, |b| b[at..at + ENTRY].copy_from_slice(entry))
        .await?;
    Ok(())
}

/// Fills the new folder at cluster `cluster` (its parent's first cluster
/// `up`, 0 for the root): zeros, `.` and `..`.
pub async fn init_dir<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    cluster: u32,
    up: u32,
) -> Result<(), Failure> {
    zero_cluster(port, vol, cluster).await?;
    let mut first = [0u8; BLOCK];
    first[..ENTRY].copy_from_slice(&new_entry(b".          ", DIRECTORY, cluster));
    first[ENTRY..2 * ENTRY].copy_from_slice(&new_entry(b"..         ", DIRECTORY, up));
    port.write(vol.block_of(cluster, 0)?, &first).await?;
    Ok(())
}

/// Sets entry `index`'s first cluster and size.
pub async fn set_entry<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    dir: Dir,
    index: u32,
    first: u32,
    size: u32,
) -> Result<(), Failure> {
    let (block, at) = place(port, vol, dir, index).await?;
    port.modify(block, |b| {
        let e = &mut b[at..at + ENTRY];
        e[20..22].copy_from_slice(&((first >> 16) as u16).to_le_bytes());
        e[26..28].copy_from_slice(&(first as u16).to_le_bytes());
        e[28..32].copy_from_slice(&size.to_le_bytes());
    })
    .await?;
    Ok(())
}

/// Gives entry `index` of `dir` the 8.3 name `short`.
pub async fn rename<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    dir: Dir,
    index: u32,
    short: &[u8; 11],
) -> Result<(), Failure> {
    let (block, at) = place(port, vol, dir, index).await?;
    port.modify(block, |b| b[at..at + 11].copy_from_slice(short))
        .await?;
    Ok(())
}

/// Marks entries `from..=to` of `dir` deleted (a file's long name and its own).
pub async fn remove<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    dir: Dir,
    from: u32,
    to: u32,
) -> Result<(), Failure> {
    for index in from..=to {
        let (block, at) = place(port, vol, dir, index).await?;
        port.modify(block, |b| b[at] = DELETED).await?;
    }
    Ok(())
}
