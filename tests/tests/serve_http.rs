//! `llv serve`'s page and HTTP API: a headless Chromium (WebDriver) loads
//! the page, lists the takes, plays one to a loopback receiver, sees
//! another client stop it, shows the box's error beside a bad address, and
//! uploads a take image that then plays bit-exact; screenshots of each
//! state land in `target/browser/`. The API itself as the docs' examples use
//! it, and the operator's page under a hundred connections at once.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

use llv_core::take::TakeImage;
use llv_tests::doors::connect_from;
use llv_tests::llv;
use llv_tests::phone::phone_take;
use llv_tests::show::Serve;
use llv_tests::webdriver::{read_reply, Browser};
use serde_json::Value;

/// One HTTP/1.1 request to 127.0.0.1:`port`: status and body.
fn http(port: u16, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    http_from(Ipv4Addr::LOCALHOST, port, method, path, body)
}

/// One HTTP/1.1 request from `source` (a loopback address) to 127.0.0.1:`port`.
fn http_from(source: Ipv4Addr, port: u16, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let mut s = connect_from(source, SocketAddr::from(([127, 0, 0, 1], port))).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    read_reply(&mut s).unwrap()
}

fn json(body: &[u8]) -> Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)))
}

/// The datagrams arriving at `socket`: up to `count`, waiting at most `limit`.
fn datagrams(socket: &UdpSocket, count: usize, limit: Duration) -> Vec<Vec<u8>> {
    let until = Instant::now() + limit;
    let mut got = Vec::new();
    let mut buf = [0u8; 2048];
    while got.len() < count && Instant::now() < until {
        if let Ok(n) = socket.recv(&mut buf) {
            got.push(buf[..n].to_vec());
        }
    }
    got
}

fn receiver() -> UdpSocket {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    socket
}

fn serve(dir: &std::path::Path) -> Serve {
    Serve::start(
        dir,
        &["--bind", "127.0.0.1", "--no-discovery", "--http-port", "0"],
    )
}

