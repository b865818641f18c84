//! The mDNS/DNS-SD responder, read with an independent DNS implementation
//! (simple-dns): what a browser asking for `_llv._tcp`, `_osc._udp`, `_http._tcp` or the
//! service types gets, what `NAME.local` resolves to, legacy (one-shot)
//! queries (their TTL at most 10 s), the announcement, the goodbye (TTL 0)
//! on a rename, and no answer (nor panic) for anything else.

use std::collections::HashMap;

use llv_control::mdns::{
    announce, answer, goodbye, needs_goodbye, reply_to, Identity, GROUP, MAX_MESSAGE,
    ONE_SHOT_TTL_S, PORT, TTL_S,
};
use proptest::prelude::*;
use simple_dns::rdata::RData;
use simple_dns::{Name, Packet, Question, CLASS, TYPE};

const BOX: Identity<'static> = Identity {
    name: "stage-left",
    firmware: "llv-box-qemu 0.1.0",
    ipv4: [10, 0, 2, 15],
    control_port: 11113,
    osc_port: 11114,
    http_port: Some(80),
    free_bytes: 2_883_584,
    playing: "dao",
};

fn query(id: u16, names: &[(&str, TYPE)]) -> Vec<u8> {
    let mut q = Packet::new_query(id);
    for (name, ty) in names {
        q.questions.push(Question::new(
            Name::new_unchecked(name),
            (*ty).into(),
            CLASS::IN.into(),
            false,
        ));
    }
    q.build_bytes_vec().unwrap()
}

/// Every record of an answer, as (name, data) in words.
fn records(bytes: &[u8]) -> Vec<(String, String)> {
    let p = Packet::parse(bytes).unwrap();
    p.answers
        .iter()
        .chain(&p.additional_records)
        .map(|r| {
            let data = match &r.rdata {
                RData::A(a) => std::net::Ipv4Addr::from(a.address).to_string(),
                RData::PTR(ptr) => ptr.0.to_string(),
                RData::SRV(srv) => format!("{} {}", srv.port, srv.target),
                RData::TXT(txt) => {
                    let mut kv: Vec<_> = txt
                        .attributes()
                        .into_iter()
                        .map(|(k, v)| format!("{k}={}", v.unwrap_or_default()))
                        .collect();
                    kv.sort();
                    kv.join(" ")
                }
                other => format!("{other:?}"),
            };
            (r.name.to_string(), data)
        })
        .collect()
}

fn ask(q: &[u8], from_port: u16) -> Vec<u8> {
    let mut out = [0u8; MAX_MESSAGE];
    let n = answer(&BOX, q, from_port, &mut out);
    out[..n].to_vec()
}

#[test]
fn a_browser_finds_every_service_with_its_port_address_and_txt() {
    let reply = ask(&query(0, &[("_llv._tcp.local", TYPE::PTR)]), PORT);
    let p = Packet::parse(&reply).unwrap();
    assert!(p.has_flags(simple_dns::PacketFlag::RESPONSE));
    assert_eq!(p.id(), 0);
    assert!(p.questions.is_empty(), "mDNS answers repeat no question");
    let found: HashMap<String, Vec<String>> =
        records(&reply)
            .into_iter()
            .fold(HashMap::new(), |mut m, (name, data)| {
                m.entry(name).or_default().push(data);
                m
            });
    assert_eq!(found["_llv._tcp.local"], ["stage-left._llv._tcp.local"]);
    assert_eq!(
        found["stage-left._llv._tcp.local"],
        [
            "11113 stage-left.local",
            format!(
                "free=2883584 fw=llv-box-qemu 0.1.0 name=stage-left play=dao proto={}",
                llv_core::control::PROTOCOL_VERSION
            )
            .as_str()
        ]
    );
    assert_eq!(
        found["stage-left._osc._udp.local"][0],
        "11114 stage-left.local"
    );
    assert!(found["stage-left.local"].iter().all(|a| a == "10.0.2.15"));
    assert!(reply.len() < 1024, "{} bytes", reply.len());

    let reply = ask(&query(0, &[("_osc._udp.local", TYPE::PTR)]), PORT);
    assert!(records(&reply).contains(&(
        "_osc._udp.local".to_string(),
        "stage-left._osc._udp.local".to_string()
    )));
    let reply = ask(
        &query(0, &[("_services._dns-sd._udp.local", TYPE::PTR)]),
        PORT,
    );
    let types: Vec<_> = records(&reply)
        .into_iter()
        .filter(|(n, _)| n == "_services._dns-sd._udp.local")
        .map(|(_, d)| d)
        .collect();
    assert_eq!(types.len(), 3);
    assert!(types.contains(&"_llv._tcp.local".to_string()));
    assert!(types.contains(&"_osc._udp.local".to_string()));
    assert!(types.contains(&"_http._tcp.local".to_string()));

    // A browser looking for web pages finds the page, on the HTTP port.
    let reply = ask(&query(0, &[("_http._tcp.local", TYPE::PTR)]), PORT);
    let all = records(&reply);
    assert!(all.contains(&(
        "_http._tcp.local".to_string(),
        "stage-left._http._tcp.local".to_string()
    )));
    assert!(all.contains(&(
        "stage-left._http._tcp.local".to_string(),
        "80 stage-left.local".to_string()
    )));
    assert!(reply.len() < 1024, "{} bytes", reply.len());
}

