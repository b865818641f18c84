//! Numbers and strings printed exactly as Python's `json.dumps` prints them,
//! so clear files match LLV's byte for byte: floats in `repr` form (shortest
//! round-trip digits, exponent below 1e-4 and from 1e16), strings ASCII-only.

/// Appends `value` as Python's `repr(float)` (`NaN`, `Infinity` as `json.dumps` writes them).
pub fn push_float(out: &mut Vec<u8>, value: f64) {
    if !value.is_finite() {
        out.extend_from_slice(match value {
            v if v.is_nan() => b"NaN".as_slice(),
            v if v > 0.0 => b"Infinity",
            _ => b"-Infinity",
        });
        return;
    }
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(value).as_bytes();
    // zmij and Python both print plain decimals from 1e-4 up to 1e16 (and zero).
    if value == 0.0 || (1e-4..1e16).contains(&value.abs()) {
        out.extend_from_slice(text);
    } else {
        push_scientific(out, text);
    }
}

/// Re-spells a shortest-digits number in Python's layout from its digits and decimal point.
fn push_scientific(out: &mut Vec<u8>, text: &[u8]) {
    let (negative, text) = match text.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.iter().position(|b| *b == b'e') {
        Some(at) => (&text[..at], parse_exponent(&text[at + 1..])),
        None => (text, 0),
    };
    // At most 17 significant digits, plus leading zeros of "0.0000...".
    let mut digits = [0u8; 32];
    let mut len = 0;
    let mut point = None;
    for &b in mantissa {
        if b == b'.' {
            point = Some(len);
        } else {
            digits[len] = b;
            len += 1;
        }
    }
    // value = 0.DIGITS * 10^decpt
    let mut decpt = point.unwrap_or(len) as i32 + exponent;
    let leading = digits[..len].iter().take_while(|d| **d == b'0').count();
    let mut digits = &digits[leading..len];
    decpt -= leading as i32;
    while let Some(rest) = digits.strip_suffix(b"0") {
        digits = rest;
    }
    if negative {
        out.push(b'-');
    }
    if digits.is_empty() {
        out.extend_from_slice(b"0.0");
        return;
    }
    if -4 < decpt && decpt <= 16 {
        push_positional(out, digits, decpt);
        return;
    }
    out.push(digits[0]);
    if digits.len() > 1 {
        out.push(b'.');
        out.extend_from_slice(&digits[1..]);
    }
    let e = decpt - 1;
    out.push(b'e');
    out.push(if e < 0 { b'-' } else { b'+' });
    let magnitude = e.unsigned_abs();
    if magnitude < 10 {
        out.push(b'0');
    }
    let mut itoa = itoa::Buffer::new();
    out.extend_from_slice(itoa.format(magnitude).as_bytes());
}

/// Appends `0.DIGITS * 10^decpt` without an exponent (Python's range `-4 < decpt <= 16`).
fn push_positional(out: &mut Vec<u8>, digits: &[u8], decpt: i32) {
    let n = digits.len() as i32;
    if decpt <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-decpt) as usize));
        out.extend_from_slice(digits);
    } else if decpt >= n {
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat_n(b'0', (decpt - n) as usize));
        out.extend_from_slice(b".0");
    } else {
        out.extend_from_slice(&digits[..decpt as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[decpt as usize..]);
    }
}

fn parse_exponent(text: &[u8]) -> i32 {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0)
}

/// Appends `text` as a JSON string the way `json.dumps` writes it (`ensure_ascii`).
pub fn push_string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    for c in text.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            ' '..='~' => out.push(c as u8),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
                }
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(v: f64) -> String {
        let mut out = Vec::new();
        push_float(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_print_like_python_repr() {
        // Expected strings are Python 3's repr of the same doubles.
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-1.0, "-1.0"),
            (0.5, "0.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.000012345, "1.2345e-05"),
            (-0.000012345, "-1.2345e-05"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e15, "1000000000000000.0"),
            (123456.0, "123456.0"),
            (1e-300, "1e-300"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (f64::from(0.12192535_f32), "0.12192534655332565"),
            (f64::from(0.000177822_f32), "0.00017782200302463025"),
            (f64::from(-0.00015628781_f32), "-0.00015628781693521887"),
            (f64::from(3.0e-5_f32), "2.9999999242136255e-05"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (value, expected) in cases {
            assert_eq!(float(*value), *expected, "{value:e}");
        }
    }

    #[test]
    fn floats_round_trip_through_parsing() {
        for bits in (0..u32::MAX).step_by(9_999_991) {
            let v = f32::from_bits(bits);
            if v.is_finite() {
                let text = float(f64::from(v));
                let back: f64 = text.parse().unwrap();
                assert_eq!((back as f32).to_bits(), v.to_bits(), "{text}");
            }
        }
    }

    #[test]
    fn strings_escape_like_json_dumps() {
        let mut out = Vec::new();
        push_string(&mut out, "a\"b\\c\nd\u{1}é😀");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\"b\\c\nd\u0001\u00e9\ud83d\ude00""#
        );
    }
}
