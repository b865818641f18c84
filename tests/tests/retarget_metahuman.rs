//! `llv retarget` on the real take and the real MetaHuman mapping.

use std::path::{Path, PathBuf};

use llv::metahuman::pose_asset::PoseAsset;
use llv::metahuman::t3d;
use llv_tests::{example, fixture, llv, llv_packets};

fn alex() -> PathBuf {
    fixture("llf/alex_rom_3.csv")
}

fn mapping() -> PathBuf {
    fixture("mapping/mh_arkit_mapping_pose.T3D")
}

/// A retargeted CSV: header names and rows split into timecode and values.
struct Curves {
    names: Vec<String>,
    rows: Vec<(String, Vec<f64>)>,
}

impl Curves {
    fn read(path: &Path) -> Curves {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines = text.lines();
        let mut header = lines.next().unwrap().split(',');
        assert_eq!(header.next(), Some("Timecode"));
        let names: Vec<String> = header.map(str::to_string).collect();
        let rows = lines
            .map(|l| {
                let mut f = l.split(',');
                let tc = f.next().unwrap().to_string();
                let v: Vec<f64> = f.map(|x| x.parse().unwrap()).collect();
                assert_eq!(v.len(), names.len(), "row {tc}");
                (tc, v)
            })
            .collect();
        Curves { names, rows }
    }

    fn value(&self, row: usize, curve: &str) -> f64 {
        let j = self.names.iter().position(|n| n == curve).unwrap();
        self.rows[row].1[j]
    }
}

fn retarget(args: &[&str]) -> (tempfile::TempDir, Curves) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    llv()
        .arg("retarget")
        .arg(alex())
        .arg("--map")
        .arg(mapping())
        .arg("-o")
        .arg(&out)
        .args(args)
        .assert()
        .success();
    let curves = Curves::read(&out);
    (dir, curves)
}

#[test]
fn the_real_mapping_has_52_poses_and_333_curves() {
    let text = std::fs::read_to_string(mapping()).unwrap();
    let objects = t3d::parse(&text).unwrap();
    let container = objects[0].property("PoseContainer").unwrap();
    let names = container.field("PoseNames").unwrap().items().unwrap();
    assert_eq!(names.len(), 52);
    assert_eq!(
        names[0].value.field("DisplayName").unwrap().as_str(),
        Some("Default")
    );

    let asset = PoseAsset::load(&mapping()).unwrap();
    assert_eq!(asset.poses.len(), 51, "52 poses less the base pose");
    assert_eq!(asset.curves.len(), 333);
    let ctrl = asset
        .curves
        .iter()
        .filter(|c| c.starts_with("CTRL_"))
        .count();
    let head = asset
        .curves
        .iter()
        .filter(|c| c.starts_with("head_"))
        .count();
    assert_eq!((ctrl, head), (251, 82));
    assert!(asset.poses.iter().all(|p| p.name != "MouthClose"));

    let brow = asset
        .poses
        .iter()
        .find(|p| p.name == "BrowOuterUpLeft")
        .unwrap();
    let weight = |curve: &str| brow.weights[asset.curves.iter().position(|c| c == curve).unwrap()];
    assert_eq!(weight("CTRL_expressions_browRaiseOuterL"), 1.0);
    assert_eq!(weight("CTRL_expressions_browLateralL"), 0.031405);
    assert_eq!(weight("CTRL_expressions_browRaiseInL"), 1.0);
    assert_eq!(weight("CTRL_expressions_jawOpen"), 0.0);

    // Resting values of the base pose: the rig's switches, not weights.
    let rest = |curve: &str| asset.rest[asset.curves.iter().position(|c| c == curve).unwrap()];
    assert_eq!(rest("CTRL_rigLogic_OffOn"), 1.0);
    assert_eq!(rest("CTRL_expressions_noseWrinkleUpperL"), 1.0);
    assert_eq!(asset.rest.iter().filter(|r| **r != 0.0).count(), 3);
}

// Row 1 of alex_rom_3.csv (13:13:04:31.652), by hand from the file.
const BROW_DOWN_L: f64 = 0.0;
const BROW_DOWN_R: f64 = 0.0;
const BROW_INNER_UP: f64 = 0.1390050799;
const BROW_OUTER_UP_L: f64 = 0.0812982991;
const BROW_OUTER_UP_R: f64 = 0.0812592879;
const CHEEK_PUFF: f64 = 0.0551863462;
const CHEEK_SQUINT_L: f64 = 0.0217755362;
const CHEEK_SQUINT_R: f64 = 0.0227962974;
const NOSE_SNEER_L: f64 = 0.0542621464;
const NOSE_SNEER_R: f64 = 0.0559526607;
const TONGUE_OUT: f64 = 0.0000695316;
const JAW_RIGHT: f64 = 0.0185036063;
const JAW_OPEN: f64 = 0.0190581698;
const MOUTH_FUNNEL: f64 = 0.1356206387;
const MOUTH_PUCKER: f64 = 0.1200852022;

/// The CSV's 10 decimals are the f32 the app had; we compute with that f32.
fn close(got: f64, want: f64) {
    assert!((got - want).abs() < 1e-8, "got {got}, want {want}");
}

