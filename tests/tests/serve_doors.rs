//! `llv serve`'s doors hold against a show network's curious or broken
//! laptops, with the box's rules from the box's code: the operator always
//! gets in beside a crowd, a laptop opening many connections closes its own
//! (clients on 127.0.0.2 and up: every 127.x is this host's loopback), UDP
//! clients with the token keep it against any number of senders without,
//! an OSC datagram over 512 bytes is answered, a change reaches a
//! subscriber within 10 ms, settings and uploads follow the one rule,
//! settings saves are paced, names print safely, and a closed pipe ends
//! `llv` quietly. Everything on 127.0.0.1; the mDNS responder is off.

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use llv_core::control::{ErrorCode, Place, Request, Response, Start, MAX_CHUNK};
use llv_core::osc::Arg;
use llv_core::settings::{Setting, Target};
use llv_tests::doors::{
    call, hello_from, operator_statuses, osc, percentile, push_latencies, Crowd, OscUdp,
};
use llv_tests::show::Serve;
use llv_tests::{example, llv, llv_path};
use serde_json::Value;

const TIMEOUT: Duration = Duration::from_secs(30);
const LOCAL: Ipv4Addr = Ipv4Addr::LOCALHOST;

/// A served folder holding dao.
fn served() -> (tempfile::TempDir, Serve) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(example("dao.gesichter"), dir.path().join("dao.gesichter")).unwrap();
    let serve = Serve::start(dir.path(), &["--bind", "127.0.0.1", "--no-discovery"]);
    (dir, serve)
}

fn control(serve: &Serve) -> SocketAddr {
    SocketAddr::from((LOCAL, serve.control))
}

fn osc_addr(serve: &Serve) -> SocketAddr {
    SocketAddr::from((LOCAL, serve.osc))
}

fn status(serve: &Serve) -> Value {
    let out = llv()
        .args(["box", &serve.addr(), "status", "--json"])
        .timeout(TIMEOUT)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn the_operator_always_gets_in_beside_a_crowd() {
    // What the review did: 16 idle connections to either port held every
    // slot (0 of 8 statuses in 20 s). Here: those, opened again a tenth of a
    // second after each close, and 20 clients that say Hello and ask for the
    // status every 2 to 3 s, all from this host.
    let (_dir, serve) = served();
    let crowd = Crowd::start(
        control(&serve),
        20,
        &[control(&serve), osc_addr(&serve)],
        16,
        Duration::from_millis(100),
        &[LOCAL],
    );
    std::thread::sleep(Duration::from_secs(3));
    let took = operator_statuses(&serve.addr(), 10);
    let counts = crowd.stop();
    let worst = took.iter().max().unwrap();
    eprintln!(
        "llv serve, 10 statuses beside 20 pollers and 16 idle sockets: median {:?}, worst {worst:?}; \
         crowd: {} statuses, {} connections closed for room, {} refused",
        percentile(&took, 50),
        counts.statuses.load(std::sync::atomic::Ordering::Relaxed),
        counts.closed.load(std::sync::atomic::Ordering::Relaxed),
        counts.refused.load(std::sync::atomic::Ordering::Relaxed),
    );
    assert!(*worst < Duration::from_secs(2), "a status took {worst:?}");
    assert!(counts.closed.load(std::sync::atomic::Ordering::Relaxed) > 0);
}

#[test]
fn a_laptop_opening_many_connections_closes_its_own_first() {
    let (_dir, serve) = served();
    // One laptop (127.0.0.2) with 40 idle sockets, each opened again 10 ms
    // after it is closed; four show tools on another (127.0.0.3) polling.
    let flood = Crowd::start(
        control(&serve),
        0,
        &[control(&serve), osc_addr(&serve)],
        40,
        Duration::from_millis(10),
        &[Ipv4Addr::new(127, 0, 0, 2)],
    );
    let tools = Crowd::start(
        control(&serve),
        4,
        &[],
        0,
        Duration::ZERO,
        &[Ipv4Addr::new(127, 0, 0, 3)],
    );
    std::thread::sleep(Duration::from_secs(3));
    let took = operator_statuses(&serve.addr(), 5);
    let tools = tools.stop();
    let flood = flood.stop();
    let closed =
        |c: &llv_tests::doors::CrowdCounts| c.closed.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "llv serve beside a flood from one address: statuses {took:?}; the flood's connections \
         closed {}, the tools' {}",
        closed(&flood),
        closed(&tools)
    );
    assert!(closed(&flood) > 40, "the flood kept its connections");
    assert_eq!(closed(&tools), 0, "a tool on another address was closed");
    assert!(tools.statuses.load(std::sync::atomic::Ordering::Relaxed) >= 8);
}

