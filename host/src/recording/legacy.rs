//! LLV's legacy recordings (FORMATS 3c), read-only: one line per frame, each
//! the base64 of a clear-JSON frame object.

use anyhow::Result;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use llv_core::packet::MAX_LEN;

use super::clear::ClearFrame;
use super::each_line;
use super::stream::{Emitter, Input};

/// Reads every line; errors name file, line and field (a value that is not a
/// finite f32 is one, unless `allow_nonfinite`). An unterminated last line
/// that does not decode is a warning (a killed recording) and is skipped.
pub fn read(
    name: &str,
    input: &mut Input,
    allow_nonfinite: bool,
    emit: &mut Emitter,
    warnings: &mut Vec<String>,
) -> Result<()> {
    each_line(name, &mut input.reader, warnings, |text| {
        if allow_nonfinite {
            frame_line::<true>(text, emit)
        } else {
            frame_line::<false>(text, emit)
        }
    })
}

fn frame_line<const ALLOW_NONFINITE: bool>(text: &[u8], emit: &mut Emitter) -> Result<(), String> {
    let json = STANDARD.decode(text).map_err(|e| format!("base64: {e}"))?;
    let frame: ClearFrame<'_, ALLOW_NONFINITE> =
        serde_json::from_slice(&json).map_err(|e| e.to_string())?;
    let mut buf = [0u8; MAX_LEN];
    let packet = frame.encode(&mut buf)?;
    emit.frame(packet)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::{read_bytes, Format};
    use crate::take::tests_support::sample_take;
    use crate::take::Take;

    /// LLV's legacy lines: the frame objects of a clear file, each base64'd.
    fn legacy(take: &Take) -> String {
        let mut json = Vec::new();
        Format::Json
            .write(take, &mut json, Default::default())
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
        json["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| STANDARD.encode(f.to_string()) + "\r\n")
            .collect()
    }

    #[test]
    fn reads_legacy_lines() {
        let take = sample_take(3);
        let loaded = read_bytes("old.gesichter", legacy(&take).as_bytes()).unwrap();
        assert_eq!(loaded.format, Format::LlvLegacy);
        assert_eq!(loaded.take, take);
    }

    #[test]
    fn errors_name_line_and_field() {
        let take = sample_take(2);
        let mut lines: Vec<String> = legacy(&take).lines().map(String::from).collect();
        let bad = String::from_utf8(STANDARD.decode(&lines[1]).unwrap())
            .unwrap()
            .replace("\"TongueOut\"", "\"Tongue\"");
        lines[1] = STANDARD.encode(bad);
        let text = lines.join("\n") + "\n";
        let err = read_bytes("old", text.as_bytes()).unwrap_err().to_string();
        assert!(
            err.starts_with("old: line 2: unknown blendshape name \"Tongue\""),
            "{err}"
        );
    }
}
