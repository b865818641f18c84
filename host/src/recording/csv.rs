//! Live Link Face CSV takes (the file the phone app writes per take):
//! import to raw v6 packets, export from them in the app's own layout.
//!
//! Columns bind by header name, ignoring case; the `HH:MM:SS:FF.fff`
//! timecode becomes frame number and subframe at the timecode rate, so a
//! take keeps its own timing whatever the capture cadence was.

use std::io::{self, Write};
use std::path::Path;

use super::stream::{Emitter, FrameSink};
use super::NONFINITE_HINT;
use crate::parallel::map_ordered;
use crate::take::{derived_device_id, timecode, Take};
use anyhow::{anyhow, bail, Context, Result};
use llv_core::blendshape::{self, COUNT};
use llv_core::packet::{FaceFrame, MAX_LEN, VERSION};
use llv_core::time::{FrameRate, FrameTime, Timecode, TimecodeError};

/// The app's header, column for column (from a real take, `alex_rom_3.csv`).
pub const HEADER: &str = "Timecode,BlendShapeCount,EyeBlinkLeft,EyeLookDownLeft,EyeLookInLeft,\
EyeLookOutLeft,EyeLookUpLeft,EyeSquintLeft,EyeWideLeft,EyeBlinkRight,EyeLookDownRight,\
EyeLookInRight,EyeLookOutRight,EyeLookUpRight,EyeSquintRight,EyeWideRight,JawForward,JawRight,\
JawLeft,JawOpen,MouthClose,MouthFunnel,MouthPucker,MouthRight,MouthLeft,MouthSmileLeft,\
MouthSmileRight,MouthFrownLeft,MouthFrownRight,MouthDimpleLeft,MouthDimpleRight,\
MouthStretchLeft,MouthStretchRight,MouthRollLower,MouthRollUpper,MouthShrugLower,\
MouthShrugUpper,MouthPressLeft,MouthPressRight,MouthLowerDownLeft,MouthLowerDownRight,\
MouthUpperUpLeft,MouthUpperUpRight,BrowDownLeft,BrowDownRight,BrowInnerUp,BrowOuterUpLeft,\
BrowOuterUpRight,CheekPuff,CheekSquintLeft,CheekSquintRight,NoseSneerLeft,NoseSneerRight,\
TongueOut,HeadYaw,HeadPitch,HeadRoll,LeftEyeYaw,LeftEyePitch,LeftEyeRoll,RightEyeYaw,\
RightEyePitch,RightEyeRoll";

/// How to turn a CSV take into packets.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportOptions {
    /// The timecode rate (the app's is 60).
    pub rate: FrameRate,
    /// Subject name; `None`: `take.json`, then the file name.
    pub subject: Option<String>,
    /// Device id; `None`: `take.json`'s `deviceModel`, else empty.
    pub device_id: Option<String>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            rate: FrameRate::FPS_60,
            subject: None,
            device_id: None,
        }
    }
}

/// What each CSV column holds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Column {
    Timecode,
    Count,
    Shape(usize),
}

/// Reads the CSV take at `path`, its identity from `opts`, `take.json` or its
/// name; a non-finite value is an error.
pub fn import(path: &Path, opts: &ImportOptions) -> Result<Take> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot open CSV take {}", path.display()))?;
    read(&bytes, &resolve_identity(Some(path), opts)?, false)
        .with_context(|| path.display().to_string())
}

/// Reads CSV text into a take, one frame per row in file order; a subject or
/// device id left open in `opts` is empty. A value that is NaN, infinite or
/// beyond f32 is an error naming line, row and column unless `allow_nonfinite`.
pub fn read(input: &[u8], opts: &ImportOptions, allow_nonfinite: bool) -> Result<Take> {
    let mut take = Take::default();
    read_rows(input, opts, allow_nonfinite, |packet| {
        take.push(packet).map_err(|e| e.to_string())
    })?;
    Ok(take)
}

