//! The OSC codec: the bytes of the specification's examples and of the box's
//! own messages, every error, no panic on any bytes, the stream framings, and
//! agreement with an independent implementation (rosc) both ways.

use llv_core::osc::*;
use proptest::prelude::*;
use rosc::{OscBundle, OscMessage, OscPacket, OscTime, OscType};

fn message(bytes: &[u8]) -> Message<'_> {
    match Packet::parse(bytes).unwrap() {
        Packet::Message(m) => m,
        other => panic!("not a message: {other:?}"),
    }
}

fn encoded(address: &str, args: &[Arg<'_>]) -> Vec<u8> {
    let mut buf = [0u8; 1024];
    let n = encode_message(address, args, &mut buf).unwrap();
    buf[..n].to_vec()
}

#[test]
fn the_specifications_examples_have_their_bytes() {
    // OSC 1.0 specification, "Examples".
    let frequency: &[u8] = &[
        0x2f, 0x6f, 0x73, 0x63, 0x69, 0x6c, 0x6c, 0x61, 0x74, 0x6f, 0x72, 0x2f, 0x34, 0x2f, 0x66,
        0x72, 0x65, 0x71, 0x75, 0x65, 0x6e, 0x63, 0x79, 0x00, 0x2c, 0x66, 0x00, 0x00, 0x43, 0xdc,
        0x00, 0x00,
    ];
    let m = message(frequency);
    assert_eq!(m.address, "/oscillator/4/frequency");
    assert_eq!(m.type_tags(), "f");
    assert_eq!(m.args().collect::<Vec<_>>(), [Arg::Float(440.0)]);
    assert_eq!(encoded(m.address, &[Arg::Float(440.0)]), frequency);

    let foo: &[u8] = &[
        0x2f, 0x66, 0x6f, 0x6f, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x69, 0x69, 0x73, 0x66, 0x66, 0x00,
        0x00, 0x00, 0x00, 0x03, 0xe8, 0xff, 0xff, 0xff, 0xff, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00,
        0x00, 0x00, 0x3f, 0x9d, 0xf3, 0xb6, 0x40, 0xb5, 0xb2, 0x2d,
    ];
    let args = [
        Arg::Int(1000),
        Arg::Int(-1),
        Arg::Str("hello"),
        Arg::Float(1.234),
        Arg::Float(5.678),
    ];
    assert_eq!(message(foo).args().collect::<Vec<_>>(), args);
    assert_eq!(encoded("/foo", &args), foo);
}

#[test]
fn the_box_messages_have_their_bytes() {
    // `/llv/play ,si "dao" 2`: what a QLab Network cue sends.
    let play = encoded("/llv/play", &[Arg::Str("dao"), Arg::Int(2)]);
    assert_eq!(
        play,
        b"/llv/play\0\0\0,si\0dao\0\0\0\0\x02".as_slice(),
        "{play:02x?}"
    );
    // `/llv/stop` without arguments still carries its (empty) type tags.
    assert_eq!(encoded("/llv/stop", &[]), b"/llv/stop\0\0\0,\0\0\0");
    // Every other tag, with a blob padded to 4 bytes.
    let all = encoded(
        "/a",
        &[
            Arg::Blob(&[1, 2, 3]),
            Arg::True,
            Arg::False,
            Arg::Nil,
            Arg::Long(-2),
            Arg::Double(0.5),
        ],
    );
    assert_eq!(
        all,
        [
            b"/a\0\0,bTFNhd\0".as_slice(),
            &[0, 0, 0, 3, 1, 2, 3, 0],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe],
            &[0x3f, 0xe0, 0, 0, 0, 0, 0, 0],
        ]
        .concat()
    );
    // A bundle "at once" holding `/llv/stop`.
    let mut buf = [0u8; 64];
    let mut w = BundleWriter::new(&mut buf, IMMEDIATELY).unwrap();
    w.message("/llv/stop", &[]).unwrap();
    let n = w.finish();
    assert_eq!(
        &buf[..n],
        [
            b"#bundle\0".as_slice(),
            &[0, 0, 0, 0, 0, 0, 0, 1],
            &[0, 0, 0, 16],
            b"/llv/stop\0\0\0,\0\0\0",
        ]
        .concat()
    );
    let Packet::Bundle(b) = Packet::parse(&buf[..n]).unwrap() else {
        panic!("not a bundle")
    };
    assert_eq!(b.timetag, IMMEDIATELY);
    let elements: Vec<_> = b.elements().collect();
    assert_eq!(elements.len(), 1);
    assert!(matches!(elements[0], Packet::Message(m) if m.address == "/llv/stop"));
}

