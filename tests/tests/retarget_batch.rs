//! `llv retarget FOLDER`: every take done, a failing take reported, non-zero exit.

use std::path::Path;

use llv_tests::{example, fixture, llv};

fn run(dir: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let out = llv()
        .arg("retarget")
        .arg(dir)
        .arg("--map")
        .arg(fixture("mapping/mh_arkit_mapping_pose.T3D"))
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count()
}

/// alex_rom_3.csv, a broken copy in a subfolder, and the bundled LLV take.
fn takes() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("llf/alex_rom_3.csv")).unwrap();
    std::fs::write(dir.path().join("alex_rom_3.csv"), &text).unwrap();
    std::fs::create_dir(dir.path().join("day2")).unwrap();
    let broken: String = text
        .lines()
        .take(50)
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .replacen(",61,0.", ",61,x0.", 1);
    std::fs::write(dir.path().join("day2").join("alex_rom_4.csv"), broken).unwrap();
    std::fs::copy(example("dao.gesichter"), dir.path().join("dao.gesichter")).unwrap();
    std::fs::copy(fixture("llf/tc.csv"), dir.path().join("tc.csv")).unwrap();
    dir
}

#[test]
fn a_failing_take_does_not_stop_the_batch() {
    let dir = takes();
    let tc = dir.path().join("tc.csv");
    let (code, stdout, stderr) = run(dir.path(), &["--sync", tc.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");

    // The good takes are done, beside themselves; the broken one leaves nothing.
    assert_eq!(lines(&dir.path().join("alex_rom_3.metahuman.csv")), 4031);
    assert!(!dir
        .path()
        .join("day2")
        .join("alex_rom_4.metahuman.csv")
        .exists());
    // dao has no row in tc.csv: under --sync that is a failure of its own.
    assert!(!dir.path().join("dao.metahuman.csv").exists());

    assert!(stdout.contains("ok     "), "{stdout}");
    assert!(stdout.contains("alex_rom_3.csv -> "), "{stdout}");
    assert!(
        stderr.contains("alex_rom_4.csv: ")
            && stderr.contains("line 2 (row 1), column 3 (EyeBlinkLeft)"),
        "{stderr}"
    );
    assert!(stderr.contains("has no row for take dao"), "{stderr}");
    assert!(
        stdout.contains("1 of 3 takes retargeted (4030 frames, 159 curves each); 2 failed"),
        "{stdout}"
    );
}

#[test]
fn outputs_go_to_out_dir_and_are_not_taken_for_takes() {
    let dir = takes();
    std::fs::remove_file(dir.path().join("day2").join("alex_rom_4.csv")).unwrap();
    std::fs::remove_file(dir.path().join("tc.csv")).unwrap();
    // Run twice beside the takes: the second run must not read the first's
    // outputs, and replaces them only with --force.
    for extra in [&[][..], &["--force"]] {
        let (code, stdout, stderr) = run(dir.path(), extra);
        assert_eq!(code, Some(0), "{stdout}\n{stderr}");
        assert!(
            stdout.contains("2 of 2 takes retargeted (4210 frames"),
            "{stdout}"
        );
    }
    let before = std::fs::read(dir.path().join("dao.metahuman.csv")).unwrap();
    let (code, stdout, stderr) = run(dir.path(), &[]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let kept = dir.path().join("dao.metahuman.csv");
    assert!(
        stderr.contains(&format!("{}: exists; --force replaces it", kept.display())),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&kept).unwrap(), before);
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("day2").join("more")).unwrap();
    std::fs::copy(
        example("dao.gesichter"),
        dir.path().join("day2").join("more").join("dao2.gesichter"),
    )
    .unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["--out-dir", out.path().to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert_eq!(lines(&out.path().join("dao.metahuman.csv")), 181);
    assert_eq!(
        lines(
            &out.path()
                .join("day2")
                .join("more")
                .join("dao2.metahuman.csv")
        ),
        181
    );
}

#[test]
fn a_folder_wants_out_dir_and_some_takes() {
    let empty = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(empty.path(), &[]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("no takes (*.csv, *.gesichter)"), "{stderr}");

    let dir = takes();
    let (code, _, stderr) = run(dir.path(), &["-o", "one.csv"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("for a folder use --out-dir"), "{stderr}");
    assert!(!dir.path().join("alex_rom_3.metahuman.csv").exists());
}

#[test]
fn two_takes_with_one_output_both_fail_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("llf/alex_rom_3.csv"), dir.path().join("A.csv")).unwrap();
    std::fs::copy(example("dao.gesichter"), dir.path().join("A.gesichter")).unwrap();
    std::fs::copy(example("dao.gesichter"), dir.path().join("B.gesichter")).unwrap();
    let (code, stdout, stderr) = run(dir.path(), &[]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let (a_csv, a_llv) = (dir.path().join("A.csv"), dir.path().join("A.gesichter"));
    let output = dir.path().join("A.metahuman.csv");
    for (take, other) in [(&a_csv, &a_llv), (&a_llv, &a_csv)] {
        let line = format!(
            "FAILED {}: {} would also be the output of {}: rename one of these takes",
            take.display(),
            output.display(),
            other.display()
        );
        assert!(stderr.contains(&line), "{line}\n{stderr}");
    }
    assert!(!output.exists());
    // The take that collides with nothing is done.
    assert_eq!(lines(&dir.path().join("B.metahuman.csv")), 181);
    assert!(
        stdout.contains(
            "1 of 3 takes retargeted (180 frames, 159 curves each); 2 failed: A.csv, A.gesichter"
        ),
        "{stdout}"
    );
    // No temporary file is left behind.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["A.csv", "A.gesichter", "B.gesichter", "B.metahuman.csv"]
    );
}
