//! `llv flash`: turn a recording into a take image and upload it to the box.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, ensure, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use llv_core::control::{Place, Request, MAX_CHUNK};
use llv_core::take::{build_image, image_len, BuildError, NAME_LEN};
use llv_core::time::FrameRate;
use serde::Serialize;

use super::client::BoxClient;
use crate::args::{ReadArgs, TokenArgs};
use crate::recording;
use crate::take::Take;

/// Arguments of `llv flash`.
#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  llv flash examples/dao.gesichter --box 192.168.1.50     # upload as take \"dao\", with a progress bar
  llv flash show.gesichter --box stage-left --to card     # to the box's microSD card
  llv flash take1.gesichter --box 192.168.1.50 --name intro --token-file ~/.config/llv/box-token")]
pub struct FlashArgs {
    /// The recording (native base64 lines or LLV gzip).
    pub file: PathBuf,
    /// The box: HOST[:PORT] or its name (NAME or NAME.local, found by mDNS); control port 11113 by default.
    #[arg(
        long = "box",
        value_name = "ADDR[:PORT]",
        required_unless_present = "out"
    )]
    pub box_addr: Option<String>,
    /// Write the take image to this file instead of uploading it (for the
    /// box's web page, which uploads take images as they are).
    #[arg(long, value_name = "FILE.take", conflicts_with = "box_addr")]
    pub out: Option<PathBuf>,
    /// Take name on the box (default: the file name without extension).
    #[arg(long)]
    pub name: Option<String>,
    #[command(flatten)]
    pub token: TokenArgs,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Where the take goes on the box: its flash or its microSD card.
    #[arg(long, value_name = "flash|card", default_value = "flash", value_parser = place)]
    pub to: Place,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

fn place(text: &str) -> Result<Place, String> {
    match text {
        "flash" => Ok(Place::Internal),
        "card" => Ok(Place::Card),
        _ => Err(format!("{text:?}: flash or card")),
    }
}

/// What `llv flash --json` prints.
#[derive(Serialize)]
struct Flashed {
    name: String,
    frames: u32,
    bytes: u32,
    crc32: u32,
    r#box: String,
    place: Place,
}

/// Runs `llv flash`.
pub fn run(args: &FlashArgs) -> Result<()> {
    let name = match &args.name {
        Some(name) => name.clone(),
        None => default_name(&args.file)?,
    };
    ensure!(
        !name.is_empty() && name.len() <= NAME_LEN,
        "take name {name:?} must be 1..={NAME_LEN} bytes (see --name)"
    );
    let take = recording::load(&args.file, &args.read.options())?.take;
    let image = image_of(&args.file, &name, &take)?;
    let header = llv_core::take::TakeHeader::parse(&image).map_err(|e| anyhow!("{e}"))?;
    let Some(box_addr) = &args.box_addr else {
        let out = args.out.as_deref().context("--box or --out")?;
        std::fs::write(out, &image).with_context(|| format!("cannot write {}", out.display()))?;
        crate::outln!(
            "wrote take {name} to {}: {} frames, {} bytes, CRC {:08x}",
            out.display(),
            header.frame_count,
            header.total_len,
            header.crc32
        );
        return Ok(());
    };

    let token = args.token.token()?;
    let mut client = BoxClient::connect(box_addr, token.as_deref())?;
    upload(&mut client, &name, &image, header.crc32, args.to)?;
    // Found on its place while a card may still be scanned (the list grows).
    let listed = client.find_listed(&name, args.to)?;
    match listed {
        Some(t) if t.crc32 == header.crc32 && t.total_len == header.total_len => {}
        Some(t) => bail!(
            "the box lists {name} on its {} with CRC {:08x} and {} bytes, uploaded to its {} {:08x} and {} bytes",
            t.place.as_str(),
            t.crc32,
            t.total_len,
            args.to.as_str(),
            header.crc32,
            header.total_len
        ),
        None => bail!("the box accepted {name} but does not list it"),
    }
    let flashed = Flashed {
        name,
        frames: header.frame_count,
        bytes: header.total_len,
        crc32: header.crc32,
        r#box: client.addr().to_string(),
        place: args.to,
    };
    if args.json {
        crate::outln!("{}", serde_json::to_string_pretty(&flashed)?);
    } else {
        crate::outln!(
            "flashed {} to {} ({}): {} frames, {} bytes, CRC {:08x}",
            flashed.name,
            flashed.r#box,
            flashed.place.as_str(),
            flashed.frames,
            flashed.bytes,
            flashed.crc32
        );
    }
    Ok(())
}

/// Chunks sent before the upload's time left is shown.
const ETA_AFTER_CHUNKS: usize = 8;

/// Uploads `image` as `name` to `place` on the box, with a progress bar.
pub(crate) fn upload(
    client: &mut BoxClient,
    name: &str,
    image: &[u8],
    crc32: u32,
    place: Place,
) -> Result<()> {
    client.call(&Request::UploadBegin {
        name,
        total_len: image.len() as u32,
        crc32,
        place,
    })?;
    // The first chunks pay for the first flash erase: the time left is
    // estimated from the chunks after them.
    let style = |eta: &str| {
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:40}}] {{bytes}}/{{total_bytes}} {eta}"
        ))
        .map(|s| s.progress_chars("=> "))
    };
    let bar = ProgressBar::new(image.len() as u64).with_style(style("(estimating)")?);
    bar.set_message(format!("uploading {name}"));
    for (i, data) in image.chunks(MAX_CHUNK).enumerate() {
        client.call(&Request::UploadChunk {
            offset: (i * MAX_CHUNK) as u32,
            data,
        })?;
        bar.inc(data.len() as u64);
        if i + 1 == ETA_AFTER_CHUNKS {
            bar.set_style(style("{eta}")?);
            bar.reset_eta();
        }
    }
    bar.set_message(format!("checking {name} on the box"));
    client.call(&Request::UploadCommit)?;
    bar.finish_and_clear();
    Ok(())
}

fn default_name(file: &Path) -> Result<String> {
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .with_context(|| format!("{}: no usable file name, pass --name", file.display()))?;
    ensure!(
        stem.len() <= NAME_LEN,
        "{}: name {stem:?} is over {NAME_LEN} bytes, pass --name",
        file.display()
    );
    Ok(stem.to_string())
}

/// Builds the take image by core's rule ([`build_image`], 60 fps where the
/// first frame's rate is invalid); errors name the file and the frame (1-based).
pub(crate) fn image_of(file: &Path, name: &str, take: &Take) -> Result<Vec<u8>> {
    let frames = u32::try_from(take.len()).context("too many frames")?;
    let mut buf = vec![0u8; image_len(frames, take.packets().map(<[u8]>::len).sum())];
    let len = build_image(&mut buf, name, take.packets(), FrameRate::FPS_60).map_err(|e| {
        let file = file.display();
        match e {
            BuildError::Packet { frame, error } => anyhow!("{file}: frame {}: {error}", frame + 1),
            BuildError::TooLong { frame } => anyhow!(
                "{file}: frame {}: over 71 minutes, too long for one take",
                frame + 1
            ),
            other => anyhow!("{file}: {other}"),
        }
    })?;
    buf.truncate(len);
    Ok(buf)
}