#[test]
fn every_malformed_packet_is_named() {
    let cases: &[(&[u8], OscError)] = &[
        (b"", OscError::Truncated),
        (b"/llv", OscError::Truncated),
        (b"/llv\0\0\0", OscError::Truncated),
        (b"/llv\0\0\0x", OscError::Padding),
        (b"llv\0", OscError::Address),
        (b"/ab\xff\0\0\0\0", OscError::Address),
        (b"/llv\0\0\0\0si\0\0", OscError::TypeTags),
        (b"/llv\0\0\0\0,i\0\0\0\0\0", OscError::Truncated),
        (b"/llv\0\0\0\0,c\0\0\0\0\0a", OscError::UnsupportedTag(b'c')),
        (b"/llv\0\0\0\0,i\0\0\0\0\0\x01\0\0\0\0", OscError::Trailing),
        (b"/llv\0\0\0\0,s\0\0abc", OscError::Truncated),
        (b"/llv\0\0\0\0,s\0\0ab\0\x01", OscError::Padding),
        (b"/llv\0\0\0\0,s\0\0\xff\xfe\0\0", OscError::NotUtf8),
        (b"/llv\0\0\0\0,b\0\0\xff\xff\xff\xff", OscError::Size),
        (b"/llv\0\0\0\0,b\0\0\0\0\0\x08abcd", OscError::Size),
        (b"/llv\0\0\0\0,b\0\0\0\0\0\x02ab\0\x07", OscError::Padding),
        (b"#bundle\0\0\0\0\0", OscError::Truncated),
        (b"#bundlx\0\0\0\0\0\0\0\0\x01", OscError::Address),
        (b"#bundle\0\0\0\0\0\0\0\0\x01\0\0\0\x03abc", OscError::Size),
        (b"#bundle\0\0\0\0\0\0\0\0\x01\0\0\0\x08abcd", OscError::Size),
        (b"#bundle\0\0\0\0\0\0\0\0\x01\0\0\0\0", OscError::Size),
        (
            b"#bundle\0\0\0\0\0\0\0\0\x01\xff\xff\xff\xfc",
            OscError::Size,
        ),
        (
            b"#bundle\0\0\0\0\0\0\0\0\x01\0\0\0\x04/a\0\0\0",
            OscError::Truncated,
        ),
    ];
    for (bytes, error) in cases {
        assert_eq!(Packet::parse(bytes), Err(*error), "{bytes:02x?}");
        assert!(!error.to_string().is_empty());
    }
    // A message without type tags (OSC 1.0's oldest senders) has no arguments.
    let m = message(b"/llv/stop\0\0\0");
    assert_eq!((m.address, m.args().count()), ("/llv/stop", 0));
}

/// A bundle nested `depth` deep around `/a`.
fn nested(depth: usize) -> Vec<u8> {
    let mut packet = encoded("/a", &[]);
    for _ in 0..depth {
        let mut buf = vec![0u8; packet.len() + 32];
        let mut w = BundleWriter::new(&mut buf, IMMEDIATELY).unwrap();
        w.packet(&packet).unwrap();
        let n = w.finish();
        buf.truncate(n);
        packet = buf;
    }
    packet
}

#[test]
fn bundles_nest_at_most_max_depth() {
    assert!(Packet::parse(&nested(MAX_DEPTH)).is_ok());
    assert_eq!(
        Packet::parse(&nested(MAX_DEPTH + 1)),
        Err(OscError::TooDeep)
    );
    // A bundle of a thousand messages parses (it is only bytes); the door limits what it runs.
    let mut buf = vec![0u8; 32 * 1024];
    let mut w = BundleWriter::new(&mut buf, IMMEDIATELY).unwrap();
    for _ in 0..1000 {
        w.message("/llv/status", &[]).unwrap();
    }
    let n = w.finish();
    let Packet::Bundle(b) = Packet::parse(&buf[..n]).unwrap() else {
        panic!()
    };
    assert_eq!(b.elements().count(), 1000);
}

