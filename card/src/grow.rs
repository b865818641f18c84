//! A file of the folder growing a block at a time: the next block's place,
//! a cluster allocated and chained to the last when the last is full, the
//! first one marked taken in the FAT and put in the directory entry at once
//! (so whatever a cut leaves is reachable from the entry and freed with it,
//! and never handed out to another file meanwhile). Uploads and the live
//! recording grow their files this way.

use crate::dir::set_entry;
use crate::error::{CardError, Failure};
use crate::fat::Dir;
use crate::mount::Mounted;
use crate::port::{CardDriver, CardPort, BLOCK};

/// Where a growing file is.
#[derive(Clone, Copy, Debug, Default)]
pub struct Growing {
    /// Its first cluster (0 until one is allocated).
    pub first: u32,
    /// The cluster being written.
    cluster: u32,
    /// Clusters `0..=straight` are contiguous.
    pub straight: u32,
    /// Whole blocks written.
    pub blocks: u32,
    /// The next block's place, once found (it stays until written).
    next: Option<u32>,
}

impl Growing {
    /// The card block where the file's next block goes (allocating its
    /// cluster when it needs one); [`Growing::wrote`] once it is written.
    pub async fn next_block<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
        entry: u32,
    ) -> Result<u32, Failure> {
        if let Some(block) = self.next {
            return Ok(block);
        }
        let per = m.vol.per_cluster;
        let within = self.blocks % per;
        if within == 0 {
            let c = m.allocate(port).await?.ok_or(CardError::NoSpace)?;
            if self.first == 0 {
                self.first = c;
                // The FAT says the cluster is taken before the entry points
                // at it: a cut never leaves an entry on a cluster that
                // the next allocation could hand out again.
                m.fat.flush(port, &m.vol).await?;
                set_entry(port, &m.vol, dir, entry, c, 0).await?;
            } else {
                m.fat.set(port, &m.vol, self.cluster, c).await?;
                let index = self.blocks / per;
                if self.straight + 1 == index && Some(c) == self.cluster.checked_add(1) {
                    self.straight = index;
                }
            }
            self.cluster = c;
        }
        let block = m.vol.block_of(self.cluster, within)?;
        self.next = Some(block);
        Ok(block)
    }

    /// Notes the block [`Growing::next_block`] gave written.
    pub fn wrote(&mut self) {
        self.next = None;
        self.blocks += 1;
    }

    /// The bytes of the blocks written.
    pub fn bytes(&self) -> u32 {
        self.blocks.saturating_mul(BLOCK as u32)
    }
}