#[test]
fn the_page_lists_plays_stops_sets_and_uploads_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    phone_take(dir.path(), "alex.csv", 240, None);
    let serve = serve(dir.path());
    let rx = receiver();
    let target = format!("127.0.0.1:{}", rx.local_addr().unwrap().port());
    let b = Browser::start();
    b.goto(&format!("http://127.0.0.1:{}/", serve.http));

    // The takes are listed.
    b.wait_text("#takes", "alex", Duration::from_secs(10));
    b.wait_text("#live", "live", Duration::from_secs(10));
    let paint = b.run(
        "const p = performance.getEntriesByName('first-contentful-paint')[0]; \
         const bytes = performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation')) \
           .filter(e => !e.name.includes('/api/')).reduce((n, e) => n + e.transferSize, 0); \
         return {fcp_ms: p ? p.startTime : null, page_bytes: bytes};",
    );
    eprintln!("first contentful paint and page weight (with headers): {paint}");
    b.screenshot("1-takes");
    // Each take with its length and rate: 240 rows of a 30 Hz phone take.
    let row = b.run(
        "return [...document.querySelectorAll('#takes tbody tr')].map(r => [...r.cells].map(c => c.textContent))[0];",
    );
    let cell = |i: usize| row[i].as_str().unwrap_or_default().to_string();
    assert_eq!(
        (cell(0), cell(1), cell(2)),
        ("alex".into(), "flash".into(), "240".into()),
        "{row}"
    );
    let seconds: f64 = cell(3).trim_end_matches(" s").parse().unwrap();
    let hz: f64 = cell(4).trim_end_matches(" Hz").parse().unwrap();
    assert!(
        (7.5..8.5).contains(&seconds) && (29.0..31.0).contains(&hz),
        "{row}"
    );

    // Play, forever, to the receiver: frames arrive.
    b.type_into(&b.element("#targets"), &target);
    b.type_into(&b.element("#loops"), "0");
    b.click_on("button[data-take='alex']");
    let frames = datagrams(&rx, 30, Duration::from_secs(10));
    assert_eq!(frames.len(), 30, "frames from the page's play");
    b.wait_text(
        "#playing",
        "To ".to_string().as_str(),
        Duration::from_secs(5),
    );
    b.screenshot("2-playing");

    // Another client stops it: the page says so, pushed.
    let (status, _) = http(serve.http, "POST", "/api/v1/stop", b"");
    assert_eq!(status, 200);
    let stopped = Instant::now();
    b.wait_text("#playing", "Nothing plays", Duration::from_secs(2));
    eprintln!("the page showed the stop {:?} after it", stopped.elapsed());
    b.wait_text("#last", "stopped", Duration::from_secs(2));
    b.screenshot("3-stopped-by-another-client");

    // A bad address: the box's own words beside the field.
    b.type_into(&b.element("#set-address"), "10.0.0.1/33");
    b.click_on("#settings button");
    let error = b.wait_text("#err-address", "10.0.0.1/33", Duration::from_secs(5));
    assert_eq!(
        error,
        "address: \"10.0.0.1/33\" is not IP/PREFIX[,GATEWAY] or dhcp"
    );
    b.screenshot("4-bad-address");

    // A take image uploaded through the page lists, and plays bit-exact.
    let work = tempfile::tempdir().unwrap();
    let csv = phone_take(work.path(), "phone.csv", 120, None);
    let image_path = work.path().join("phone.take");
    llv()
        .args([
            "flash",
            csv.to_str().unwrap(),
            "--out",
            image_path.to_str().unwrap(),
        ])
        .assert()
        .success();
    let image = std::fs::read(&image_path).unwrap();
    let expected: Vec<Vec<u8>> = TakeImage::parse(&image)
        .unwrap()
        .frames()
        .map(|(_, p)| p.to_vec())
        .collect();
    b.choose_file(&b.element("#file"), &image_path);
    b.wait("the name from the file", Duration::from_secs(5), || {
        (b.run("return document.getElementById('up-name').value") == "phone").then_some(())
    });
    b.click_on("#upload");
    b.wait_text("#up-result", "Uploaded phone", Duration::from_secs(30));
    b.wait_text("#takes", "phone", Duration::from_secs(5));
    b.screenshot("5-uploaded");
    while !datagrams(&rx, 1, Duration::from_millis(100)).is_empty() {}
    b.type_into(&b.element("#loops"), "1");
    b.click_on("button[data-take='phone']");
    let played = datagrams(&rx, expected.len(), Duration::from_secs(15));
    assert_eq!(played.len(), expected.len());
    assert!(played == expected, "the uploaded take played other bytes");
    b.wait_text("#last", "phone, 120 frames", Duration::from_secs(5));
    b.screenshot("6-uploaded-take-played");

    // The live relay: turned on from the page, it waits for the phone, then
    // passes the phone's frames on to the targets and says it is live.
    let phone = UdpSocket::bind("127.0.0.1:0").unwrap();
    let live_port = {
        let free = UdpSocket::bind("127.0.0.1:0").unwrap();
        free.local_addr().unwrap().port()
    };
    let form = format!("live-port={live_port}&targets={target}");
    let (status, body) = http(serve.http, "POST", "/api/v1/settings", form.as_bytes());
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    b.click_on("#live-on");
    b.wait_text("#relay", "waiting for the phone", Duration::from_secs(5));
    b.screenshot("7-relay-waiting");
    while !datagrams(&rx, 1, Duration::from_millis(100)).is_empty() {}
    let mut sent = 0;
    let until = Instant::now() + Duration::from_secs(10);
    while !b.text("#relay").starts_with("Relay: live") {
        assert!(
            Instant::now() < until && sent < expected.len(),
            "never live: {}",
            b.text("#relay")
        );
        phone
            .send_to(&expected[sent], ("127.0.0.1", live_port))
            .unwrap();
        sent += 1;
        std::thread::sleep(Duration::from_millis(33));
    }
    let relayed = datagrams(&rx, 1, Duration::from_secs(2));
    assert!(
        relayed.len() == 1 && expected[..sent].contains(&relayed[0]),
        "the phone's frames relayed"
    );
    b.screenshot("8-relay-live");
    b.click_on("#live-off");
    b.wait_text("#relay", "Off.", Duration::from_secs(5));

    // Another client sets a token: the page asks for it, then works with it.
    let (status, _) = http(serve.http, "POST", "/api/v1/settings", b"token=sesame");
    assert_eq!(status, 200);
    b.wait("the token asked for", Duration::from_secs(10), || {
        (b.run("return document.getElementById('token-box').hidden") == false).then_some(())
    });
    b.wait_text("#live", "offline", Duration::from_secs(5));
    b.screenshot("9-token-asked");
    b.type_into(&b.element("#token"), "sesame");
    b.click_on("#token-form button");
    b.wait_text("#live", "live", Duration::from_secs(10));
    b.wait("the token box gone", Duration::from_secs(5), || {
        (b.run("return document.getElementById('token-box').hidden") == true).then_some(())
    });
    b.wait_text("#takes", "phone", Duration::from_secs(5));
    b.screenshot("10-token-given");

    // On a phone's screen (390 × 844): nothing wider than the screen, the
    // takes' buttons within reach.
    b.resize(390, 844);
    let fits = b.wait("the page laid out for a phone", Duration::from_secs(5), || {
        let sizes = b.run(
            "return [document.documentElement.scrollWidth, window.innerWidth, \
               document.querySelector(\"button[data-take='phone']\").getBoundingClientRect().right];",
        );
        let [scroll, inner, button] = [0, 1, 2].map(|i| sizes[i].as_f64().unwrap_or(f64::MAX));
        (inner < 400.0).then_some((scroll, inner, button))
    });
    b.screenshot("11-phone");
    assert!(
        fits.0 <= fits.1 && fits.2 <= fits.1,
        "wider than a phone: {fits:?}"
    );
}