#[test]
fn without_the_page_no_http_service_is_told() {
    let no_page = Identity {
        http_port: None,
        ..BOX
    };
    let mut out = [0u8; MAX_MESSAGE];
    let n = answer(
        &no_page,
        &query(0, &[("_http._tcp.local", TYPE::PTR)]),
        PORT,
        &mut out,
    );
    assert_eq!(n, 0);
    let n = announce(&no_page, &mut out);
    assert!(records(&out[..n])
        .iter()
        .all(|(name, _)| !name.contains("_http")));
}

#[test]
fn the_name_resolves_and_a_legacy_query_is_answered_to_its_sender() {
    let answers = |reply: &[u8]| {
        let p = Packet::parse(reply).unwrap();
        let a: Vec<_> = p
            .answers
            .iter()
            .map(|r| (r.name.to_string(), r.rdata.clone().into_owned()))
            .collect();
        a
    };
    let reply = ask(&query(0, &[("stage-left.local", TYPE::A)]), PORT);
    assert_eq!(
        answers(&reply),
        [(
            "stage-left.local".to_string(),
            RData::A(simple_dns::rdata::A {
                address: u32::from_be_bytes([10, 0, 2, 15])
            })
        )]
    );
    // Case does not matter in DNS names.
    let reply = ask(&query(0, &[("Stage-Left.local", TYPE::A)]), PORT);
    assert_eq!(answers(&reply).len(), 1);
    // A one-shot query from another port: its id and question come back, to it.
    let reply = ask(&query(0x1234, &[("stage-left.local", TYPE::A)]), 40000);
    let p = Packet::parse(&reply).unwrap();
    assert_eq!(p.id(), 0x1234);
    assert_eq!(p.questions.len(), 1);
    assert_eq!(reply_to(([127, 0, 0, 1], 40000)), ([127, 0, 0, 1], 40000));
    assert_eq!(reply_to(([10, 0, 2, 2], PORT)), (GROUP, PORT));
}

#[test]
fn other_names_responses_and_garbage_get_no_answer() {
    assert!(ask(&query(0, &[("other.local", TYPE::A)]), PORT).is_empty());
    assert!(ask(&query(0, &[("_ftp._tcp.local", TYPE::PTR)]), PORT).is_empty());
    // A response (ours, echoed by the group) is not answered.
    let reply = ask(&query(0, &[("stage-left.local", TYPE::A)]), PORT);
    assert!(ask(&reply, PORT).is_empty());
    for garbage in [&[][..], &[0; 5], &[0xFF; 12], b"not a dns message at all"] {
        assert!(ask(garbage, PORT).is_empty());
    }
}

