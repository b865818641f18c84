//! Live Link Face CSV takes: import to packets, export back, on the real take.

use std::path::Path;

use llv::recording::csv::{self as csv_take, ImportOptions};
use llv_core::packet::FaceFrame;
use llv_core::time::FrameRate;
use llv_tests::{example, fixture, llv_packets};

fn alex() -> std::path::PathBuf {
    fixture("llf/alex_rom_3.csv")
}

fn import(path: &Path) -> Vec<Vec<u8>> {
    to_vecs(csv_take::import(path, &ImportOptions::default()).unwrap())
}

fn to_vecs(take: llv::take::Take) -> Vec<Vec<u8>> {
    take.packets().map(<[u8]>::to_vec).collect()
}

#[test]
fn alex_rom_3_imports_4030_frames_timed_by_their_timecode() {
    let packets = import(&alex());
    assert_eq!(packets.len(), 4030);
    let frames: Vec<FaceFrame> = packets
        .iter()
        .map(|p| FaceFrame::decode(p).unwrap())
        .collect();

    // First row 13:13:04:31.652, last row 13:15:18:54.561, at 60 fps.
    let first = frames[0].time;
    let last = frames[4029].time;
    assert_eq!(first.rate, FrameRate::new(60, 1));
    assert_eq!(first.frame_number, ((13 * 60 + 13) * 60 + 4) * 60 + 31);
    assert_eq!(first.subframe, 0.652);
    assert_eq!(last.frame_number, ((13 * 60 + 15) * 60 + 18) * 60 + 54);
    assert_eq!(last.subframe, 0.561);

    // Rows come every 2nd timecode frame (every 4th where the phone dropped one):
    // the take runs at about 30 Hz, and its time comes from the timecode.
    let span = last.seconds_since(&first).unwrap();
    assert!((span - 134.3818).abs() < 1e-3, "{span}");
    let hz = 4029.0 / span;
    assert!((29.9..30.1).contains(&hz), "{hz} Hz");
    for pair in frames.windows(2) {
        let step = pair[1].time.seconds_since(&pair[0].time).unwrap() * 60.0;
        assert!(
            (step - 2.0).abs() < 0.01 || (step - 4.0).abs() < 0.01,
            "step of {step} frames"
        );
    }

    // Values land by name: the CSV has JawRight before JawLeft.
    let jaw_right = llv_core::blendshape::index_of("JawRight").unwrap();
    let brow = llv_core::blendshape::index_of("BrowOuterUpLeft").unwrap();
    let yaw = llv_core::blendshape::index_of("LeftEyeYaw").unwrap();
    let value = |text: &str| text.parse::<f32>().unwrap();
    assert_eq!(frames[0].blendshapes[jaw_right], value("0.0185036063"));
    assert_eq!(frames[0].blendshapes[brow], value("0.0812982991"));
    assert_eq!(frames[0].blendshapes[yaw], value("-0.0312639736"));

    // No take.json and no <Slate>_<Take>_<Subject> name: the stem is the subject.
    assert_eq!(frames[0].subject, "alex_rom_3");
    // No device id given: a stable 36-character one derived from the take's name.
    assert_eq!(
        frames[0].device_id,
        llv::take::derived_device_id("alex_rom_3")
    );
    assert_eq!(frames[0].device_id.len(), 36);
    assert!(frames.iter().all(|f| f.device_id == frames[0].device_id));
}

#[test]
fn csv_to_packets_to_csv_gives_back_the_same_file() {
    let original = std::fs::read(alex()).unwrap();
    let mut out = Vec::new();
    csv_take::export(import(&alex()).iter().map(Vec::as_slice), &mut out).unwrap();
    let (out, original) = (
        String::from_utf8(out).unwrap(),
        String::from_utf8(original).unwrap(),
    );
    for (n, (a, b)) in out.lines().zip(original.lines()).enumerate() {
        for (c, (x, y)) in a.split(',').zip(b.split(',')).enumerate() {
            assert_eq!(x, y, "line {}, column {}", n + 1, c + 1);
        }
    }
    assert!(out == original, "export differs from the phone's CSV");
}

