//! `llv` on files: LLV compatibility of unpack/pack, round trips, convert,
//! sequence, info and the errors a user sees.

use std::fs;

use predicates::str::contains;

use llv_tests::{example, fixture, llv, llv_packets, native_packets};

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

#[test]
fn unpack_prints_exactly_what_llv_prints() {
    let dir = temp();
    let out = dir.path().join("dao.klare-gesichter");
    llv()
        .args(["unpack"])
        .arg(example("dao.gesichter"))
        .arg(&out)
        .assert()
        .success();
    let ours = fs::read(&out).unwrap();
    let llvs = fs::read(fixture("dao.klare-gesichter")).unwrap();
    assert!(ours == llvs, "unpack output differs from LLV 1.4.0's");
}

#[test]
fn pack_of_llv_clear_file_gives_the_example_packets() {
    let dir = temp();
    let out = dir.path().join("dao.gesichter");
    llv()
        .arg("pack")
        .arg(fixture("dao.klare-gesichter"))
        .arg(&out)
        .assert()
        .success();
    assert_eq!(native_packets(&out), llv_packets(&example("dao.gesichter")));
    let llv_out = dir.path().join("dao-llv.gesichter");
    llv()
        .args(["pack", "--to", "llv"])
        .arg(fixture("dao.klare-gesichter"))
        .arg(&llv_out)
        .assert()
        .success();
    assert_eq!(
        llv_packets(&llv_out),
        llv_packets(&example("dao.gesichter"))
    );
}

#[test]
fn unpack_pack_round_trip_is_byte_exact() {
    let dir = temp();
    for name in ["dao.gesichter", "debug-headyaw.gesichter"] {
        let clear = dir.path().join("a.json");
        let packed = dir.path().join("b.gesichter");
        let again = dir.path().join("c.json");
        llv()
            .arg("unpack")
            .arg(example(name))
            .arg(&clear)
            .assert()
            .success();
        llv()
            .arg("pack")
            .arg(&clear)
            .arg(&packed)
            .assert()
            .success();
        llv()
            .arg("unpack")
            .arg(&packed)
            .arg(&again)
            .assert()
            .success();
        assert_eq!(
            native_packets(&packed),
            llv_packets(&example(name)),
            "{name}"
        );
        assert!(
            fs::read(&clear).unwrap() == fs::read(&again).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn retained_raw_frames_and_stdio() {
    let json = llv()
        .args(["unpack", "--retain"])
        .arg(example("debug-jawopen.gesichter"))
        .arg("-")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(json.clone()).unwrap();
    assert_eq!(
        text.matches("\"raw_frame\": { \"size\": 320, \"data\": \"")
            .count(),
        66
    );
    let native = llv()
        .args(["pack", "-", "-"])
        .write_stdin(json)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let dir = temp();
    let path = dir.path().join("jaw.gesichter");
    fs::write(&path, native).unwrap();
    assert_eq!(
        native_packets(&path),
        llv_packets(&example("debug-jawopen.gesichter"))
    );
}

#[test]
fn rename_and_anonymize_reencode_the_header() {
    let dir = temp();
    let out = dir.path().join("renamed.json");
    llv()
        .args(["convert", "--rename", "Hero", "--anonymize"])
        .arg(example("dao.gesichter"))
        .arg(&out)
        .assert()
        .success();
    let text = fs::read_to_string(&out).unwrap();
    assert_eq!(text.matches("\"subject_name\":\"Hero\"").count(), 180);
    assert_eq!(
        text.matches("\"device_id\":\"DEADC0DE-1337-1337-1337-CAFEBABE\"")
            .count(),
        180
    );
}

#[test]
fn convert_between_every_format_keeps_the_packets() {
    let dir = temp();
    let expected = llv_packets(&example("dao.gesichter"));
    let native = dir.path().join("n.gesichter");
    let json = dir.path().join("j.klare-gesichter");
    let gz = dir.path().join("g.gesichter");
    let back = dir.path().join("back.gesichter");
    llv()
        .arg("convert")
        .arg(example("dao.gesichter"))
        .arg(&native)
        .assert()
        .success();
    llv()
        .arg("convert")
        .arg(&native)
        .arg(&json)
        .assert()
        .success();
    llv()
        .args(["convert", "--to", "llv"])
        .arg(&json)
        .arg(&gz)
        .assert()
        .success();
    llv().arg("convert").arg(&gz).arg(&back).assert().success();
    assert_eq!(native_packets(&native), expected);
    assert_eq!(llv_packets(&gz), expected);
    assert_eq!(native_packets(&back), expected);
    llv()
        .arg("convert")
        .arg(&native)
        .arg(dir.path().join("x.bin"))
        .assert()
        .failure()
        .stderr(contains("add --to"));
}

#[test]
fn sequence_regenerates_llv_debug_takes() {
    let dir = temp();
    let jaw = dir.path().join("jaw.gesichter");
    llv()
        .args(["sequence", "--shape", "jawopen"])
        .arg(&jaw)
        .assert()
        .success();
    assert_eq!(
        native_packets(&jaw),
        llv_packets(&example("debug-jawopen.gesichter"))
    );
    let all = dir.path().join("all.gesichter");
    llv()
        .args(["sequence", "--seconds-per-shape", "1"])
        .arg(&all)
        .assert()
        .success();
    assert_eq!(
        native_packets(&all),
        llv_packets(&example("debug-all-blendshapes.gesichter"))
    );
}

#[test]
fn info_reports_frames_rate_subjects_and_gaps() {
    let out = llv()
        .args(["info", "--json"])
        .arg(example("dao.gesichter"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for needle in [
        "\"frames\":180",
        "\"format\":\"LLV gzip\"",
        "\"rates\":{\"60\":180}",
        "\"subjects\":{\"LLV Default Device\":180}",
        "\"device_ids\":{\"DEADC0DE-1337-1337-1337-CAFEBABE\":180}",
        "\"gaps\":1",
        "\"missing_frames\":7",
        "\"EyeBlinkLeft\":{",
    ] {
        assert!(text.contains(needle), "{needle} not in {text}");
    }
}

#[test]
fn bad_files_are_errors_naming_file_line_and_field() {
    let dir = temp();
    let clear = dir.path().join("bad.klare-gesichter");
    let text = fs::read_to_string(fixture("dao.klare-gesichter")).unwrap();
    let at = text.match_indices("\"JawOpen\"").nth(3).unwrap().0;
    let text = format!("{}\"JawOpenn\"{}", &text[..at], &text[at + 9..]);
    fs::write(&clear, text).unwrap();
    llv()
        .arg("pack")
        .arg(&clear)
        .arg(dir.path().join("x.gesichter"))
        .assert()
        .failure()
        .stderr(contains(format!(
            "error: {}: frame 3: unknown blendshape name \"JawOpenn\" at line 1 column",
            clear.display()
        )));
    let lines = dir.path().join("bad.gesichter");
    fs::write(&lines, "# comment\nBgAAAA==\n").unwrap();
    llv()
        .arg("info")
        .arg(&lines)
        .assert()
        .failure()
        .stderr(contains(format!(
            "error: {}: line 2: decodes to 4 bytes, outside 264..=774",
            lines.display()
        )));
    let binary = dir.path().join("noise.gesichter");
    fs::write(&binary, [0u8, 159, 146, 150, 7, 0]).unwrap();
    llv().arg("info").arg(&binary).assert().failure();
}
