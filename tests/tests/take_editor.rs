//! `llv edit`, `remap`, `import`, `plot`, `info`'s cadence, completions and
//! man pages, through the real binary on the repository's real takes
//! (`alex_rom_3.csv`, a real 30 Hz-ish phone CSV take; `dao.gesichter`, a
//! real 60 fps capture). Packets are compared with the input's, bit for bit.

use std::fs;
use std::path::{Path, PathBuf};

use llv_core::blendshape::{index_of, COUNT};
use llv_core::packet::FaceFrame;
use llv_tests::phone::phone_take;
use llv_tests::{example, fixture, llv, llv_packets, native_packets, Recorder};
use predicates::str::contains;

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn alex() -> PathBuf {
    fixture("llf/alex_rom_3.csv")
}

/// Runs `llv ARGS` and expects success.
fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let out = llv()
        .args(args.iter().map(|a| a.as_ref()))
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap()
}

/// `path` converted to native lines (the packets as `llv` reads them).
fn packets_of(path: &Path, dir: &Path) -> Vec<Vec<u8>> {
    let lines = dir.join(format!(
        "{}.as-lines.gesichter-lines",
        path.file_name().unwrap().to_string_lossy()
    ));
    run(&[&"convert", &path, &lines, &"--force"]);
    native_packets(&lines)
}

fn frame(packet: &[u8]) -> FaceFrame<'_> {
    FaceFrame::decode(packet).unwrap()
}

/// The frame-number bytes of a packet: after version, id and subject.
fn frame_number_range(packet: &[u8]) -> std::ops::Range<usize> {
    let id = i32::from_be_bytes(packet[1..5].try_into().unwrap()) as usize;
    let at = 5 + id;
    let subject = i32::from_be_bytes(packet[at..at + 4].try_into().unwrap()) as usize;
    let start = at + 4 + subject;
    start..start + 4
}

/// The timecode column of the CSV, read here (not by llv): frames at 60 fps, fraction included.
fn csv_times(path: &Path) -> Vec<f64> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|line| {
            let tc = line.split(',').next().unwrap();
            let parts: Vec<&str> = tc.split(':').collect();
            let n = |i: usize| parts[i].parse::<f64>().unwrap();
            ((n(0) * 60.0 + n(1)) * 60.0 + n(2)) * 60.0 + n(3)
        })
        .collect()
}

#[test]
fn trim_by_timecode_gives_the_exact_frames_of_the_take() {
    let dir = temp();
    let all = packets_of(&alex(), dir.path());
    let times = csv_times(&alex());
    assert_eq!(all.len(), times.len());
    let out = dir.path().join("cut.gesichter");
    let said = run(&[
        &"edit",
        &alex(),
        &out,
        &"--from",
        &"13:13:10:00",
        &"--to",
        &"13:13:20:00",
    ]);
    let from = ((13.0 * 60.0 + 13.0) * 60.0 + 10.0) * 60.0;
    let to = from + 600.0;
    let expected: Vec<Vec<u8>> = all
        .iter()
        .zip(&times)
        .filter(|(_, t)| from <= **t && **t < to)
        .map(|(p, _)| p.clone())
        .collect();
    assert_eq!(expected.len(), 300, "10 s of a 30 Hz take");
    assert_eq!(llv_packets(&out), expected);
    assert!(said.contains("kept 300 of 4030 frames"), "{said}");
    // By seconds and by frame index, the same frames.
    let by_index = dir.path().join("index.gesichter");
    let first = times.iter().position(|t| *t >= from).unwrap();
    run(&[
        &"edit",
        &alex(),
        &by_index,
        &"--from-frame",
        &first.to_string(),
        &"--to-frame",
        &(first + 300).to_string(),
    ]);
    assert_eq!(llv_packets(&by_index), expected);
}