#[test]
fn exported_recording_reimports_with_its_timecodes_and_values() {
    // A real 60 fps capture: timecodes at 3 decimals and values at 10 decimals
    // (the app's format) read back as what the CSV says, row for row.
    let packets = llv_packets(&example("dao.gesichter"));
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("Dao_1_iPhone.csv");
    let mut out = Vec::new();
    csv_take::export(packets.iter().map(Vec::as_slice), &mut out).unwrap();
    std::fs::write(&csv, &out).unwrap();
    let back = import(&csv);
    assert_eq!(back.len(), packets.len());
    for (a, b) in packets.iter().zip(&back) {
        let (a, b) = (FaceFrame::decode(a).unwrap(), FaceFrame::decode(b).unwrap());
        // A CSV holds labels, which wrap at 24 hours: dao's count (past a
        // day, 24:53:15:35 in frames) comes back as its time of day.
        assert_eq!(Some(b.time.frame_number as u32), a.time.frame_of_day());
        assert!((a.time.subframe - b.time.subframe).abs() < 1e-3);
        for (x, y) in a.blendshapes.iter().zip(&b.blendshapes) {
            // 10 decimals, then the nearest f32.
            assert!(
                (x - y).abs() <= 5e-11 + f32::EPSILON * x.abs(),
                "{x} vs {y}"
            );
        }
        assert_eq!(b.subject, "iPhone");
    }
    let mut again = Vec::new();
    csv_take::export(back.iter().map(Vec::as_slice), &mut again).unwrap();
    assert!(again == out, "second export differs from the first");
}

#[test]
fn take_json_and_options_name_subject_and_device() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("alex_rom_3.csv");
    std::fs::copy(alex(), &csv).unwrap();
    std::fs::write(
        dir.path().join("take.json"),
        r#"{"frames":4029,"slate":"alex","take":3,"subject":"AlexFace","deviceModel":"iPhone12,1"}"#,
    )
    .unwrap();
    let packets = import(&csv);
    let f = FaceFrame::decode(&packets[0]).unwrap();
    // deviceModel names the phone's model, not a device: the id is still derived.
    assert_eq!(
        (f.subject, f.device_id),
        (
            "AlexFace",
            llv::take::derived_device_id("alex_rom_3").as_str()
        )
    );

    let opts = ImportOptions {
        subject: Some("Stage".into()),
        device_id: Some("DEADC0DE-1337-1337-1337-CAFEBABE".into()),
        ..ImportOptions::default()
    };
    let packets = to_vecs(csv_take::import(&csv, &opts).unwrap());
    let f = FaceFrame::decode(&packets[4029]).unwrap();
    assert_eq!(
        (f.subject, f.device_id),
        ("Stage", "DEADC0DE-1337-1337-1337-CAFEBABE")
    );
}

#[test]
fn ntsc_rates_count_drop_frame_labels() {
    // alex's labels count 60 a second without dropping any: at 59.94 (drop-
    // frame) its first minute reads, and the first label drop-frame leaves
    // out (13:14:00:01, frames 00 to 03 of each minute but every tenth) is an
    // error naming its row.
    let opts = ImportOptions {
        rate: FrameRate::parse("59.94").unwrap(),
        ..ImportOptions::default()
    };
    let e = format!("{:#}", csv_take::import(&alex(), &opts).unwrap_err());
    assert!(
        e.contains("line 1666 (row 1665), column 1 (Timecode): `13:14:00:01.202`: drop-frame")
            && e.contains("--rate 30 or 60"),
        "{e}"
    );

    // At 29.97 the base is 30 frames: the take's frame 31 does not exist.
    let opts = ImportOptions {
        rate: FrameRate::parse("29.97").unwrap(),
        ..ImportOptions::default()
    };
    let e = format!("{:#}", csv_take::import(&alex(), &opts).unwrap_err());
    assert!(
        e.contains("line 2 (row 1), column 1 (Timecode): `13:13:04:31.652`"),
        "{e}"
    );
}

