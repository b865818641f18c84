//! The blendshape table.

use llv_core::blendshape::*;

#[test]
fn table_matches_formats_md() {
    assert_eq!(NAMES.len(), 61);
    assert_eq!(name(0), Some("EyeBlinkLeft"));
    assert_eq!(name(17), Some("JawOpen"));
    assert_eq!(name(51), Some("TongueOut"));
    assert_eq!(name(FIRST_ROTATION), Some("HeadYaw"));
    assert_eq!(name(60), Some("RightEyeRoll"));
    assert_eq!(name(61), None);
}

#[test]
fn lookups_round_trip_and_ignore_case() {
    for (i, n) in iter() {
        assert_eq!(index_of(n), Some(i));
    }
    assert_eq!(find_ignore_case("jawopen"), Some(17));
    assert_eq!(find_ignore_case("MOUTHLEFT"), Some(21));
    assert_eq!(index_of("jawopen"), None);
    assert_eq!(find_ignore_case("BlendShapeCount"), None);
}

#[test]
fn names_are_unique_ignoring_case() {
    for (i, n) in iter() {
        assert_eq!(find_ignore_case(n), Some(i));
    }
}