#[test]
fn join_then_trim_gives_back_the_parts_bit_exact() {
    let dir = temp();
    let dao = example("dao.gesichter");
    let original = llv_packets(&dao);
    let (a, b) = (
        dir.path().join("a.gesichter"),
        dir.path().join("b.gesichter"),
    );
    run(&[&"edit", &dao, &a, &"--to-frame", &"90"]);
    run(&[&"edit", &dao, &b, &"--from-frame", &"90"]);
    assert_eq!(llv_packets(&a), original[..90]);
    assert_eq!(llv_packets(&b), original[90..]);
    // Joined keeping times: the take again; trimmed: the parts.
    let joined = dir.path().join("ab.gesichter");
    run(&[&"edit", &a, &b, &"-o", &joined, &"--join", &"--keep-time"]);
    assert_eq!(llv_packets(&joined), original);
    let (a2, b2) = (
        dir.path().join("a2.gesichter"),
        dir.path().join("b2.gesichter"),
    );
    run(&[&"edit", &joined, &a2, &"--to-frame", &"90"]);
    run(&[&"edit", &joined, &b2, &"--from-frame", &"90"]);
    assert_eq!(llv_packets(&a2), original[..90]);
    assert_eq!(llv_packets(&b2), original[90..]);

    // dao twice, the time continuing: the second copy moves by whole frames,
    // one frame after the first copy's last; every other byte is the take's.
    let twice = dir.path().join("twice.gesichter");
    let said = run(&[&"edit", &dao, &dao, &"-o", &twice, &"--join"]);
    let packets = llv_packets(&twice);
    assert_eq!(packets.len(), 360);
    assert_eq!(packets[..180], original[..]);
    let last = frame(&original[179]).time.frame_number;
    let step = last - frame(&original[178]).time.frame_number;
    let shift = last + step - frame(&original[0]).time.frame_number;
    for (copy, orig) in packets[180..].iter().zip(&original) {
        let range = frame_number_range(orig);
        assert_eq!(copy[..range.start], orig[..range.start]);
        assert_eq!(copy[range.end..], orig[range.end..]);
        assert_eq!(
            frame(copy).time.frame_number,
            frame(orig).time.frame_number + shift
        );
    }
    let seconds = f64::from(shift) / 60.0;
    assert!(
        said.contains(&format!("moved 0:00:{seconds:06.3} later")),
        "{said}"
    );
    let second = dir.path().join("second.gesichter");
    run(&[&"edit", &twice, &second, &"--from-frame", &"180"]);
    assert_eq!(llv_packets(&second), packets[180..]);
}

#[test]
fn retime_thirty_to_sixty_to_thirty_returns_the_values() {
    let dir = temp();
    // The phone's take comes every second timecode frame with jitter; on a 30 fps grid first.
    let (a, b, c) = (
        dir.path().join("30.gesichter"),
        dir.path().join("60.gesichter"),
        dir.path().join("30again.gesichter"),
    );
    run(&[&"edit", &alex(), &a, &"--retime", &"30"]);
    run(&[&"edit", &a, &b, &"--retime", &"60"]);
    run(&[&"edit", &b, &c, &"--retime", &"30"]);
    let (thirty, sixty, again) = (llv_packets(&a), llv_packets(&b), llv_packets(&c));
    assert!((4025..=4035).contains(&thirty.len()), "{}", thirty.len());
    assert_eq!(
        sixty.len(),
        2 * thirty.len(),
        "the same duration at twice the rate"
    );
    assert_eq!(again.len(), thirty.len());
    let rate = |p: &[u8]| {
        let t = frame(p).time.rate;
        (t.numerator, t.denominator)
    };
    assert!(sixty.iter().all(|p| rate(p) == (60, 1)));
    for (x, y) in thirty.iter().zip(&again) {
        let (x, y) = (frame(x), frame(y));
        assert_eq!(x.time, y.time);
        for (u, v) in x.blendshapes.iter().zip(y.blendshapes) {
            assert!((u - v).abs() <= 1e-6 * u.abs().max(1.0), "{u} vs {v}");
        }
    }
    // At 60 fps every second frame is a 30 fps frame; the ones between lie between.
    let jaw = index_of("JawOpen").unwrap();
    for (i, pair) in thirty.windows(2).enumerate() {
        let (p, q) = (
            frame(&pair[0]).blendshapes[jaw],
            frame(&pair[1]).blendshapes[jaw],
        );
        assert_eq!(frame(&sixty[2 * i]).blendshapes[jaw], p);
        let mid = frame(&sixty[2 * i + 1]).blendshapes[jaw];
        assert!(mid >= p.min(q) - 1e-7 && mid <= p.max(q) + 1e-7);
    }
    // The 30 Hz CSV becomes a 60 fps take of the same duration (one more frame at most).
    let direct = dir.path().join("direct60.gesichter");
    run(&[&"edit", &alex(), &direct, &"--retime", &"60"]);
    let direct = llv_packets(&direct);
    assert!((8055..=8070).contains(&direct.len()), "{}", direct.len());
}

#[test]
fn mirror_twice_is_identity_and_once_swaps_sides() {
    let dir = temp();
    let dao = example("dao.gesichter");
    let (once, twice) = (
        dir.path().join("m1.gesichter"),
        dir.path().join("m2.gesichter"),
    );
    run(&[&"edit", &dao, &once, &"--mirror"]);
    run(&[&"edit", &once, &twice, &"--mirror"]);
    let original = llv_packets(&dao);
    assert_eq!(llv_packets(&twice), original);
    let mirrored = llv_packets(&once);
    let at = |n: &str| index_of(n).unwrap();
    for (m, o) in mirrored.iter().zip(&original) {
        let (m, o) = (frame(m), frame(o));
        assert_eq!(
            m.blendshapes[at("EyeBlinkLeft")],
            o.blendshapes[at("EyeBlinkRight")]
        );
        assert_eq!(
            m.blendshapes[at("MouthLeft")],
            o.blendshapes[at("MouthRight")]
        );
        assert_eq!(m.blendshapes[at("JawOpen")], o.blendshapes[at("JawOpen")]);
        assert_eq!(m.blendshapes[at("HeadYaw")], -o.blendshapes[at("HeadYaw")]);
        assert_eq!(
            m.blendshapes[at("HeadPitch")],
            o.blendshapes[at("HeadPitch")]
        );
        assert_eq!(
            m.blendshapes[at("LeftEyeYaw")],
            -o.blendshapes[at("RightEyeYaw")]
        );
    }
}

