//! The settings log: two erase blocks of appended records; the valid record
//! with the highest sequence wins. The first save after mount, and any save that
//! does not fit, goes to the other block after erasing it (so a unit cut in an
//! earlier life is never written again), and a power cut at any point leaves
//! the previous settings readable.
//!
//! Record (docs/take-image.md, "Settings record"): `LLVS`, sequence (u32 LE),
//! payload length (u16 LE), schema version (u16 LE), CRC-32 (u32 LE), then the
//! postcard payload, padded with `0xFF` to whole [`UNIT`]s. Schema 1 records
//! were written before the version existed: their version field is `0xFFFF`
//! (never written) and their CRC covers sequence, length and payload; from
//! schema 2 on the CRC covers sequence, length, version and payload.
//!
//! A firmware reads every schema up to [`SCHEMA`] (migrating older ones); a
//! newest record it cannot read (a newer schema after a downgrade, or damage
//! the CRC missed) is reported, never silently replaced by defaults.

use embedded_storage_async::nor_flash::NorFlash;
use heapless::{String, Vec};
use llv_core::settings::{
    Autoplay, ChaseSpec, Settings, StaticAddress, Target, BOX_NAME_LEN, MAX_TARGETS, SUBJECT_LEN,
    TOKEN_LEN,
};
use serde::Deserialize;

use crate::layout::{le32, CRC, UNIT};

const MAGIC: [u8; 4] = *b"LLVS";
const HEAD: usize = 16;
/// Largest record (head and payload) in bytes.
pub const RECORD_MAX: usize = 512;
/// The schema this firmware writes.
pub const SCHEMA: u16 = 5;
/// The version field of a schema 1 record (never written: erased flash).
const SCHEMA_1: u16 = 0xFFFF;

/// Why the newest settings record is not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Unreadable {
    /// Written by a firmware with a newer schema.
    Newer(u16),
    /// Its CRC checks out but its payload does not decode as its schema.
    Damaged(u16),
}

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
    /// Blocks erased since mount (each save into a fresh block erases it).
    pub erases: u32,
}

/// The payload of schemas 1 and 2 (schema 2 added only the version in the head).
#[derive(Deserialize)]
struct SettingsV2 {
    targets: Vec<Target, MAX_TARGETS>,
    autoplay: Option<Autoplay>,
    subject: Option<String<SUBJECT_LEN>>,
    address: Option<StaticAddress>,
    token: Option<String<TOKEN_LEN>>,
}

impl From<SettingsV2> for Settings {
    /// Schema 3 added the box name and the OSC ports: the defaults.
    fn from(v2: SettingsV2) -> Settings {
        Settings {
            targets: v2.targets,
            autoplay: v2.autoplay,
            subject: v2.subject,
            address: v2.address,
            token: v2.token,
            ..Settings::default()
        }
    }
}

/// The payload of schema 3: schema 2's, then the box name and the OSC ports.
#[derive(Deserialize)]
struct SettingsV3 {
    targets: Vec<Target, MAX_TARGETS>,
    autoplay: Option<Autoplay>,
    subject: Option<String<SUBJECT_LEN>>,
    address: Option<StaticAddress>,
    token: Option<String<TOKEN_LEN>>,
    name: Option<String<BOX_NAME_LEN>>,
    osc_port: Option<u16>,
    reply_port: Option<u16>,
}

impl From<SettingsV3> for Settings {
    /// Schema 4 added the chase: none (autoplay starts at power-up); schema
    /// 5 the live relay: off.
    fn from(v3: SettingsV3) -> Settings {
        Settings {
            targets: v3.targets,
            autoplay: v3.autoplay,
            subject: v3.subject,
            address: v3.address,
            token: v3.token,
            name: v3.name,
            osc_port: v3.osc_port,
            reply_port: v3.reply_port,
            ..Settings::default()
        }
    }
}

/// The payload of schema 4: schema 3's, then the chase.
#[derive(Deserialize)]
struct SettingsV4 {
    targets: Vec<Target, MAX_TARGETS>,
    autoplay: Option<Autoplay>,
    subject: Option<String<SUBJECT_LEN>>,
    address: Option<StaticAddress>,
    token: Option<String<TOKEN_LEN>>,
    name: Option<String<BOX_NAME_LEN>>,
    osc_port: Option<u16>,
    reply_port: Option<u16>,
    chase: Option<ChaseSpec>,
}

