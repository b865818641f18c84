//! `llv flash`: turn a recording into a take image and upload it to the box.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, ensure, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use llv_core::control::{Request, Response, MAX_CHUNK};
use llv_core::pacing::FrameClock;
use llv_core::packet::{Packet, MAX_LEN};
use llv_core::take::{image_len, ImageWriter, NAME_LEN};
use llv_core::time::{FrameRate, FrameTime};
use serde::Serialize;

use crate::box_client::BoxClient;

/// Arguments of `llv flash`.
#[derive(Args, Debug)]
pub struct FlashArgs {
    /// The recording (native base64 lines or LLV gzip).
    pub file: PathBuf,
    /// The box: HOST[:PORT] (control port 11113 by default).
    #[arg(long = "box", value_name = "ADDR[:PORT]")]
    pub box_addr: String,
    /// Take name on the box (default: the file name without extension).
    #[arg(long)]
    pub name: Option<String>,
    /// The box's shared token, if it has one.
    #[arg(long)]
    pub token: Option<String>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `llv flash --json` prints.
#[derive(Serialize)]
struct Flashed {
    name: String,
    frames: u32,
    bytes: u32,
    crc32: u32,
    r#box: String,
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
    let packets = read_packets(&args.file)?;
    let image = build_image(&args.file, &name, &packets)?;
    let header = llv_core::take::TakeHeader::parse(&image).map_err(|e| anyhow!("{e}"))?;

    let mut client = BoxClient::connect(&args.box_addr, args.token.as_deref())?;
    upload(&mut client, &name, &image, header.crc32)?;
    let Response::List { takes } = client.call(&Request::List)? else {
        bail!("the box answered List with something else");
    };
    let listed = takes.iter().find(|t| t.name == name.as_str());
    match listed {
        Some(t) if t.crc32 == header.crc32 && t.total_len == header.total_len => {}
        Some(t) => bail!(
            "the box lists {name} with CRC {:08x} and {} bytes, uploaded {:08x} and {} bytes",
            t.crc32,
            t.total_len,
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
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&flashed)?);
    } else {
        println!(
            "flashed {} to {}: {} frames, {} bytes, CRC {:08x}",
            flashed.name, flashed.r#box, flashed.frames, flashed.bytes, flashed.crc32
        );
    }
    Ok(())
}

fn upload(client: &mut BoxClient, name: &str, image: &[u8], crc32: u32) -> Result<()> {
    client.call(&Request::UploadBegin {
        name,
        total_len: image.len() as u32,
        crc32,
    })?;
    let bar = ProgressBar::new(image.len() as u64).with_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} {eta}")?
            .progress_chars("=> "),
    );
    bar.set_message(format!("uploading {name}"));
    for (i, data) in image.chunks(MAX_CHUNK).enumerate() {
        client.call(&Request::UploadChunk {
            offset: (i * MAX_CHUNK) as u32,
            data,
        })?;
        bar.inc(data.len() as u64);
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

/// Builds the take image: frame times from the packets' own frame times
/// (re-anchored where they jump back), the loop period one frame after the last.
fn build_image(file: &Path, name: &str, packets: &[Vec<u8>]) -> Result<Vec<u8>> {
    let time_of = |i: usize, bytes: &[u8]| -> Result<FrameTime> {
        let packet = Packet::new_checked(bytes)
            .map_err(|e| anyhow!("{}: frame {}: {e}", file.display(), i + 1))?;
        Ok(packet.time())
    };
    let first = packets
        .first()
        .with_context(|| format!("{}: no frames", file.display()))?;
    let rate = time_of(0, first)?.rate;
    let mut clock = FrameClock::new(if rate.is_valid() {
        rate
    } else {
        FrameRate::FPS_60
    });
    let frames = u32::try_from(packets.len()).context("too many frames")?;
    let total = image_len(frames, packets.iter().map(Vec::len).sum());
    let mut buf = vec![0u8; total];
    let mut writer = ImageWriter::new(&mut buf, name, frames).map_err(|e| anyhow!("{e}"))?;
    let mut last = 0u32;
    for (i, bytes) in packets.iter().enumerate() {
        let offset = clock.next(&time_of(i, bytes)?);
        last = u32::try_from(offset.as_micros()).map_err(|_| {
            anyhow!(
                "{}: frame {}: over 71 minutes, too long for one take",
                file.display(),
                i + 1
            )
        })?;
        writer
            .push(last, bytes)
            .map_err(|e| anyhow!("{}: frame {}: {e}", file.display(), i + 1))?;
    }
    let period = u128::from(last) + clock.frame_period().as_micros();
    let len = writer
        .finish(u32::try_from(period).unwrap_or(u32::MAX))
        .map_err(|e| anyhow!("{e}"))?;
    ensure!(len == total, "take image is {len} bytes, expected {total}");
    Ok(buf)
}

/// Reads the raw packets of a recording: LLV gzip (by its magic) or native base64 lines.
/// (The general recording reader replaces this one function.)
fn read_packets(file: &Path) -> Result<Vec<Vec<u8>>> {
    let at = || file.display().to_string();
    let mut reader = BufReader::new(std::fs::File::open(file).with_context(at)?);
    if reader
        .fill_buf()
        .with_context(at)?
        .starts_with(&[0x1f, 0x8b])
    {
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(reader)
            .read_to_end(&mut raw)
            .with_context(at)?;
        let word = |o: usize| -> Result<usize> {
            let b = raw
                .get(o..o + 4)
                .with_context(|| format!("{}: ends early at byte {o}", at()))?;
            Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let count = word(1)?;
        let (mut packets, mut o) = (Vec::new(), 5);
        for i in 0..count {
            let len = word(o)?;
            let packet = raw
                .get(o + 4..o + 4 + len)
                .with_context(|| format!("{}: frame {} ends early", at(), i + 1))?;
            packets.push(packet.to_vec());
            o += 4 + len;
        }
        return Ok(packets);
    }
    let mut packets = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{}: line {}", at(), i + 1))?;
        let line = line.trim_end_matches('\r');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut out = [0u8; MAX_LEN];
        let packet = llv_core::line::decode(line.as_bytes(), &mut out)
            .map_err(|e| anyhow!("{}: line {}: {e}", at(), i + 1))?;
        packets.push(packet.to_vec());
    }
    Ok(packets)
}
