//! The scan of a card that came in: every take file of the folder `LLV`
//! read once, in folder order, a piece per [`Scan::step`], through the same
//! checks as an upload ([`ImageCheck`]: header, entries, lengths, CRC); only
//! a take that checks out goes into the [`Index`].
//!
//! An upload cut short is a file whose first 8 bytes (the magic) are zeros,
//! or that is 0 bytes long (an upload's file until its first size update;
//! an empty file holds nothing to lose).
//!
//! A live journal ([`crate::journal`]) is handed to the card to be made a
//! take in a second pass, once every take is listed (so a take a cut left
//! with the journal's name is found), when the card is mounted for writing;
//! it is passed over when the card is mounted for reading.
//!
//! Litter laptops leave ([`is_litter`]) and folders are passed over; a file
//! that does not check out is reported and the scan goes on past it. An
//! upload cut short (its magic never written) is removed when the card is
//! mounted for writing (the box), and reported when it is mounted for
//! reading (`llv card list` and `check` never write).

use heapless::String;
use llv_core::take::{ImageCheck, TakeError, TakeHeader};

use crate::dir::{Cursor, Entry};
use crate::error::{CardFault, Failure};
use crate::fat::{read_chain, Chain, Dir};
use crate::index::{name_hash, read_header, Index};
use crate::journal::journal_number;
use crate::mount::Mounted;
use crate::names::{from_short, is_litter, is_take_file, FILE_LEN};
use crate::port::{CardDriver, CardPort};

/// Bytes scanned per [`Scan::step`].
pub const SCAN_STEP: usize = 8 * 1024;
/// Bytes the scan reads at a time (from the port's block).
const SCAN_READ: usize = 128;
/// Directory entries passed over per [`Scan::step`] at most.
const ENTRIES_STEP: usize = 64;

/// What one scan step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Part of the folder or of a file was read.
    Reading,
    /// A file was read whole: its verdict (listed, or why not).
    Checked {
        /// The 8.3 file name.
        file: String<FILE_LEN>,
        /// The take's header, or why it is not listed.
        verdict: Result<TakeHeader, CardFault>,
    },
    /// An upload cut short was removed.
    Removed {
        /// The 8.3 file name it had.
        file: String<FILE_LEN>,
    },
    /// A live journal to be made a take ([`crate::convert`]; only when
    /// the card is mounted for writing).
    Journal {
        /// Its directory entry.
        entry: Entry,
    },
    /// Scanned through.
    Done,
}

/// A take file being read.
struct Checking {
    file: String<FILE_LEN>,
    entry: Entry,
    chain: Chain,
    at: u32,
    check: ImageCheck,
}

/// Where the scan is in the folder and in the file it reads.
pub struct Scan {
    folder: Dir,
    cursor: Cursor,
    checking: Option<Checking>,
    /// Whether the takes are all listed and the pass is for journals.
    journals: bool,
    /// Whether the pass for takes met a journal.
    met_journal: bool,
}

impl Scan {
    /// A scan of the takes' folder `folder` from its start.
    pub fn new(folder: Dir) -> Self {
        Scan {
            folder,
            cursor: Cursor::new(folder),
            checking: None,
            journals: false,
            met_journal: false,
        }
    }

