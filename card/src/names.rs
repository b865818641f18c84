//! Where takes live on a card: the folder [`DIR`], one take image per file
//! named in 8.3 form (`NAME.TAK`, [`file_name`]), the take's own name inside
//! the image. The box writes an upload to its file with the magic last (see
//! [`crate::upload`]); `llv card` on a mounted card's folder writes [`TEMP`]
//! and renames it. Both name files by the same rule. Files whose long name
//! starts with a dot are what laptops leave beside the takes (macOS writes
//! `._NAME.TAK` beside every file it copies): never takes ([`is_litter`]).

use heapless::String;

/// The folder of takes, in the card's root.
pub const DIR: &str = "LLV";
/// The file `llv card` writes in a card's folder before it renames it.
pub const TEMP: &str = "UPLOAD.TMP";
/// The extension of a take file.
pub const EXT: &str = "TAK";
/// Longest 8.3 file name (`NAMENAME.TAK`).
pub const FILE_LEN: usize = 12;
/// Most takes the box keeps of one card (its index of them is in RAM:
/// 24 bytes a take).
pub const MAX_CARD_TAKES: usize = 1000;

/// Whether a file whose long name starts with `first` (its short name's
/// first character when it has no long name) is litter a laptop left: a
/// dot-file (`._NAME`, `.DS_Store`, `.Trashes`, ...).
pub fn is_litter(first: char) -> bool {
    first == '.'
}

/// The 11 bytes (8 + 3, space-padded, upper case) of the 8.3 name `file`.
pub fn to_short(file: &str) -> [u8; 11] {
    let mut out = [b' '; 11];
    let (base, ext) = file.rsplit_once('.').unwrap_or((file, ""));
    for (o, b) in out.iter_mut().zip(base.bytes().take(8)) {
        *o = b.to_ascii_uppercase();
    }
    for (o, b) in out.iter_mut().skip(8).zip(ext.bytes().take(3)) {
        *o = b.to_ascii_uppercase();
    }
    out
}

/// Whether `file` (an 8.3 name, any case) is a take file.
pub fn is_take_file(file: &str) -> bool {
    file.rsplit_once('.')
        .is_some_and(|(base, ext)| !base.is_empty() && ext.eq_ignore_ascii_case(EXT))
}

/// The 8.3 file name for the take `name`: its letters and digits upper-cased,
/// `-` and `_` kept, anything else `_`, cut to 8; when `taken` says another
/// take has that file, the base ends in `~N` instead (the first N free).
pub fn file_name(name: &str, taken: impl Fn(&str) -> bool) -> String<FILE_LEN> {
    let mut base: String<8> = String::new();
    for c in name.chars() {
        let c = match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' => c.to_ascii_uppercase(),
            _ => '_',
        };
        if base.push(c).is_err() {
            break;
        }
    }
    if base.is_empty() {
        let _ = base.push_str("TAKE");
    }
    let plain = with_ext(&base);
    if !taken(&plain) {
        return plain;
    }
    for n in 1u32..100_000 {
        let mut suffix: String<8> = String::new();
        let _ = core::fmt::write(&mut suffix, format_args!("~{n}"));
        let keep = base.len().min(8 - suffix.len());
        let mut short: String<8> = String::new();
        let _ = short.push_str(&base[..keep]);
        let _ = short.push_str(&suffix);
        let candidate = with_ext(&short);
        if !taken(&candidate) {
            return candidate;
        }
    }
    // 100 000 takes cannot be listed anyway; the last candidate is refused later.
    with_ext("TAKE~0")
}

fn with_ext(base: &str) -> String<FILE_LEN> {
    let mut file = String::new();
    let _ = file.push_str(base);
    let _ = file.push('.');
    let _ = file.push_str(EXT);
    file
}

/// The 8.3 name `NAME.EXT` of a directory entry's 11-byte short name.
pub fn from_short(short: &[u8; 11]) -> String<FILE_LEN> {
    let mut file = String::new();
    fn part(bytes: &[u8]) -> &str {
        let end = bytes.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
        core::str::from_utf8(&bytes[..end]).unwrap_or("")
    }
    let _ = file.push_str(part(&short[..8]));
    let ext = part(&short[8..]);
    if !ext.is_empty() {
        let _ = file.push('.');
        let _ = file.push_str(ext);
    }
    file
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_8_3_and_unique() {
        assert_eq!(file_name("dao", |_| false), "DAO.TAK");
        assert_eq!(file_name("stage left intro", |_| false), "STAGE_LE.TAK");
        assert_eq!(file_name("é", |_| false), "_.TAK");
        assert_eq!(file_name("", |_| false), "TAKE.TAK");
        let taken = |f: &str| f == "STAGE_LE.TAK" || f == "STAGE_~1.TAK";
        assert_eq!(file_name("stage left outro", taken), "STAGE_~2.TAK");
        assert!(is_take_file("DAO.TAK") && is_take_file("dao.tak"));
        assert!(!is_take_file("UPLOAD.TMP") && !is_take_file(".TAK"));
        assert_eq!(from_short(b"DAO     TAK"), "DAO.TAK");
        assert_eq!(from_short(b"LLV        "), "LLV");
        assert_eq!(&to_short("DAO.TAK"), b"DAO     TAK");
        assert_eq!(&to_short("stage_~2.tak"), b"STAGE_~2TAK");
        assert_eq!(&to_short("LLV"), b"LLV        ");
        assert!(is_litter('.') && !is_litter('_'));
    }
}