#[test]
fn value_edits_touch_only_their_shape_and_dry_run_writes_nothing() {
    let dir = temp();
    let dao = example("dao.gesichter");
    let original = llv_packets(&dao);
    let out = dir.path().join("gain.gesichter");
    let modifiers = dir.path().join("modifiers.json");
    fs::write(&modifiers, r#"{"mouthClose": 2.0}"#).unwrap();
    run(&[
        &"edit",
        &dao,
        &out,
        &"--gain",
        &"JawOpen=0.5",
        &"--modifiers",
        &modifiers,
        &"--zero",
        &"TongueOut",
    ]);
    let edited = llv_packets(&out);
    let (jaw, close, tongue) = (
        index_of("JawOpen").unwrap(),
        index_of("MouthClose").unwrap(),
        index_of("TongueOut").unwrap(),
    );
    for (e, o) in edited.iter().zip(&original) {
        let (fe, fo) = (frame(e), frame(o));
        assert_eq!(
            fe.blendshapes[jaw],
            (f64::from(fo.blendshapes[jaw]) * 0.5) as f32
        );
        assert_eq!(
            fe.blendshapes[close],
            (f64::from(fo.blendshapes[close]) * 2.0) as f32
        );
        assert_eq!(fe.blendshapes[tongue], 0.0);
        // Every other byte is the input's.
        let values_at = e.len() - COUNT * 4;
        assert_eq!(e[..values_at], o[..values_at]);
        for i in (0..COUNT).filter(|i| ![jaw, close, tongue].contains(i)) {
            let at = values_at + 4 * i;
            assert_eq!(e[at..at + 4], o[at..at + 4], "shape {i}");
        }
    }
    // Clamp: within range after, and a no-op clamp changes nothing at all.
    let clamped = dir.path().join("clamped.gesichter");
    run(&[
        &"edit",
        &dao,
        &clamped,
        &"--clamp",
        &"-10..10",
        &"--gain",
        &"JawOpen=1",
    ]);
    assert_eq!(llv_packets(&clamped), original);
    let dry = dir.path().join("dry.gesichter");
    llv()
        .args([
            "edit",
            "--dry-run",
            "--retime",
            "30",
            "--mirror",
            "--smooth",
        ])
        .arg(&dao)
        .arg(&dry)
        .assert()
        .success()
        .stdout(contains("dry run: nothing written"))
        .stdout(contains("retime: 180 frames (timecode 60 fps) -> "))
        .stdout(contains("mirror: "))
        .stdout(contains("smooth (one-euro"));
    assert!(!dry.exists());
}

#[test]
fn smoothing_changes_only_the_chosen_shapes() {
    let dir = temp();
    let out = dir.path().join("smooth.gesichter");
    run(&[
        &"edit",
        &alex(),
        &out,
        &"--smooth",
        &"--smooth-shapes",
        &"JawOpen",
    ]);
    let (original, smooth) = (packets_of(&alex(), dir.path()), llv_packets(&out));
    let jaw = index_of("JawOpen").unwrap();
    let mut changed = 0;
    for (s, o) in smooth.iter().zip(&original) {
        let (fs_, fo) = (frame(s), frame(o));
        for i in (0..COUNT).filter(|i| *i != jaw) {
            assert_eq!(fs_.blendshapes[i].to_bits(), fo.blendshapes[i].to_bits());
        }
        changed += usize::from(fs_.blendshapes[jaw] != fo.blendshapes[jaw]);
    }
    assert!(changed > 3000, "{changed}");
}

#[test]
fn remap_with_a_table_gives_hand_computed_values() {
    let dir = temp();
    let table = dir.path().join("rig.csv");
    fs::write(
        &table,
        "arkit,target,weight\nBrowOuterUpLeft,Brow_L,1\nBrowOuterUpRight,Brow_L,-0.5\nJawRight,Jaw_Side,2\nJawOpen,Jaw_Open\n",
    )
    .unwrap();
    let out = dir.path().join("rig.out.csv");
    run(&[&"remap", &alex(), &"--map", &table, &"-o", &out]);
    let text = fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("Timecode,Brow_L,Jaw_Side,Jaw_Open"));
    // The first row of alex_rom_3.csv: BrowOuterUpLeft 0.0812982991,
    // BrowOuterUpRight 0.0812592879, JawRight 0.0185036063, JawOpen 0.0190581698.
    // Brow_L = 0.0812982991 - 0.5 x 0.0812592879 = 0.04066865515 (of the f32 values:
    // 0.0406686552 to 10 decimals); Jaw_Side = 2 x 0.0185036063; Jaw_Open = JawOpen.
    assert_eq!(
        lines.next(),
        Some("13:13:04:31.652,0.0406686552,0.0370072126,0.0190581698")
    );
    assert_eq!(text.lines().count(), 4031);
    // LLV's mapping library JSON: missing entries, a modifier.
    let json = dir.path().join("cc.json");
    fs::write(
        &json,
        r#"{"mapping": {"jawOpen": "CC_Mouth_Open", "tongueOut": null}, "modifiers": {"jawOpen": 0.5}}"#,
    )
    .unwrap();
    let out = dir.path().join("cc.out.csv");
    run(&[&"remap", &alex(), &"--map", &json, &"-o", &out]);
    let text = fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("Timecode,CC_Mouth_Open\n13:13:04:31.652,0.0095290849\n"),
        "{}",
        &text[..80]
    );
}

