//! `llv card write|list|check|repair|format CARD`: takes on a microSD card
//! for the box, on a mounted card's folder or in a FAT image file (or a
//! card's block device). Images go through the box's own card library
//! (`llv-card`): the same folder, 8.3 names, checks and commit (the magic
//! written last) as an upload over the network; on a folder, a temporary
//! file renamed into place. `list` and `check` never write to the card;
//! `repair` removes uploads cut short, as the box does when the card goes in.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, ensure, Context, Result};
use clap::{Args, Subcommand};
use llv_card::format::{format, Plan};
use llv_card::image::{on_image, ImageFile};
use llv_card::journal::journal_number;
use llv_card::names::{file_name, is_take_file, DIR, TEMP};
use llv_card::{CardError, CardFault, CardPort, Mode, Scanned};
use llv_core::control::MAX_CHUNK;
use llv_core::take::{ImageCheck, TakeHeader};

use super::flash::image_of;
use crate::args::ReadArgs;
use crate::recording;

/// Arguments of `llv card`.
#[derive(Args, Debug)]
#[command(
    after_help = "A card for the box holds an MBR partition formatted FAT32 (or FAT16), as cards \
up to 32 GB come. Cards over 32 GB come formatted exFAT, which the box does not read: format \
them with `llv card format` (it erases the card).

Examples:
  llv card write /media/SDCARD show.gesichter intro.gesichter   # LLV/SHOW.TAK, LLV/INTRO.TAK
  llv card list /media/SDCARD; llv card check /media/SDCARD
  truncate -s 256M card.img; llv card format card.img           # an image file to try things on"
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
    #[command(after_help = "\
Examples:
  llv card write /media/SDCARD show.gesichter intro.gesichter   # LLV/SHOW.TAK, LLV/INTRO.TAK
  llv card write card.img examples/dao.gesichter                # into a FAT image file")]
    Write {
        /// The card: a mounted card's folder, or a FAT16/FAT32 image file.
        card: PathBuf,
        /// Recordings (native base64 lines or LLV gzip); each take is named after its file.
        files: Vec<PathBuf>,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// List the takes the box would play from the card (the card is not written).
    #[command(after_help = "\
Examples:
  llv card list /media/SDCARD
  llv card list card.img")]
    List {
        /// The card: a mounted card's folder, or a FAT16/FAT32 image file.
        card: PathBuf,
    },
    /// Check every take file on the card as the box does; fails if one does
    /// not check out (the card is not written).
    #[command(after_help = "\
Examples:
  llv card check /media/SDCARD             # every take file as the box checks it")]
    Check {
        /// The card: a mounted card's folder, or a FAT16/FAT32 image file.
        card: PathBuf,
    },
    /// Remove uploads cut short (a power cut, a pulled card) and make the
    /// box's live recordings left by a power cut takes, as the box does when
    /// the card goes in.
    #[command(after_help = "\
Examples:
  llv card repair card.img")]
    Repair {
        /// The card: a FAT16/FAT32 image file or a card's block device.
        card: PathBuf,
    },
    /// Erase the card and make it one for the box: an MBR and a FAT32 volume
    /// laid out as the SD specification recommends (64 MiB to 2 TiB).
    #[command(after_help = "\
Examples:
  llv card format card.img                 # an image file: truncate -s 256M card.img first
  llv card format /dev/sdX --yes           # a card in a reader (erases it)")]
    Format {
        /// The card: an image file, or a card's block device (`/dev/sdX`, `/dev/mmcblkN`).
        card: PathBuf,
        /// Format a block device (it erases everything on it).
        #[arg(long)]
        yes: bool,
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
            let mut takes = Vec::new();
            for file in files {
                let name = file
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .with_context(|| format!("{}: no usable file name", file.display()))?;
                let take = recording::load(file, &read.options())?.take;
                takes.push((file, name, image_of(file, name, &take)?));
            }
            let images: Vec<&[u8]> = takes.iter().map(|(_, _, i)| i.as_slice()).collect();
            let written = write(card, &images)?;
            for ((file, name, _), written) in takes.iter().zip(written) {
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
            let good = verdicts.len() - bad;
            if bad > 0 {
                bail!(
                    "{bad} of {} take files do not check out ({good} takes)",
                    verdicts.len()
                );
            }
            crate::outln!("{good} takes, all check out");
            Ok(())
        }
        CardAction::Repair { card } => repair(card),
        CardAction::Format { card, yes } => format_card(card, *yes),
    }
}