impl From<SettingsV4> for Settings {
    /// Schema 5 added the live relay (its defaults: off) and the HTTP port (the default).
    fn from(v4: SettingsV4) -> Settings {
        Settings {
            targets: v4.targets,
            autoplay: v4.autoplay,
            subject: v4.subject,
            address: v4.address,
            token: v4.token,
            name: v4.name,
            osc_port: v4.osc_port,
            reply_port: v4.reply_port,
            chase: v4.chase,
            ..Settings::default()
        }
    }
}

/// The settings a schema-`version` payload holds, migrated to the current
/// model. A payload must decode whole: stray bytes after it are damage.
pub fn decode(version: u16, payload: &[u8]) -> Result<Settings, Unreadable> {
    let damaged = |_| Unreadable::Damaged(version);
    match version {
        1 | 2 => whole::<SettingsV2>(payload)
            .map(Settings::from)
            .map_err(damaged),
        3 => whole::<SettingsV3>(payload)
            .map(Settings::from)
            .map_err(damaged),
        4 => whole::<SettingsV4>(payload)
            .map(Settings::from)
            .map_err(damaged),
        5 => whole::<Settings>(payload).map_err(damaged),
        v => Err(Unreadable::Newer(v)),
    }
}

fn whole<'a, T: Deserialize<'a>>(payload: &'a [u8]) -> Result<T, ()> {
    match postcard::take_from_bytes(payload) {
        Ok((value, [])) => Ok(value),
        _ => Err(()),
    }
}

/// The CRC of a record: sequence and length, the version from schema 2 on, and the payload.
fn record_crc(head: &[u8], payload: &[u8]) -> u32 {
    let mut digest = CRC.digest();
    digest.update(&head[4..10]);
    if head[10..12] != SCHEMA_1.to_le_bytes() {
        digest.update(&head[10..12]);
    }
    digest.update(payload);
    digest.finalize()
}

impl Log {
    /// Scans both blocks; returns the log state and the newest settings
    /// (`Ok(default)` if none). A unit that cannot be read ends its block's scan.
    pub async fn mount<F: NorFlash>(
        flash: &mut F,
        base: u32,
        block: u32,
    ) -> (Log, Result<Settings, Unreadable>) {
        let mut log = Log {
            base,
            block,
            active: None,
            cursor: None,
            seq: 0,
            erases: 0,
        };
        let mut settings = Ok(Settings::default());
        let mut buf = [0u8; RECORD_MAX];
        for b in 0..2 {
            let start = base + b * block;
            let mut at = 0u32;
            while at as usize + HEAD <= block as usize {
                let head = &mut buf[..HEAD];
                if flash.read(start + at, head).await.is_err() || head.iter().all(|x| *x == 0xFF) {
                    break;
                }
                let len = usize::from(u16::from_le_bytes([head[8], head[9]]));
                let size = (HEAD + len).next_multiple_of(UNIT);
                if head[..4] != MAGIC || size > RECORD_MAX || at as usize + size > block as usize {
                    break;
                }
                if flash
                    .read(start + at, &mut buf[..HEAD + len])
                    .await
                    .is_err()
                {
                    break;
                }
                let (head, payload) = buf[..HEAD + len].split_at(HEAD);
                if record_crc(head, payload) != le32(head, 12) {
                    break;
                }
                let seq = le32(head, 4);
                if log.active.is_none() || seq > log.seq {
                    let version = match u16::from_le_bytes([head[10], head[11]]) {
                        SCHEMA_1 => 1,
                        v => v,
                    };
                    log.seq = seq;
                    log.active = Some(b);
                    settings = decode(version, payload);
                }
                at += size as u32;
            }
        }
        (log, settings)
    }

    /// Appends `settings` as the newest record (schema [`SCHEMA`]), built in
    /// `buf` (the store's, so that no waiting future holds a record's bytes).
    pub async fn save<F: NorFlash>(
        &mut self,
        flash: &mut F,
        settings: &Settings,
        buf: &mut [u8; RECORD_MAX],
    ) -> Result<(), SaveError<F::Error>> {
        buf.fill(0xFF);
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
        buf[10..12].copy_from_slice(&SCHEMA.to_le_bytes());
        let crc = record_crc(&buf[..HEAD], &buf[HEAD..HEAD + len]);
        buf[12..16].copy_from_slice(&crc.to_le_bytes());

        let fits = |at: u32| at as usize + size <= self.block as usize;
        let (b, at) = match (self.active, self.cursor) {
            (Some(b), Some(at)) if fits(at) => (b, at),
            (active, _) => {
                let other = active.map_or(0, |b| 1 - b);
                let start = self.base + other * self.block;
                self.erases = self.erases.saturating_add(1);
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