/// A glTF file in its JSON form with one mesh of two morph targets named in
/// `extras.targetNames` and one animation of their weights (linear, 3 keys).
fn write_gltf(path: &Path) {
    use base64::Engine;
    let times = [0.0f32, 0.5, 1.0];
    // Per key: (Jaw, Blink_L).
    let weights = [0.0f32, 0.25, 1.0, 0.5, 0.0, 0.75];
    let positions = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let mut bytes: Vec<u8> = Vec::new();
    for v in times.iter().chain(&weights).chain(&positions) {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let json = serde_json::json!({
        "asset": {"version": "2.0", "generator": "llv tests"},
        "buffers": [{"byteLength": bytes.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 12},
            {"buffer": 0, "byteOffset": 12, "byteLength": 24},
            {"buffer": 0, "byteOffset": 36, "byteLength": 36}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "componentType": 5126, "count": 6, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}
        ],
        "meshes": [{
            "name": "Face",
            "primitives": [{"attributes": {"POSITION": 2}, "targets": [{"POSITION": 2}, {"POSITION": 2}]}],
            "weights": [0.0, 0.0],
            "extras": {"targetNames": ["Jaw", "Blink_L"]}
        }],
        "nodes": [{"mesh": 0, "name": "Face"}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
        "animations": [{
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
            "samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}]
        }]
    });
    fs::write(path, serde_json::to_string_pretty(&json).unwrap()).unwrap();
}

#[test]
fn a_gltf_animation_imports_to_the_expected_frames() {
    let dir = temp();
    let gltf_path = dir.path().join("face.gltf");
    write_gltf(&gltf_path);
    // The gltf crate itself reads and validates what the test wrote.
    let doc = gltf::Gltf::open(&gltf_path).unwrap();
    assert_eq!(doc.animations().count(), 1);
    let map = dir.path().join("rig.csv");
    fs::write(&map, "JawOpen,Jaw,1\nEyeBlinkLeft,Blink_L,0.5\n").unwrap();
    let out = dir.path().join("face.gesichter");
    let said = run(&[
        &"import",
        &gltf_path,
        &"--map",
        &map,
        &"-o",
        &out,
        &"--start",
        &"01:00:00:00",
    ]);
    assert!(said.contains("wrote 61 frames at 60 fps"), "{said}");
    let packets = llv_packets(&out);
    assert_eq!(packets.len(), 61, "1 s at 60 fps, both ends");
    let (jaw, blink) = (
        index_of("JawOpen").unwrap(),
        index_of("EyeBlinkLeft").unwrap(),
    );
    for (k, p) in packets.iter().enumerate() {
        let f = frame(p);
        assert_eq!(f.time.frame_number, 3600 * 60 + k as i32);
        assert_eq!((f.time.rate.numerator, f.time.rate.denominator), (60, 1));
        assert_eq!(f.subject, "face");
        assert_eq!(f.device_id.len(), 36);
        let t = k as f64 / 60.0;
        // Jaw: 0 -> 1 -> 0 over the keys; Blink_L: 0.25 -> 0.5 -> 0.75, divided by 0.5.
        let (jaw_expected, blink_expected) = if t <= 0.5 {
            (t / 0.5, (0.25 + 0.25 * t / 0.5) / 0.5)
        } else {
            (1.0 - (t - 0.5) / 0.5, (0.5 + 0.25 * (t - 0.5) / 0.5) / 0.5)
        };
        assert!(
            (f64::from(f.blendshapes[jaw]) - jaw_expected).abs() < 1e-6,
            "{k}"
        );
        assert!(
            (f64::from(f.blendshapes[blink]) - blink_expected).abs() < 1e-6,
            "{k}"
        );
        let others = (0..COUNT).filter(|i| *i != jaw && *i != blink);
        assert!(others.map(|i| f.blendshapes[i]).all(|v| v == 0.0));
    }
    // It plays like a phone take: `llv play` to `llv record` over loopback, packet for packet.
    let recorded = dir.path().join("played.gesichter-lines");
    let recorder = Recorder::start(&recorded, &["--frames", "61"]);
    llv()
        .arg("play")
        .arg(&out)
        .args(["--to", &recorder.addr()])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .success();
    let ended = recorder.wait(std::time::Duration::from_secs(10));
    assert!(ended.status.success(), "{}", ended.stderr);
    assert_eq!(native_packets(&recorded), packets);
    // LLV's FBX metadata JSON of the same curve gives the same frames.
    let fbx = dir.path().join("face.fbx.json");
    fs::write(
        &fbx,
        r#"{"shapes": [{"target": "Jaw", "curves": [{"values": [0, 1, 0], "start_time": 0, "end_time": 1}]},
                       {"target": "Blink_L", "curves": [{"values": [0.25, 0.5, 0.75], "start_time": 0, "end_time": 1}]}]}"#,
    )
    .unwrap();
    let from_fbx = dir.path().join("fbx.gesichter");
    run(&[
        &"import",
        &fbx,
        &"--map",
        &map,
        &"-o",
        &from_fbx,
        &"--start",
        &"01:00:00:00",
        &"--subject",
        &"face",
        &"--device-id",
        &frame(&packets[0]).device_id,
    ]);
    let fbx_packets = llv_packets(&from_fbx);
    assert_eq!(fbx_packets.len(), 61);
    for (a, b) in fbx_packets.iter().zip(&packets) {
        let (a, b) = (frame(a), frame(b));
        assert_eq!(a.time, b.time);
        for (x, y) in a.blendshapes.iter().zip(b.blendshapes) {
            assert!((x - y).abs() < 1e-6);
        }
    }
}

