//! `llv serve`'s take library: a folder of recordings, as the box's control
//! session sees its store (`llv_control::TakeLibrary`).
//!
//! - Every recording in the folder (any format `llv` reads; files starting
//!   with `.` are skipped) is a take named after its file name without the
//!   extension (1 to 32 bytes); where two files share a name, the
//!   `.gesichter` one is the take. Files are read again when they change.
//! - A take's frame count, length and CRC are those of the take image
//!   `llv flash` would build from it (core's one builder), so `llv flash`
//!   checks an upload to `llv serve` as it checks one to the box.
//! - An upload is received whole in memory, checked by the one upload
//!   contract every library keeps ([`llv_core::take::Upload`]: order, length,
//!   name, CRC, the image), and written as `NAME.gesichter` (LLV's
//!   gzip, atomically); it replaces that file, not a recording of another
//!   format with the same name (the `.gesichter` file is the take from then on).
//! - Deleting a take deletes its file.
//! - The settings live in `.llv-serve.json` in the folder; without it the
//!   targets are 127.0.0.1:11111 (Unreal on the same laptop).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use heapless::Vec as Bounded;
use llv_control::library::{
    not_found, page_of, resolve, upload_refusal, Refusal, Take as LibraryTake, TakeLibrary,
};
use llv_core::control::{
    CardStatus, ErrorCode, Fault, Place, TakeInfo, TakePage, TakeRef, LIVE_LINK_PORT,
};
use llv_core::settings::{Settings, Target};
use llv_core::take::{TakeHeader, TakeImage, UploadError, NAME_LEN};

use crate::boxctl::flash::image_of;
use crate::recording::{self, Format, WriteOptions};
use crate::take::Take;

/// The settings file in the folder.
pub const SETTINGS_FILE: &str = ".llv-serve.json";
/// The largest upload held in memory.
const MAX_UPLOAD: u32 = 512 * 1024 * 1024;

/// A take of the folder, opened for the player.
#[derive(Clone, Debug)]
pub struct FolderTake {
    /// Its image's header (as `llv flash` would build it).
    pub header: TakeHeader,
    /// Its frames.
    pub take: Arc<Take>,
}

impl LibraryTake for FolderTake {
    fn header(&self) -> &TakeHeader {
        &self.header
    }
}

/// A recording read from the folder.
#[derive(Clone, Debug)]
struct Loaded {
    path: PathBuf,
    modified: Option<SystemTime>,
    len: u64,
    header: TakeHeader,
    take: Arc<Take>,
}

/// An upload in progress.
struct Upload {
    id: u32,
    contract: llv_core::take::Upload,
    bytes: Vec<u8>,
}

/// A folder of recordings as a take library.
pub struct Folder {
    dir: PathBuf,
    settings: Settings,
    /// Takes by name, as last read.
    takes: BTreeMap<String, Loaded>,
    upload: Option<Upload>,
    next_id: u32,
}

