//! An upload to the card: the take image written to a new file of the
//! takes' folder a block at a time, every block awaited, so the player
//! plays on meanwhile.
//!
//! The file's first 8 bytes (the magic) are written as zeros and the commit
//! writes the magic last, so a cut upload leaves a file that never lists
//! (the scan removes it). Order on the card: data blocks, then the FAT
//! entries that chain them, then the directory entry's size: its first
//! cluster goes into the entry as soon as it is allocated, so whatever a cut
//! leaves is reachable from the entry and freed with it.

use heapless::String;
use llv_core::take::{TakeHeader, MAGIC};

use crate::dir::{file_entry, set_entry, Cursor};
use crate::error::{CardError, Failure};
use crate::fat::Dir;
use crate::grow::Growing;
use crate::mount::Mounted;
use crate::names::{file_name, from_short, to_short, FILE_LEN};
use crate::port::{BlockBuf, CardDriver, CardPort, BLOCK};

/// Bytes written between two updates of the directory entry's size.
const FLUSH_EVERY: u32 = 64 * 1024;

/// The file of an upload in progress.
pub struct Writer {
    /// Its 8.3 name.
    pub file: String<FILE_LEN>,
    /// Its directory entry's place in the folder.
    pub entry: u32,
    /// Its clusters and blocks.
    grown: Growing,
    /// The block being filled, and how far.
    block: BlockBuf,
    filled: usize,
}

/// What a committed upload left on the card.
pub struct Committed {
    /// The take's header.
    pub header: TakeHeader,
    /// Its first cluster.
    pub first: u32,
    /// Clusters `0..=straight` are contiguous.
    pub straight: u32,
    /// Its directory entry's place.
    pub entry: u32,
}

impl Writer {
    /// Makes the file for an upload of the take `name` in `dir`.
    pub async fn begin<D: CardDriver>(
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
        name: &str,
    ) -> Result<Writer, Failure> {
        let file = free_name(port, m, dir, name).await?;
        let entry = m.create(port, dir, &file_entry(&to_short(&file))).await?;
        Ok(Writer {
            file,
            entry,
            grown: Growing::default(),
            block: BlockBuf([0; BLOCK]),
            filled: 0,
        })
    }

    /// Writes `data`, the upload's next bytes (the upload contract checked them).
    pub async fn write<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
        data: &[u8],
    ) -> Result<(), Failure> {
        let mut rest = data;
        while !rest.is_empty() {
            let n = (BLOCK - self.filled).min(rest.len());
            self.block.0[self.filled..self.filled + n].copy_from_slice(&rest[..n]);
            self.filled += n;
            rest = &rest[n..];
            if self.filled == BLOCK {
                self.put_block(port, m, dir).await?;
            }
        }
        Ok(())
    }

    /// Writes the full block, into a new cluster when the last is full.
    async fn put_block<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
    ) -> Result<(), Failure> {
        let block = self.grown.next_block(port, m, dir, self.entry).await?;
        if self.grown.blocks == 0 {
            // The magic is written last, at the commit.
            self.block.0[..MAGIC.len()].fill(0);
        }
        port.write(block, &self.block.0).await?;
        self.grown.wrote();
        self.filled = 0;
        let bytes = self.grown.bytes();
        if bytes.is_multiple_of(FLUSH_EVERY) {
            m.fat.flush(port, &m.vol).await?;
            set_entry(port, &m.vol, dir, self.entry, self.grown.first, bytes).await?;
        }
        Ok(())
    }

    /// Writes what is left, the size and the magic: the file is a take.
    pub async fn commit<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
        header: TakeHeader,
    ) -> Result<Committed, Failure> {
        if self.filled > 0 {
            self.block.0[self.filled..].fill(0);
            self.put_block(port, m, dir).await?;
        }
        m.fat.flush(port, &m.vol).await?;
        let total = header.total_len;
        set_entry(port, &m.vol, dir, self.entry, self.grown.first, total).await?;
        let magic_at = m.vol.block_of(self.grown.first, 0)?;
        port.modify(magic_at, |b| b[..MAGIC.len()].copy_from_slice(&MAGIC))
            .await?;
        m.settle(port).await?;
        Ok(Committed {
            header,
            first: self.grown.first,
            straight: self.grown.straight,
            entry: self.entry,
        })
    }
}

/// An 8.3 name for the take `name` that no file of `dir` has.
async fn free_name<D: CardDriver>(
    port: &CardPort<D>,
    m: &Mounted,
    dir: Dir,
    name: &str,
) -> Result<String<FILE_LEN>, Failure> {
    // The names `file_name` may try: the plain one and `~1` to `~N`; which
    // of them are taken, from one pass over the folder.
    const TRIES: usize = 256;
    let plain = file_name(name, |_| false);
    let mut taken = [false; TRIES + 1];
    let mut cursor = Cursor::new(dir);
    while let Some(e) = cursor.next(port, &m.vol).await? {
        let file = from_short(&e.short);
        if file == plain {
            taken[0] = true;
        } else if let Some(n) = tilde(&file).filter(|n| (1..=TRIES).contains(n)) {
            if file == file_name(name, |f| tried(f, &plain, n)) {
                taken[n] = true;
            }
        }
    }
    match taken.iter().position(|t| !t) {
        Some(0) => Ok(plain),
        Some(n) => Ok(file_name(name, |f| tried(f, &plain, n))),
        None => Err(Failure::Card(CardError::FolderFull)),
    }
}

/// Whether `file_name` should take `f` as taken, so that it answers its
/// `n`th candidate: the plain name and `~1` to `~(n-1)` are.
fn tried(f: &str, plain: &str, n: usize) -> bool {
    f == plain || tilde(f).is_some_and(|k| k < n)
}

/// The `N` of a name `BASE~N.TAK`.
fn tilde(f: &str) -> Option<usize> {
    let base = f.split('.').next()?;
    base.rsplit_once('~')?.1.parse().ok()
}
