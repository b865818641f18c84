//! The box's index of a card's takes, in RAM and bounded: per take, a hash
//! of its name and where its file is ([`CardTake`], 24 bytes), at most
//! [`MAX_CARD_TAKES`]. What a list shows (name, frames, length, CRC) is read
//! from the take's header on the card ([`read_header`]), one block a take.

use heapless::Vec;
use llv_core::take::{TakeHeader, HEADER_LEN};

use crate::error::Failure;
use crate::fat::Volume;
use crate::names::MAX_CARD_TAKES;
use crate::port::{CardDriver, CardPort};

/// A take on the card that checked out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardTake {
    /// [`name_hash`] of its name.
    pub hash: u64,
    /// Its file's first cluster.
    pub first: u32,
    /// Clusters `0..=straight` of its file are contiguous.
    pub straight: u32,
    /// Its directory entry's place in the takes' folder.
    pub entry: u32,
    /// Which take this is (a replacement is another): readers check it.
    pub serial: u32,
}

/// The FNV-1a hash of a take's name: the index finds a name by it and
/// confirms it with the header.
pub fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The takes that checked out, in the order they were found or uploaded.
#[derive(Default)]
pub struct Index {
    takes: Vec<CardTake, MAX_CARD_TAKES>,
    serial: u32,
    revision: u32,
}

impl Index {
    /// An empty index.
    pub const fn new() -> Self {
        Index {
            takes: Vec::new(),
            serial: 0,
            revision: 0,
        }
    }

    /// The takes.
    pub fn takes(&self) -> &[CardTake] {
        &self.takes
    }

    /// Changes with every take added or removed.
    pub fn revision(&self) -> u32 {
        self.revision
    }

    /// Whether no more takes fit.
    pub fn is_full(&self) -> bool {
        self.takes.is_full()
    }

    /// Adds a take; `false` when the index is full.
    pub fn push(&mut self, hash: u64, first: u32, straight: u32, entry: u32) -> bool {
        self.serial = self.serial.wrapping_add(1);
        let take = CardTake {
            hash,
            first,
            straight,
            entry,
            serial: self.serial,
        };
        let pushed = self.takes.push(take).is_ok();
        self.revision = self.revision.wrapping_add(u32::from(pushed));
        pushed
    }

    /// Removes take `i`.
    pub fn remove(&mut self, i: usize) {
        if i < self.takes.len() {
            self.takes.remove(i);
            self.revision = self.revision.wrapping_add(1);
        }
    }

    /// Forgets every take (the card went).
    pub fn clear(&mut self) {
        if !self.takes.is_empty() {
            self.revision = self.revision.wrapping_add(1);
        }
        self.takes.clear();
    }

    /// The places of the takes whose name hashes to `hash`.
    pub fn with_hash(&self, hash: u64) -> impl Iterator<Item = usize> + '_ {
        self.takes
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.hash == hash)
            .map(|(i, _)| i)
    }

    /// Whether the file whose entry is at `entry` is listed.
    pub fn has_entry(&self, entry: u32) -> bool {
        self.takes.iter().any(|t| t.entry == entry)
    }

    /// Whether take `serial` is listed.
    pub fn has_serial(&self, serial: u32) -> bool {
        self.takes.iter().any(|t| t.serial == serial)
    }
}

/// The header of the take whose file starts at cluster `first`.
pub async fn read_header<D: CardDriver>(
    port: &CardPort<D>,
    vol: &Volume,
    first: u32,
) -> Result<TakeHeader, Failure> {
    let block = vol.block_of(first, 0)?;
    let header = port
        .read_with(block, |b| TakeHeader::parse(&b[..HEADER_LEN]))
        .await?;
    Ok(header?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_finds_by_hash_and_counts_its_changes() {
        let mut index = Index::new();
        assert!(index.push(name_hash("dao"), 10, 0, 3));
        assert!(index.push(name_hash("jaw"), 20, 4, 5));
        assert_eq!(index.revision(), 2);
        assert_eq!(
            index
                .with_hash(name_hash("jaw"))
                .collect::<heapless::Vec<_, 2>>(),
            [1]
        );
        assert!(index.has_entry(3) && !index.has_entry(4));
        let serial = index.takes()[0].serial;
        index.remove(0);
        assert!(!index.has_serial(serial));
        assert_eq!(index.revision(), 3);
        assert_ne!(name_hash("dao"), name_hash("doa"));
        assert_eq!(core::mem::size_of::<CardTake>(), 24);
    }
}