#[test]
fn info_tells_a_steady_thirty_hertz_cadence_and_real_gaps_only() {
    let text = run(&[&"info", &"--json", &alex()]);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let hz = json["cadence_hz"].as_f64().unwrap();
    assert!((hz - 30.0).abs() < 0.1, "{hz}");
    assert_eq!(json["steady"], true);
    // Counted in timecode frames nearly every row is a jump of two; against the cadence,
    // three intervals of a frame and a half or more (a dropped frame each).
    assert!(json["frame_number_gaps"].as_u64().unwrap() > 4000, "{json}");
    assert_eq!(json["gaps"], 3, "{json}");
    assert_eq!(json["missing_frames"], 3, "{json}");
    let shown = run(&[&"info", &alex()]);
    assert!(
        shown.contains("cadence    30.000 Hz, steady")
            && shown.contains("a frame every 2 timecode frames at 60 fps"),
        "{shown}"
    );
}

#[test]
fn plots_draw_png_and_svg_with_the_chosen_curves() {
    let dir = temp();
    let png = dir.path().join("alex.png");
    run(&[
        &"plot",
        &alex(),
        &"-o",
        &png,
        &"--width",
        &"800",
        &"--height",
        &"400",
    ]);
    let bytes = fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 800);
    assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 400);
    let svg = dir.path().join("dao.svg");
    run(&[
        &"plot",
        &example("dao.gesichter"),
        &"-o",
        &svg,
        &"--shapes",
        &"JawOpen,HeadYaw",
    ]);
    let text = fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains(">\nJawOpen\n<") && text.contains(">\nHeadYaw\n<"),
        "legend"
    );
    assert!(!text.contains(">\nEyeBlinkLeft\n<"));
    // dao's count runs past a day: its labels wrap to 00:53:15.
    assert!(text.contains("00:53:15:"), "timecode on the axis");
    // dao has one gap of 7 frames: shaded and named in the legend.
    assert!(text.contains(">\ngap\n<"));
    // info --plot writes one beside the take.
    let take = dir.path().join("dao.gesichter");
    fs::copy(example("dao.gesichter"), &take).unwrap();
    run(&[&"info", &take, &"--plot"]);
    assert_eq!(
        &fs::read(dir.path().join("dao.png")).unwrap()[..4],
        b"\x89PNG"
    );
}

#[test]
fn gesichter_means_llv_gzip_and_csv_imports_get_36_character_ids() {
    let dir = temp();
    let out = dir.path().join("alex.gesichter");
    run(&[&"convert", &alex(), &out]);
    let bytes = fs::read(&out).unwrap();
    assert_eq!(&bytes[..2], [0x1f, 0x8b], "LLV's gzip, which LLV reads");
    let packets = llv_packets(&out);
    let id = frame(&packets[0]).device_id.to_string();
    assert_eq!(id.len(), 36);
    assert_eq!(id.matches('-').count(), 4);
    assert!(packets.iter().all(|p| frame(p).device_id == id));
    // Stable: the same take gives the same id again.
    let again = dir.path().join("again.gesichter");
    run(&[&"convert", &alex(), &again]);
    assert_eq!(frame(&llv_packets(&again)[0]).device_id, id);
}