    /// The next piece: the next file found, or [`SCAN_STEP`] bytes of the
    /// one being read. `busy` is the entry of a file being written (passed
    /// over); `repair` removes uploads cut short.
    pub async fn step<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &mut Mounted,
        index: &mut Index,
        busy: &[Option<u32>],
        repair: bool,
    ) -> Result<Step, Failure> {
        let Some(checking) = self.checking.as_mut() else {
            return self.next_file(port, m, index, busy, repair).await;
        };
        let mut buf = [0u8; SCAN_READ];
        let mut read = 0;
        // An upload's file is 0 bytes long until its first size update.
        let empty = checking.entry.size == 0;
        loop {
            let left = checking.entry.size.saturating_sub(checking.at);
            let n = (left as usize).min(SCAN_READ);
            if n == 0 && !empty {
                break;
            }
            let piece = &mut buf[..n];
            let at = checking.at;
            match read_chain(port, &m.vol, &mut checking.chain, at, piece).await {
                Ok(()) => {}
                // The card failed: the file is read on from here next step.
                Err(e @ Failure::Block(_)) => return Err(e),
                // Its clusters end early, or leave the volume: not a take.
                Err(_) => {
                    let done = self.checking.take();
                    let file = done.map(|c| c.file).unwrap_or_default();
                    return Ok(bad(file, TakeError::Inconsistent));
                }
            }
            if empty || (at == 0 && piece.get(..8) == Some(&[0; 8])) {
                // An upload cut short: its magic was never written.
                let Some(cut) = self.checking.take() else {
                    return Ok(Step::Reading);
                };
                if !repair {
                    let fault = CardFault::CutUpload {
                        file: cut.file.clone(),
                    };
                    return Ok(Step::Checked {
                        file: cut.file,
                        verdict: Err(fault),
                    });
                }
                m.delete(port, self.folder, &cut.entry).await?;
                return Ok(Step::Removed { file: cut.file });
            }
            checking.at += n as u32;
            read += n;
            if checking.check.update(piece).is_err() {
                break;
            }
            if read >= SCAN_STEP {
                return Ok(Step::Reading);
            }
        }
        let Some(done) = self.checking.take() else {
            return Ok(Step::Reading);
        };
        let header = match done.check.finish() {
            Ok(header) => header,
            Err(why) => return Ok(bad(done.file, why)),
        };
        let hash = name_hash(&header.name);
        for i in index.with_hash(hash) {
            let Some(other) = index.takes().get(i) else {
                continue;
            };
            if read_header(port, &m.vol, other.first).await?.name == header.name {
                let fault = CardFault::Duplicate {
                    file: done.file.clone(),
                };
                return Ok(Step::Checked {
                    file: done.file,
                    verdict: Err(fault),
                });
            }
        }
        let entry = &done.entry;
        if !index.push(hash, entry.first, done.chain.straight, entry.index) {
            let fault = CardFault::TooMany {
                file: done.file.clone(),
            };
            return Ok(Step::Checked {
                file: done.file,
                verdict: Err(fault),
            });
        }
        Ok(Step::Checked {
            file: done.file,
            verdict: Ok(header),
        })
    }

    /// Finds the next take file (passing over litter, folders, what is
    /// listed and `busy`), or a journal when `repair`; [`Step::Done`] at
    /// the folder's end.
    async fn next_file<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &Mounted,
        index: &Index,
        busy: &[Option<u32>],
        repair: bool,
    ) -> Result<Step, Failure> {
        for _ in 0..ENTRIES_STEP {
            let Some(entry) = self.cursor.next(port, &m.vol).await? else {
                if self.met_journal && repair && !self.journals {
                    // Every take listed: the journals' names are checked
                    // against them all.
                    self.journals = true;
                    self.cursor = Cursor::new(self.folder);
                    return Ok(Step::Reading);
                }
                return Ok(Step::Done);
            };
            let file = from_short(&entry.short);
            let ours = entry.is_file()
                && !is_litter(entry.first_char)
                && !busy.contains(&Some(entry.index));
            if ours && journal_number(&file).is_some() {
                self.met_journal = true;
                if self.journals {
                    return Ok(Step::Journal { entry });
                }
                continue;
            }
            let take =
                ours && !self.journals && is_take_file(&file) && !index.has_entry(entry.index);
            if !take {
                continue;
            }
            if (entry.size > 0 || entry.first != 0) && !m.vol.holds(entry.first) {
                return Ok(bad(file, TakeError::Inconsistent));
            }
            self.checking = Some(Checking {
                file,
                chain: Chain::new(entry.first, 0),
                entry,
                at: 0,
                check: ImageCheck::default(),
            });
            return Ok(Step::Reading);
        }
        Ok(Step::Reading)
    }
}

/// The verdict on a file that is not a take.
fn bad(file: String<FILE_LEN>, why: TakeError) -> Step {
    let fault = CardFault::BadTake {
        file: file.clone(),
        why,
    };
    Step::Checked {
        file,
        verdict: Err(fault),
    }
}
