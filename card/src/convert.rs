//! A live journal ([`crate::journal`]) made a take, a piece per step, while
//! the player plays on: its records are counted (up to the first that is not
//! whole: what a cut left), the take image they make is streamed once for
//! its CRC and once into an upload through the one upload contract (magic
//! last), then the journal is deleted. A cut anywhere leaves the journal,
//! made a take again at the next scan; a take of the same name with the same
//! CRC says a cut came between the commit and the delete.

use heapless::String;
use llv_core::take::{FrameEntry, ImageCrc, TakeHeader, ENTRY_LEN, HEADER_LEN, NAME_LEN};

use crate::dir::Entry;
use crate::error::{CardError, Failure, SHORT};
use crate::fat::{read_chain, Chain, Volume};
use crate::journal::{parse_journal_header, Head, HEAD, RECORD};
use crate::port::{CardDriver, CardPort, BLOCK};

/// Bytes of the image made per piece.
pub const PIECE: usize = 128;
/// Records counted per step, and pieces made per step.
pub const PER_STEP: u32 = 16;

/// What the conversion does next.
#[derive(Debug)]
pub enum Stage {
    /// Reads the journal's block 0 (its take's name).
    Open,
    /// Counts whole records and sums their lengths.
    Count,
    /// Streams the image for its CRC.
    Crc,
    /// Streams the image into upload `id`.
    Write {
        /// The upload's id.
        id: u32,
    },
    /// Deletes the journal.
    Delete,
}

/// Where the image stream is.
#[derive(Clone, Copy, Debug, Default)]
struct Cursor {
    /// Image bytes made.
    pos: u32,
    /// The record being read.
    record: u32,
    /// The packet being copied: its length (0: its head is not read yet)
    /// and the bytes of it made.
    len: u16,
    within: u16,
}

/// One journal being made a take.
pub struct Convert {
    /// The journal's directory entry.
    pub journal: Entry,
    /// The take's name.
    pub name: String<NAME_LEN>,
    /// What comes next.
    pub stage: Stage,
    chain: Chain,
    /// Whole records found so far (all of them once counted).
    frames: u32,
    packet_bytes: u32,
    period_us: u32,
    last_us: u32,
    crc: Option<ImageCrc>,
    /// The CRC once streamed.
    pub crc32: u32,
    cursor: Cursor,
}

impl Convert {
    /// The conversion of the journal `journal`.
    pub fn new(journal: Entry) -> Self {
        Convert {
            chain: Chain::new(journal.first, 0),
            journal,
            name: String::new(),
            stage: Stage::Open,
            frames: 0,
            packet_bytes: 0,
            period_us: 0,
            last_us: 0,
            crc: None,
            crc32: 0,
            cursor: Cursor::default(),
        }
    }

    /// The records the journal's size covers.
    fn records(&self) -> u32 {
        self.journal.size.saturating_sub(BLOCK as u32) / RECORD as u32
    }

    /// Frames of the take.
    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// The take's header (`crc32` as streamed, 0 before).
    pub fn header(&self) -> TakeHeader {
        TakeHeader {
            name: self.name.clone(),
            frame_count: self.frames,
            total_len: self.total(),
            period_us: self.period_us,
            crc32: self.crc32,
        }
    }

    /// The image's length.
    pub fn total(&self) -> u32 {
        let fixed = HEADER_LEN as u32 + self.frames.saturating_mul(ENTRY_LEN as u32);
        fixed.saturating_add(self.packet_bytes)
    }