#[test]
fn a_frame_is_the_weighted_sum_of_its_poses() {
    let (_dir, curves) = retarget(&[]);
    assert_eq!(curves.rows.len(), 4030);
    assert_eq!(curves.names.len(), 159, "curves some pose drives");
    assert_eq!(curves.rows[0].0, "13:13:04:31.652");
    assert_eq!(curves.rows[4029].0, "13:15:18:54.561");

    // Weights read off the T3D's CurveData for these curves.
    close(
        curves.value(0, "CTRL_expressions_browRaiseOuterL"),
        1.0 * BROW_OUTER_UP_L - 0.000001 * BROW_OUTER_UP_R,
    );
    close(
        curves.value(0, "CTRL_expressions_browLateralL"),
        0.031405 * BROW_DOWN_L
            + 0.031406 * BROW_DOWN_R
            + 1.0 * BROW_INNER_UP
            + 0.031405
                * (BROW_OUTER_UP_L
                    + BROW_OUTER_UP_R
                    + CHEEK_PUFF
                    + CHEEK_SQUINT_L
                    + CHEEK_SQUINT_R
                    + NOSE_SNEER_L
                    + NOSE_SNEER_R
                    + TONGUE_OUT),
    );
    close(
        curves.value(0, "CTRL_expressions_jawOpen"),
        0.000001 * JAW_RIGHT + 1.0 * JAW_OPEN - 0.000001 * MOUTH_FUNNEL,
    );
    close(
        curves.value(0, "CTRL_expressions_mouthFunnelDL"),
        1.000001 * MOUTH_FUNNEL + 0.751934 * MOUTH_PUCKER,
    );
}

#[test]
fn max_takes_the_strongest_weighted_pose() {
    let (_dir, curves) = retarget(&["--combine", "max"]);
    close(
        curves.value(0, "CTRL_expressions_browLateralL"),
        BROW_INNER_UP,
    );
    close(
        curves.value(0, "CTRL_expressions_mouthFunnelDL"),
        (1.000001 * MOUTH_FUNNEL).max(0.751934 * MOUTH_PUCKER),
    );
    close(curves.value(0, "CTRL_expressions_jawOpen"), JAW_OPEN);
}

#[test]
fn all_curves_writes_333_with_resting_values() {
    let (_dir, curves) = retarget(&["--all-curves"]);
    assert_eq!(curves.names.len(), 333);
    for row in [0, 2000, 4029] {
        assert_eq!(curves.value(row, "CTRL_rigLogic_OffOn"), 1.0);
        assert_eq!(curves.value(row, "CTRL_expressions_noseWrinkleUpperR"), 1.0);
    }
}

#[test]
fn offset_and_sync_move_the_timecode_by_whole_frames() {
    let (_dir, plain) = retarget(&[]);
    let (_dir2, moved) = retarget(&["--offset", "01:00:00:00"]);
    assert_eq!(moved.rows[0].0, "01:00:00:00.652");
    assert_eq!(moved.rows[1].0, "01:00:00:02.651");
    assert_eq!(moved.rows[4029].0, "01:02:14:23.561");
    assert_eq!(moved.rows[7].1, plain.rows[7].1);

    let tc = fixture("llf/tc.csv");
    let (_dir3, synced) = retarget(&["--sync", tc.to_str().unwrap()]);
    assert_eq!(synced.rows[0].0, "06:09:20:19.652");
}

#[test]
fn recordings_retarget_like_csv_takes() {
    let dir = tempfile::tempdir().unwrap();
    // The bundled LLV gzip take, and the same frames as native base64 lines.
    let packets = llv_packets(&example("dao.gesichter"));
    let native = dir.path().join("dao-native.gesichter");
    let mut text = String::from("# native lines\n");
    for p in &packets {
        let mut line = [0u8; llv_core::line::MAX_LINE_LEN];
        text += llv_core::line::encode(p, &mut line).unwrap();
        text.push('\n');
    }
    std::fs::write(&native, text).unwrap();
    let mut outputs = Vec::new();
    for input in [example("dao.gesichter"), native] {
        let out = dir.path().join(format!("out{}.csv", outputs.len()));
        llv()
            .arg("retarget")
            .arg(&input)
            .arg("--map")
            .arg(mapping())
            .arg("-o")
            .arg(&out)
            .assert()
            .success();
        outputs.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0].lines().count(), 1 + 180);
}

#[test]
fn t3d_errors_name_file_line_and_column() {
    let text = std::fs::read_to_string(mapping()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.T3D");

    // A syntax error deep inside line 6.
    let needle = "(DisplayName=\"EyeLookInLeft\")";
    let broken = text.replacen(needle, "(DisplayName==\"EyeLookInLeft\")", 1);
    let line6 = broken.lines().nth(5).unwrap();
    let column = line6.find("==").unwrap() + 2;
    std::fs::write(&bad, &broken).unwrap();
    let out = llv()
        .args(["retarget"])
        .arg(alex())
        .arg("--map")
        .arg(&bad)
        .arg("-o")
        .arg(dir.path().join("o.csv"))
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    let stderr = String::from_utf8(out).unwrap();
    assert!(stderr.contains("bad.T3D"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "line 6, column {column}: expected a value, found `=`"
        )),
        "{stderr}"
    );
    assert!(!dir.path().join("o.csv").exists());

    // A pose array one value short.
    let short = text.replacen(",CurveData=(0.000000,", ",CurveData=(", 1);
    let column = short.lines().nth(5).unwrap().find(",CurveData=(").unwrap() + 12;
    std::fs::write(&bad, &short).unwrap();
    let out = llv()
        .args(["retarget"])
        .arg(alex())
        .arg("--map")
        .arg(&bad)
        .arg("-o")
        .arg(dir.path().join("o.csv"))
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    let stderr = String::from_utf8(out).unwrap();
    assert!(
        stderr.contains(&format!(
            "line 6, column {column}: CurveData holds 332 values, but there are 333 curves"
        )),
        "{stderr}"
    );
}
