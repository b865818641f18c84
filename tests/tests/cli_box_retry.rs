//! `llv box` sends a request that changes nothing again, on a new connection,
//! when the box closes the connection before answering (it does, to make
//! room for a newcomer); a request that changes something is never sent
//! twice. A stand-in box on 127.0.0.1 closes connections on cue.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use llv_core::control::{
    body_len, decode, encode, Request, Response, TakePage, MAX_FRAME, PREFIX_LEN, PROTOCOL_VERSION,
};
use llv_tests::llv;
use predicates::str::contains;

/// Reads one request and says which it is.
fn read_request(stream: &mut TcpStream) -> String {
    let mut prefix = [0u8; PREFIX_LEN];
    stream.read_exact(&mut prefix).unwrap();
    let mut body = vec![0u8; body_len(prefix)];
    stream.read_exact(&mut body).unwrap();
    let request: Request<'_> = decode(&body).unwrap();
    format!("{request:?}")
}

fn answer(stream: &mut TcpStream, response: &Response) {
    let mut out = [0u8; PREFIX_LEN + MAX_FRAME];
    stream
        .write_all(encode(response, &mut out).unwrap())
        .unwrap();
}

/// Accepts a connection, answers its Hello and reads its next request:
/// the stream and what the request was.
fn hello_then_request(listener: &TcpListener) -> (TcpStream, String) {
    let (mut stream, _) = listener.accept().unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    assert!(read_request(&mut stream).starts_with("Hello"));
    answer(
        &mut stream,
        &Response::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: "stand-in".try_into().unwrap(),
        },
    );
    let request = read_request(&mut stream);
    (stream, request)
}

#[test]
fn a_request_that_changes_nothing_is_sent_again_when_the_box_closes_before_its_answer() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let box_side = std::thread::spawn(move || {
        // Closed for room while the request was on its way.
        let (first, asked) = hello_then_request(&listener);
        drop(first);
        let (mut second, again) = hello_then_request(&listener);
        answer(
            &mut second,
            &Response::Takes(TakePage {
                start: 0,
                total: 0,
                revision: 1,
                takes: heapless::Vec::new(),
            }),
        );
        (asked, again)
    });
    let out = llv()
        .args(["box", &addr, "list", "--json"])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let (asked, again) = box_side.join().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
    assert_eq!(asked, again);
    assert!(asked.starts_with("ListPage"), "{asked}");
}

#[test]
fn a_request_that_changes_something_is_never_sent_twice() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let box_side = std::thread::spawn(move || {
        let (first, asked) = hello_then_request(&listener);
        drop(first);
        (listener, asked)
    });
    llv()
        .args(["box", &addr, "stop"])
        .timeout(Duration::from_secs(30))
        .assert()
        .failure()
        .stderr(contains("waiting for the box at"));
    let (listener, asked) = box_side.join().unwrap();
    assert_eq!(asked, "Stop");
    // `llv` has exited: a second try would have connected by now.
    listener.set_nonblocking(true).unwrap();
    assert_eq!(
        listener.accept().map(|_| ()).unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock,
        "Stop was sent again"
    );
}
