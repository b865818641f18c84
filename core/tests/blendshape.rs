//! The blendshape table.

use llv_core::blendshape::*;

/// The `N Name` pairs of docs/FORMATS.md's section 2, in order.
fn documented() -> Vec<(usize, String)> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/FORMATS.md"))
        .expect("docs/FORMATS.md");
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("2. The 61 blendshapes"))
        .expect("FORMATS.md has section 2, the blendshapes");
    let list = section
        .split("\n\n")
        .nth(1)
        .expect("the list after the heading");
    list.split(',')
        .map(|pair| {
            let pair = pair.trim().trim_end_matches('.');
            let (index, name) = pair.split_once(' ').expect("`N Name`");
            (index.parse().expect("an index"), name.to_string())
        })
        .collect()
}

#[test]
fn table_matches_formats_md() {
    let documented = documented();
    assert_eq!(documented.len(), 61);
    assert_eq!(NAMES.len(), 61);
    for (i, (index, doc_name)) in documented.iter().enumerate() {
        assert_eq!(*index, i, "FORMATS.md numbers {doc_name} {index}");
        assert_eq!(name(i), Some(doc_name.as_str()), "blendshape {i}");
    }
    assert_eq!(name(FIRST_ROTATION), Some("HeadYaw"));
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
