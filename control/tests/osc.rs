//! The OSC door on embassy-time's mock clock, with the mock flash store and a
//! recording device: every address, the replies' JSON, the token rules and
//! penalties as over the binary protocol, the locked box, garbage, bundles,
//! subscriptions, and OSC over TCP in both framings.

mod common;

use common::{clock, on_mock_clock, store, SharedStore};
use embassy_futures::block_on;
use embassy_time::{Duration, Instant, MockDriver};
use llv_control::mock::{synthetic_image, RecordingPlayback, ScriptedStream};
use llv_control::osc::{
    serve_osc_connection, OscBuffers, ReplySink, UdpDoor, MAX_REPLY, UDP_CLIENTS,
};
use llv_control::{Control, Ended, Penalties, TakeLibrary, LIMITS};
use llv_core::artnet::TimecodeLabel;
use llv_core::control::Start;
use llv_core::osc::{
    encode_message, slip_encode, Arg, BundleWriter, Framing, Packet, SlipDecoder, SlipEvent,
    IMMEDIATELY,
};
use llv_core::settings::{ChaseSpec, Settings, Target};
use serde_json::{json, Value};

const CLIENT: ([u8; 4], u16) = ([10, 0, 2, 2], 53000);

/// Replies sent, with where to.
#[derive(Default)]
struct Sink(Vec<(Vec<u8>, [u8; 4], u16)>);

impl ReplySink for Sink {
    async fn send_to(&mut self, packet: &[u8], ip: [u8; 4], port: u16) {
        self.0.push((packet.to_vec(), ip, port));
    }
}

impl Sink {
    /// The replies (address and JSON or state arguments), in order, to `port`.
    fn to(&self, port: u16) -> Vec<(String, Value)> {
        self.0
            .iter()
            .filter(|(_, _, p)| *p == port)
            .map(|(bytes, _, _)| decode(bytes))
            .collect()
    }
}

/// A reply's address and its JSON (or, for the state, its arguments as a JSON array).
fn decode(bytes: &[u8]) -> (String, Value) {
    let Ok(Packet::Message(m)) = Packet::parse(bytes) else {
        panic!("not a message: {bytes:02x?}")
    };
    let args: Vec<Arg<'_>> = m.args().collect();
    let value = match args.as_slice() {
        [Arg::Str(text)] => serde_json::from_str(text).unwrap(),
        args => Value::Array(
            args.iter()
                .map(|a| match a {
                    Arg::Int(i) => json!(i),
                    Arg::Str(s) => json!(s),
                    other => panic!("{other:?}"),
                })
                .collect(),
        ),
    };
    (m.address.to_string(), value)
}

fn msg(address: &str, args: &[Arg<'_>]) -> Vec<u8> {
    let mut buf = [0u8; 512];
    let n = encode_message(address, args, &mut buf).unwrap();
    buf[..n].to_vec()
}

/// A store holding `dao` (3 frames) with a configured target.
fn box_store() -> SharedStore {
    let store = store();
    {
        let mut s = block_on(store.lock());
        s.insert(synthetic_image("dao", 3, 1));
        let settings = Settings {
            targets: [Target {
                ip: [10, 0, 2, 2],
                port: 11111,
            }]
            .into_iter()
            .collect(),
            ..Settings::default()
        };
        block_on(s.save_settings(&settings)).unwrap();
    }
    store
}

fn set(store: &SharedStore, change: impl FnOnce(&mut Settings)) {
    let mut s = block_on(store.lock());
    let mut settings = s.settings().clone();
    change(&mut settings);
    block_on(s.save_settings(&settings)).unwrap();
}

/// What the door's calls share: the store and the penalties.
fn control<'a>(
    store: &'a SharedStore,
    penalties: &'a Penalties,
) -> Control<
    'a,
    embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex,
    llv_control::mock::MemoryLibrary,
> {
    Control {
        firmware: "test 1",
        library: store,
        penalties,
        limits: LIMITS,
        finish: llv_control::InPlace,
    }
}

/// One box's door, store and device.
struct Door {
    store: SharedStore,
    penalties: Penalties,
    device: RecordingPlayback,
    door: UdpDoor,
    sink: Sink,
}