/// [`read`] frame by frame into `emit`.
pub fn read_stream(
    input: impl io::Read,
    opts: &ImportOptions,
    allow_nonfinite: bool,
    emit: &mut Emitter,
) -> Result<()> {
    read_rows(input, opts, allow_nonfinite, |packet| emit.frame(packet))
}

fn read_rows(
    input: impl io::Read,
    opts: &ImportOptions,
    allow_nonfinite: bool,
    mut emit: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<()> {
    let rate = opts.rate;
    let subject = opts.subject.as_deref().unwrap_or_default();
    let device_id = opts.device_id.as_deref().unwrap_or_default();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(input);
    let mut record = csv::StringRecord::new();
    if !reader.read_record(&mut record).map_err(csv_error)? {
        bail!("the file is empty: expected a header `Timecode,BlendShapeCount,...`");
    }
    let columns = bind_columns(&record)?;
    let mut rows = 0;
    let mut frame = FaceFrame {
        version: VERSION,
        device_id,
        subject,
        time: FrameTime {
            frame_number: 0,
            subframe: 0.0,
            rate,
        },
        blendshapes: [0.0; COUNT],
    };
    let mut buf = [0u8; MAX_LEN];
    while reader.read_record(&mut record).map_err(csv_error)? {
        let line = record.position().map_or(0, |p| p.line());
        rows += 1;
        let row = rows;
        let at = |col: usize| format!("line {line} (row {row}), column {}", col + 1);
        if record.len() != columns.len() {
            bail!(
                "line {line} (row {row}): {} columns, the header has {}",
                record.len(),
                columns.len()
            );
        }
        for (col, (field, column)) in record.iter().zip(&columns).enumerate() {
            match *column {
                Column::Timecode => {
                    frame.time = Timecode::parse(field)
                        .and_then(|tc| tc.to_frame_time(rate))
                        .map_err(|e| {
                            // The rate decides drop-frame (29.97 and 59.94 count it).
                            let hint = match e {
                                TimecodeError::Dropped => {
                                    "; labels counted without drop-frame import at --rate 30 or 60"
                                }
                                _ => "",
                            };
                            anyhow!("{} (Timecode): `{field}`: {e} at {rate} fps{hint}", at(col))
                        })?;
                }
                Column::Count => {
                    if field.trim().parse::<usize>().ok() != Some(COUNT) {
                        bail!("{} (BlendShapeCount): `{field}`, expected {COUNT}", at(col));
                    }
                }
                Column::Shape(i) => {
                    let name = blendshape::NAMES[i];
                    let value: f32 = field
                        .trim()
                        .parse()
                        .map_err(|_| anyhow!("{} ({name}): `{field}` is not a number", at(col)))?;
                    if !value.is_finite() && !allow_nonfinite {
                        bail!(
                            "{} ({name}): `{field}` is not a finite f32 ({NONFINITE_HINT})",
                            at(col)
                        );
                    }
                    frame.blendshapes[i] = value;
                }
            }
        }
        let len = frame
            .encode(&mut buf)
            .map_err(|e| anyhow!("line {line} (row {row}): {e}"))?;
        emit(&buf[..len]).map_err(|e| anyhow!("line {line} (row {row}): {e}"))?;
    }
    if rows == 0 {
        bail!("the take has a header but no rows");
    }
    Ok(())
}

fn csv_error(e: csv::Error) -> anyhow::Error {
    match e.position() {
        Some(p) => anyhow!("line {}: {e}", p.line()),
        None => anyhow!(e),
    }
}

/// Maps each header column to what it holds; every blendshape exactly once.
fn bind_columns(header: &csv::StringRecord) -> Result<Vec<Column>> {
    let mut columns = Vec::with_capacity(header.len());
    let mut seen = [false; COUNT];
    let (mut timecode, mut count) = (false, false);
    for (col, name) in header.iter().enumerate() {
        let name = name.trim();
        let column = if name.eq_ignore_ascii_case("Timecode") {
            Column::Timecode
        } else if name.eq_ignore_ascii_case("BlendShapeCount") {
            Column::Count
        } else {
            Column::Shape(blendshape::find_ignore_case(name).ok_or_else(|| {
                anyhow!("line 1, column {}: `{name}` is not a blendshape", col + 1)
            })?)
        };
        let twice = match column {
            Column::Timecode => std::mem::replace(&mut timecode, true),
            Column::Count => std::mem::replace(&mut count, true),
            Column::Shape(i) => std::mem::replace(&mut seen[i], true),
        };
        if twice {
            bail!("line 1, column {}: `{name}` appears twice", col + 1);
        }
        columns.push(column);
    }
    if !timecode {
        bail!("line 1: no Timecode column");
    }
    let missing: Vec<&str> = blendshape::iter()
        .filter(|(i, _)| !seen[*i])
        .map(|(_, n)| n)
        .collect();
    if !missing.is_empty() {
        bail!("line 1: no column for {}", missing.join(", "));
    }
    Ok(columns)
}

/// `opts` with subject and device id settled: options, else `take.json` beside
/// the file, else the file name (subject). The device id, unless given, is
/// derived from the take's name ([`crate::take::derived_device_id`]): a
/// stable 36-character id in the phone's UUID form (`take.json`'s
/// `deviceModel`, such as `iPhone13,2`, names a model, not a device).
/// `path` is `None` for standard input, whose take is named by its subject.
pub fn resolve_identity(path: Option<&Path>, opts: &ImportOptions) -> Result<ImportOptions> {
    let take: Option<serde_json::Value> = match path.map(|p| p.with_file_name("take.json")) {
        None => None,
        Some(json_path) => match std::fs::read_to_string(&json_path) {
            Ok(text) => Some(
                serde_json::from_str(&text)
                    .with_context(|| format!("{} is not JSON", json_path.display()))?,
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", json_path.display()))
            }
        },
    };
    let from_json = |key: &str| {
        take.as_ref()
            .and_then(|t| t.get(key))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let stem = path
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned());
    let subject = opts
        .subject
        .clone()
        .or_else(|| from_json("subject"))
        .unwrap_or_else(|| {
            stem.as_deref()
                .map(subject_from_file_name)
                .unwrap_or_default()
        });
    let device_id = opts
        .device_id
        .clone()
        .unwrap_or_else(|| derived_device_id(stem.as_deref().unwrap_or(&subject)));
    Ok(ImportOptions {
        rate: opts.rate,
        subject: Some(subject),
        device_id: Some(device_id),
    })
}

/// The subject in the app's `<Slate>_<Take>_<Subject>[_cal|_raw|_neutral]` file
/// names (the slate may hold `_`; the take is the first number after it),
/// else the whole stem, as Unreal's importer does.
pub fn subject_from_file_name(stem: &str) -> String {
    let base = ["_cal", "_raw", "_neutral"]
        .iter()
        .find_map(|s| stem.strip_suffix(s))
        .unwrap_or(stem);
    let tokens: Vec<&str> = base.split('_').collect();
    if tokens.len() >= 3 {
        if let Some(take) = tokens[1..]
            .iter()
            .position(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        {
            let subject = tokens[take + 2..].join("_");
            if !subject.is_empty() {
                return subject;
            }
        }
    }
    stem.to_string()
}

/// Writes packets as a CSV take in the app's layout, which Unreal's
/// LiveLinkFaceImporter reads: its header, `HH:MM:SS:FF.fff`, 10 decimals.
pub fn export<'a>(packets: impl IntoIterator<Item = &'a [u8]>, out: &mut dyn Write) -> Result<()> {
    let mut sink = Sink::new(out)?;
    for packet in packets {
        sink.push(packet)?;
    }
    sink.finish()?;
    Ok(())
}

/// Writes a CSV take: rows are printed a batch at a time on every core
/// ([`crate::parallel::map_ordered`]) and written in order.
pub struct Sink<'a> {
    out: &'a mut dyn Write,
    order: Vec<usize>,
    pending: Take,
    count: u64,
}

