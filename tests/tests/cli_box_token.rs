//! `llv box` and `llv flash` take the box's token from `--token`, `--token-file`
//! or `LLV_BOX_TOKEN`: a stand-in box on 127.0.0.1 reads the Hello they send.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use llv_core::control::{
    body_len, decode, encode, ErrorCode, Request, Response, MAX_FRAME, PREFIX_LEN,
};
use llv_tests::{example, llv};
use predicates::str::contains;

/// Runs `llv` with `args` (ADDR stands for the stand-in box) and `env`; returns
/// the token its Hello carried. The box refuses it, so `llv` fails saying so.
fn token_sent(args: &[&str], env: Option<&str>) -> Option<String> {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let box_side = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut prefix = [0u8; PREFIX_LEN];
        stream.read_exact(&mut prefix).unwrap();
        let mut body = vec![0u8; body_len(prefix)];
        stream.read_exact(&mut body).unwrap();
        let token = match decode::<Request<'_>>(&body).unwrap() {
            Request::Hello { token, .. } => token.map(str::to_string),
            other => panic!("expected Hello, got {other:?}"),
        };
        let refusal = Response::Error {
            code: ErrorCode::Unauthorized,
            detail: "stand-in box".try_into().unwrap(),
        };
        let mut out = [0u8; PREFIX_LEN + MAX_FRAME];
        stream
            .write_all(encode(&refusal, &mut out).unwrap())
            .unwrap();
        token
    });
    let args: Vec<String> = args.iter().map(|a| a.replace("ADDR", &addr)).collect();
    let mut cmd = llv();
    cmd.args(&args).env_remove("LLV_BOX_TOKEN");
    if let Some(value) = env {
        cmd.env("LLV_BOX_TOKEN", value);
    }
    cmd.timeout(Duration::from_secs(30))
        .assert()
        .failure()
        .stderr(contains(
            "refused the connection: stand-in box (the token comes from --token, \
             --token-file FILE or the environment's LLV_BOX_TOKEN)",
        ));
    box_side.join().unwrap()
}

#[test]
fn the_token_comes_from_the_flag_the_file_or_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "  from-file \nsecond line\n").unwrap();
    let file = file.to_str().unwrap();
    let status = ["box", "ADDR", "status"];
    assert_eq!(token_sent(&status, None), None);
    assert_eq!(
        token_sent(
            &["box", "ADDR", "status", "--token", "from-flag"],
            Some("env")
        ),
        Some("from-flag".into())
    );
    assert_eq!(
        token_sent(&["box", "ADDR", "--token-file", file, "list"], Some("env")),
        Some("from-file".into())
    );
    assert_eq!(
        token_sent(&status, Some("from-env")),
        Some("from-env".into())
    );
    let dao = example("dao.gesichter");
    let flash = ["flash", dao.to_str().unwrap(), "--box", "ADDR"];
    assert_eq!(
        token_sent(&flash, Some("from-env")),
        Some("from-env".into())
    );
    let with_file = [&flash[..], &["--token-file", file]].concat();
    assert_eq!(token_sent(&with_file, None), Some("from-file".into()));
}

#[test]
fn a_token_file_must_hold_a_token_and_one_source_of_flags() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    llv()
        .args(["box", "127.0.0.1:9", "status", "--token-file"])
        .arg(&empty)
        .assert()
        .failure()
        .stderr(contains(format!(
            "{}: the first line holds no token",
            empty.display()
        )));
    llv()
        .args([
            "box",
            "127.0.0.1:9",
            "status",
            "--token",
            "a",
            "--token-file",
        ])
        .arg(&empty)
        .assert()
        .failure()
        .stderr(contains("cannot be used with"));
}