#[test]
fn messages_come_out_of_nested_bundles_in_order() {
    let mut inner = vec![0u8; 128];
    let mut w = BundleWriter::new(&mut inner, IMMEDIATELY).unwrap();
    w.message("/b", &[]).unwrap();
    w.message("/c", &[Arg::Int(3)]).unwrap();
    let n = w.finish();
    inner.truncate(n);
    let mut buf = vec![0u8; 256];
    let mut w = BundleWriter::new(&mut buf, IMMEDIATELY).unwrap();
    w.message("/a", &[]).unwrap();
    w.packet(&inner).unwrap();
    w.message("/d", &[]).unwrap();
    let n = w.finish();
    let packet = Packet::parse(&buf[..n]).unwrap();
    let addresses: Vec<_> = packet.messages().map(|m| m.address).collect();
    assert_eq!(addresses, ["/a", "/b", "/c", "/d"]);
    let deepest = nested(MAX_DEPTH);
    let packet = Packet::parse(&deepest).unwrap();
    assert_eq!(packet.messages().count(), 1);
    let single = encoded("/x", &[]);
    assert_eq!(Packet::parse(&single).unwrap().messages().count(), 1);
}

#[test]
fn encoding_refuses_what_cannot_be_sent() {
    let mut small = [0u8; 8];
    assert_eq!(
        encode_message("/llv/play", &[], &mut small),
        Err(OscError::BufferTooSmall)
    );
    let mut buf = [0u8; 64];
    assert_eq!(encode_message("llv", &[], &mut buf), Err(OscError::Address));
    assert_eq!(
        encode_message("/a", &[Arg::Str("a\0b")], &mut buf),
        Err(OscError::Padding)
    );
    assert_eq!(
        slip_encode(&[1, 2], &mut [0u8; 3]),
        Err(OscError::BufferTooSmall)
    );
}

#[test]
fn counts_come_as_integers_or_whole_floats() {
    assert_eq!(Arg::Int(3).as_count(), Some(3));
    assert_eq!(Arg::Float(2.0).as_count(), Some(2));
    assert_eq!(Arg::Double(-1.0).as_count(), Some(-1));
    assert_eq!(Arg::Long(1 << 40).as_count(), Some(1 << 40));
    assert_eq!(Arg::Float(2.5).as_count(), None);
    assert_eq!(Arg::Float(f32::NAN).as_count(), None);
    assert_eq!(Arg::Double(1e300).as_count(), None);
    assert_eq!(Arg::Str("2").as_count(), None);
}

#[test]
fn slip_frames_escape_and_tell_their_framing() {
    let packet = [0x2f, SLIP_END, 0x00, SLIP_ESC, 0x41];
    let mut frame = [0u8; 16];
    let n = slip_encode(&packet, &mut frame).unwrap();
    assert_eq!(
        &frame[..n],
        [
            SLIP_END,
            0x2f,
            SLIP_ESC,
            SLIP_ESC_END,
            0x00,
            SLIP_ESC,
            SLIP_ESC_ESC,
            0x41,
            SLIP_END
        ]
    );
    assert_eq!(Framing::detect(frame[0]), Some(Framing::Slip));
    assert_eq!(Framing::detect(b'/'), Some(Framing::Slip));
    assert_eq!(Framing::detect(0), Some(Framing::SizePrefix));
    assert_eq!(Framing::detect(0x41), None);

    // Two frames back to back (a double END between them), one byte at a time.
    let mut stream = frame[..n].to_vec();
    stream.extend_from_slice(&frame[..n]);
    let mut decoder = SlipDecoder::new();
    let mut buf = [0u8; 8];
    let mut frames = 0;
    for &b in &stream {
        if let SlipEvent::Frame(len) = decoder.push(b, &mut buf) {
            assert_eq!(&buf[..len], packet);
            frames += 1;
        }
    }
    assert_eq!(frames, 2);

    // Too long for the buffer, and a bad escape: each reported once, at its END.
    let mut tiny = [0u8; 2];
    let events: Vec<_> = [1, 2, 3, SLIP_END, SLIP_ESC, 7, SLIP_END, 9, SLIP_END]
        .iter()
        .map(|&b| decoder.push(b, &mut tiny))
        .filter(|e| *e != SlipEvent::Pending)
        .collect();
    assert_eq!(
        events,
        [
            SlipEvent::Overflow,
            SlipEvent::BadEscape,
            SlipEvent::Frame(1)
        ]
    );

    let mut framed = [0u8; 16];
    let n = size_prefix_encode(b"/a\0\0", &mut framed).unwrap();
    assert_eq!(&framed[..n], b"\0\0\0\x04/a\0\0");
    assert_eq!(size_prefix([0, 0, 0, 4]), Some(4));
    assert_eq!(size_prefix([0xff, 0, 0, 4]), None);
}

