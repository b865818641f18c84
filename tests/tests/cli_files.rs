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
    // A `.gesichter` name gets LLV's gzip (what LLV reads), `.gesichter-lines` native lines.
    let out = dir.path().join("dao.gesichter");
    llv()
        .arg("pack")
        .arg(fixture("dao.klare-gesichter"))
        .arg(&out)
        .assert()
        .success();
    assert_eq!(llv_packets(&out), llv_packets(&example("dao.gesichter")));
    let lines = dir.path().join("dao.gesichter-lines");
    llv()
        .arg("pack")
        .arg(fixture("dao.klare-gesichter"))
        .arg(&lines)
        .assert()
        .success();
    assert_eq!(
        native_packets(&lines),
        llv_packets(&example("dao.gesichter"))
    );
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
        let clear = dir.path().join(format!("{name}.a.json"));
        let packed = dir.path().join(format!("{name}.b.gesichter"));
        let again = dir.path().join(format!("{name}.c.json"));
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
        assert_eq!(llv_packets(&packed), llv_packets(&example(name)), "{name}");
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
    let native = dir.path().join("n.gesichter-lines");
    let json = dir.path().join("j.klare-gesichter");
    let gz = dir.path().join("g.gesichter");
    let back = dir.path().join("back.gesichter-lines");
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
        llv_packets(&jaw),
        llv_packets(&example("debug-jawopen.gesichter"))
    );
    let all = dir.path().join("all.gesichter");
    llv()
        .args(["sequence", "--seconds-per-shape", "1"])
        .arg(&all)
        .assert()
        .success();
    assert_eq!(
        llv_packets(&all),
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

#[test]
fn writers_refuse_an_existing_output_unless_forced() {
    let dir = temp();
    let out = dir.path().join("keep.gesichter");
    let json = dir.path().join("keep.json");
    fs::write(&out, "precious\n").unwrap();
    fs::write(&json, "precious\n").unwrap();
    let refused = format!("error: {}: exists; --force replaces it", out.display());
    for args in [
        vec!["convert", "IN", "OUT"],
        vec!["pack", "IN", "OUT"],
        vec!["sequence", "OUT"],
    ] {
        let args: Vec<std::ffi::OsString> = args
            .iter()
            .map(|a| match *a {
                "IN" => example("debug-jawopen.gesichter").into_os_string(),
                "OUT" => out.clone().into_os_string(),
                other => other.into(),
            })
            .collect();
        llv()
            .args(&args)
            .assert()
            .failure()
            .stderr(contains(refused.as_str()));
        assert_eq!(fs::read_to_string(&out).unwrap(), "precious\n", "{args:?}");
    }
    llv()
        .arg("unpack")
        .arg(example("debug-jawopen.gesichter"))
        .arg(&json)
        .assert()
        .failure()
        .stderr(contains(format!(
            "error: {}: exists; --force replaces it",
            json.display()
        )));
    assert_eq!(fs::read_to_string(&json).unwrap(), "precious\n");
    llv()
        .args(["convert", "--force"])
        .arg(example("debug-jawopen.gesichter"))
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        llv_packets(&out),
        llv_packets(&example("debug-jawopen.gesichter"))
    );
    // Only the output is there: the temporary file was renamed into place.
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["keep.gesichter", "keep.json"]);
}