/// Writes `images` to the card (an image file is mounted once for all);
/// returns their file names.
fn write(card: &Path, images: &[&[u8]]) -> Result<Vec<String>> {
    let mut headers = Vec::new();
    for image in images {
        headers.push(TakeHeader::parse(image).map_err(|e| anyhow!("{e}"))?);
    }
    if card.is_dir() {
        let dir = card.join(DIR);
        fs::create_dir_all(&dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        let mut written = Vec::new();
        for (image, header) in images.iter().zip(&headers) {
            let others: Vec<(String, String)> = verdicts(card)?
                .into_iter()
                .filter_map(|v| v.take.ok().map(|h| (v.file, h.name.to_string())))
                .collect();
            let file = match others.iter().find(|(_, n)| *n == header.name.as_str()) {
                Some((f, _)) => f.clone(),
                None => file_name(&header.name, |f| others.iter().any(|(o, _)| o == f)).to_string(),
            };
            let temp = dir.join(TEMP);
            fs::write(&temp, image).with_context(|| format!("{}: cannot write", temp.display()))?;
            fs::rename(&temp, dir.join(&file))
                .with_context(|| format!("{}: cannot write", dir.join(&file).display()))?;
            written.push(file);
        }
        return Ok(written);
    }
    let written = on_image(
        open_image(card, true)?,
        Mode::Write,
        |_| {},
        async |c| {
            if let (false, Some(f)) = (c.mounted(), c.fault().cloned()) {
                return Err(anyhow!("{f}"));
            }
            let mut written = Vec::new();
            for (image, header) in images.iter().zip(&headers) {
                let id = c
                    .begin_upload(&header.name, header.total_len, header.crc32)
                    .await?;
                for (i, chunk) in image.chunks(MAX_CHUNK).enumerate() {
                    c.write_chunk(id, (i * MAX_CHUNK) as u32, chunk).await?;
                }
                c.commit_upload(id).await?;
                let i = c.find(&header.name).await?;
                let i = i.context("the take does not list after its upload")?;
                written.push(c.file(i).await?.to_string());
            }
            Ok::<_, anyhow::Error>(written)
        },
    );
    written.map_err(|e| match e.downcast_ref::<CardError>() {
        Some(CardError::NoCard) => anyhow!("{}: {NOT_FORMATTED}", card.display()),
        _ => e.context(card.display().to_string()),
    })
}

/// What an image without a volume the box can mount needs.
const NOT_FORMATTED: &str = "no FAT16 or FAT32 volume in the image's first MBR partition, \
    where the box looks: format it with `llv card format` (see `llv card --help`)";

/// Every take file of the card and its verdict; reads the card only.
fn verdicts(card: &Path) -> Result<Vec<Verdict>> {
    let mut out = Vec::new();
    if card.is_dir() {
        let dir = card.join(DIR);
        let Ok(entries) = fs::read_dir(&dir) else {
            return Ok(out);
        };
        let mut files: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|f| is_take_file(f) && !f.starts_with('.'))
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
    let fault = on_image(
        open_image(card, false)?,
        Mode::Read,
        |s| {
            if let Scanned::Checked { file, verdict } = s {
                out.push(Verdict {
                    file: file.to_string(),
                    take: verdict.clone().map_err(|f| f.to_string()),
                });
            }
        },
        async |c| (!c.mounted()).then(|| c.fault().cloned()).flatten(),
    );
    if let Some(f @ CardFault::NoVolume(_)) = fault {
        bail!("{}: {f}", card.display());
    }
    Ok(out)
}

/// `llv card repair`: removes uploads cut short, makes live journals takes.
fn repair(card: &Path) -> Result<()> {
    ensure!(
        !card.is_dir(),
        "{}: a mounted card's folder holds no cut uploads (its files are renamed into place)",
        card.display()
    );
    let mut removed = Vec::new();
    let mut recordings = Vec::new();
    let fault = on_image(
        open_image(card, true)?,
        Mode::Write,
        |s| match s {
            Scanned::Removed { file } => removed.push(file.to_string()),
            Scanned::Checked { file, verdict } if journal_number(file).is_some() => {
                recordings.push(match verdict {
                    Ok(take) => {
                        format!("{DIR}/{file}: a live recording, now the take {}", take.name)
                    }
                    Err(why) => format!("{DIR}/{file}: a live recording not made a take: {why}"),
                });
            }
            _ => {}
        },
        async |c| (!c.mounted()).then(|| c.fault().cloned()).flatten(),
    );
    if let Some(f) = fault {
        bail!("{}: {f}", card.display());
    }
    for file in &removed {
        crate::outln!("{DIR}/{file}: an upload cut short, removed");
    }
    crate::outln!("{} cut uploads removed", removed.len());
    for line in &recordings {
        crate::outln!("{line}");
    }
    Ok(())
}

/// `llv card format`: an MBR and FAT32 as the SD specification lays them out.
fn format_card(card: &Path, yes: bool) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let kind = fs::metadata(card)
        .with_context(|| format!("{}: no such image file or device", card.display()))?
        .file_type();
    ensure!(
        !kind.is_block_device() || yes,
        "{} is a block device: formatting erases everything on it; add --yes to go ahead",
        card.display()
    );
    let image = open_image(card, true)?;
    let blocks = image.blocks();
    let plan = Plan::for_card(blocks).map_err(|e| anyhow!("{}: {e}", card.display()))?;
    let port: &'static CardPort<ImageFile> = Box::leak(Box::new(CardPort::new(image)));
    embassy_futures::block_on(format(port, blocks, &plan))
        .map_err(|e| anyhow!("{}: the format failed: {e:?}", card.display()))?;
    crate::outln!(
        "{}: FAT32, {} clusters of {} KiB, partition from block {}, data aligned to {} KiB",
        card.display(),
        plan.clusters,
        plan.per_cluster / 2,
        plan.start,
        plan.unit / 2
    );
    Ok(())
}

fn open_image(path: &Path, write: bool) -> Result<ImageFile> {
    let file = fs::OpenOptions::new()
        .read(true)
        .write(write)
        .open(path)
        .with_context(|| format!("{}: not a folder or a readable image file", path.display()))?;
    ImageFile::new(file).with_context(|| path.display().to_string())
}