#[test]
fn completions_and_man_pages_come_from_the_command_line() {
    let bash = run(&[&"completions", &"bash"]);
    for command in ["edit", "remap", "import", "plot", "retarget"] {
        assert!(bash.contains(command), "{command}");
    }
    assert!(run(&[&"completions", &"zsh"]).contains("#compdef llv"));
    assert!(run(&[&"completions", &"fish"]).contains("complete -c llv"));
    assert!(run(&[&"completions", &"powershell"]).contains("Register-ArgumentCompleter"));
    let man = run(&[&"man"]);
    assert!(man.contains(".TH llv 1"), "{}", &man[..200]);
    let dir = temp();
    run(&[&"man", &"--dir", &dir.path()]);
    let edit = fs::read_to_string(dir.path().join("llv-edit.1")).unwrap();
    assert!(
        edit.contains("\\-\\-retime") && edit.contains("Examples:"),
        "{edit}"
    );
    // The synopsis names every option's value.
    let plot = fs::read_to_string(dir.path().join("llv-plot.1")).unwrap();
    let synopsis = plot
        .split(".SH SYNOPSIS\n")
        .nth(1)
        .and_then(|rest| rest.split(".SH").next())
        .unwrap();
    for part in [
        "[\\-\\-shapes <A,B,...>]...",
        "[\\-\\-width <WIDTH>]",
        "\\-o|\\-\\-output <PNG|SVG>",
        "<INPUT>",
    ] {
        assert!(synopsis.contains(part), "{part} in {synopsis}");
    }
    for command in ["edit", "remap", "import", "plot", "completions", "man"] {
        llv()
            .args([command, "--help"])
            .assert()
            .success()
            .stdout(contains("Examples:"));
    }
}

/// A column of `alex_rom_3.csv` as the phone wrote it, read here (not by llv).
fn alex_column(name: &str) -> Vec<f32> {
    let text = fs::read_to_string(alex()).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header
        .iter()
        .position(|h| h.eq_ignore_ascii_case(name))
        .unwrap();
    lines
        .map(|l| l.split(',').nth(at).unwrap().parse().unwrap())
        .collect()
}

/// The columns of a curve CSV by name, as f64.
fn curve_columns(path: &Path) -> Vec<(String, Vec<f64>)> {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let mut columns: Vec<(String, Vec<f64>)> = lines
        .next()
        .unwrap()
        .split(',')
        .skip(1)
        .map(|n| (n.to_string(), Vec::new()))
        .collect();
    for line in lines {
        for (cell, (_, values)) in line.split(',').skip(1).zip(columns.iter_mut()) {
            values.push(cell.parse().unwrap());
        }
    }
    columns
}

#[test]
fn llv_mapping_library_files_remap_and_max_keeps_signs() {
    let dir = temp();
    // LLV's own library file, with its "comment", as LLV ships it.
    let gunan = fixture("llv-mappings/ARKit_Gunan_Mapping.json");
    let out = dir.path().join("gunan.csv");
    for combine in ["sum", "max"] {
        run(&[
            &"remap",
            &alex(),
            &"--map",
            &gunan,
            &"-o",
            &out,
            &"--combine",
            &combine,
            &"--force",
        ]);
        let columns = curve_columns(&out);
        let eye_down = &columns.iter().find(|(n, _)| n == "EyeDown_R").unwrap().1;
        // RightEyePitch,EyeDown_R with modifier -1: one shape alone drives it,
        // so sum and max both give -RightEyePitch, negative values included.
        let pitch = alex_column("RightEyePitch");
        assert_eq!(eye_down.len(), pitch.len());
        let mut negative = 0;
        for (got, p) in eye_down.iter().zip(&pitch) {
            let want = -f64::from(*p);
            assert!((got - want).abs() <= 5e-11, "{combine}: {got} vs {want}");
            negative += usize::from(want < -1e-9);
        }
        assert!(negative > 100, "{combine}: {negative} negative values");
        // BrowDownLeft and BrowDownRight both drive BrowsU_C.
        let brows = &columns.iter().find(|(n, _)| n == "BrowsU_C").unwrap().1;
        let (l, r) = (alex_column("BrowDownLeft"), alex_column("BrowDownRight"));
        let want = |i: usize| match combine {
            "sum" => f64::from(l[i]) + f64::from(r[i]),
            _ => f64::from(l[i]).max(f64::from(r[i])),
        };
        for (i, got) in brows.iter().enumerate() {
            assert!((got - want(i)).abs() <= 1e-10, "{combine} row {i}");
        }
    }
    // The Character Creator library file reads too.
    let cc = dir.path().join("cc.csv");
    run(&[
        &"remap",
        &alex(),
        &"--map",
        &fixture("llv-mappings/ARKit_CC_Mapping.json"),
        &"-o",
        &cc,
    ]);
    assert!(fs::read_to_string(&cc)
        .unwrap()
        .starts_with("Timecode,Eye_Blink_L,"));
}

/// LLV's FBX metadata JSON holding `columns` as curves, one value per 1/30 s.
fn write_fbx_json(path: &Path, columns: &[(String, Vec<f64>)]) {
    let shapes: Vec<serde_json::Value> = columns
        .iter()
        .map(|(target, values)| {
            serde_json::json!({"target": target, "curves": [{
                "values": values,
                "start_time": 0.0,
                "end_time": (values.len() - 1) as f64 / 30.0,
            }]})
        })
        .collect();
    fs::write(path, serde_json::json!({ "shapes": shapes }).to_string()).unwrap();
}

