//! Times of day on a clock that wraps at midnight: differences taken the
//! short way round, and where a time of day falls against a take that may
//! run through midnight. Every time here is in µs since the label midnight,
//! below `day` (the µs a day of labels lasts: [`super::FrameRate::micros_per_day`]).

/// `later - earlier` on a clock of `day` µs, the short way round: in
/// `(-day/2, day/2]`. 23:59:59 to 00:00:01 is 2 s; 00:00:01 to 23:59:59 is -2 s.
pub fn wrapped_diff(later: u64, earlier: u64, day: u64) -> i64 {
    if day == 0 {
        return 0;
    }
    let ahead = (later % day + day - earlier % day) % day;
    if ahead > day / 2 {
        -((day - ahead) as i64)
    } else {
        ahead as i64
    }
}

/// `at` moved by `by` µs on a clock of `day` µs (the result below `day`).
pub fn wrapped_add(at: u64, by: i64, day: u64) -> u64 {
    if day == 0 {
        return 0;
    }
    let by = by.rem_euclid(day as i64) as u64;
    (at % day + by) % day
}

/// Where the time of day `at` falls against a span of `len` µs that starts
/// at the time of day `start` (a take, placed on the timecode): µs into the
/// span, which may run through midnight. Outside it, the time of day splits
/// halfway between the span's end and its next start: the first half is
/// after the span (`len` or more), the second before it (negative).
pub fn place(at: u64, start: u64, len: u64, day: u64) -> i64 {
    if day == 0 {
        return 0;
    }
    let into = wrapped_add(at, -((start % day) as i64), day);
    let len = len.min(day);
    if into < len + (day - len) / 2 {
        into as i64
    } else {
        into as i64 - day as i64
    }
}
