//! Errors that name the real problem: a missing file as missing (not as a
//! bad format, not hidden behind the output's refusal), a CSV that is no
//! take as such, a port out of range as a port, a name said once, a misplaced
//! `--loop` with the way to write it, a plot refused before any work.

use std::path::Path;

use llv_tests::{example, fixture, llv};

/// Runs `llv ARGS` in `dir`, expects it to fail, and gives its standard
/// output and error.
fn fails(dir: &Path, args: &[&str]) -> (String, String) {
    let out = llv().current_dir(dir).args(args).assert().failure();
    let output = out.get_output();
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_missing_gltf_is_missing_not_a_bad_format() {
    let dir = tempfile::tempdir().unwrap();
    let map = fixture("llv-mappings/ARKit_CC_Mapping.json");
    let (_, err) = fails(
        dir.path(),
        &[
            "import",
            "face.glb",
            "--map",
            map.to_str().unwrap(),
            "-o",
            "face.gesichter",
        ],
    );
    assert!(err.contains("face.glb: cannot read"), "{err}");
    assert!(err.contains("No such file"), "{err}");
    assert!(!err.contains("glTF"), "{err}");
}

#[test]
fn a_csv_that_is_no_take_says_so_not_base64() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("prices.csv"), "item,price\ntea,3\n").unwrap();
    let (_, err) = fails(dir.path(), &["info", "prices.csv"]);
    assert!(
        err.contains("prices.csv: not a recording: a CSV whose first line is not a Live Link Face take's header"),
        "{err}"
    );
    assert!(!err.contains("base64"), "{err}");
    std::fs::write(dir.path().join("notes.txt"), "hello there!\n").unwrap();
    let (_, err) = fails(dir.path(), &["info", "notes.txt"]);
    assert!(err.contains("notes.txt: not a recording"), "{err}");
}

#[test]
fn a_port_out_of_range_is_named_as_a_port() {
    let dir = tempfile::tempdir().unwrap();
    let dao = example("dao.gesichter");
    let dao = dao.to_str().unwrap();
    for args in [
        &["play", dao, "--to", "127.0.0.1:99999"][..],
        &["play", dao, "--to", "[::1]:99999"],
        &["box", "127.0.0.1:99999", "status"],
    ] {
        let (_, err) = fails(dir.path(), args);
        assert!(
            err.contains("the port \"99999\" is not a port"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("resolve"), "{args:?}: {err}");
    }
}

#[test]
fn card_write_names_a_missing_card_once() {
    let dir = tempfile::tempdir().unwrap();
    let dao = example("dao.gesichter");
    let (_, err) = fails(
        dir.path(),
        &["card", "write", "NOCARD", dao.to_str().unwrap()],
    );
    assert_eq!(err.matches("NOCARD").count(), 1, "{err}");
    assert!(
        err.contains("NOCARD: not a folder or a readable image file"),
        "{err}"
    );
}

#[test]
fn a_missing_input_comes_before_an_existing_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("out.gesichter"), b"kept").unwrap();
    let (_, err) = fails(dir.path(), &["convert", "take.csv", "out.gesichter"]);
    assert!(err.contains("take.csv: cannot read"), "{err}");
    assert!(!err.contains("exists"), "{err}");
    let (_, err) = fails(
        dir.path(),
        &[
            "edit",
            "take.csv",
            "-o",
            "out.gesichter",
            "--gain",
            "JawOpen=0.5",
        ],
    );
    assert!(err.contains("take.csv: cannot read"), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("out.gesichter")).unwrap(),
        b"kept"
    );
}

#[test]
fn loop_before_the_take_shows_how_to_write_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_, err) = fails(dir.path(), &["play", "--loop", "dao.gesichter"]);
    assert!(
        err.contains("write the take first: llv play dao.gesichter --loop"),
        "{err}"
    );
    let (_, err) = fails(dir.path(), &["play", "dao.gesichter", "--loop", "0"]);
    assert!(err.contains("play at least once"), "{err}");
}

#[test]
fn a_plot_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(example("dao.gesichter"), dir.path().join("dao.gesichter")).unwrap();
    let (_, err) = fails(dir.path(), &["plot", "dao.gesichter", "-o", "t.jpg"]);
    assert!(
        err.contains("t.jpg: a plot is written as PNG or SVG"),
        "{err}"
    );
    assert!(!dir.path().join("t.jpg").exists());
    std::fs::write(dir.path().join("dao.png"), b"an older plot").unwrap();
    let (out, err) = fails(dir.path(), &["info", "dao.gesichter", "--plot"]);
    assert!(
        err.contains("dao.png: exists; --force replaces it"),
        "{err}"
    );
    assert_eq!(out, "", "no report before the refusal");
    assert_eq!(
        std::fs::read(dir.path().join("dao.png")).unwrap(),
        b"an older plot"
    );
}

#[test]
fn a_box_slow_to_answer_is_waited_for_aloud() {
    use std::io::{Read, Write};
    use std::time::Duration;

    use llv_core::control::{body_len, encode, ErrorCode, Response, MAX_FRAME, PREFIX_LEN};

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    // A box starting up: it answers the Hello after 2 s.
    let stand_in = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut prefix = [0u8; PREFIX_LEN];
        stream.read_exact(&mut prefix).unwrap();
        let mut body = vec![0u8; body_len(prefix)];
        stream.read_exact(&mut body).unwrap();
        std::thread::sleep(Duration::from_secs(2));
        let refusal = Response::Error {
            code: ErrorCode::Unauthorized,
            detail: "stand-in box".try_into().unwrap(),
        };
        let mut out = [0u8; PREFIX_LEN + MAX_FRAME];
        let _ = stream.write_all(encode(&refusal, &mut out).unwrap());
    });
    let dir = tempfile::tempdir().unwrap();
    let (_, err) = fails(dir.path(), &["box", &addr, "status"]);
    stand_in.join().unwrap();
    assert!(
        err.starts_with(&format!("waiting for the box at {addr} to answer")),
        "{err}"
    );
    assert!(
        err.contains("refused the connection: stand-in box"),
        "{err}"
    );
}