#[test]
fn udp_clients_with_the_token_keep_it_against_any_number_of_senders_without() {
    let (_dir, serve) = served();
    llv()
        .args(["box", &serve.addr(), "config", "token", "s3cret"])
        .timeout(TIMEOUT)
        .assert()
        .success();
    let to = osc_addr(&serve);
    let holders: Vec<OscUdp> = (0..16)
        .map(|i| OscUdp::new(Ipv4Addr::new(127, 0, 1, 1 + i % 4), to))
        .collect();
    for h in &holders {
        assert_eq!(h.status("/llv/connect", &[Arg::Str("s3cret")]), "ok");
    }
    // 400 senders without the token, from 40 addresses.
    for i in 0..400u32 {
        let sender = OscUdp::new(Ipv4Addr::new(127, 0, 2, (i % 40) as u8 + 1), to);
        assert_eq!(sender.status("/llv/status", &[]), "denied");
    }
    for h in &holders {
        assert_eq!(h.status("/llv/stop", &[]), "ok");
    }
}

#[test]
fn an_osc_datagram_over_512_bytes_gets_an_error_reply() {
    let (_dir, serve) = served();
    let client = OscUdp::new(LOCAL, osc_addr(&serve));
    for len in [513, 600, 1400, 4000] {
        let mut datagram = osc("/llv/status", &[Arg::Str(&"x".repeat(480))]);
        datagram.resize(len, 0);
        let (address, reply) = client.ask_raw(&datagram);
        assert_eq!(address, "/llv/error", "{len}");
        assert_eq!(reply["data"], "packet over 512 bytes", "{len}");
    }
    assert_eq!(client.status("/llv/status", &[]), "ok");
}

#[test]
fn a_change_reaches_a_subscriber_within_10_ms() {
    let (_dir, serve) = served();
    let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let target = Target {
        ip: [127, 0, 0, 1],
        port: receiver.local_addr().unwrap().port(),
    };
    let took = push_latencies(control(&serve), osc_addr(&serve), "dao", target, 100);
    let (p50, p99) = (percentile(&took, 50), percentile(&took, 99));
    eprintln!(
        "llv serve, /llv/state after a play (request sent to state received), 100 plays: \
         p50 {p50:?}, p99 {p99:?}, worst {:?}",
        took.iter().max().unwrap()
    );
    // The push looks every 4 ms; the bound is an order of magnitude.
    assert!(p50 <= Duration::from_millis(10), "p50 {p50:?}");
    assert!(p99 <= Duration::from_millis(50), "p99 {p99:?}");
}

#[test]
fn settings_follow_the_one_rule_and_127_is_a_laptops_target() {
    let (_dir, serve) = served();
    let refused = [
        (
            &["address", "0.0.0.1/8"][..],
            "address 0.0.0.1/8: not a host address (0.x, 127.x, 169.254.x, 224.x and up)",
        ),
        (
            &["address", "240.0.0.1/24"],
            "240.0.0.1/24: not a host address",
        ),
        (
            &["address", "169.254.1.1/16"],
            "169.254.1.1/16: not a host address",
        ),
        (
            &["address", "10.0.0.2/33"],
            "is not IP/PREFIX[,GATEWAY] or dhcp",
        ),
        (&["osc-port", "6454"], "osc-port 6454 is Art-Net's"),
        (&["osc-port", "67"], "osc-port 67 is DHCP's"),
        (&["osc-port", "68"], "osc-port 68 is DHCP's"),
        (&["osc-port", "5353"], "osc-port 5353 is mDNS's"),
        (&["reply-port", "11111"], "reply-port 11111 is Live Link's"),
        (
            &["http-port", "11113"],
            "http-port 11113 is the control port's",
        ),
        (&["http-port", "11114"], "http-port 11114: not 0, 67, 68"),
        (&["osc-port", "80"], "http-port 80: not 0, 67, 68"),
        (
            &["targets", "0.1.2.3"],
            "target 0.1.2.3:11111: needs a port",
        ),
    ];
    for (pairs, text) in refused {
        let out = llv()
            .args(["box", &serve.addr(), "config"])
            .args(pairs)
            .timeout(TIMEOUT)
            .assert()
            .failure()
            .get_output()
            .stderr
            .clone();
        let stderr = String::from_utf8_lossy(&out);
        assert!(stderr.contains(text), "{pairs:?}: {stderr}");
    }
    // A laptop can play to its own loopback (the box cannot: docs and the
    // box's tests).
    llv()
        .args(["box", &serve.addr(), "config", "targets", "127.0.0.1:9"])
        .timeout(TIMEOUT)
        .assert()
        .success();
}