    /// Reads the journal's block 0: `Ok(false)` when it is not a journal
    /// this code reads.
    pub async fn open<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
    ) -> Result<bool, Failure> {
        let mut block = [0u8; 12 + NAME_LEN];
        read_chain(port, vol, &mut self.chain, 0, &mut block).await?;
        match parse_journal_header(&block) {
            Some(name) => {
                self.name = name;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Counts the next records; `true` once all are (the first that is not
    /// whole, or whose time goes back, ends the take).
    pub async fn count<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
    ) -> Result<bool, Failure> {
        for _ in 0..PER_STEP {
            if self.frames >= self.records() {
                return Ok(true);
            }
            let head = self.head(port, vol, self.frames).await?;
            match head {
                Some(h)
                    if (self.frames == 0 || h.time_us >= self.last_us)
                        && !(h.starts && self.frames > 0) =>
                {
                    self.frames += 1;
                    self.packet_bytes = self.packet_bytes.saturating_add(u32::from(h.len));
                    self.period_us = h.period_us.max(h.time_us.saturating_add(1));
                    self.last_us = h.time_us;
                }
                _ => {
                    // What a cut left, or a new take that never got its
                    // own journal: the take ends before it.
                    self.journal.size = BLOCK as u32 + self.frames * RECORD as u32;
                    return Ok(true);
                }
            }
        }
        Ok(self.frames >= self.records())
    }

    /// The head of record `k`.
    async fn head<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
        k: u32,
    ) -> Result<Option<Head>, Failure> {
        let mut raw = [0u8; HEAD];
        let at = BLOCK as u32 + k * RECORD as u32;
        read_chain(port, vol, &mut self.chain, at, &mut raw).await?;
        Ok(Head::parse(&raw))
    }

    /// Starts streaming the image from its start.
    pub fn rewind(&mut self) {
        self.cursor = Cursor::default();
        self.crc = Some(ImageCrc::default());
    }

    /// Whether the stream is through.
    pub fn streamed(&self) -> bool {
        self.cursor.pos >= self.total()
    }

    /// The next piece of the image into `out`: its offset and length (0 at
    /// the end). Fed to the CRC as it goes.
    pub async fn piece<D: CardDriver>(
        &mut self,
        port: &CardPort<D>,
        vol: &Volume,
        out: &mut [u8; PIECE],
    ) -> Result<(u32, usize), Failure> {
        let at = self.cursor.pos;
        let packets = HEADER_LEN as u32 + self.frames * ENTRY_LEN as u32;
        let n = if at >= self.total() {
            0
        } else if at == 0 {
            self.header().emit(out).map_err(|_| SHORT)?;
            HEADER_LEN
        } else if at < packets {
            let first = (at - HEADER_LEN as u32) / ENTRY_LEN as u32;
            let count = (self.frames - first).min((PIECE / ENTRY_LEN) as u32);
            for (i, k) in (first..first + count).enumerate() {
                let h = self.head(port, vol, k).await?.ok_or(CardError::Damaged)?;
                let entry = FrameEntry {
                    time_us: h.time_us,
                    len: h.len,
                };
                let slot = out.get_mut(i * ENTRY_LEN..).ok_or(SHORT)?;
                entry.emit(slot).map_err(|_| SHORT)?;
            }
            count as usize * ENTRY_LEN
        } else {
            let c = self.cursor;
            let len = if c.len == 0 {
                self.head(port, vol, c.record)
                    .await?
                    .ok_or(CardError::Damaged)?
                    .len
            } else {
                c.len
            };
            let n = usize::from(len - c.within).min(PIECE);
            let from = BLOCK as u32 + c.record * RECORD as u32 + HEAD as u32 + u32::from(c.within);
            let piece = out.get_mut(..n).ok_or(SHORT)?;
            read_chain(port, vol, &mut self.chain, from, piece).await?;
            let within = c.within + n as u16;
            self.cursor.record = c.record + u32::from(within == len);
            (self.cursor.len, self.cursor.within) =
                if within == len { (0, 0) } else { (len, within) };
            n
        };
        if let (Some(crc), Some(bytes)) = (self.crc.as_mut(), out.get(..n)) {
            crc.update(bytes);
        }
        self.cursor.pos = at + n as u32;
        Ok((at, n))
    }

    /// The CRC of what was streamed since [`Convert::rewind`].
    pub fn finish_crc(&mut self) {
        if let Some(crc) = self.crc.take() {
            self.crc32 = crc.finalize();
        }
    }
}
