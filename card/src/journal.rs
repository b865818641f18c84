//! The live recording on the card (the box's black box): each frame of the
//! live stream appended as it arrives to a journal file of the takes'
//! folder, `LIVEnnnn.LLJ`, the file's size brought up to date every
//! [`SYNC_EVERY`] (half a second), so a power cut loses at most the last
//! second. A
//! journal is made a take when its recording ends, or at the next scan after
//! a cut ([`crate::convert`]).
//!
//! Layout (`docs/take-image.md`, "The live journal"): block 0 holds the
//! magic `LLVLIVE\0`, the version (u16, 1), the name's length (u8), a
//! reserved byte and the take's name (32 bytes, zero padded); then one
//! [`RECORD`]-byte record per frame: its [`Head`] (16 bytes), the packet,
//! zeros. A record is two whole blocks, each written once, so a cut never
//! touches a record the size already covers. The frame times in the heads
//! are the take's, by the one timing rule of takes ([`Stamp`]).

use embassy_time::{Duration, Instant};
use heapless::String;
use llv_core::packet::{Packet, MAX_LEN, MIN_LEN};
use llv_core::take::{TakeTiming, NAME_LEN};
use llv_core::time::{FrameRate, FrameTime};

use crate::dir::{file_entry, set_entry};
use crate::error::Failure;
use crate::fat::Dir;
use crate::grow::Growing;
use crate::mount::Mounted;
use crate::names::{to_short, FILE_LEN};
use crate::port::{CardDriver, CardPort, BLOCK};

/// A journal's first eight bytes.
pub const JOURNAL_MAGIC: [u8; 8] = *b"LLVLIVE\0";
/// The journal layout this code reads and writes.
pub const JOURNAL_VERSION: u16 = 1;
/// Bytes of one frame's record.
pub const RECORD: usize = 2 * BLOCK;
/// Bytes of a record's head ([`Head`]) before its packet.
pub const HEAD: usize = 16;
/// The journal's extension.
pub const JOURNAL_EXT: &str = "LLJ";
/// Longest stretch one take of a recording holds (a take's frame times are
/// u32 µs): a longer recording goes on in the next journal.
pub const SPLIT_US: u32 = 3_600_000_000;
/// Longest a recorded frame waits before the file's size covers it (half
/// the second a power cut may cost, the other half for the queue and the
/// frame that comes after it).
pub const SYNC_EVERY: Duration = Duration::from_millis(500);

/// A record's head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// When the frame arrived, µs from the recording's first frame (wraps).
    pub arrival_us: u32,
    /// The packet's length.
    pub len: u16,
    /// Whether this frame starts a new journal (the take would pass
    /// [`SPLIT_US`] otherwise).
    pub starts: bool,
    /// The frame's time in the take, µs from frame 0 ([`TakeTiming`]).
    pub time_us: u32,
    /// Where the take loops if it ends with this frame, µs.
    pub period_us: u32,
}

impl Head {
    /// The head at the start of `bytes`, if its length is a packet's.
    pub fn parse(bytes: &[u8]) -> Option<Head> {
        let b = bytes.get(..HEAD)?;
        let le32 = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let head = Head {
            arrival_us: le32(0),
            len: u16::from_le_bytes([b[4], b[5]]),
            starts: b[6] & 1 != 0,
            time_us: le32(8),
            period_us: le32(12),
        };
        (MIN_LEN..=MAX_LEN)
            .contains(&usize::from(head.len))
            .then_some(head)
    }

    /// The 16 bytes of the head.
    pub fn emit(&self) -> [u8; HEAD] {
        let mut b = [0u8; HEAD];
        b[0..4].copy_from_slice(&self.arrival_us.to_le_bytes());
        b[4..6].copy_from_slice(&self.len.to_le_bytes());
        b[6] = u8::from(self.starts);
        b[8..12].copy_from_slice(&self.time_us.to_le_bytes());
        b[12..16].copy_from_slice(&self.period_us.to_le_bytes());
        b
    }
}

/// Stamps the frames of one recording with their take times, as they
/// arrive: the one timing rule of takes ([`TakeTiming`], from the packets'
/// own frame times), a new take every [`SPLIT_US`].
pub struct Stamp {
    timing: TakeTiming,
    index: u32,
    base_us: Option<u32>,
}

impl Default for Stamp {
    fn default() -> Self {
        Stamp {
            timing: TakeTiming::new(FrameRate::FPS_60),
            index: 0,
            base_us: None,
        }
    }
}