#[test]
fn a_chunk_over_1024_bytes_and_a_start_in_the_past_are_refused() {
    let (_dir, serve) = served();
    let mut s = hello_from(LOCAL, control(&serve)).unwrap();
    // The size is refused before anything in the chunk is looked at.
    let begin = Request::UploadBegin {
        name: "dao2",
        total_len: 5000,
        crc32: 0,
        place: Place::Internal,
    };
    assert_eq!(call(&mut s, &begin).unwrap(), Response::Ok);
    let r = call(
        &mut s,
        &Request::UploadChunk {
            offset: 0,
            data: &[0; 2000],
        },
    )
    .unwrap();
    assert_eq!(
        r,
        Response::error(ErrorCode::Invalid, "chunk of 2000 bytes: at most 1024")
    );
    const { assert!(MAX_CHUNK == 1024) };
    // What the review sent: a Play at clock 0, well after start.
    std::thread::sleep(Duration::from_millis(50));
    let play = Request::Play {
        name: "dao",
        targets: [Target {
            ip: [127, 0, 0, 1],
            port: 9,
        }]
        .into_iter()
        .collect(),
        loop_count: 0,
        start: Start::At(0),
    };
    let Response::Error { code, detail } = call(&mut s, &play).unwrap() else {
        panic!("a start in the past was accepted");
    };
    assert_eq!(code, ErrorCode::Invalid);
    assert!(detail.starts_with("start "), "{detail}");
    assert!(detail.contains("ms in the past"), "{detail}");
    assert_eq!(status(&serve)["playing"], Value::Null);
}

#[test]
fn settings_saves_are_paced_the_last_value_wins_and_all_is_counted() {
    let (dir, serve) = served();
    let mut s = hello_from(LOCAL, control(&serve)).unwrap();
    let name = |n: &str| Request::SetSettings {
        changes: [Setting::Name(Some(n.try_into().unwrap()))]
            .into_iter()
            .collect(),
    };
    // 4,000 identical saves: one write.
    for _ in 0..4000 {
        assert_eq!(call(&mut s, &name("stage-left")).unwrap(), Response::Ok);
    }
    let wear = &status(&serve)["wear"];
    assert_eq!(wear["settings_writes"], 1, "{wear}");
    assert_eq!(wear["settings_unchanged"], 3999, "{wear}");
    llv()
        .args(["box", &serve.addr(), "status"])
        .timeout(TIMEOUT)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "wear     since power-up: 1 settings writes (3999 saves unchanged, 0 merged)",
        ));
    // A burst of 30 names: held after that write, the last one written once.
    let file = dir.path().join(".llv-serve.json");
    for i in 0..30 {
        assert_eq!(
            call(&mut s, &name(&format!("burst-{i}"))).unwrap(),
            Response::Ok
        );
    }
    let wear = status(&serve)["wear"].clone();
    assert_eq!(wear["settings_pending"], true, "{wear}");
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("stage-left"));
    let end = Instant::now() + Duration::from_secs(15);
    while !std::fs::read_to_string(&file).unwrap().contains("burst-29") {
        assert!(Instant::now() < end, "the held settings were not written");
        std::thread::sleep(Duration::from_millis(100));
    }
    let wear = status(&serve)["wear"].clone();
    assert_eq!(wear["settings_writes"], 2, "{wear}");
    assert_eq!(wear["settings_coalesced"], 29, "{wear}");
    assert_eq!(wear["settings_pending"], false, "{wear}");
}

