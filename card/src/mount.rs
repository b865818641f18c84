//! A mounted card volume and the changes every write makes the same way:
//! clusters allocated and freed through the FAT, the FAT32 free count kept
//! right, files deleted with their long names, the takes' folder made.
//!
//! The free count: before the first change of a write, FSInfo is set to
//! "unknown"; once the write is through (an upload committed, a file
//! deleted), the exact count goes back. A power cut in between leaves
//! "unknown", which every FAT checker accepts, never a wrong count.

use crate::dir::{create, create_at, dir_entry, entry_at, init_dir, remove, Cursor, Entry};
use crate::error::{CardError, Failure, VolumeError};
use crate::fat::{partition, zero_cluster, Dir, FatTable, FsInfo, Volume, ENTRY};
use crate::names::{to_short, DIR};
use crate::port::{BlockError, CardDriver, CardPort};

/// A mounted volume.
pub struct Mounted {
    /// Its layout.
    pub vol: Volume,
    /// The takes' folder, if the card has one.
    pub folder: Option<Dir>,
    /// The free count and where to allocate next.
    pub info: FsInfo,
    /// FSInfo says "unknown" on the card until [`Mounted::settle`].
    marked: bool,
    /// The FAT's block being changed.
    pub fat: FatTable,
}

/// Why a card did not mount.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MountError {
    /// A block did not read.
    Block(BlockError),
    /// No volume the box reads.
    Volume(VolumeError),
}

impl From<BlockError> for MountError {
    fn from(e: BlockError) -> Self {
        MountError::Block(e)
    }
}

impl From<Failure> for MountError {
    fn from(e: Failure) -> Self {
        match e {
            Failure::Block(b) => MountError::Block(b),
            Failure::Card(_) => MountError::Volume(VolumeError::NotFat),
        }
    }
}

impl Mounted {
    /// Mounts the volume of the card in `port` (of `blocks` blocks).
    pub async fn mount<D: CardDriver>(
        port: &CardPort<D>,
        blocks: u32,
    ) -> Result<Mounted, MountError> {
        let start = port.read_with(0, partition).await?;
        let start = start.map_err(MountError::Volume)?;
        let vol = port
            .read_with(start, |boot| Volume::parse(start, boot, blocks))
            .await?;
        let vol = vol.map_err(MountError::Volume)?;
        let info = FsInfo::read(port, &vol).await?;
        let mut m = Mounted {
            vol,
            folder: None,
            info,
            marked: false,
            fat: FatTable::new(),
        };
        m.folder = m.find_folder(port).await?;
        Ok(m)
    }

    /// The takes' folder in the root, if there is one.
    async fn find_folder<D: CardDriver>(&self, port: &CardPort<D>) -> Result<Option<Dir>, Failure> {
        let name = to_short(DIR);
        let mut cursor = Cursor::new(self.vol.root);
        while let Some(e) = cursor.next(port, &self.vol).await? {
            if e.short == name && e.is_dir() && self.vol.holds(e.first) {
                return Ok(Some(Dir::Chain(e.first)));
            }
        }
        Ok(None)
    }

    /// The takes' folder, made if the card has none.
    pub async fn folder_or_make<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
    ) -> Result<Dir, Failure> {
        if let Some(dir) = self.folder {
            return Ok(dir);
        }
        let first = self.allocate(port).await?.ok_or(CardError::NoSpace)?;
        self.fat.flush(port, &self.vol).await?;
        init_dir(port, &self.vol, first, 0).await?;
        let entry = dir_entry(&to_short(DIR), first);
        self.create(port, self.vol.root, &entry).await?;
        self.settle(port).await?;
        let dir = Dir::Chain(first);
        self.folder = Some(dir);
        Ok(dir)
    }

    /// Writes `entry` in `dir`, which grows by a zeroed cluster when full;
    /// returns its index.
    pub async fn create<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        dir: Dir,
        entry: &[u8; ENTRY],
    ) -> Result<u32, Failure> {
        let full = match create(port, &self.vol, dir, entry).await? {
            Ok(index) => return Ok(index),
            Err(full) => full,
        };
        let last = full.last.ok_or(CardError::FolderFull)?;
        let cluster = self.allocate(port).await?.ok_or(CardError::NoSpace)?;
        zero_cluster(port, &self.vol, cluster).await?;
        self.fat.set(port, &self.vol, last, cluster).await?;
        self.fat.flush(port, &self.vol).await?;
        create_at(port, &self.vol, dir, full.index, entry).await?;
        Ok(full.index)
    }

    /// Sets FSInfo's count to "unknown" before the first change of a write.
    pub async fn mark<D: CardDriver>(&mut self, port: &CardPort<D>) -> Result<(), Failure> {
        if !self.marked && self.info.free.is_some() {
            FsInfo {
                free: None,
                hint: self.info.hint,
            }
            .write(port, &self.vol)
            .await?;
        }
        self.marked = true;
        Ok(())
    }

    /// Notes cluster `c` taken.
    fn took(&mut self, c: u32) {
        self.info.free = self.info.free.map(|f| f.saturating_sub(1));
        self.info.hint = c + 1;
    }

    /// A free cluster, marked the end of a chain; `None` when the card is full.
    pub async fn allocate<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
    ) -> Result<Option<u32>, Failure> {
        self.mark(port).await?;
        let got = self.fat.allocate(port, &self.vol, self.info.hint).await?;
        if let Some(c) = got {
            self.took(c);
        }
        Ok(got)
    }

    /// Frees the chain from `first`.
    pub async fn free<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        first: u32,
    ) -> Result<(), Failure> {
        if !self.vol.holds(first) {
            return Ok(());
        }
        self.mark(port).await?;
        let freed = self.fat.free_chain(port, &self.vol, first).await?;
        self.info.free = self.info.free.map(|f| f.saturating_add(freed));
        Ok(())
    }

    /// Deletes the file of `entry` in `dir`: its clusters, then its entries
    /// (its long name's too).
    pub async fn delete<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        dir: Dir,
        entry: &Entry,
    ) -> Result<(), Failure> {
        self.free(port, entry.first).await?;
        self.fat.flush(port, &self.vol).await?;
        remove(port, &self.vol, dir, entry.start(), entry.index).await?;
        self.settle(port).await
    }

    /// The entry at `index` of `dir`, if in use.
    pub async fn entry<D: CardDriver>(
        &self,
        port: &CardPort<D>,
        dir: Dir,
        index: u32,
    ) -> Result<Option<Entry>, Failure> {
        entry_at(port, &self.vol, dir, index).await
    }

    /// Writes what is pending in the FAT and the exact free count: the card
    /// is consistent again.
    pub async fn settle<D: CardDriver>(&mut self, port: &CardPort<D>) -> Result<(), Failure> {
        self.fat.flush(port, &self.vol).await?;
        if self.marked {
            self.info.write(port, &self.vol).await?;
            self.marked = false;
        }
        Ok(())
    }
}
