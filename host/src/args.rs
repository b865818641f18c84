//! The command-line arguments several commands share, in one place: frame
//! rates, the default ports, the frame edits, the chase, the options of every
//! command that reads a take or writes a file, and the box's token. Addresses
//! are resolved in [`crate::address`].

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use llv_core::artnet::TimecodeLabel;
use llv_core::settings::{ChaseSpec, MAX_FREEWHEEL_MS};
use llv_core::time::FrameRate;

use crate::recording::csv::ImportOptions;
use crate::recording::ReadOptions;
use crate::take::Edit;

pub use llv_core::control::{CONTROL_PORT, LIVE_LINK_PORT};

/// Parses a frame rate for clap: `60`, `59.94`, `29.97` or `N/D` such as `60000/1001`.
pub fn parse_rate(text: &str) -> Result<FrameRate, String> {
    FrameRate::parse(text)
        .ok_or_else(|| format!("{text:?} is not a frame rate (e.g. 60, 59.94, 60000/1001)"))
}

/// Edits shared by the commands that write frames.
#[derive(clap::Args, Debug, Clone)]
pub struct EditArgs {
    /// Set the subject name of every frame.
    #[arg(long, value_name = "SUBJECT")]
    pub rename: Option<String>,
    /// Replace the device id with LLV's anonymous DEADC0DE-1337-1337-1337-CAFEBABE.
    #[arg(long)]
    pub anonymize: bool,
}

impl EditArgs {
    /// The edit these flags ask for.
    pub fn edit(&self) -> Edit {
        Edit {
            subject: self.rename.clone(),
            anonymize: self.anonymize,
        }
    }
}

/// The environment variable `llv box` and `llv flash` take the box's token from.
pub const TOKEN_ENV: &str = "LLV_BOX_TOKEN";

/// How a chase follows timecode, with `--chase` (`llv play`, `llv box play`).
#[derive(clap::Args, Debug, Clone)]
pub struct ChaseArgs {
    /// With --chase: the timecode at which the take's first frame plays, its
    /// frames at the chased timecode's rate (default: the first frame's own timecode).
    #[arg(long, value_name = "HH:MM:SS:FF", requires = "chase")]
    offset: Option<String>,
    /// With --chase: the Art-Net stream to follow.
    #[arg(long, default_value_t = 0, requires = "chase")]
    stream: u8,
    /// With --chase: seconds to keep playing on the local clock when timecode stops.
    #[arg(long, default_value_t = 4.0, requires = "chase")]
    freewheel: f64,
    /// With --chase: when freewheel runs out, hold the last frame instead of stopping.
    #[arg(long, requires = "chase")]
    hold: bool,
}

impl ChaseArgs {
    /// The chase the arguments ask for, checked.
    pub fn spec(&self) -> Result<ChaseSpec> {
        let offset = match &self.offset {
            Some(text) => Some(TimecodeLabel::parse(text).ok_or_else(|| {
                anyhow!(
                    "--offset {text:?}: give HH:MM:SS:FF (the frames at the rate of the timecode chased)"
                )
            })?),
            None => None,
        };
        let most = f64::from(MAX_FREEWHEEL_MS) / 1000.0;
        if !(0.0..=most).contains(&self.freewheel) {
            bail!("--freewheel {}: give seconds, 0 to {most}", self.freewheel);
        }
        Ok(ChaseSpec {
            offset,
            stream: self.stream,
            freewheel_ms: (self.freewheel * 1000.0).round() as u32,
            hold: self.hold,
        })
    }

    /// The offset as given, for messages.
    pub fn offset_text(&self) -> &str {
        self.offset.as_deref().unwrap_or("its own timecode")
    }
}

/// The box's token: `--token`, else the first line of `--token-file`, else
/// `LLV_BOX_TOKEN` (the last two keep it out of `ps` and shell history).
#[derive(clap::Args, Debug, Clone)]
pub struct TokenArgs {
    /// The box's shared token, if it has one (visible in `ps` and shell history:
    /// prefer --token-file or LLV_BOX_TOKEN).
    #[arg(long, global = true, conflicts_with = "token_file")]
    token: Option<String>,
    /// Read the box's token from the first line of FILE (surrounding blanks trimmed).
    #[arg(long, global = true, value_name = "FILE")]
    token_file: Option<PathBuf>,
}

impl TokenArgs {
    /// The token to present, if any.
    pub fn token(&self) -> Result<Option<String>> {
        if let Some(token) = &self.token {
            return Ok(Some(token.clone()));
        }
        if let Some(path) = &self.token_file {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read the token", path.display()))?;
            let token = text.lines().next().unwrap_or_default().trim();
            if token.is_empty() {
                bail!("{}: the first line holds no token", path.display());
            }
            return Ok(Some(token.to_string()));
        }
        match std::env::var(TOKEN_ENV) {
            Ok(token) if !token.trim().is_empty() => Ok(Some(token.trim().to_string())),
            Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => bail!("{TOKEN_ENV} is not UTF-8"),
        }
    }
}

/// For the commands that write a named file.
#[derive(clap::Args, Debug, Clone)]
pub struct OutputArgs {
    /// Replace the output file if it exists (it is never overwritten otherwise).
    #[arg(long)]
    pub force: bool,
}

/// How every command that reads a take reads it.
#[derive(clap::Args, Debug, Clone)]
pub struct ReadArgs {
    #[command(flatten)]
    csv: CsvArgs,
    /// Accept NaN, infinite values and numbers beyond f32 in CSV and clear JSON
    /// takes (refused by default, since Unreal would receive them).
    #[arg(long)]
    allow_nonfinite: bool,
}

impl ReadArgs {
    /// The read options these flags ask for.
    pub fn options(&self) -> ReadOptions {
        ReadOptions {
            csv: self.csv.options(),
            allow_nonfinite: self.allow_nonfinite,
        }
    }
}

/// How the commands that read a take read a Live Link Face CSV take.
#[derive(clap::Args, Debug, Clone)]
pub struct CsvArgs {
    /// Timecode rate of CSV takes: 60, 30, 59.94, 29.97 or N/D.
    #[arg(long, value_name = "FPS", default_value = "60", value_parser = parse_rate)]
    pub rate: FrameRate,
    /// Subject name of CSV takes (default: take.json, else the file name).
    #[arg(long)]
    pub subject: Option<String>,
    /// Device id of CSV takes (default: a stable 36-character id derived from the take's name).
    #[arg(long, value_name = "ID")]
    pub device_id: Option<String>,
}

impl CsvArgs {
    /// The import options these flags ask for.
    pub fn options(&self) -> ImportOptions {
        ImportOptions {
            rate: self.rate,
            subject: self.subject.clone(),
            device_id: self.device_id.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_or_say_what_a_rate_is() {
        assert!(parse_rate("59.94").is_ok());
        assert!(parse_rate("fast").unwrap_err().contains("not a frame rate"));
    }
}