#[test]
fn a_drop_frame_take_reads_writes_and_shows_its_labels() {
    // A 29.97 drop-frame CSV through a minute boundary: 00:00:59;28 to
    // 00:01:00;03 (;00 and ;01 do not exist there).
    let text = std::fs::read_to_string(alex()).unwrap();
    let mut lines: Vec<String> = text.lines().take(5).map(str::to_string).collect();
    for (line, label) in lines[1..].iter_mut().zip([
        "00:00:59;28.000",
        "00:00:59;29.000",
        "00:01:00;02.000",
        "00:01:00;03.000",
    ]) {
        let (_, rest) = line.split_once(',').unwrap();
        *line = format!("{label},{rest}");
    }
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("df.csv");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let opts = ImportOptions {
        rate: FrameRate::parse("29.97").unwrap(),
        ..ImportOptions::default()
    };
    let packets = to_vecs(csv_take::import(&csv, &opts).unwrap());
    let numbers: Vec<i32> = packets
        .iter()
        .map(|p| FaceFrame::decode(p).unwrap().time.frame_number)
        .collect();
    assert_eq!(numbers, [1_798, 1_799, 1_800, 1_801], "one frame apart");
    let mut out = Vec::new();
    csv_take::export(packets.iter().map(Vec::as_slice), &mut out).unwrap();
    let written: Vec<&str> = std::str::from_utf8(&out)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(
        written,
        [
            "00:00:59;28.000",
            "00:00:59;29.000",
            "00:01:00;02.000",
            "00:01:00;03.000"
        ]
    );
    // llv info shows the labels, and the take lasts 4 frames of 29.97.
    let take = dir.path().join("df.gesichter");
    llv_tests::llv()
        .args(["convert", "--rate", "29.97"])
        .arg(&csv)
        .arg(&take)
        .assert()
        .success();
    let info = llv_tests::llv().arg("info").arg(&take).assert().success();
    let shown = String::from_utf8(info.get_output().stdout.clone()).unwrap();
    assert!(
        shown.contains("(00:00:59;28.000) to 1801 (00:01:00;03.000)")
            && shown.contains("30000/1001 fps drop-frame (4 frames)"),
        "{shown}"
    );
    // A `;` label at a rate without drop-frame is refused, naming it.
    let e = format!(
        "{:#}",
        csv_take::import(&csv, &ImportOptions::default()).unwrap_err()
    );
    assert!(e.contains("`00:00:59;28.000`: a drop-frame label"), "{e}");
}

#[test]
fn a_broken_row_is_an_error_naming_file_row_and_column() {
    let text = std::fs::read_to_string(alex()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Row 100 (line 101): column 20 (JawOpen) is not a number.
    let mut fields: Vec<&str> = lines[100].split(',').collect();
    fields[19] = "0.01x";
    lines[100] = fields.join(",");
    // Row 200 (line 201) loses its last column.
    let cut = lines[200].rfind(',').unwrap();
    lines[200].truncate(cut);
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("broken.csv");

    std::fs::write(&csv, lines[..150].join("\n")).unwrap();
    let e = format!(
        "{:#}",
        csv_take::import(&csv, &ImportOptions::default()).unwrap_err()
    );
    assert!(e.contains("broken.csv"), "{e}");
    assert!(
        e.ends_with("line 101 (row 100), column 20 (JawOpen): `0.01x` is not a number"),
        "{e}"
    );

    let mut good = lines.clone();
    good[100] = text.lines().nth(100).unwrap().to_string();
    std::fs::write(&csv, good.join("\n")).unwrap();
    let e = format!(
        "{:#}",
        csv_take::import(&csv, &ImportOptions::default()).unwrap_err()
    );
    assert!(
        e.ends_with("line 201 (row 200): 62 columns, the header has 63"),
        "{e}"
    );
}

/// The command line: `llv convert take.csv out.gesichter`, then back to CSV, gives
/// the phone's file again; `--subject` names the subject, `info` reads the CSV.
#[test]
fn convert_on_the_command_line_goes_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("alex.gesichter");
    let csv = dir.path().join("back.csv");
    llv_tests::llv()
        .args(["convert".as_ref(), alex().as_os_str(), rec.as_os_str()])
        .args(["--subject", "Alex"])
        .assert()
        .success();
    let packets = llv_tests::llv_packets(&rec);
    assert_eq!(packets.len(), 4030);
    assert_eq!(FaceFrame::decode(&packets[0]).unwrap().subject, "Alex");
    llv_tests::llv()
        .args(["convert".as_ref(), rec.as_os_str(), csv.as_os_str()])
        .assert()
        .success();
    let original = std::fs::read(alex()).unwrap();
    assert!(
        std::fs::read(&csv).unwrap() == original,
        "CSV -> recording -> CSV differs"
    );
    let info = llv_tests::llv()
        .args(["info".as_ref(), alex().as_os_str(), "--json".as_ref()])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&info.get_output().stdout).into_owned();
    assert!(
        text.contains("\"frames\": 4030") || text.contains("\"frames\":4030"),
        "{text}"
    );
}