#[test]
fn remap_then_import_gives_the_phone_take_back() {
    let dir = temp();
    // LLV's library layout with modifiers that are not 1 (a "comment" too).
    let map = dir.path().join("rig.json");
    fs::write(
        &map,
        r#"{"comment": "a rig of four targets",
            "mapping": {"JawOpen": "Mouth_Open", "EyeBlinkLeft": "Eye_Blink_L",
                        "RightEyePitch": "Eye_Down_R", "BrowInnerUp": "Brows_Up"},
            "modifiers": {"JawOpen": 0.8, "RightEyePitch": -1.0, "BrowInnerUp": 2.5},
            "reverse": {"Mouth_Open": "JawOpen", "Eye_Blink_L": "EyeBlinkLeft",
                        "Eye_Down_R": "RightEyePitch", "Brows_Up": "BrowInnerUp"}}"#,
    )
    .unwrap();
    let curves = dir.path().join("alex.rig.csv");
    run(&[&"remap", &alex(), &"--map", &map, &"-o", &curves]);
    let mut columns = curve_columns(&curves);
    // The rig's tools write target names in their own case (LLV matches them ignoring it).
    columns[0].0 = "mouth_open".into();
    let fbx = dir.path().join("alex.fbx.json");
    write_fbx_json(&fbx, &columns);
    let back = dir.path().join("back.gesichter");
    let said = run(&[
        &"import", &fbx, &"--map", &map, &"-o", &back, &"--fps", &"30",
    ]);
    assert!(!said.contains("warning"), "{said}");
    let packets = llv_packets(&back);
    assert_eq!(packets.len(), 4030);
    for name in ["JawOpen", "EyeBlinkLeft", "RightEyePitch", "BrowInnerUp"] {
        let shape = index_of(name).unwrap();
        for (i, (p, want)) in packets.iter().zip(alex_column(name)).enumerate() {
            let got = frame(p).blendshapes[shape];
            assert!(
                (got - want).abs() <= 2e-7,
                "{name} frame {i}: {got} vs {want}"
            );
        }
    }
    // LLV 1.4's importer multiplies by the modifier instead: JawOpen x 0.8 x 0.8.
    let llv_way = dir.path().join("llv-way.gesichter");
    run(&[
        &"import",
        &fbx,
        &"--map",
        &map,
        &"-o",
        &llv_way,
        &"--fps",
        &"30",
        &"--llv-modifiers",
    ]);
    let jaw = index_of("JawOpen").unwrap();
    for (p, original) in llv_packets(&llv_way).iter().zip(alex_column("JawOpen")) {
        let want = f64::from(original) * 0.8 * 0.8;
        assert!((f64::from(frame(p).blendshapes[jaw]) - want).abs() <= 2e-7);
    }
}

#[test]
fn inverted_trims_are_refused_naming_both_bounds() {
    let dir = temp();
    let out = dir.path().join("cut.gesichter");
    for (flags, bounds) in [
        (
            ["--from", "13:13:10:00", "--to", "13:13:04:00"],
            "13:13:10:00.000 to 13:13:04:00.000",
        ),
        (
            ["--from-frame", "10", "--to-frame", "5"],
            "frame 10 to frame 5",
        ),
        (["--from-seconds", "5", "--to-seconds", "2"], "5 s to 2 s"),
    ] {
        llv()
            .arg("edit")
            .arg(alex())
            .arg(&out)
            .args(flags)
            .assert()
            .failure()
            .stderr(contains(format!(
                "trim from {bounds}: the in point is not before the out point"
            )));
        assert!(!out.exists(), "{flags:?}");
    }
}