// ---- Against rosc, an independent implementation ----

fn to_rosc(arg: &Arg<'_>) -> OscType {
    match *arg {
        Arg::Int(v) => OscType::Int(v),
        Arg::Float(v) => OscType::Float(v),
        Arg::Str(s) => OscType::String(s.to_string()),
        Arg::Blob(b) => OscType::Blob(b.to_vec()),
        Arg::True => OscType::Bool(true),
        Arg::False => OscType::Bool(false),
        Arg::Nil => OscType::Nil,
        Arg::Long(v) => OscType::Long(v),
        Arg::Double(v) => OscType::Double(v),
    }
}

/// Compares floats by their bits (NaN included).
fn same(ours: &Arg<'_>, theirs: &OscType) -> bool {
    match (*ours, theirs) {
        (Arg::Float(a), OscType::Float(b)) => a.to_bits() == b.to_bits(),
        (Arg::Double(a), OscType::Double(b)) => a.to_bits() == b.to_bits(),
        (a, b) => to_rosc(&a) == *b,
    }
}

fn same_packet(ours: &Packet<'_>, theirs: &OscPacket) -> bool {
    match (ours, theirs) {
        (Packet::Message(m), OscPacket::Message(r)) => {
            let args: Vec<_> = m.args().collect();
            m.address == r.addr
                && args.len() == r.args.len()
                && args.iter().zip(&r.args).all(|(a, b)| same(a, b))
        }
        (Packet::Bundle(b), OscPacket::Bundle(r)) => {
            let time: (u32, u32) = r.timetag.into();
            let elements: Vec<_> = b.elements().collect();
            b.timetag == (u64::from(time.0) << 32 | u64::from(time.1))
                && elements.len() == r.content.len()
                && elements
                    .iter()
                    .zip(&r.content)
                    .all(|(a, b)| same_packet(a, b))
        }
        _ => false,
    }
}

#[derive(Clone, Debug)]
enum OwnedArg {
    Int(i32),
    Float(f32),
    Str(String),
    Blob(Vec<u8>),
    True,
    False,
    Nil,
    Long(i64),
    Double(f64),
}

impl OwnedArg {
    fn borrow(&self) -> Arg<'_> {
        match self {
            OwnedArg::Int(v) => Arg::Int(*v),
            OwnedArg::Float(v) => Arg::Float(*v),
            OwnedArg::Str(s) => Arg::Str(s),
            OwnedArg::Blob(b) => Arg::Blob(b),
            OwnedArg::True => Arg::True,
            OwnedArg::False => Arg::False,
            OwnedArg::Nil => Arg::Nil,
            OwnedArg::Long(v) => Arg::Long(*v),
            OwnedArg::Double(v) => Arg::Double(*v),
        }
    }
}

fn arg() -> impl Strategy<Value = OwnedArg> {
    prop_oneof![
        any::<i32>().prop_map(OwnedArg::Int),
        any::<f32>().prop_map(OwnedArg::Float),
        "[^\u{0}]{0,20}".prop_map(OwnedArg::Str),
        proptest::collection::vec(any::<u8>(), 0..20).prop_map(OwnedArg::Blob),
        Just(OwnedArg::True),
        Just(OwnedArg::False),
        Just(OwnedArg::Nil),
        any::<i64>().prop_map(OwnedArg::Long),
        any::<f64>().prop_map(OwnedArg::Double),
    ]
}

fn address() -> impl Strategy<Value = String> {
    "(/[a-zA-Z0-9_.-]{1,10}){1,4}"
}

fn rosc_message() -> impl Strategy<Value = OscPacket> {
    (address(), proptest::collection::vec(arg(), 0..8)).prop_map(|(addr, args)| {
        OscPacket::Message(OscMessage {
            addr,
            args: args.iter().map(|a| to_rosc(&a.borrow())).collect(),
        })
    })
}

fn rosc_packet() -> impl Strategy<Value = OscPacket> {
    rosc_message().prop_recursive(3, 24, 4, |inner| {
        (any::<(u32, u32)>(), proptest::collection::vec(inner, 0..4)).prop_map(|(time, content)| {
            OscPacket::Bundle(OscBundle {
                timetag: OscTime::from(time),
                content,
            })
        })
    })
}

