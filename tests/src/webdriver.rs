//! A headless Chromium driven over W3C WebDriver (Debian's `chromium` and
//! `chromium-driver`): the few commands the page's tests use, spoken over
//! plain HTTP/JSON to `chromedriver` on 127.0.0.1. No async runtime: the
//! tests are threads, and WebDriver is one request at a time. Plain HTTP
//! requests ([`http`]) for the API beside the browser.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::flash_box::free_port;

/// The key WebDriver names an element by.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Where the browser tests keep their screenshots: `target/browser/`.
pub fn artifacts() -> PathBuf {
    let dir = crate::repo_root().join("target").join("browser");
    std::fs::create_dir_all(&dir).expect("creating target/browser");
    dir
}

/// Reads one HTTP/1.1 response (its body by `Content-Length`, else to the
/// end of the stream): status and body.
pub fn read_reply(stream: &mut TcpStream) -> std::io::Result<(u16, Vec<u8>)> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let end = loop {
        if let Some(at) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Err(bad("closed before the head ended"));
        }
        got.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&got[..end]).to_string();
    let status = head
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("no status"))?;
    let len = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())?
    });
    let mut body = got[end + 4..].to_vec();
    match len {
        Some(len) => {
            while body.len() < len {
                let n = stream.read(&mut buf)?;
                if n == 0 {
                    return Err(bad("closed within the body"));
                }
                body.extend_from_slice(&buf[..n]);
            }
            body.truncate(len);
        }
        None => {
            stream.read_to_end(&mut body)?;
        }
    }
    Ok((status, body))
}

/// One HTTP/1.1 request to 127.0.0.1:`port` on a connection of its own
/// (closed after it): status and body.
pub fn http(port: u16, method: &str, path: &str, body: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())?;
    s.write_all(body)?;
    read_reply(&mut s)
}

/// One browser session.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

/// An element of the page.
#[derive(Clone, Debug)]
pub struct Element(String);

impl Browser {
    /// Starts `chromedriver` and a headless Chromium 900×1400 px (a phone's
    /// width fits in it as well); waits at most 30 s for them.
    pub fn start() -> Browser {
        let port = free_port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver (Debian's chromium-driver) on PATH");
        let mut browser = Browser {
            driver,
            port,
            session: String::new(),
        };
        let until = Instant::now() + Duration::from_secs(30);
        while browser.call("GET", "/status", None).is_err() {
            assert!(Instant::now() < until, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=900,1400"]
            }
        }}});
        let v = browser
            .call("POST", "/session", Some(caps))
            .expect("a Chromium session");
        browser.session = v["sessionId"].as_str().expect("sessionId").to_string();
        browser
    }

    /// One WebDriver command: its `value`, or its error as text.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream
            .write_all(request.as_bytes())
            .map_err(|e| e.to_string())?;
        let (_, body) = read_reply(&mut stream).map_err(|e| e.to_string())?;
        let v: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        if v["value"]["error"].is_string() {
            return Err(format!(
                "{}: {}",
                v["value"]["error"], v["value"]["message"]
            ));
        }
        Ok(v["value"].clone())
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        self.call(method, &path, body)
            .unwrap_or_else(|e| panic!("WebDriver {path}: {e}"))
    }

    /// Opens `url`.
    pub fn goto(&self, url: &str) {
        self.command("POST", "/url", Some(json!({ "url": url })));
    }

    /// The element `css` selects, if there is one now.
    pub fn find(&self, css: &str) -> Option<Element> {
        let path = format!("/session/{}/element", self.session);
        let v = self
            .call(
                "POST",
                &path,
                Some(json!({"using": "css selector", "value": css})),
            )
            .ok()?;
        v[ELEMENT].as_str().map(|id| Element(id.to_string()))
    }

    /// The element `css` selects, waiting at most 10 s for it.
    pub fn element(&self, css: &str) -> Element {
        self.wait(&format!("element {css}"), Duration::from_secs(10), || {
            self.find(css)
        })
    }

    /// Clicks the element `css` selects, waiting at most 10 s for it; found
    /// again when the page redrew it between finding and clicking (a status
    /// push redraws the takes).
    pub fn click_on(&self, css: &str) {
        self.wait(
            &format!("a click on {css}"),
            Duration::from_secs(10),
            || {
                let e = self.find(css)?;
                let path = format!("/session/{}/element/{}/click", self.session, e.0);
                match self.call("POST", &path, Some(json!({}))) {
                    Ok(_) => Some(()),
                    Err(e) if e.contains("stale element reference") => None,
                    Err(e) => panic!("WebDriver {path}: {e}"),
                }
            },
        )
    }

    /// Clears `e` and types `text` into it.
    pub fn type_into(&self, e: &Element, text: &str) {
        self.command("POST", &format!("/element/{}/clear", e.0), Some(json!({})));
        self.command(
            "POST",
            &format!("/element/{}/value", e.0),
            Some(json!({ "text": text })),
        );
    }

    /// Gives a file input the file at `path`.
    pub fn choose_file(&self, e: &Element, path: &Path) {
        self.command(
            "POST",
            &format!("/element/{}/value", e.0),
            Some(json!({ "text": path.to_str().expect("a UTF-8 path") })),
        );
    }

    /// The text of the element `css` selects ("" without one).
    pub fn text(&self, css: &str) -> String {
        let script =
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';";
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": [css]})),
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// Runs `script` in the page and returns its value.
    pub fn run(&self, script: &str) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Waits (at most `limit`, looking every 20 ms) until `ready` gives something.
    pub fn wait<T>(&self, what: &str, limit: Duration, mut ready: impl FnMut() -> Option<T>) -> T {
        let until = Instant::now() + limit;
        loop {
            if let Some(t) = ready() {
                return t;
            }
            if Instant::now() >= until {
                let shot = self.screenshot("failed");
                panic!("waited {limit:?} for {what} (the page: {})", shot.display());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until the text of `css` contains `part`; the text.
    pub fn wait_text(&self, css: &str, part: &str, limit: Duration) -> String {
        self.wait(&format!("{css} to say {part:?}"), limit, || {
            let text = self.text(css);
            text.contains(part).then_some(text)
        })
    }

    /// Makes the window `width` × `height` CSS pixels (a phone's, say).
    pub fn resize(&self, width: u32, height: u32) {
        self.command(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
    }

    /// Saves a screenshot of the page as `target/browser/NAME.png`; its path.
    pub fn screenshot(&self, name: &str) -> PathBuf {
        use base64::Engine;
        let v = self.command("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(v.as_str().expect("base64 PNG"))
            .expect("base64 PNG");
        let path = artifacts().join(format!("{name}.png"));
        std::fs::write(&path, png).expect("writing the screenshot");
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.call("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