impl Stamp {
    /// The head of `packet`, arriving at `arrival_us` (the caller's clock,
    /// µs); `None` for a datagram that is not a face frame.
    pub fn stamp(&mut self, arrival_us: u32, packet: &[u8]) -> Option<Head> {
        let time = Packet::new_checked(packet).ok()?.time();
        let base = *self.base_us.get_or_insert(arrival_us);
        let mut starts = self.index == 0;
        let (time_us, period_us) = match self.next(&time) {
            Some(t) if t.0 < SPLIT_US => t,
            _ => {
                *self = Stamp::default();
                self.base_us = Some(base);
                starts = true;
                self.next(&time)?
            }
        };
        Some(Head {
            arrival_us: arrival_us.wrapping_sub(base),
            len: u16::try_from(packet.len()).ok()?,
            starts,
            time_us,
            period_us,
        })
    }

    fn next(&mut self, time: &FrameTime) -> Option<(u32, u32)> {
        let t = self.timing.next(self.index, time).ok()?;
        self.index += 1;
        Some((t, self.timing.period().ok()?))
    }
}

/// Writes block `k` (0 or 1) of the record of `packet` with `head` into
/// `out`, which is zeros.
pub fn record_block(head: &Head, packet: &[u8], k: usize, out: &mut [u8; BLOCK]) {
    let head = head.emit();
    let from = k * BLOCK;
    for (i, o) in out.iter_mut().enumerate() {
        let at = from + i;
        *o = match at.checked_sub(HEAD) {
            None => head.get(at).copied().unwrap_or(0),
            Some(p) => packet.get(p).copied().unwrap_or(0),
        };
    }
}

/// The name and number of the journal file `file` (`LIVEnnnn.LLJ`, any case).
pub fn journal_number(file: &str) -> Option<u16> {
    let (base, ext) = file.rsplit_once('.')?;
    if !ext.eq_ignore_ascii_case(JOURNAL_EXT) {
        return None;
    }
    base.get(..4).filter(|b| b.eq_ignore_ascii_case("LIVE"))?;
    let n = base.get(4..)?;
    (n.len() == 4 && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse().ok())
        .flatten()
}

/// The take name of recording `n`: `live-0001`.
pub fn live_name(n: u16) -> String<NAME_LEN> {
    let mut s = String::new();
    let _ = core::fmt::write(&mut s, format_args!("live-{n:04}"));
    s
}

/// The journal file of recording `n`: `LIVE0001.LLJ`.
pub fn journal_file(n: u16) -> String<FILE_LEN> {
    let mut s = String::new();
    let _ = core::fmt::write(&mut s, format_args!("LIVE{n:04}.{JOURNAL_EXT}"));
    s
}

/// Block 0 of the journal of the take `name`.
pub fn journal_header(name: &str, out: &mut [u8; BLOCK]) {
    let name = name.as_bytes();
    let len = name.len().min(NAME_LEN);
    out[..8].copy_from_slice(&JOURNAL_MAGIC);
    out[8..10].copy_from_slice(&JOURNAL_VERSION.to_le_bytes());
    out[10] = len as u8;
    out[12..12 + len].copy_from_slice(&name[..len]);
}

/// The take name in a journal's block 0, if it is one this code reads.
pub fn parse_journal_header(block: &[u8]) -> Option<String<NAME_LEN>> {
    if block.get(..8)? != JOURNAL_MAGIC {
        return None;
    }
    let version = u16::from_le_bytes(block.get(8..10)?.try_into().ok()?);
    let len = usize::from(*block.get(10)?);
    if version != JOURNAL_VERSION || len > NAME_LEN {
        return None;
    }
    let name = core::str::from_utf8(block.get(12..12 + len)?).ok()?;
    let mut s = String::new();
    s.push_str(name).ok()?;
    Some(s)
}

/// Where one record goes in a journal: `Err(Split)` when the frame is past
/// [`SPLIT_US`] from the journal's first (it goes into the next journal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split;

/// A journal being written.
pub struct Journal {
    /// Its directory entry's place in the folder.
    pub entry: u32,
    /// The take it becomes.
    pub name: String<NAME_LEN>,
    /// Its number (`LIVEnnnn.LLJ`).
    pub number: u16,
    grown: Growing,
    /// The last frame's time in the take.
    last_us: u32,
    /// Frames written.
    frames: u32,
    /// Bytes the directory entry says.
    synced_bytes: u32,
    synced_at: Instant,
}

impl Journal {
    /// Makes the journal of recording `number` in `dir` and writes its block 0.
    pub async fn begin<D: CardDriver>(
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
        number: u16,
    ) -> Result<Journal, Failure> {
        let file = journal_file(number);
        let entry = m.create(port, dir, &file_entry(&to_short(&file))).await?;
        let name = live_name(number);
        let mut journal = Journal {
            entry,
            name,
            number,
            grown: Growing::default(),
            last_us: 0,
            frames: 0,
            synced_bytes: 0,
            synced_at: Instant::now(),
        };
        let block = journal.grown.next_block(port, m, dir, entry).await?;
        let name = journal.name.clone();
        port.fill(block, |b| journal_header(&name, b)).await?;
        journal.grown.wrote();
        journal.sync(port, m, dir).await?;
        Ok(journal)
    }