#[test]
fn the_api_answers_as_documented_and_the_page_loads_under_a_hundred_connections() {
    let dir = tempfile::tempdir().unwrap();
    phone_take(dir.path(), "alex.csv", 60, None);
    let serve = serve(dir.path());
    let port = serve.http;
    let (status, body) = http(port, "GET", "/api/v1/takes", b"");
    assert_eq!(status, 200);
    assert_eq!(json(&body)["takes"][0]["name"], "alex");
    let (status, body) = http(port, "POST", "/api/v1/settings", b"targets=127.0.0.1:0");
    assert_eq!(status, 400);
    assert_eq!(json(&body)["error"]["field"], "targets");
    let (status, _) = http(port, "GET", "/api/v1/../secret", b"");
    assert_eq!(status, 400);
    let (status, _) = http(port, "BREW", "/", b"");
    assert_eq!(status, 501);

    // A hundred connections at once from one address, saying nothing: the
    // operator's page (from another) still loads.
    let flood = Ipv4Addr::new(127, 0, 0, 66);
    let crowd: Vec<TcpStream> = (0..100)
        .filter_map(|_| connect_from(flood, SocketAddr::from(([127, 0, 0, 1], port))).ok())
        .collect();
    let started = Instant::now();
    let (status, page) = http(port, "GET", "/", b"");
    assert_eq!(status, 200);
    assert!(page.starts_with(&[0x1f, 0x8b]), "gzip");
    let (status, body) = http(port, "GET", "/api/v1/status", b"");
    assert_eq!(status, 200);
    assert_eq!(json(&body)["api"], 1);
    eprintln!(
        "page and status under {} idle connections: {:?}",
        crowd.len(),
        started.elapsed()
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}