#[test]
fn nonfinite_values_are_refused_on_import_unless_allowed() {
    let dir = temp();
    let csv = dir.path().join("take.csv");
    let text = fs::read_to_string(fixture("llf/alex_rom_3.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().take(4).map(String::from).collect();
    // Row 2 (line 3), column 5 (EyeLookInLeft): an f32 overflow.
    let mut cells: Vec<String> = lines[2].split(',').map(String::from).collect();
    cells[4] = "1e39".into();
    lines[2] = cells.join(",");
    fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("out.gesichter");
    llv()
        .arg("convert")
        .arg(&csv)
        .arg(&out)
        .assert()
        .failure()
        .stderr(contains(format!(
            "error: {}: line 3 (row 2), column 5 (EyeLookInLeft): `1e39` is not a finite f32 (--allow-nonfinite keeps it)",
            csv.display()
        )));
    assert!(!out.exists());
    llv()
        .args(["convert", "--allow-nonfinite"])
        .arg(&csv)
        .arg(&out)
        .assert()
        .success();
    let info = llv()
        .arg("info")
        .arg(&out)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let info = String::from_utf8(info).unwrap();
    assert!(
        info.contains(
            "non-finite 1 values (NaN or infinite), the first in frame 1 (EyeLookInLeft)"
        ),
        "{info}"
    );
    let ranges = info.lines().skip_while(|l| !l.starts_with("blendshape"));
    assert!(
        ranges.clone().count() == 62
            && ranges
                .clone()
                .all(|l| !l.contains("inf") && !l.contains("NaN")),
        "{info}"
    );

    // Clear JSON: the same refusal, at the value's line and column.
    let json = dir.path().join("take.json");
    let clear = fs::read_to_string(fixture("dao.klare-gesichter")).unwrap();
    let at = clear.find("\"JawOpen\": ").unwrap() + "\"JawOpen\": ".len();
    let end = at + clear[at..].find(',').unwrap();
    fs::write(&json, format!("{}-1e39{}", &clear[..at], &clear[end..])).unwrap();
    llv()
        .arg("play")
        .arg(&json)
        .args(["--to", "127.0.0.1:9"])
        .assert()
        .failure()
        .stderr(contains(format!(
            "error: {}: frame 0: blendshape \"JawOpen\": -1e39 is not a finite f32 (--allow-nonfinite keeps it) at line 1 column",
            json.display()
        )));
}

/// Runs `llv ARGS`, expects failure with `message` on standard error.
fn refused(args: &[&dyn AsRef<std::ffi::OsStr>], message: &str) {
    llv()
        .args(args.iter().map(|a| a.as_ref()))
        .assert()
        .failure()
        .stderr(contains(message));
}

#[test]
fn no_output_is_ever_one_of_the_inputs_force_or_not() {
    let dir = temp();
    let take = dir.path().join("take.gesichter");
    fs::copy(example("dao.gesichter"), &take).unwrap();
    let original = fs::read(&take).unwrap();
    let map = dir.path().join("rig.csv");
    fs::write(&map, "JawOpen,Jaw\n").unwrap();
    let map_text = fs::read(&map).unwrap();
    // Another spelling of the take, and a hard link to it: the same file.
    fs::create_dir(dir.path().join("sub")).unwrap();
    let spelled = dir.path().join("sub").join("..").join("take.gesichter");
    let linked = dir.path().join("linked.png");
    fs::hard_link(&take, &linked).unwrap();
    let also = "name another output (--force never replaces an input)";
    for force in [None, Some("--force")] {
        let f = force.map_or(Vec::new(), |f| vec![f]);
        let with = |args: &[&dyn AsRef<std::ffi::OsStr>]| -> Vec<std::ffi::OsString> {
            let mut all: Vec<std::ffi::OsString> =
                args.iter().map(|a| a.as_ref().to_os_string()).collect();
            all.extend(f.iter().map(|s| s.into()));
            all
        };
        let refused = |args: Vec<std::ffi::OsString>| {
            llv().args(&args).assert().failure().stderr(contains(also));
        };
        refused(with(&[&"plot", &take, &"-o", &linked]));
        refused(with(&[&"info", &take, &"--plot", &linked]));
        refused(with(&[&"convert", &take, &spelled]));
        refused(with(&[&"edit", &take, &spelled, &"--mirror"]));
        refused(with(&[&"remap", &take, &"--map", &map, &"-o", &map]));
        let t3d = fixture("mapping/mh_arkit_mapping_pose.T3D");
        refused(with(&[&"retarget", &take, &"--map", &t3d, &"-o", &spelled]));
        refused(with(&[&"edit", &take, &"-o", &map, &"--modifiers", &map]));
        #[cfg(unix)]
        {
            let symlink = dir.path().join("symlink.gesichter");
            let _ = fs::remove_file(&symlink);
            std::os::unix::fs::symlink(&take, &symlink).unwrap();
            refused(with(&[&"convert", &take, &symlink]));
        }
    }
    assert_eq!(fs::read(&take).unwrap(), original);
    assert_eq!(fs::read(&map).unwrap(), map_text);
}

#[test]
fn a_plot_is_png_or_svg_by_its_name() {
    let dir = temp();
    let jpg = dir.path().join("t.jpg");
    refused(
        &[&"plot", &example("dao.gesichter"), &"-o", &jpg],
        "t.jpg: a plot is written as PNG or SVG: name it .png or .svg",
    );
    assert!(!jpg.exists());
}

#[test]
fn llv_gzip_is_one_member_python_and_gzip_read() {
    let dir = temp();
    // The real take joined to about 40 000 frames: a body of many deflate blocks.
    let lines = dir.path().join("alex.gesichter-lines");
    llv()
        .arg("convert")
        .arg(fixture("llf/alex_rom_3.csv"))
        .arg(&lines)
        .assert()
        .success();
    let out = dir.path().join("joined.gesichter");
    let mut edit = llv();
    edit.arg("edit");
    for _ in 0..10 {
        edit.arg(&lines);
    }
    edit.arg("-o").arg(&out).arg("--join").assert().success();
    let packets = llv_packets(&out);
    assert_eq!(packets.len(), 40_300);
    // One member: a single-member reader gets all of it (llv_packets read it so),
    // and nothing follows it.
    let file = fs::read(&out).unwrap();
    let mut single = flate2::read::GzDecoder::new(file.as_slice());
    let mut body = Vec::new();
    std::io::Read::read_to_end(&mut single, &mut body).unwrap();
    let mut multi = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(file.as_slice()),
        &mut multi,
    )
    .unwrap();
    assert_eq!(body, multi);
    // Python's gzip module, which LLV reads with: the same bytes, count and frames.
    let script = "import gzip, struct, sys\n\
                  data = gzip.open(sys.argv[1], 'rb').read()\n\
                  open(sys.argv[2], 'wb').write(data)\n\
                  version, count = struct.unpack('>BL', data[:5])\n\
                  at, frames = 5, 0\n\
                  while at < len(data):\n\
                  \x20   (n,) = struct.unpack('>L', data[at:at + 4]); at += 4 + n; frames += 1\n\
                  print(version, count, frames)\n";
    let copy = dir.path().join("python.bin");
    let python = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&out)
        .arg(&copy)
        .output()
        .expect("python3 runs");
    assert!(
        python.status.success(),
        "{}",
        String::from_utf8_lossy(&python.stderr)
    );
    assert_eq!(
        String::from_utf8(python.stdout).unwrap().trim(),
        "6 40300 40300"
    );
    assert!(
        fs::read(&copy).unwrap() == body,
        "python's gzip reads other bytes"
    );
}