    /// Appends the next frame, its record's two blocks written by `fill`
    /// (as [`record_block`] does). A record whose head is not a packet's, or
    /// whose time goes back, is not written (`Ok(false)`); one that starts a
    /// new journal, in a journal with frames, is not either (`Err(Split)`).
    /// The size is brought up to date once [`SYNC_EVERY`] has passed.
    pub async fn append<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
        mut fill: impl FnMut(usize, &mut [u8; BLOCK]),
    ) -> Result<Result<bool, Split>, Failure> {
        let block = self.grown.next_block(port, m, dir, self.entry).await?;
        let (frames, last) = (self.frames, self.last_us);
        let mut verdict = Ok(None);
        port.fill(block, |b| {
            fill(0, b);
            verdict = match Head::parse(b) {
                Some(h) if h.starts && frames > 0 => Err(Split),
                Some(h) if frames == 0 || h.time_us >= last => Ok(Some(h)),
                _ => Ok(None),
            };
        })
        .await?;
        let head = match verdict {
            Ok(Some(h)) => h,
            Ok(None) => return Ok(Ok(false)),
            Err(split) => return Ok(Err(split)),
        };
        self.grown.wrote();
        let second = self.grown.next_block(port, m, dir, self.entry).await?;
        port.fill(second, |b| fill(1, b)).await?;
        self.grown.wrote();
        self.last_us = head.time_us;
        self.frames += 1;
        self.sync_due(port, m, dir).await?;
        Ok(Ok(true))
    }

    /// Writes the FAT and the file's size if frames were written since
    /// they were last, [`SYNC_EVERY`] ago or more.
    pub async fn sync_due<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
    ) -> Result<(), Failure> {
        if self.synced_bytes != self.bytes() && self.synced_at.elapsed() >= SYNC_EVERY {
            self.sync(port, m, dir).await?;
        }
        Ok(())
    }

    /// Writes the FAT and the file's size: every record written is kept.
    pub async fn sync<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
    ) -> Result<(), Failure> {
        let bytes = self.bytes();
        m.fat.flush(port, &m.vol).await?;
        set_entry(port, &m.vol, dir, self.entry, self.grown.first, bytes).await?;
        self.synced_bytes = bytes;
        self.synced_at = Instant::now();
        Ok(())
    }

    /// Bytes of the journal on the card: block 0 and whole records (a record
    /// cut between its two blocks is not counted).
    pub fn bytes(&self) -> u32 {
        let records = self.grown.blocks.saturating_sub(1) / 2;
        (BLOCK as u32).saturating_add(records.saturating_mul(RECORD as u32))
    }

    /// Frames recorded.
    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// Ends the journal: its size and the FAT written, the free count right.
    pub async fn end<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        m: &mut Mounted,
        dir: Dir,
    ) -> Result<(), Failure> {
        self.sync(port, m, dir).await?;
        m.settle(port).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_its_head_then_its_packet_in_two_blocks() {
        let packet: [u8; 600] = core::array::from_fn(|i| (i % 251) as u8 + 1);
        let head = Head {
            arrival_us: 1234,
            len: 600,
            starts: true,
            time_us: 5678,
            period_us: 9999,
        };
        let mut a = [0u8; BLOCK];
        let mut b = [0u8; BLOCK];
        record_block(&head, &packet, 0, &mut a);
        record_block(&head, &packet, 1, &mut b);
        assert_eq!(Head::parse(&a), Some(head));
        assert_eq!(&a[HEAD..], &packet[..BLOCK - HEAD]);
        assert_eq!(&b[..600 - (BLOCK - HEAD)], &packet[BLOCK - HEAD..]);
        assert!(b[600 - (BLOCK - HEAD)..].iter().all(|&x| x == 0));
    }

    #[test]
    fn journals_are_numbered_files_and_takes() {
        assert_eq!(journal_file(7), "LIVE0007.LLJ");
        assert_eq!(live_name(7), "live-0007");
        assert_eq!(journal_number("LIVE0007.LLJ"), Some(7));
        assert_eq!(journal_number("live9999.llj"), Some(9999));
        assert_eq!(journal_number("LIVE007.LLJ"), None);
        assert_eq!(journal_number("LIVE0007.TAK"), None);
        assert_eq!(journal_number("DEAD0007.LLJ"), None);
        let mut block = [0u8; BLOCK];
        journal_header("live-0007", &mut block);
        assert_eq!(parse_journal_header(&block).as_deref(), Some("live-0007"));
        block[0] = b'X';
        assert_eq!(parse_journal_header(&block), None);
    }

    #[test]
    fn a_head_with_a_length_no_packet_has_is_refused() {
        let mut b = [0u8; BLOCK];
        let head = Head {
            arrival_us: 0,
            len: 10,
            starts: true,
            time_us: 0,
            period_us: 0,
        };
        record_block(&head, &[0u8; 10], 0, &mut b);
        assert_eq!(Head::parse(&b), None);
    }
}
