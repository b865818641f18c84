//! The settings log: two erase blocks of appended records; the valid record
//! with the highest sequence wins. The first save after mount, and any save that
//! does not fit, goes to the other block after erasing it (so a unit cut in an
//! earlier life is never written again), and a power cut at any point leaves
//! the previous settings readable.
//!
//! Record: `LLVS`, sequence (u32), payload length (u16), `0xFFFF`, CRC-32 of
//! sequence + length + payload, then the postcard payload, padded with `0xFF`
//! to whole [`UNIT`]s.

use embedded_storage_async::nor_flash::NorFlash;
use llv_core::control::Settings;

use crate::layout::{le32, CRC, UNIT};

const MAGIC: [u8; 4] = *b"LLVS";
const HEAD: usize = 16;
/// Largest record (head and payload) in bytes.
pub const RECORD_MAX: usize = 512;

/// Where the log stands after mount.
#[derive(Clone, Copy, Debug)]
pub struct Log {
    /// Address of block 0 of the log.
    pub base: u32,
    /// Erase block size.
    pub block: u32,
    /// Block holding the newest record, if any.
    pub active: Option<u32>,
    /// Where the next record goes in the active block; `None` until a save since mount.
    pub cursor: Option<u32>,
    /// Sequence of the newest record.
    pub seq: u32,
}

impl Log {
    /// Scans both blocks; returns the log state and the newest settings (default if none).
    pub async fn mount<F: NorFlash>(
        flash: &mut F,
        base: u32,
        block: u32,
    ) -> Result<(Log, Settings), F::Error> {
        let mut log = Log {
            base,
            block,
            active: None,
            cursor: None,
            seq: 0,
        };
        let mut settings = Settings::default();
        let mut buf = [0u8; RECORD_MAX];
        for b in 0..2 {
            let start = base + b * block;
            let mut at = 0u32;
            while at as usize + HEAD <= block as usize {
                let head = &mut buf[..HEAD];
                flash.read(start + at, head).await?;
                if head.iter().all(|x| *x == 0xFF) {
                    break;
                }
                let len = usize::from(u16::from_le_bytes([head[8], head[9]]));
                let size = (HEAD + len).next_multiple_of(UNIT);
                if head[..4] != MAGIC || size > RECORD_MAX || at as usize + size > block as usize {
                    break;
                }
                flash.read(start + at, &mut buf[..HEAD + len]).await?;
                let mut digest = CRC.digest();
                digest.update(&buf[4..10]);
                digest.update(&buf[HEAD..HEAD + len]);
                if digest.finalize() != le32(&buf, 12) {
                    break;
                }
                let seq = le32(&buf, 4);
                if let Ok(s) = postcard::from_bytes::<Settings>(&buf[HEAD..HEAD + len]) {
                    if log.active.is_none() || seq > log.seq {
                        log.seq = seq;
                        log.active = Some(b);
                        settings = s;
                    }
                }
                at += size as u32;
            }
        }
        Ok((log, settings))
    }

    /// Appends `settings` as the newest record.
    pub async fn save<F: NorFlash>(
        &mut self,
        flash: &mut F,
        settings: &Settings,
    ) -> Result<(), SaveError<F::Error>> {
        let mut buf = [0xFFu8; RECORD_MAX];
        let len = postcard::to_slice(settings, &mut buf[HEAD..])
            .map_err(|_| SaveError::TooLarge)?
            .len();
        let size = (HEAD + len).next_multiple_of(UNIT);
        if size > RECORD_MAX {
            return Err(SaveError::TooLarge);
        }
        let seq = self.seq.wrapping_add(1);
        buf[..4].copy_from_slice(&MAGIC);
        buf[4..8].copy_from_slice(&seq.to_le_bytes());
        buf[8..10].copy_from_slice(&(len as u16).to_le_bytes());
        let mut digest = CRC.digest();
        digest.update(&buf[4..10]);
        digest.update(&buf[HEAD..HEAD + len]);
        buf[12..16].copy_from_slice(&digest.finalize().to_le_bytes());

        let fits = |at: u32| at as usize + size <= self.block as usize;
        let (b, at) = match (self.active, self.cursor) {
            (Some(b), Some(at)) if fits(at) => (b, at),
            (active, _) => {
                let other = active.map_or(0, |b| 1 - b);
                let start = self.base + other * self.block;
                flash
                    .erase(start, start + self.block)
                    .await
                    .map_err(SaveError::Flash)?;
                (other, 0)
            }
        };
        // Should the write fail, its units must not be written again.
        self.cursor = None;
        flash
            .write(self.base + b * self.block + at, &buf[..size])
            .await
            .map_err(SaveError::Flash)?;
        self.active = Some(b);
        self.cursor = Some(at + size as u32);
        self.seq = seq;
        Ok(())
    }
}

/// Why settings were not saved.
#[derive(Debug)]
pub enum SaveError<E> {
    /// The flash failed.
    Flash(E),
    /// The settings do not fit in one record.
    TooLarge,
}
