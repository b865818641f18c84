//! Any datagram, recording line, LLV body, take image or OSC packet: never a panic; valid packets re-encode identically.
#![no_main]

use libfuzzer_sys::fuzz_target;
use llv_core::packet::{classify, Datagram, MAX_LEN};
use llv_core::osc::{self, Packet};
use llv_core::{line, llv_file::Frames, take::TakeImage};

fuzz_target!(|data: &[u8]| {
    match classify(data) {
        Datagram::Face(packet) => {
            let mut out = [0u8; MAX_LEN];
            let n = packet.frame().encode(&mut out).expect("a decoded frame encodes");
            assert_eq!(&out[..n], data);
        }
        Datagram::Invalid(e) => assert!(e.offset <= data.len()),
        Datagram::NoFace(_) | Datagram::MetaHumanAnimator(_) => {}
    }
    let mut out = [0u8; MAX_LEN];
    let _ = line::decode(data, &mut out);
    let _ = TakeImage::parse(data);
    if let Ok(frames) = Frames::new(data) {
        for frame in frames.flatten() {
            assert!(frame.offset + frame.packet.len() <= data.len());
        }
    }
    if let Ok(packet) = Packet::parse(data) {
        walk(&packet);
    }
    let mut slip = osc::SlipDecoder::new();
    let mut buf = [0u8; 256];
    for &b in data {
        if let osc::SlipEvent::Frame(n) = slip.push(b, &mut buf) {
            assert!(n <= buf.len());
        }
    }
});

fn walk(packet: &Packet<'_>) {
    match packet {
        Packet::Message(m) => assert_eq!(m.args().count(), m.type_tags().len()),
        Packet::Bundle(b) => b.elements().for_each(|p| walk(&p)),
    }
}