impl Door {
    fn new() -> Self {
        Door {
            store: box_store(),
            penalties: Penalties::new(),
            device: RecordingPlayback::default(),
            door: UdpDoor::new("test 1"),
            sink: Sink::default(),
        }
    }

    /// Sends `datagram` from `from`; returns the replies to the sender's port.
    fn send_from(&mut self, from: ([u8; 4], u16), datagram: &[u8]) -> Vec<(String, Value)> {
        self.sink.0.clear();
        let control = control(&self.store, &self.penalties);
        let mut out = [0u8; MAX_REPLY];
        on_mock_clock(
            self.door.handle(
                datagram,
                datagram.len(),
                from,
                &control,
                &mut self.device,
                &mut out,
                &mut self.sink,
            ),
            Duration::from_secs(1),
        );
        for (_, ip, _) in &self.sink.0 {
            assert_eq!(*ip, from.0);
        }
        self.sink.to(from.1)
    }

    fn send(&mut self, datagram: &[u8]) -> Vec<(String, Value)> {
        self.send_from(CLIENT, datagram)
    }

    /// The one reply to one message.
    fn ask(&mut self, address: &str, args: &[Arg<'_>]) -> Value {
        let replies = self.send(&msg(address, args));
        assert_eq!(replies.len(), 1, "{replies:?}");
        let (reply_address, value) = &replies[0];
        assert_eq!(reply_address, &format!("/reply{address}"));
        assert_eq!(value["address"], address);
        value.clone()
    }

    /// Lets the door push (as its task does every `push_poll`); returns what went to the client.
    fn push(&mut self) -> Vec<(String, Value)> {
        self.sink.0.clear();
        let control = control(&self.store, &self.penalties);
        let mut out = [0u8; MAX_REPLY];
        on_mock_clock(
            self.door
                .push(&control, &self.device, &mut out, &mut self.sink),
            Duration::from_secs(1),
        );
        self.sink.to(CLIENT.1)
    }
}

fn advance(d: Duration) {
    MockDriver::get().advance(d);
}

#[test]
fn play_stop_status_and_takes_run_the_session_and_answer_in_json() {
    let _clock = clock();
    let mut d = Door::new();
    let r = d.ask("/llv/play", &[Arg::Str("dao"), Arg::Int(2)]);
    assert_eq!(
        r,
        json!({"address": "/llv/play", "status": "ok", "data": null})
    );
    let (take, targets, loops, start) = d.device.playing.clone().unwrap();
    assert_eq!((take.as_str(), loops, start), ("dao", 2, Start::Now));
    assert_eq!(targets[0].port, 11111);
    // Loops as a float (TouchOSC, Chataigne send floats), 0 = forever, 1 by default.
    d.ask("/llv/play", &[Arg::Str("dao"), Arg::Float(0.0)]);
    assert_eq!(d.device.playing.clone().unwrap().2, 0);
    d.ask("/llv/play", &[Arg::Str("dao")]);
    assert_eq!(d.device.playing.clone().unwrap().2, 1);
    // Chase: the take's own timecode by default, or an offset.
    d.ask("/llv/chase", &[Arg::Str("dao")]);
    assert_eq!(
        d.device.playing.clone().unwrap().3,
        Start::Chase(ChaseSpec::DEFAULT)
    );
    d.ask("/llv/chase", &[Arg::Str("dao"), Arg::Str("01:00:00:12")]);
    let Start::Chase(spec) = d.device.playing.clone().unwrap().3 else {
        panic!("not a chase");
    };
    assert_eq!(spec.offset, TimecodeLabel::parse("01:00:00:12"));
    let r = d.ask("/llv/chase", &[Arg::Str("dao"), Arg::Str("1:00")]);
    assert_eq!(r["status"], "error");
    assert_eq!(r["data"], "/llv/chase: the offset is HH:MM:SS:FF");

    let status = d.ask("/llv/status", &[]);
    assert_eq!(status["status"], "ok");
    assert_eq!(status["data"]["firmware"], "test 1");
    assert_eq!(status["data"]["playing"]["take"], "dao");
    assert_eq!(status["data"]["faults"], json!([]));
    assert!(status["data"]["used_bytes"].as_u64().unwrap() > 0);

    let takes = d.ask("/llv/takes", &[]);
    assert_eq!(
        takes["data"],
        json!([{"name": "dao", "frames": 3, "period_us": 50_001, "place": "flash"}])
    );

    d.ask("/llv/stop", &[]);
    assert!(d.device.playing.is_none());

    let missing = d.ask("/llv/play", &[Arg::Str("nope")]);
    assert_eq!(missing["status"], "error");
    assert_eq!(missing["data"], "no take named \"nope\"");
}

#[test]
fn wrong_addresses_and_types_get_errors_and_garbage_gets_one_error() {
    let _clock = clock();
    let mut d = Door::new();
    for (address, args) in [
        ("/llv/play", vec![Arg::Int(1)]),
        ("/llv/play", vec![]),
        ("/llv/play", vec![Arg::Str("dao"), Arg::Float(1.5)]),
        ("/llv/play", vec![Arg::Str("dao"), Arg::Int(-1)]),
        ("/llv/stop", vec![Arg::Int(1)]),
        ("/llv/connect", vec![Arg::Int(1)]),
        ("/llv/subscribe", vec![Arg::Str("x")]),
        ("/llv/volume", vec![]),
        ("/other", vec![]),
    ] {
        let r = d.ask(address, &args);
        assert_eq!(r["status"], "error", "{address} {args:?}");
        assert!(r["data"].as_str().unwrap().len() > 5);
    }
    assert!(d.device.playing.is_none());
    // Bytes that are no OSC: one /llv/error; replies and pushes: no answer at all.
    for garbage in [
        b"\x00\x01\x02".as_slice(),
        b"/llv/play\0\0\0,s\0\0dao",
        b"/llv/play\0\0\0,s\0\0dao\0\x01",
        b"#bundle\0\0\0\0\0\0\0\0\x01\0\0\0\x09",
        b"/llv/play\0\0\0,c\0\0\0\0\0a",
    ] {
        let replies = d.send(garbage);
        assert_eq!(replies.len(), 1, "{garbage:02x?}");
        assert_eq!(replies[0].0, "/llv/error");
        assert_eq!(replies[0].1["address"], Value::Null);
        assert_eq!(replies[0].1["status"], "error");
    }
    assert!(d
        .send(&msg("/reply/llv/play", &[Arg::Str("{}")]))
        .is_empty());
    assert!(d.send(&msg("/llv/state", &[Arg::Int(1)])).is_empty());
    assert!(d.send(&msg("/llv/error", &[])).is_empty());
}

#[test]
fn a_bundle_runs_its_first_eight_messages_and_refuses_the_rest() {
    let _clock = clock();
    let mut d = Door::new();
    let mut buf = vec![0u8; 4096];
    let mut w = BundleWriter::new(&mut buf, IMMEDIATELY).unwrap();
    w.message("/llv/play", &[Arg::Str("dao")]).unwrap();
    for _ in 0..11 {
        w.message("/llv/status", &[]).unwrap();
    }
    let n = w.finish();
    let replies = d.send(&buf[..n]);
    assert_eq!(replies.len(), 9);
    assert_eq!(replies[0].0, "/reply/llv/play");
    assert!(replies[1..8].iter().all(|(a, _)| a == "/reply/llv/status"));
    assert_eq!(replies[8].0, "/llv/error");
    assert!(d.device.playing.is_some());
}

#[test]
fn a_token_is_needed_as_over_the_binary_protocol_and_guessing_is_locked_out() {
    let _clock = clock();
    let mut d = Door::new();
    set(&d.store, |s| s.token = Some("s3cret".try_into().unwrap()));
    let r = d.ask("/llv/play", &[Arg::Str("dao")]);
    assert_eq!(r["status"], "denied");
    assert!(r["data"].as_str().unwrap().contains("/llv/connect"));
    assert!(d.device.playing.is_none());

    let r = d.ask("/llv/connect", &[Arg::Str("guess")]);
    assert_eq!(
        (r["status"].as_str(), r["data"].as_str()),
        (Some("denied"), Some("wrong token"))
    );
    // Locked out for the penalty (0.5 s), even with the right token, from any port.
    let r = d.send_from(
        ([10, 0, 2, 2], 9000),
        &msg("/llv/connect", &[Arg::Str("s3cret")]),
    );
    assert_eq!(r[0].1["status"], "denied");
    assert!(r[0].1["data"]
        .as_str()
        .unwrap()
        .contains("try again in 1 s"));
    // Another source is not held up.
    let r = d.send_from(
        ([10, 0, 2, 3], 9000),
        &msg("/llv/connect", &[Arg::Str("s3cret")]),
    );
    assert_eq!(r[0].1["status"], "ok");
    assert_eq!(
        r[0].1["data"]["protocol"],
        llv_core::control::PROTOCOL_VERSION
    );
    // The second wrong token doubles the wait.
    advance(Duration::from_millis(600));
    d.ask("/llv/connect", &[Arg::Str("guess")]);
    advance(Duration::from_millis(600));
    let r = d.ask("/llv/connect", &[Arg::Str("s3cret")]);
    assert_eq!(r["status"], "denied");
    advance(Duration::from_millis(600));
    let r = d.ask("/llv/connect", &[Arg::Str("s3cret")]);
    assert_eq!(r["status"], "ok");
    assert_eq!(d.ask("/llv/play", &[Arg::Str("dao")])["status"], "ok");

    // A token change over the binary protocol takes this client's rights, as a connection's.
    set(&d.store, |s| s.token = Some("other".try_into().unwrap()));
    let r = d.ask("/llv/stop", &[]);
    assert_eq!(r["status"], "denied");
    assert!(d.device.playing.is_some());
}

#[test]
fn a_locked_box_answers_status_and_takes_and_denies_the_rest() {
    let _clock = clock();
    let mut d = Door::new();
    // A settings record of a newer schema: the box is locked, its token unknown.
    d.store = common::locked_store();
    let status = d.ask("/llv/status", &[]);
    assert_eq!(status["status"], "ok");
    assert_eq!(status["data"]["faults"][0]["code"], "SettingsUnreadable");
    assert_eq!(d.ask("/llv/takes", &[])["status"], "ok");
    let r = d.ask("/llv/play", &[Arg::Str("dao")]);
    assert_eq!(r["status"], "denied");
    assert!(r["data"].as_str().unwrap().contains("locked"));
}

#[test]
fn replies_also_go_to_the_reply_port() {
    let _clock = clock();
    let mut d = Door::new();
    set(&d.store, |s| s.reply_port = Some(53001));
    d.send(&msg("/llv/stop", &[]));
    assert_eq!(d.sink.to(53000).len(), 1);
    assert_eq!(d.sink.to(53001), d.sink.to(53000));
    // Not twice when the sender sends from the reply port.
    d.send_from(([10, 0, 2, 2], 53001), &msg("/llv/stop", &[]));
    assert_eq!(d.sink.0.len(), 1);
}

#[test]
fn a_subscriber_gets_the_state_at_once_on_every_change_and_each_second() {
    let _clock = clock();
    let mut d = Door::new();
    let replies = d.send(&msg("/llv/subscribe", &[Arg::Int(10)]));
    assert_eq!(replies[0].1["data"], json!({"seconds": 10}));
    assert_eq!(
        replies[1],
        ("/llv/state".into(), json!([0, "", 0, 0, "off", ""]))
    );
    assert!(d.push().is_empty());
    d.ask("/llv/play", &[Arg::Str("dao")]);
    assert_eq!(
        d.push(),
        [("/llv/state".into(), json!([1, "dao", 0, 0, "off", ""]))]
    );
    assert!(d.push().is_empty());
    advance(Duration::from_millis(1000));
    assert_eq!(d.push().len(), 1, "the heartbeat");
    d.ask("/llv/stop", &[]);
    assert_eq!(
        d.push(),
        [("/llv/state".into(), json!([0, "", 0, 0, "off", ""]))]
    );
    // Over after its 10 s; 0 ends one at once.
    advance(Duration::from_secs(10));
    assert!(d.push().is_empty());
    d.send(&msg("/llv/subscribe", &[]));
    d.send(&msg("/llv/subscribe", &[Arg::Int(0)]));
    advance(Duration::from_secs(2));
    assert!(d.push().is_empty());
}

#[test]
fn new_clients_replace_the_least_recent_but_not_a_subscriber() {
    let _clock = clock();
    let mut d = Door::new();
    d.send(&msg("/llv/subscribe", &[]));
    for port in 0..(2 * UDP_CLIENTS as u16) {
        advance(Duration::from_millis(10));
        d.send_from(([10, 0, 2, 9], 1000 + port), &msg("/llv/status", &[]));
    }
    advance(Duration::from_secs(1));
    assert_eq!(d.push().len(), 1, "the subscriber is still there");
}

/// The status of the one reply to one message from `from`.
fn status_from(d: &mut Door, from: ([u8; 4], u16), address: &str, args: &[Arg<'_>]) -> String {
    let replies = d.send_from(from, &msg(address, args));
    assert_eq!(replies.len(), 1, "{replies:?}");
    replies[0].1["status"].as_str().unwrap().to_string()
}

#[test]
fn senders_without_rights_never_push_out_a_client_with_rights() {
    // What the review did: four datagrams from four ports pushed out a
    // client that had sent the token. Here: the 16 clients the door keeps.
    let _clock = clock();
    let mut d = Door::new();
    set(&d.store, |s| s.token = Some("s3cret".try_into().unwrap()));
    let holders: Vec<([u8; 4], u16)> = (0..UDP_CLIENTS as u16)
        .map(|i| ([10, 0, 2, 2 + (i % 3) as u8], 53000 + i))
        .collect();
    const { assert!(UDP_CLIENTS >= 16) };
    for h in &holders {
        advance(Duration::from_millis(1));
        assert_eq!(
            status_from(&mut d, *h, "/llv/connect", &[Arg::Str("s3cret")]),
            "ok"
        );
    }
    // 400 senders without the token, from 40 addresses and 400 ports.
    for i in 0..400u16 {
        advance(Duration::from_millis(1));
        let from = ([10, 0, 3, (i % 40) as u8], 1000 + i);
        assert_eq!(status_from(&mut d, from, "/llv/status", &[]), "denied");
    }
    for h in &holders {
        assert_eq!(
            status_from(&mut d, *h, "/llv/play", &[Arg::Str("dao")]),
            "ok",
            "{h:?} lost its rights"
        );
    }
    // A 17th client with the token takes the place of the least recently heard.
    let newcomer = ([10, 0, 2, 99], 40000);
    advance(Duration::from_millis(1));
    assert_eq!(
        status_from(&mut d, newcomer, "/llv/connect", &[Arg::Str("s3cret")]),
        "ok"
    );
    assert_eq!(status_from(&mut d, newcomer, "/llv/stop", &[]), "ok");
    assert_eq!(status_from(&mut d, holders[0], "/llv/stop", &[]), "denied");
    for h in &holders[1..] {
        assert_eq!(status_from(&mut d, *h, "/llv/stop", &[]), "ok", "{h:?}");
    }
}

#[test]
fn a_laptop_spraying_ports_pushes_out_its_own_clients_first() {
    let _clock = clock();
    let mut d = Door::new();
    set(&d.store, |s| s.token = Some("s3cret".try_into().unwrap()));
    // Eight show tools on eight addresses hold rights...
    let tools: Vec<([u8; 4], u16)> = (0..8).map(|i| ([10, 0, 2, 10 + i], 53000)).collect();
    for t in &tools {
        advance(Duration::from_millis(1));
        assert_eq!(
            status_from(&mut d, *t, "/llv/connect", &[Arg::Str("s3cret")]),
            "ok"
        );
    }
    // ...then one laptop that knows the token connects from 100 ports.
    for port in 0..100u16 {
        advance(Duration::from_millis(1));
        let from = ([10, 0, 2, 200], 20000 + port);
        assert_eq!(
            status_from(&mut d, from, "/llv/connect", &[Arg::Str("s3cret")]),
            "ok"
        );
    }
    for t in &tools {
        assert_eq!(status_from(&mut d, *t, "/llv/stop", &[]), "ok", "{t:?}");
    }
    // The laptop kept the places left: its latest ports.
    assert_eq!(
        status_from(&mut d, ([10, 0, 2, 200], 20099), "/llv/stop", &[]),
        "ok"
    );
    assert_eq!(
        status_from(&mut d, ([10, 0, 2, 200], 20000), "/llv/stop", &[]),
        "denied"
    );
}

#[test]
fn a_datagram_over_512_bytes_gets_an_error_reply() {
    let _clock = clock();
    let mut d = Door::new();
    // Whether the whole datagram is at hand (llv serve) or only its first
    // 512 bytes (the box copies no more), the answer is the same.
    let big = msg("/llv/status", &[Arg::Str(&"x".repeat(480))]);
    let mut long = big.clone();
    long.resize(1400, 0);
    for (bytes, len) in [(&long[..], 1400), (&long[..512], 1400), (&long[..513], 513)] {
        d.sink.0.clear();
        let control = control(&d.store, &d.penalties);
        let mut out = [0u8; MAX_REPLY];
        on_mock_clock(
            d.door.handle(
                bytes,
                len,
                CLIENT,
                &control,
                &mut d.device,
                &mut out,
                &mut d.sink,
            ),
            Duration::from_secs(1),
        );
        let replies = d.sink.to(CLIENT.1);
        assert_eq!(
            replies,
            vec![(
                "/llv/error".to_string(),
                json!({"address": null, "status": "error", "data": "packet over 512 bytes"})
            )],
            "{len}"
        );
    }
    assert!(big.len() <= 512);
    assert_eq!(d.send(&big).len(), 1);
}

/// Serves one OSC stream of `input` (`step` bytes a read); returns how it
/// ended, the mock time it took and the packets written back.
fn serve_stream(
    store: &SharedStore,
    penalties: &Penalties,
    io: &mut ScriptedStream,
    device: &mut RecordingPlayback,
) -> (Ended, Duration) {
    let control = control(store, penalties);
    let mut buffers = OscBuffers::new();
    on_mock_clock(
        serve_osc_connection(io, [10, 0, 2, 2], &control, device, &mut buffers, &()),
        Duration::from_secs(600),
    )
}

fn slip(packet: &[u8]) -> Vec<u8> {
    let mut frame = vec![0u8; 2 * packet.len() + 2];
    let n = slip_encode(packet, &mut frame).unwrap();
    frame.truncate(n);
    frame
}

fn sized(packet: &[u8]) -> Vec<u8> {
    let mut frame = (packet.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(packet);
    frame
}

/// The packets written back over a stream in `framing`.
fn written(output: &[u8], framing: Framing) -> Vec<(String, Value)> {
    let mut packets = Vec::new();
    match framing {
        Framing::Slip => {
            let mut decoder = SlipDecoder::new();
            let mut buf = vec![0u8; MAX_REPLY];
            for &b in output {
                if let SlipEvent::Frame(n) = decoder.push(b, &mut buf) {
                    packets.push(decode(&buf[..n]));
                }
            }
        }
        Framing::SizePrefix => {
            let mut rest = output;
            while rest.len() >= 4 {
                let n = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
                packets.push(decode(&rest[4..4 + n]));
                rest = &rest[4 + n..];
            }
        }
    }
    packets
}

#[test]
fn over_tcp_both_framings_run_every_message_split_anywhere() {
    let _clock = clock();
    let play = msg("/llv/play", &[Arg::Str("dao"), Arg::Int(0)]);
    let status = msg("/llv/status", &[]);
    for framing in [Framing::Slip, Framing::SizePrefix] {
        let frame = |p: &[u8]| match framing {
            Framing::Slip => slip(p),
            Framing::SizePrefix => sized(p),
        };
        let mut input = frame(&play);
        input.extend(frame(&[0xFF; 600])); // too long: refused, the connection goes on
        input.extend(frame(b"/llv/status\0,s\0\0")); // bad padding
        input.extend(frame(&status));
        for step in [1, 5, 4096] {
            let store = box_store();
            let mut device = RecordingPlayback::default();
            let mut io = ScriptedStream::new(input.clone(), step);
            let (ended, _) = serve_stream(&store, &Penalties::new(), &mut io, &mut device);
            assert_eq!(ended, Ended::Closed, "{framing:?} step {step}");
            let replies = written(&io.output, framing);
            assert_eq!(replies.len(), 4, "{framing:?} step {step}: {replies:?}");
            assert_eq!(replies[0].1["status"], "ok");
            assert_eq!(replies[1].0, "/llv/error");
            assert!(replies[1].1["data"].as_str().unwrap().contains("512"));
            assert_eq!(replies[2].0, "/llv/error");
            assert_eq!(replies[3].1["data"]["playing"]["take"], "dao");
            assert_eq!(device.playing.clone().unwrap().2, 0);
        }
    }
    // SLIP with one END after the packet only (OSC 1.1 senders that skip the first).
    let mut input = play.clone();
    input.push(0xC0);
    let mut io = ScriptedStream::new(input, 64);
    let mut device = RecordingPlayback::default();
    serve_stream(&box_store(), &Penalties::new(), &mut io, &mut device);
    assert_eq!(written(&io.output, Framing::Slip).len(), 1);
    assert!(device.playing.is_some());
}

#[test]
fn a_stream_that_is_no_osc_or_trickles_is_closed() {
    let _clock = clock();
    let store = box_store();
    let mut io = ScriptedStream::new(b"GET / HTTP/1.1\r\n\r\n".to_vec(), 64);
    let (ended, _) = serve_stream(&store, &Penalties::new(), &mut io, &mut Default::default());
    assert_eq!(ended, Ended::Refused);
    assert!(io.output.is_empty());
    // Half a frame, then nothing: closed 5 s after its first byte.
    let mut io = ScriptedStream::new(vec![0xC0, b'/', b'l'], 64);
    io.hold = true;
    let (ended, took) = serve_stream(&store, &Penalties::new(), &mut io, &mut Default::default());
    assert_eq!(ended, Ended::TimedOut);
    assert!(
        took >= Duration::from_secs(5) && took < Duration::from_secs(6),
        "{took:?}"
    );
    // Nothing at all: closed after the idle limit.
    let mut io = ScriptedStream::new(vec![], 64);
    io.hold = true;
    let (ended, took) = serve_stream(&store, &Penalties::new(), &mut io, &mut Default::default());
    assert_eq!(ended, Ended::TimedOut);
    assert!(
        took >= Duration::from_secs(60) && took < Duration::from_secs(61),
        "{took:?}"
    );
}

#[test]
fn over_tcp_a_wrong_token_waits_its_penalty_and_closes() {
    let _clock = clock();
    let store = box_store();
    set(&store, |s| s.token = Some("s3cret".try_into().unwrap()));
    let penalties = Penalties::new();
    let mut input = slip(&msg("/llv/connect", &[Arg::Str("guess")]));
    input.extend(slip(&msg("/llv/play", &[Arg::Str("dao")])));
    let mut device = RecordingPlayback::default();
    let mut io = ScriptedStream::new(input, 64);
    let (ended, took) = serve_stream(&store, &penalties, &mut io, &mut device);
    assert_eq!(ended, Ended::Refused);
    assert!(took >= Duration::from_millis(500), "{took:?}");
    let replies = written(&io.output, Framing::Slip);
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0].1["status"], "denied");
    assert!(device.playing.is_none());
    // The right token: the connection goes on and the play runs.
    let mut input = slip(&msg("/llv/connect", &[Arg::Str("s3cret")]));
    input.extend(slip(&msg("/llv/play", &[Arg::Str("dao")])));
    let mut io = ScriptedStream::new(input, 64);
    let (ended, _) = serve_stream(&store, &penalties, &mut io, &mut device);
    assert_eq!(ended, Ended::Closed);
    assert_eq!(written(&io.output, Framing::Slip).len(), 2);
    assert!(device.playing.is_some());
}

#[test]
fn a_tcp_subscriber_gets_the_state_on_its_connection() {
    let _clock = clock();
    let store = box_store();
    let mut io = ScriptedStream::new(sized(&msg("/llv/subscribe", &[Arg::Int(3)])), 64);
    io.hold = true;
    let start = Instant::now();
    let (ended, took) = serve_stream(&store, &Penalties::new(), &mut io, &mut Default::default());
    // Subscribed 3 s, then idle for the idle limit.
    assert_eq!(ended, Ended::TimedOut);
    assert!(took >= Duration::from_secs(60), "{took:?} from {start:?}");
    let replies = written(&io.output, Framing::SizePrefix);
    assert_eq!(replies[0].0, "/reply/llv/subscribe");
    let states = replies.iter().filter(|(a, _)| a == "/llv/state").count();
    // At once, then a heartbeat each second for 3 s.
    assert!((3..=5).contains(&states), "{states}");
}

#[test]
fn the_pushed_state_carries_the_chase_state_and_its_timecode() {
    use llv_control::osc::state_message;
    use llv_core::artnet::{ArtTimeCode, TimecodeKind};
    use llv_core::chase::ChaseState;
    use llv_core::control::{bounded, ChaseStatus, Playing};

    let mut playing = Playing {
        take: bounded("dao"),
        frame: 42,
        loops_done: 1,
        late_frames: 0,
        max_late_us: 0,
        read_ahead_low: u32::MAX,
        targets: heapless::Vec::new(),
        chase: Some(ChaseStatus {
            state: ChaseState::Locked,
            timecode: Some(ArtTimeCode::from_frame_count(
                108_000 + 35,
                TimecodeKind::Smpte30,
                0,
            )),
            locates: 0,
            timecode_frames: 40,
            bad_packets: 0,
        }),
    };
    let mut out = [0u8; MAX_REPLY];
    let n = state_message(&mut out, Some(&playing));
    assert_eq!(
        decode(&out[..n]),
        (
            "/llv/state".into(),
            json!([1, "dao", 42, 1, "locked", "01:00:01:05"])
        )
    );
    // Drop-frame timecode is written with `;` before the frames.
    if let Some(chase) = playing.chase.as_mut() {
        chase.state = ChaseState::Freewheel;
        chase.timecode = Some(ArtTimeCode::from_frame_count(
            1_800,
            TimecodeKind::DropFrame2997,
            0,
        ));
    }
    let n = state_message(&mut out, Some(&playing));
    assert_eq!(
        decode(&out[..n]).1,
        json!([1, "dao", 42, 1, "freewheel", "00:01:00;02"])
    );
    // A chase that has stopped (or still waits) sends nothing: playing 0.
    for (state, on) in [
        (ChaseState::Stopped, 0),
        (ChaseState::Waiting, 0),
        (ChaseState::Locking, 0),
        (ChaseState::Held, 1),
    ] {
        if let Some(chase) = playing.chase.as_mut() {
            chase.state = state;
        }
        let n = state_message(&mut out, Some(&playing));
        assert_eq!(
            decode(&out[..n]).1,
            json!([on, "dao", 42, 1, state.name(), "00:01:00;02"])
        );
    }
    playing.chase = None;
    let n = state_message(&mut out, Some(&playing));
    assert_eq!(decode(&out[..n]).1, json!([1, "dao", 42, 1, "off", ""]));
}

#[test]
fn takes_come_a_page_at_a_time_with_where_the_next_starts() {
    let _clock = clock();
    let mut d = Door::new();
    {
        let mut s = block_on(d.store.lock());
        s.capacity = u32::MAX;
        s.max_takes = usize::MAX;
        for i in 1..40 {
            s.insert(synthetic_image(&format!("cue {i:02}"), 1, i as u8));
        }
    }
    let mut names = Vec::new();
    let mut start = 0;
    for _ in 0..40 {
        let args = [Arg::Int(start)];
        let page = d.ask("/llv/takes", if start == 0 { &[] } else { &args });
        assert_eq!(page["status"], "ok");
        assert_eq!(page["total"], 40, "{page}");
        names.extend(
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string()),
        );
        match page["next"].as_i64() {
            Some(next) => start = next as i32,
            None => break,
        }
    }
    let mut want = vec!["dao".to_string()];
    want.extend((1..40).map(|i| format!("cue {i:02}")));
    assert_eq!(names, want);
    let r = d.ask("/llv/takes", &[Arg::Str("x")]);
    assert_eq!(r["status"], "error");
}

#[test]
fn live_turns_the_relay_on_and_off_through_the_session_and_shows_in_status() {
    let _clock = clock();
    let mut d = Door::new();
    assert_eq!(d.ask("/llv/status", &[])["data"].get("live"), None);
    for (arg, on) in [
        (Arg::Str("on"), true),
        (Arg::Int(0), false),
        (Arg::True, true),
        (Arg::Float(0.0), false),
        (Arg::Int(1), true),
    ] {
        let r = d.ask("/llv/live", &[arg]);
        assert_eq!(
            r,
            json!({"address": "/llv/live", "status": "ok", "data": null})
        );
        // The settings' live relay (its port 11111 by default) was asked for.
        assert_eq!(d.device.live, Some((on, 11111)));
    }
    let live = &d.ask("/llv/status", &[])["data"]["live"];
    assert_eq!(live["state"], "waiting");
    assert_eq!(live["fallbacks"], 0);
    let r = d.ask("/llv/live", &[Arg::Str("maybe")]);
    assert_eq!(r["status"], "error");
    assert_eq!(r["data"], "/llv/live: on or off (1 or 0, T or F)");
}
