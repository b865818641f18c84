//! Crossfades: the weight of the new side at an instant, and the mix of two
//! frames' 61 values (blendshapes and head and eye angles alike, linearly).

use crate::blendshape::COUNT;

/// The new side's weight, 0 to 1, `elapsed_us` into a fade of `fade_us`
/// (a fade of 0 is a cut).
pub fn weight(elapsed_us: u64, fade_us: u64) -> f32 {
    if fade_us == 0 || elapsed_us >= fade_us {
        1.0
    } else {
        (elapsed_us as f64 / fade_us as f64) as f32
    }
}

/// `from` mixed toward `to` by `w`, into `out` (exactly `from` at 0 and
/// `to` at 1). A value that is not finite on one side takes the other side's.
pub fn mix(from: &[f32; COUNT], to: &[f32; COUNT], w: f32, out: &mut [f32; COUNT]) {
    if w >= 1.0 {
        *out = *to;
        return;
    }
    if w <= 0.0 {
        *out = *from;
        return;
    }
    for ((o, a), b) in out.iter_mut().zip(from).zip(to) {
        *o = match (a.is_finite(), b.is_finite()) {
            (true, true) => a + (b - a) * w,
            (false, true) => *b,
            (true, false) => *a,
            (false, false) => 0.0,
        };
    }
}