#[test]
fn the_announcement_holds_every_record() {
    let mut out = [0u8; MAX_MESSAGE];
    let n = announce(&BOX, &mut out);
    let all = records(&out[..n]);
    for (name, data) in [
        ("stage-left.local", "10.0.2.15"),
        ("_llv._tcp.local", "stage-left._llv._tcp.local"),
        ("_osc._udp.local", "stage-left._osc._udp.local"),
        ("stage-left._llv._tcp.local", "11113 stage-left.local"),
        ("stage-left._osc._udp.local", "11114 stage-left.local"),
        ("_http._tcp.local", "stage-left._http._tcp.local"),
        ("stage-left._http._tcp.local", "80 stage-left.local"),
    ] {
        assert!(
            all.contains(&(name.to_string(), data.to_string())),
            "{name} {data}: {all:?}"
        );
    }
    // The longest name and firmware still fit one message.
    let long = Identity {
        name: &"n".repeat(32),
        firmware: &"f".repeat(24),
        playing: &"p".repeat(32),
        ..BOX
    };
    assert!(announce(&long, &mut out) > 0);
    let n = answer(
        &long,
        &query(0, &[("_llv._tcp.local", TYPE::PTR)]),
        PORT,
        &mut out,
    );
    assert!(n > 0);
    eprintln!("longest answer {n}, announce {}", announce(&long, &mut out));
}

/// The TTL of every record of a message.
fn ttls(bytes: &[u8]) -> Vec<u32> {
    let p = Packet::parse(bytes).unwrap();
    p.answers
        .iter()
        .chain(&p.additional_records)
        .map(|r| r.ttl)
        .collect()
}

#[test]
fn one_shot_answers_live_10_s_group_answers_120_s() {
    // RFC 6762 §6.7: answers to a legacy (one-shot) query carry at most 10 s.
    for q in [
        query(9, &[("_llv._tcp.local", TYPE::PTR)]),
        query(9, &[("stage-left.local", TYPE::A)]),
    ] {
        let legacy = ttls(&ask(&q, 40000));
        assert!(!legacy.is_empty());
        assert!(legacy.iter().all(|t| *t == ONE_SHOT_TTL_S), "{legacy:?}");
        const { assert!(ONE_SHOT_TTL_S <= 10) };
        let group = ttls(&ask(&q, PORT));
        assert!(group.iter().all(|t| *t == TTL_S), "{group:?}");
    }
    let mut out = [0u8; MAX_MESSAGE];
    let n = announce(&BOX, &mut out);
    assert!(ttls(&out[..n]).iter().all(|t| *t == TTL_S));
}

#[test]
fn a_goodbye_takes_back_every_record_and_comes_with_a_rename() {
    let mut out = [0u8; MAX_MESSAGE];
    let n = goodbye(&BOX, &mut out);
    let p = Packet::parse(&out[..n]).unwrap();
    assert!(p.has_flags(simple_dns::PacketFlag::RESPONSE));
    assert_eq!(ttls(&out[..n]), vec![0; ttls(&out[..n]).len()]);
    let mut all = [0u8; MAX_MESSAGE];
    let m = announce(&BOX, &mut all);
    assert_eq!(
        records(&out[..n]),
        records(&all[..m]),
        "the same records, TTL 0"
    );
    let renamed = Identity {
        name: "stage-right",
        ..BOX
    };
    let moved = Identity {
        ipv4: [10, 0, 2, 16],
        ..BOX
    };
    let playing = Identity {
        playing: "",
        free_bytes: 0,
        ..BOX
    };
    assert!(needs_goodbye(&BOX, &renamed));
    assert!(needs_goodbye(&BOX, &moved));
    assert!(!needs_goodbye(&BOX, &playing));
}

proptest! {
    #[test]
    fn any_bytes_are_answered_or_not_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600), port in any::<u16>()) {
        let mut out = [0u8; MAX_MESSAGE];
        let n = answer(&BOX, &bytes, port, &mut out);
        prop_assert!(n <= MAX_MESSAGE);
    }

    #[test]
    fn mutated_queries_never_panic(at in 0usize..40, byte in any::<u8>()) {
        let mut q = query(7, &[("_llv._tcp.local", TYPE::PTR), ("stage-left.local", TYPE::A)]);
        let i = at % q.len();
        q[i] = byte;
        let mut out = [0u8; MAX_MESSAGE];
        answer(&BOX, &q, PORT, &mut out);
    }
}
