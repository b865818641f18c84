//! `llv card write|list|check CARD`: takes on a microSD card for the box,
//! on a mounted card's folder or in a FAT image file. Images go through the
//! box's own card library (`llv-box-card`): the same folder, 8.3 names,
//! checks and commit (the magic written last) as an upload over the network;
//! on a folder, a temporary file renamed into place.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use llv_card::image::{on_image, ImageFile};
use llv_card::names::{file_name, is_take_file, DIR, TEMP};
use llv_card::Scanned;
use llv_core::control::MAX_CHUNK;
use llv_core::take::{ImageCheck, TakeHeader};

use super::flash::image_of;
use crate::args::ReadArgs;
use crate::recording;

/// Arguments of `llv card`.
#[derive(Args, Debug)]
#[command(
    after_help = "A card image file needs an MBR partition formatted FAT32 (or FAT16), as cards \
come; for example, 256 MiB (sfdisk from util-linux, mkfs.fat from dosfstools):\n  truncate -s 256M card.img\n  echo 'start=2048, type=c' | sfdisk card.img\n  \
mkfs.fat -F 32 --offset 2048 card.img"
)]
pub struct CardArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: CardAction,
}

/// What `llv card` does.
#[derive(Subcommand, Debug)]
pub enum CardAction {
    /// Write recordings to the card as takes (a take of the same name is replaced).
    Write {
        /// The card: a mounted card's folder, or a FAT16/FAT32 image file.
        card: PathBuf,
        /// Recordings (native base64 lines or LLV gzip); each take is named after its file.
        files: Vec<PathBuf>,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// List the takes the box would play from the card.
    List {
        /// The card: a mounted card's folder, or a FAT16/FAT32 image file.
        card: PathBuf,
    },
    /// Check every take file on the card as the box does; fails if one does not check out.
    Check {
        /// The card: a mounted card's folder, or a FAT16/FAT32 image file.
        card: PathBuf,
    },
}

/// One take file's verdict.
struct Verdict {
    file: String,
    take: Result<TakeHeader, String>,
}

/// Runs `llv card`.
pub fn run(args: &CardArgs) -> Result<()> {
    match &args.action {
        CardAction::Write { card, files, read } => {
            for file in files {
                let name = file
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .with_context(|| format!("{}: no usable file name", file.display()))?;
                let take = recording::load(file, &read.options())?.take;
                let image = image_of(file, name, &take)?;
                let written = write(card, &image).with_context(|| format!("{}", card.display()))?;
                crate::outln!("{}: {name} as {DIR}/{written}", file.display());
            }
            Ok(())
        }
        CardAction::List { card } => {
            for v in verdicts(card)? {
                if let Ok(h) = v.take {
                    crate::outln!(
                        "{:<32}  {DIR}/{:<12}  {:>8} frames  {:08x}",
                        h.name,
                        v.file,
                        h.frame_count,
                        h.crc32
                    );
                }
            }
            Ok(())
        }
        CardAction::Check { card } => {
            let verdicts = verdicts(card)?;
            let mut bad = 0;
            for v in &verdicts {
                match &v.take {
                    Ok(h) => crate::outln!(
                        "{DIR}/{}: ok, \"{}\", {} frames",
                        v.file,
                        h.name,
                        h.frame_count
                    ),
                    Err(why) => {
                        bad += 1;
                        crate::outln!("{DIR}/{}: {why}", v.file);
                    }
                }
            }
            if bad > 0 {
                bail!("{bad} of {} take files do not check out", verdicts.len());
            }
            Ok(())
        }
    }
}

/// Writes `image` to the card; returns its file name.
fn write(card: &Path, image: &[u8]) -> Result<String> {
    let header = TakeHeader::parse(image).map_err(|e| anyhow!("{e}"))?;
    if card.is_dir() {
        let dir = card.join(DIR);
        fs::create_dir_all(&dir)?;
        let others: Vec<(String, String)> = verdicts(card)?
            .into_iter()
            .filter_map(|v| v.take.ok().map(|h| (v.file, h.name.to_string())))
            .collect();
        let file = match others.iter().find(|(_, n)| *n == header.name.as_str()) {
            Some((f, _)) => f.clone(),
            None => file_name(&header.name, |f| others.iter().any(|(o, _)| o == f)).to_string(),
        };
        let temp = dir.join(TEMP);
        fs::write(&temp, image)?;
        fs::rename(&temp, dir.join(&file))?;
        return Ok(file);
    }
    on_image(
        open_image(card, true)?,
        |_| {},
        async |c| {
            let id = c.begin_upload(&header.name, header.total_len, header.crc32)?;
            for (i, chunk) in image.chunks(MAX_CHUNK).enumerate() {
                c.write_chunk(id, (i * MAX_CHUNK) as u32, chunk)?;
            }
            c.commit_upload(id).await?;
            let file = c
                .takes()
                .iter()
                .find(|t| t.header.name == header.name)
                .map(|t| t.file.to_string());
            Ok(file.unwrap_or_default())
        },
    )
    .map_err(|e: llv_card::CardError| match e {
        llv_card::CardError::NoCard => anyhow!("{NOT_FORMATTED}"),
        e => anyhow!("{e}"),
    })
}

/// What an image without a volume the box can mount needs.
const NOT_FORMATTED: &str = "no FAT16 or FAT32 volume in the image's first MBR partition, \
    where the box looks: partition and format it as a card comes (see `llv card --help`)";

/// Every take file of the card and its verdict.
fn verdicts(card: &Path) -> Result<Vec<Verdict>> {
    let mut out = Vec::new();
    if card.is_dir() {
        let dir = card.join(DIR);
        let Ok(entries) = fs::read_dir(&dir) else {
            return Ok(out);
        };
        let mut files: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|f| is_take_file(f))
            .collect();
        files.sort();
        for file in files {
            let bytes = fs::read(dir.join(&file))?;
            let mut check = ImageCheck::default();
            let _ = check.update(&bytes);
            out.push(Verdict {
                file,
                take: check.finish().map_err(|e| e.to_string()),
            });
        }
        return Ok(out);
    }
    // Writable if it can be: the scan deletes what a cut upload left, as
    // the box does.
    let img = open_image(card, true).or_else(|_| open_image(card, false))?;
    on_image(
        img,
        |s| {
            if let Scanned::Checked { file, verdict } = s {
                out.push(Verdict {
                    file: file.to_string(),
                    take: verdict.clone().map_err(|f| f.to_string()),
                });
            }
        },
        async |c| c.fault().map(ToString::to_string),
    )
    .map_or(Ok(()), |fault| match fault.starts_with("card: no FAT") {
        true => Err(anyhow!("{}: {fault}", card.display())),
        false => Ok(()),
    })?;
    Ok(out)
}

fn open_image(path: &Path, write: bool) -> Result<ImageFile> {
    let file = fs::OpenOptions::new()
        .read(true)
        .write(write)
        .open(path)
        .with_context(|| format!("{}: not a folder or a readable image file", path.display()))?;
    ImageFile::new(file).with_context(|| path.display().to_string())
}