#[test]
fn names_with_control_characters_print_escaped() {
    let (dir, serve) = served();
    std::fs::copy(
        example("dao.gesichter"),
        dir.path().join("esc\u{1b}[2Jdao.gesichter"),
    )
    .unwrap();
    let list = |serve: &Serve| {
        let out = llv()
            .args(["box", &serve.addr(), "list"])
            .timeout(TIMEOUT)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    // The folder is read again every second.
    let end = Instant::now() + Duration::from_secs(10);
    let mut printed = list(&serve);
    while !printed.contains("esc") {
        assert!(Instant::now() < end, "{printed}");
        std::thread::sleep(Duration::from_millis(200));
        printed = list(&serve);
    }
    assert!(printed.contains("esc\\u{1b}[2Jdao"), "{printed}");
    assert!(!printed.contains('\u{1b}'), "{printed:?}");
    let out = llv()
        .args([
            "box",
            &serve.addr(),
            "config",
            "subject",
            "Stage\u{7}\u{1b}]0;owned\u{7}",
        ])
        .timeout(TIMEOUT)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let printed = String::from_utf8(out).unwrap();
    assert!(
        printed.contains("subject   Stage\\u{7}\\u{1b}]0;owned\\u{7}"),
        "{printed}"
    );
    assert!(!printed.contains('\u{1b}') && !printed.contains('\u{7}'));
}

/// Runs `llv ARGS`, reads `lines` lines of its output and closes the pipe;
/// returns its exit code and what it printed to standard error.
fn closed_after(args: &[&str], lines: usize) -> (Option<i32>, String) {
    let mut child = Command::new(llv_path())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..lines {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(
            !line.is_empty(),
            "{args:?} printed fewer than {lines} lines"
        );
    }
    drop(out);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let end = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code(), stderr);
        }
        assert!(Instant::now() < end, "{args:?} did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_closed_pipe_ends_llv_quietly() {
    let (dir, serve) = served();
    let plot = dir.path().join("plot.png");
    let dao = example("dao.gesichter");
    for (args, lines) in [
        (vec!["box", &serve.addr(), "config"], 1),
        (vec!["box", &serve.addr(), "list"], 1),
        (vec!["box", &serve.addr(), "status"], 1),
        (
            vec![
                "info",
                dao.to_str().unwrap(),
                "--plot",
                plot.to_str().unwrap(),
            ],
            3,
        ),
        (vec!["man"], 10),
        (vec!["completions", "bash"], 5),
    ] {
        let (code, stderr) = closed_after(&args, lines);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

#[test]
fn the_status_says_the_clock_is_the_hosts() {
    let (_dir, serve) = served();
    assert_eq!(status(&serve)["clock"], "Host");
    let text = llv()
        .args(["box", &serve.addr(), "status"])
        .timeout(TIMEOUT)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).to_string();
    assert!(text.contains("\nclock    host"), "{text}");
}

#[test]
fn the_bench_check_passes_against_llv_serve_without_a_power_cycle() {
    let (dir, serve) = served();
    let out = llv()
        .args([
            "box",
            &serve.addr(),
            "check",
            "--no-reboot",
            "--seconds",
            "3",
        ])
        .args(["--take"])
        .arg(example("dao.gesichter"))
        // Loopback on a machine with both cores busy: a frame now and then
        // comes a few ms late.
        .args(["--late-ms", "50"])
        .timeout(Duration::from_secs(60))
        .assert()
        .success();
    let report = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    for row in [
        "| playback rate | pass |",
        "| upload while playing | pass |",
        "| power cycle and autoplay | skipped |",
        "| clock source | pass | host",
        "| faults | pass | none |",
    ] {
        assert!(report.contains(row), "{row} in:\n{report}");
    }
    // The check's take is gone again: only dao is served.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(names, ["dao.gesichter"], "{report}");
}