proptest! {
    #[test]
    fn what_we_encode_rosc_decodes_alike(addr in address(), args in proptest::collection::vec(arg(), 0..8)) {
        let args: Vec<Arg<'_>> = args.iter().map(OwnedArg::borrow).collect();
        let bytes = encoded(&addr, &args);
        let (rest, theirs) = rosc::decoder::decode_udp(&bytes).unwrap();
        prop_assert!(rest.is_empty());
        let ours = Packet::parse(&bytes).unwrap();
        prop_assert!(same_packet(&ours, &theirs), "{ours:?} vs {theirs:?}");
        // And byte for byte what rosc encodes.
        prop_assert_eq!(rosc::encoder::encode(&theirs).unwrap(), bytes);
    }

    #[test]
    fn what_rosc_encodes_we_decode_alike(packet in rosc_packet()) {
        let bytes = rosc::encoder::encode(&packet).unwrap();
        let ours = Packet::parse(&bytes);
        match (&packet, ours) {
            (_, Ok(ours)) => prop_assert!(same_packet(&ours, &packet), "{ours:?} vs {packet:?}"),
            // Deeper than MAX_DEPTH is ours to refuse.
            (_, Err(OscError::TooDeep)) => {}
            (_, Err(e)) => prop_assert!(false, "{e} for {packet:?}"),
        }
        // The OSC 1.0 stream framing: a size prefix, as rosc reads it (and
        // writes it for messages: rosc 0.11 leaves bundles unprefixed).
        let mut framed = vec![0u8; bytes.len() + 4];
        let n = size_prefix_encode(&bytes, &mut framed).unwrap();
        let (rest, back) = rosc::decoder::decode_tcp(&framed[..n]).unwrap();
        prop_assert!(rest.is_empty());
        prop_assert_eq!(rosc::encoder::encode(&back.unwrap()).unwrap(), bytes);
        if let OscPacket::Message(_) = packet {
            prop_assert_eq!(&framed[..n], &rosc::encoder::encode_tcp(&packet).unwrap()[..]);
        }
        prop_assert_eq!(Framing::detect(framed[0]), Some(Framing::SizePrefix));
    }

    #[test]
    fn any_bytes_parse_or_fail_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        walk(&bytes);
    }

    #[test]
    fn mutated_packets_parse_or_fail_without_panic(packet in rosc_packet(), at in any::<usize>(), byte in any::<u8>(), cut in any::<usize>()) {
        let mut bytes = rosc::encoder::encode(&packet).unwrap();
        let i = at % bytes.len();
        bytes[i] = byte;
        walk(&bytes);
        bytes.truncate(cut % (bytes.len() + 1));
        walk(&bytes);
    }

    #[test]
    fn slip_round_trips_any_packet(bytes in proptest::collection::vec(any::<u8>(), 1..200)) {
        let mut frame = vec![0u8; 2 * bytes.len() + 2];
        let n = slip_encode(&bytes, &mut frame).unwrap();
        prop_assert!(!frame[1..n - 1].contains(&SLIP_END));
        let mut decoder = SlipDecoder::new();
        let mut buf = vec![0u8; bytes.len()];
        let mut got = None;
        for &b in &frame[..n] {
            if let SlipEvent::Frame(len) = decoder.push(b, &mut buf) {
                got = Some(buf[..len].to_vec());
            }
        }
        prop_assert_eq!(got, Some(bytes));
    }

    #[test]
    fn slip_decodes_any_stream_without_panic(stream in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut decoder = SlipDecoder::new();
        let mut buf = [0u8; 64];
        for &b in &stream {
            if let SlipEvent::Frame(len) = decoder.push(b, &mut buf) {
                prop_assert!(len <= buf.len());
                walk(&buf[..len]);
            }
        }
    }
}

/// Parses `bytes` and walks everything a parsed packet offers.
fn walk(bytes: &[u8]) {
    if let Ok(packet) = Packet::parse(bytes) {
        visit(&packet);
    }
}

fn visit(packet: &Packet<'_>) {
    match packet {
        Packet::Message(m) => {
            let _ = m.type_tags();
            assert_eq!(m.args().count(), m.type_tags().len());
        }
        Packet::Bundle(b) => b.elements().for_each(|p| visit(&p)),
    }
    assert!(packet.messages().count() <= 300);
}