impl Folder {
    /// The library of `dir` (which must exist), with its settings file if any.
    pub fn open(dir: &Path) -> anyhow::Result<Folder> {
        anyhow::ensure!(dir.is_dir(), "{}: not a folder", dir.display());
        let settings = match std::fs::read(dir.join(SETTINGS_FILE)) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| anyhow::anyhow!("{}: {e}", dir.join(SETTINGS_FILE).display()))?,
            Err(_) => Settings {
                targets: [Target {
                    ip: [127, 0, 0, 1],
                    port: LIVE_LINK_PORT,
                }]
                .into_iter()
                .collect(),
                ..Settings::default()
            },
        };
        let mut folder = Folder {
            dir: dir.to_path_buf(),
            settings,
            takes: BTreeMap::new(),
            upload: None,
            next_id: 1,
        };
        folder.rescan();
        Ok(folder)
    }

    /// A digest of the takes' names and CRCs: it changes when a take comes,
    /// goes or changes.
    fn revision(&self) -> u32 {
        self.takes.iter().fold(0u32, |r, (name, t)| {
            let named = name.bytes().fold(r, |r, b| r.rotate_left(5) ^ u32::from(b));
            named.rotate_left(7) ^ t.header.crc32
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Reads the folder again: new and changed recordings are read, gone ones dropped.
    pub fn rescan(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut seen: BTreeMap<String, (PathBuf, std::fs::Metadata)> = BTreeMap::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            let Some(name) = take_name(&path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let preferred = path.extension().is_some_and(|e| e == "gesichter");
            match seen.get(&name) {
                Some((other, _)) if other.extension().is_some_and(|e| e == "gesichter") => {}
                Some(_) if !preferred => {}
                _ => {
                    seen.insert(name, (path, meta));
                }
            }
        }
        self.takes.retain(|name, _| seen.contains_key(name));
        for (name, (path, meta)) in seen {
            let modified = meta.modified().ok();
            let fresh = self
                .takes
                .get(&name)
                .is_some_and(|t| t.path == path && t.modified == modified && t.len == meta.len());
            if fresh {
                continue;
            }
            match load(&path, &name) {
                Ok((header, take)) => {
                    self.takes.insert(
                        name,
                        Loaded {
                            path,
                            modified,
                            len: meta.len(),
                            header,
                            take: Arc::new(take),
                        },
                    );
                }
                Err(e) => {
                    eprintln!("warning: {}: skipped: {e:#}", path.display());
                    self.takes.remove(&name);
                }
            }
        }
    }

    fn save(&self, settings: &Settings) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(settings).map_err(std::io::Error::other)?;
        let path = self.dir.join(SETTINGS_FILE);
        crate::output::write_file(&path, true, |out| out.write_all(&json))
            .map_err(|e| std::io::Error::other(format!("{e:#}")))
    }
}

/// The take name of a file: its name without the extension, 1 to 32 bytes,
/// not hidden.
fn take_name(path: &Path) -> Option<String> {
    let file = path.file_name()?.to_str()?;
    if file.starts_with('.') {
        return None;
    }
    let stem = path.file_stem()?.to_str()?;
    (!stem.is_empty() && stem.len() <= NAME_LEN).then(|| stem.to_string())
}

/// Reads a recording and builds its take image's header.
fn load(path: &Path, name: &str) -> anyhow::Result<(TakeHeader, Take)> {
    let loaded = recording::read(path, &recording::ReadOptions::default())?;
    anyhow::ensure!(!loaded.take.is_empty(), "no frames");
    let image = image_of(path, name, &loaded.take)?;
    let header = TakeHeader::parse(&image).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((header, loaded.take))
}

fn refused(code: ErrorCode, text: impl std::fmt::Display) -> Refusal {
    Refusal::new(code, &text.to_string())
}

impl TakeLibrary for Folder {
    type Take = FolderTake;

    async fn list_page(&mut self, start: u32) -> Result<TakePage, Refusal> {
        let takes = self.takes.iter().map(|(name, t)| TakeInfo {
            name: llv_core::control::bounded(name),
            ..TakeInfo::of(&t.header, Place::Internal)
        });
        Ok(page_of(takes, start, self.revision()))
    }

    async fn open(&mut self, take: TakeRef<'_>) -> Result<(FolderTake, Place), Refusal> {
        let found = self.takes.get(take.name);
        let place = resolve(take, found.is_some(), false, false)?;
        let t = found.ok_or_else(|| not_found(take.name))?;
        let opened = FolderTake {
            header: t.header.clone(),
            take: t.take.clone(),
        };
        Ok((opened, place))
    }

    async fn begin_upload(
        &mut self,
        name: &str,
        total_len: u32,
        crc32: u32,
        place: Place,
    ) -> Result<u32, Refusal> {
        if place == Place::Card {
            return Err(llv_control::library::no_card());
        }
        if let Some(other) = &self.upload {
            return Err(refused(
                ErrorCode::UploadOrder,
                format!(
                    "another connection is uploading \"{}\": try again later",
                    other.contract.name()
                ),
            ));
        }
        let contract = llv_core::take::Upload::begin(name, total_len, crc32)
            .map_err(|e| upload_refusal(&e))?;
        let file = format!("{name}.gesichter");
        if take_name(Path::new(&file)).as_deref() != Some(name)
            || name.contains(['/', '\\'])
            || name == ".."
        {
            return Err(refused(
                ErrorCode::Invalid,
                format!("name must be 1..={NAME_LEN} bytes, a file name not starting with '.'"),
            ));
        }
        if total_len > MAX_UPLOAD {
            return Err(refused(
                ErrorCode::NoSpace,
                format!("{total_len} bytes: llv serve takes at most {MAX_UPLOAD}"),
            ));
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.upload = Some(Upload {
            id,
            contract,
            bytes: Vec::with_capacity(total_len as usize),
        });
        Ok(id)
    }

    async fn write_chunk(&mut self, id: u32, offset: u32, data: &[u8]) -> Result<(), Refusal> {
        let up = match &mut self.upload {
            Some(up) if up.id == id => up,
            _ => return Err(refused(ErrorCode::UploadOrder, "no upload in progress")),
        };
        if let Err(e) = up.contract.chunk(offset, data) {
            if e.is_fatal() {
                self.upload = None;
            }
            return Err(upload_refusal(&e));
        }
        up.bytes.extend_from_slice(data);
        Ok(())
    }

    fn chunk_waits(&self, _id: u32, _offset: u32, _len: usize) -> bool {
        false
    }

    async fn commit_upload(&mut self, id: u32) -> Result<TakeHeader, Refusal> {
        match &self.upload {
            Some(up) if up.id == id => {
                if !up.contract.is_complete() {
                    let e = UploadError::Incomplete {
                        received: up.contract.received(),
                        total: up.contract.total(),
                    };
                    return Err(upload_refusal(&e));
                }
            }
            _ => return Err(refused(ErrorCode::UploadOrder, "no upload in progress")),
        }
        let Some(up) = self.upload.take() else {
            return Err(refused(ErrorCode::UploadOrder, "no upload in progress"));
        };
        let header = up.contract.finish().map_err(|e| upload_refusal(&e))?;
        let image = TakeImage::parse(&up.bytes).map_err(|e| refused(ErrorCode::BadImage, e))?;
        let mut take = Take::with_capacity(header.frame_count as usize);
        for (i, (_, packet)) in image.frames().enumerate() {
            take.push(packet)
                .map_err(|e| refused(ErrorCode::BadImage, format!("frame {i}: {e}")))?;
        }
        let path = self.dir.join(format!("{}.gesichter", header.name));
        recording::write(&path, Format::Llv, &take, WriteOptions::default(), true)
            .map_err(|e| refused(ErrorCode::Flash, format!("{e:#}")))?;
        self.rescan();
        Ok(header)
    }

    fn uploading(&self, id: u32) -> bool {
        self.upload.as_ref().is_some_and(|u| u.id == id)
    }

    fn abort_upload(&mut self, id: u32) {
        if self.uploading(id) {
            self.upload = None;
        }
    }

    async fn delete(&mut self, take: TakeRef<'_>) -> Result<Place, Refusal> {
        self.rescan();
        let found = self.takes.get(take.name);
        let place = resolve(take, found.is_some(), false, true)?;
        let t = found.ok_or_else(|| not_found(take.name))?;
        std::fs::remove_file(&t.path)
            .map_err(|e| refused(ErrorCode::Flash, format!("{}: {e}", t.path.display())))?;
        self.rescan();
        Ok(place)
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    async fn save_settings(&mut self, settings: &Settings) -> Result<(), Refusal> {
        self.save(settings)
            .map_err(|e| refused(ErrorCode::Flash, format!("{SETTINGS_FILE}: {e}")))?;
        self.settings.clone_from(settings);
        Ok(())
    }

    fn used_bytes(&self) -> u64 {
        self.takes.values().map(|t| t.len).sum()
    }

    fn free_bytes(&self) -> u64 {
        // What an unprivileged writer may still use on the folder's file system.
        rustix::fs::statvfs(&self.dir).map_or(0, |s| s.f_bavail.saturating_mul(s.f_frsize))
    }

    fn card(&self) -> Option<CardStatus> {
        None
    }

    fn faults(&self) -> Bounded<Fault, 2> {
        Bounded::new()
    }

    fn locked(&self) -> bool {
        false
    }
}