/// Frames a CSV writer holds before printing them on every core.
pub const BATCH: usize = 4096;
/// Rows one job prints.
pub const ROWS_PER_JOB: usize = 256;

impl<'a> Sink<'a> {
    /// A sink writing to `out`; writes the header at once.
    pub fn new(out: &'a mut dyn Write) -> io::Result<Self> {
        let order = HEADER
            .split(',')
            .skip(2)
            .map(|n| blendshape::index_of(n).expect("HEADER names every blendshape"))
            .collect();
        writeln!(out, "{HEADER}")?;
        Ok(Sink {
            out,
            order,
            pending: Take::with_capacity(BATCH),
            count: 0,
        })
    }

    fn print_pending(&mut self) -> io::Result<()> {
        let packets: Vec<&[u8]> = self.pending.packets().collect();
        let first = self.count as usize - packets.len();
        let chunks: Vec<&[&[u8]]> = packets.chunks(ROWS_PER_JOB).collect();
        let order = &self.order;
        let print = |job: usize| -> io::Result<Vec<u8>> {
            let mut text = Vec::with_capacity(chunks[job].len() * 1024);
            for (k, packet) in chunks[job].iter().enumerate() {
                let index = first + job * ROWS_PER_JOB + k;
                let frame = FaceFrame::decode(packet)
                    .map_err(|e| io::Error::other(format!("frame {}: {e}", index + 1)))?;
                let tc = timecode(index, &frame.time).map_err(io::Error::other)?;
                let values = order
                    .iter()
                    .map(|&shape| f64::from(frame.blendshapes[shape]));
                push_row(&mut text, format_args!("{tc},{COUNT}"), values)
                    .map_err(io::Error::other)?;
            }
            Ok(text)
        };
        let out = &mut self.out;
        map_ordered(chunks.len(), print, |text| out.write_all(&text?))?;
        self.pending = Take::with_capacity(BATCH);
        Ok(())
    }
}