#[test]
fn a_take_through_midnight_edits_as_it_runs() {
    // 300 rows (10 s of the 30 Hz phone take) from 23:59:55:00.
    let dir = temp();
    let take = phone_take(dir.path(), "midnight.csv", 300, Some("23:59:55:00"));
    let json: serde_json::Value = serde_json::from_str(&run(&[&"info", &"--json", &take])).unwrap();
    let duration = json["duration_seconds"].as_f64().unwrap();
    assert!((duration - 10.0).abs() < 0.1, "{json}");
    assert_eq!(json["backward_jumps"], 0, "{json}");
    assert_eq!(json["gaps"], 0, "{json}");
    let last = json["last"]["timecode"].as_str().unwrap();
    assert!(last.starts_with("00:00:04:"), "{last}");

    let count = |args: &[&dyn AsRef<std::ffi::OsStr>]| {
        let out = dir.path().join("out.gesichter");
        let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"edit", &take, &out, &"--force"];
        all.extend_from_slice(args);
        run(&all);
        llv_packets(&out)
    };
    // Retimed to 60 fps: twice the frames, the same 10 s, labels wrapping.
    let sixty = count(&[&"--retime", &"60"]);
    assert!((599..=601).contains(&sixty.len()), "{}", sixty.len());
    let labels: Vec<String> = sixty
        .iter()
        .map(|p| frame(p).time.timecode().unwrap().to_string())
        .collect();
    assert!(labels.iter().all(|l| !l.starts_with("24")), "{labels:?}");
    assert!(
        labels.iter().any(|l| l.starts_with("00:00:00:")),
        "{labels:?}"
    );
    // Seconds 3 to 7, and 23:59:58:00 to 00:00:02:00: 4 s, 120 frames each.
    assert!((119..=121).contains(&count(&[&"--from-seconds", &"3", &"--to-seconds", &"7"]).len()));
    let across = count(&[&"--from", &"23:59:58:00", &"--to", &"00:00:02:00"]);
    assert!((119..=121).contains(&across.len()), "{}", across.len());

    // Joined after it, alex's own start follows on from 00:00:05, below 24 h.
    let second = phone_take(dir.path(), "second.csv", 60, None);
    let joined = dir.path().join("joined.gesichter");
    let said = run(&[&"edit", &take, &second, &"-o", &joined, &"--join"]);
    let packets = llv_packets(&joined);
    assert_eq!(packets.len(), 360);
    let hours: Vec<u32> = packets
        .iter()
        .map(|p| frame(p).time.timecode().unwrap().hours)
        .collect();
    assert!(hours.iter().all(|h| *h == 23 || *h == 0), "{hours:?}");
    let label = frame(&packets[300]).time.timecode().unwrap().to_string();
    assert!(label.starts_with("00:00:05:"), "{label}");
    // From 13:13:04 to 00:00:05 the next day: the short way is 10 h 47 min on.
    assert!(said.contains("moved 10:47:00.4"), "{said}");
}

/// alex_rom_3.csv's frames: times (s from the first) and values in packet order.
fn alex_frames() -> Vec<(f64, [f32; COUNT])> {
    let text = fs::read_to_string(alex()).unwrap();
    let mut lines = text.lines();
    let header: Vec<usize> = lines
        .next()
        .unwrap()
        .split(',')
        .skip(2)
        .map(|name| index_of(name).unwrap())
        .collect();
    let times = csv_times(&alex());
    lines
        .zip(&times)
        .map(|(line, t)| {
            let mut values = [0.0f32; COUNT];
            for (field, &at) in line.split(',').skip(2).zip(&header) {
                values[at] = field.parse().unwrap();
            }
            ((t - times[0]) / 60.0, values)
        })
        .collect()
}

#[test]
fn retime_reads_a_phone_takes_curves_on_the_new_grid() {
    // A phone take's frames sit on no fixed grid (alex_rom_3's capture clock
    // drifts against its timecode, and it has gaps): retime reads the take's
    // curves, linear between its frames, at each new frame's time. So CSV ->
    // 60 -> 30 is CSV -> 30 bit for bit, every value is the interpolation of
    // the phone's frames at its time, and it differs from the nearest phone
    // frame by how far the face moved in between (host/README.md, retime).
    let dir = temp();
    let (sixty, thirty, direct) = (
        dir.path().join("60.gesichter"),
        dir.path().join("60-30.gesichter"),
        dir.path().join("30.gesichter"),
    );
    run(&[&"edit", &alex(), &sixty, &"--retime", &"60"]);
    run(&[&"edit", &sixty, &thirty, &"--retime", &"30"]);
    run(&[&"edit", &alex(), &direct, &"--retime", &"30"]);
    assert_eq!(llv_packets(&thirty), llv_packets(&direct));

    let phone = alex_frames();
    let first = frame(&llv_packets(&sixty)[0]).time;
    let mut nearest_max = 0.0f32;
    for packet in llv_packets(&sixty).iter().chain(&llv_packets(&thirty)) {
        let f = frame(packet);
        let t = f.time.seconds_since(&first).unwrap();
        let j = phone.partition_point(|(pt, _)| *pt <= t + 1e-9) - 1;
        let (t0, v0) = phone[j];
        let (t1, v1) = phone.get(j + 1).copied().unwrap_or((t0, v0));
        let alpha = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
        let near = if t - t0 <= t1 - t { v0 } else { v1 };
        for ((out, (a, b)), n) in f.blendshapes.iter().zip(v0.iter().zip(v1)).zip(near) {
            let step = f64::from(b) - f64::from(*a);
            let want = f64::from(*a) + step * alpha.min(1.0);
            // Times travel as f32 subframes: a thousandth of a frame's step of slack.
            let slack = 1e-6 + step.abs() * 1e-3;
            assert!(
                (f64::from(*out) - want).abs() < slack,
                "{out} vs {want} at {t} s"
            );
            nearest_max = nearest_max.max((out - n).abs());
        }
    }
    eprintln!("largest difference from the nearest phone frame: {nearest_max}");
    // The bound host/README.md states for this take.
    assert!(nearest_max > 0.0 && nearest_max < 0.34, "{nearest_max}");
}