impl FrameSink for Sink<'_> {
    fn push(&mut self, packet: &[u8]) -> io::Result<()> {
        self.pending
            .push(packet)
            .map_err(|e| io::Error::other(format!("frame {}: {e}", self.count + 1)))?;
        self.count += 1;
        if self.pending.len() >= BATCH {
            self.print_pending()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.print_pending()?;
        self.out.flush()
    }

    fn count(&self) -> u64 {
        self.count
    }
}

/// Appends one row as the app prints its values to `text`: `lead`, then
/// `,value` with 10 decimals each, then a line end.
pub fn push_row(
    text: &mut Vec<u8>,
    lead: std::fmt::Arguments<'_>,
    values: impl IntoIterator<Item = f64>,
) -> Result<()> {
    text.write_fmt(lead)?;
    for value in values {
        text.push(b',');
        push_fixed10(text, value);
    }
    text.push(b'\n');
    Ok(())
}

/// Appends `value` exactly as `format!("{value:.10}")` prints it (the exact
/// binary value rounded to 10 decimals, ties to even, the sign kept), in
/// integer arithmetic: the standard formatter's exact mode was most of the
/// time of writing a CSV.
pub fn push_fixed10(line: &mut Vec<u8>, value: f64) {
    const SCALE: u64 = 10_000_000_000;
    if value == 0.0 {
        line.extend_from_slice(if value.is_sign_negative() {
            b"-0.0000000000"
        } else {
            b"0.0000000000"
        });
        return;
    }
    if !value.is_finite() || value.abs() >= 1e9 {
        // Rare on face values: the standard formatter.
        let _ = write!(line, "{value:.10}");
        return;
    }
    let bits = value.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // value = mantissa x 2^-shift; below 1e9 the shift is at least 22.
    let (mantissa, shift) = if exponent == 0 {
        (fraction, 1074)
    } else {
        (fraction | 1 << 52, (1075 - exponent) as u32)
    };
    let scaled = u128::from(mantissa) * u128::from(SCALE);
    // Below 1e9 the rounded value is under 1e19: it fits a u64.
    let rounded = if shift >= 128 {
        // Below 2^-40: under half of the last decimal.
        0
    } else {
        let q = (scaled >> shift) as u64;
        let rest = scaled & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rest > half || (rest == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    // Appended in a few fixed-size pieces built in registers: one copy of
    // a buffer of bytes written one by one cost more than the arithmetic.
    if value.is_sign_negative() {
        line.push(b'-');
    }
    let int = rounded / SCALE;
    let decimals = rounded % SCALE;
    let top = 2 * (decimals / 100_000_000) as usize;
    let pair = u32::from(u16::from_le_bytes([PAIRS[top], PAIRS[top + 1]]));
    if int < 10 {
        let head = u32::from(b'0' + int as u8) | u32::from(b'.') << 8 | pair << 16;
        line.extend_from_slice(&head.to_le_bytes());
    } else {
        let mut digits = itoa::Buffer::new();
        line.extend_from_slice(digits.format(int).as_bytes());
        let head = u32::from(b'.') | pair << 8;
        line.extend_from_slice(&head.to_le_bytes()[..3]);
    }
    line.extend_from_slice(&eight_digits((decimals % 100_000_000) as u32));
}

/// The decimal digits 00 to 99, two bytes each.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
                            2021222324252627282930313233343536373839\
                            4041424344454647484950515253545556575859\
                            6061626364656667686970717273747576777879\
                            8081828384858687888990919293949596979899";

/// The eight decimal digits of `n` (below 10^8, leading zeros kept), all
/// at once in the lanes of one u64: two halves of four digits, each split
/// into two pairs, each pair into two digits, by multiplying by a scaled
/// reciprocal (exact for these ranges) in every lane together.
fn eight_digits(n: u32) -> [u8; 8] {
    // Lanes of 32 bits: the first four digits in the low lane (the first
    // byte in memory), the last four in the high one.
    let x = u64::from(n / 10_000) | u64::from(n % 10_000) << 32;
    // Each lane below 10^4: x / 100 = x * 10486 >> 20; lanes of 16 bits.
    let hundreds = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let x = hundreds | (x - hundreds * 100) << 16;
    // Each lane below 100: x / 10 = x * 103 >> 10; lanes of 8 bits.
    let tens = ((x * 103) >> 10) & 0x000f_000f_000f_000f;
    let x = tens | (x - tens * 10) << 8;
    (x | 0x3030_3030_3030_3030).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_ten_decimals_print_as_the_standard_formatter_does() {
        let mut cases = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.0 / 2048.0,
            3.0 / 2048.0,
            -5.0 / 2048.0,
            0.00000000005,
            0.00000000015,
            -0.00000000004999,
            1e-300,
            -1e-320,
            f64::MIN_POSITIVE,
            0.0812982991,
            999_999_999.99999999,
            1e9,
            -2.5e12,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        // Every f32 pattern class the takes hold, and f64 sums of them.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..50_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f32::from_bits(x as u32);
            if f.is_finite() {
                cases.push(f64::from(f));
            }
            let g = f64::from_bits(x);
            if g.is_finite() {
                cases.push(g);
            }
            let small = f64::from((x >> 40) as u32) / f64::from(1u32 << 24) - 0.5;
            cases.push(small);
            cases.push(small * 1e-6);
        }
        let mut line = Vec::new();
        for v in cases {
            line.clear();
            push_fixed10(&mut line, v);
            assert_eq!(
                String::from_utf8_lossy(&line),
                format!("{v:.10}"),
                "{v:e} ({:#x})",
                v.to_bits()
            );
        }
    }

    #[test]
    fn eight_digits_in_lanes_are_the_decimal_digits() {
        // Every four-digit half in both lanes, and a stride over the rest.
        let halves = (0..10_000).flat_map(|v| [v * 10_000 + (9_999 - v), v * 10_001]);
        for n in halves
            .chain((0..100_000_000).step_by(9_973))
            .chain([99_999_999])
        {
            assert_eq!(eight_digits(n), *format!("{n:08}").as_bytes(), "{n}");
        }
    }

    fn sd() -> ImportOptions {
        ImportOptions {
            rate: FrameRate::FPS_60,
            subject: Some("s".into()),
            device_id: Some("d".into()),
        }
    }

    fn identity(path: &Path, opts: &ImportOptions) -> Result<(String, String)> {
        let o = resolve_identity(Some(path), opts)?;
        Ok((
            o.subject.unwrap_or_default(),
            o.device_id.unwrap_or_default(),
        ))
    }

    fn row(tc: &str, values: impl Fn(usize) -> String) -> String {
        let mut r = format!("{tc},61");
        for i in 0..COUNT {
            r.push(',');
            r.push_str(&values(i));
        }
        r
    }

    fn header() -> String {
        HEADER.to_string()
    }

    #[test]
    fn header_names_every_blendshape_once_and_binds() {
        let rec = csv::StringRecord::from(HEADER.split(',').collect::<Vec<_>>());
        let cols = bind_columns(&rec).unwrap();
        assert_eq!(cols.len(), 63);
        assert_eq!(
            cols[17],
            Column::Shape(blendshape::index_of("JawRight").unwrap())
        );
    }

    #[test]
    fn binds_by_name_ignoring_case_and_spelling_of_count() {
        // Packet order instead of the app's order, other count spelling, other case.
        let mut text = String::from("timecode,BlendshapeCount");
        for n in blendshape::NAMES {
            text.push(',');
            text.push_str(&n.to_ascii_uppercase());
        }
        text.push('\n');
        text += &row("01:00:00:10.500", |i| format!("{}", i as f32 / 100.0));
        text.push('\n');
        let take = read(text.as_bytes(), &sd(), false).unwrap();
        let f = take.frames().next().unwrap().frame();
        assert_eq!(f.time.frame_number, 3600 * 60 + 10);
        assert_eq!(f.time.subframe, 0.5);
        assert_eq!(f.time.rate, FrameRate::FPS_60);
        assert_eq!(f.blendshapes[17], 0.17);
        assert_eq!((f.subject, f.device_id), ("s", "d"));
    }

    fn read_err(text: &str) -> String {
        format!("{:#}", read(text.as_bytes(), &sd(), false).unwrap_err())
    }

    #[test]
    fn bad_rows_name_line_row_and_column() {
        let good = row("00:00:01:00.000", |_| "0.5".into());
        let short = format!("{}\n{good}\n{}\n", header(), &good[..good.len() - 4]);
        assert_eq!(
            read_err(&short),
            "line 3 (row 2): 62 columns, the header has 63"
        );

        let bad_value = good.replacen(",0.5,", ",zz,", 1);
        let e = read_err(&format!("{}\n{bad_value}\n", header()));
        assert_eq!(
            e,
            "line 2 (row 1), column 3 (EyeBlinkLeft): `zz` is not a number"
        );

        let bad_tc = good.replace("00:00:01:00.000", "00:00:01:75.000");
        let e = read_err(&format!("{}\n{bad_tc}\n", header()));
        assert!(
            e.starts_with("line 2 (row 1), column 1 (Timecode): `00:00:01:75.000`"),
            "{e}"
        );

        let bad_count = good.replacen(",61,", ",52,", 1);
        let e = read_err(&format!("{}\n{bad_count}\n", header()));
        assert_eq!(
            e,
            "line 2 (row 1), column 2 (BlendShapeCount): `52`, expected 61"
        );

        let e = read_err(&header().replace(",TongueOut", ",Tongue"));
        assert_eq!(e, "line 1, column 54: `Tongue` is not a blendshape");
        let e = read_err(&header().replace(",TongueOut", ",JawOpen"));
        assert_eq!(e, "line 1, column 54: `JawOpen` appears twice");
        let e = read_err(&header().replace(",TongueOut,", ","));
        assert_eq!(e, "line 1: no column for TongueOut");
        assert!(read_err("").contains("empty"));
        for bad in ["NaN", "inf", "-infinity", "1e39"] {
            let text = format!(
                "{}\n{}\n",
                header(),
                good.replacen(",0.5,", &format!(",{bad},"), 1)
            );
            assert_eq!(
                read_err(&text),
                format!("line 2 (row 1), column 3 (EyeBlinkLeft): `{bad}` is not a finite f32 (--allow-nonfinite keeps it)")
            );
            let take = read(text.as_bytes(), &sd(), true).unwrap();
            let value = take.frames().next().unwrap().blendshape(0).unwrap();
            assert!(!value.is_finite(), "{bad}: {value}");
        }
        assert!(read_err(&format!("{}\n", header())).contains("no rows"));
    }

    #[test]
    fn subject_follows_the_app_file_names() {
        assert_eq!(subject_from_file_name("MySlate_5_iPhone"), "iPhone");
        assert_eq!(
            subject_from_file_name("HH_Neutral_Rotation_1_iPhone12Pro_cal"),
            "iPhone12Pro"
        );
        assert_eq!(subject_from_file_name("Slate_2_Alex_Face"), "Alex_Face");
        assert_eq!(subject_from_file_name("alex_rom_3"), "alex_rom_3");
        assert_eq!(subject_from_file_name("take"), "take");
    }

    #[test]
    fn identity_prefers_options_then_take_json_then_name() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("Slate_3_Anna.csv");
        let none = ImportOptions::default();
        let derived = crate::take::derived_device_id("Slate_3_Anna");
        assert_eq!(derived.len(), 36);
        assert_eq!(
            identity(&csv, &none).unwrap(),
            ("Anna".into(), derived.clone())
        );
        std::fs::write(
            dir.path().join("take.json"),
            r#"{"slate":"Slate","take":3,"subject":"Bob","deviceModel":"iPhone13,3"}"#,
        )
        .unwrap();
        assert_eq!(identity(&csv, &none).unwrap(), ("Bob".into(), derived));
        let given = ImportOptions {
            subject: Some("Cleo".into()),
            device_id: Some("ID".into()),
            ..none
        };
        assert_eq!(
            identity(&csv, &given).unwrap(),
            ("Cleo".into(), "ID".into())
        );
        std::fs::write(dir.path().join("take.json"), "{oops").unwrap();
        let e = format!(
            "{:#}",
            identity(&csv, &ImportOptions::default()).unwrap_err()
        );
        assert!(e.contains("take.json is not JSON"), "{e}");
    }

    #[test]
    fn export_writes_the_app_layout() {
        let mut frame = FaceFrame {
            version: VERSION,
            device_id: "d",
            subject: "s",
            time: FrameTime {
                frame_number: (13 * 3600 + 13 * 60 + 4) * 60 + 31,
                subframe: 0.652,
                rate: FrameRate::FPS_60,
            },
            blendshapes: [0.0; COUNT],
        };
        frame.blendshapes[blendshape::index_of("JawRight").unwrap()] =
            "0.0185036063".parse().unwrap();
        frame.blendshapes[blendshape::index_of("LeftEyeYaw").unwrap()] =
            "-0.0312639736".parse().unwrap();
        let mut buf = [0u8; MAX_LEN];
        let n = frame.encode(&mut buf).unwrap();
        let mut out = Vec::new();
        export([&buf[..n]], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(HEADER));
        let row: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(row[0], "13:13:04:31.652");
        assert_eq!(row[1], "61");
        assert_eq!(row[17], "0.0185036063");
        assert_eq!(row[16], "0.0000000000");
        assert_eq!(row[57], "-0.0312639736");
        assert!(lines.next().is_none());
        assert!(text.ends_with('\n'));
    }
}
