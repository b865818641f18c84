//! Discovery: the box answers mDNS (RFC 6762) and DNS-SD (RFC 6763) so show
//! tools and `llv discover` find it by name. One responder for the box and
//! `llv serve`, on edge-mdns (no heap): the box's socket code calls
//! [`answer`] with each datagram received on UDP 5353 and [`announce`] at
//! start-up; everything here is plain bytes in and out, tested on the host.
//!
//! Records of a box named `NAME` at `IP`:
//!
//! | name | type | data |
//! |---|---|---|
//! | `NAME.local` | A | `IP` |
//! | `_llv._tcp.local` | PTR | `NAME._llv._tcp.local` (the control port) |
//! | `_osc._udp.local` | PTR | `NAME._osc._udp.local` (the OSC port: Chataigne and TouchOSC list these) |
//! | `_http._tcp.local` | PTR | `NAME._http._tcp.local` (the page and HTTP API, when served) |
//! | `NAME._llv._tcp.local`, `NAME._osc._udp.local`, `NAME._http._tcp.local` | SRV | port, target `NAME.local` |
//! | the same | TXT | `fw=` firmware, `name=` box name, `free=` bytes free for takes, `play=` the take playing (empty when none), `proto=` control protocol |
//! | `_services._dns-sd._udp.local` | PTR | every service type |
//!
//! A query from port 5353 is answered to the mDNS group; one from any other
//! port (a one-shot "legacy" querier, or a test through QEMU's port
//! forwarding) is answered to its sender alone, echoing its id and
//! questions, with a TTL of [`ONE_SHOT_TTL_S`] (RFC 6762 §6.7). When the
//! box's name or address changes, and when `llv serve` stops, the old
//! records go out once more with a TTL of 0 ([`goodbye`], §10.1), so
//! browsers drop them at once.
//! Not done: probing for a name another host already uses, and known-answer
//! suppression (the box answers every matching question). edge-mdns
//! over-answers: every answer carries all the box's address, SRV and TXT
//! records in its additional section (a few hundred bytes).

use core::fmt::Write;
use core::net::Ipv4Addr;

use edge_mdns::domain::base::iana::Class;
use edge_mdns::domain::base::{Record, Ttl};
use edge_mdns::domain::rdata::{AllRecordData, Ptr, Srv, A};
use edge_mdns::{
    HostAnswer, HostAnswers, HostAnswersMdnsHandler, MdnsError, MdnsHandler, MdnsRequest,
    MdnsResponse, NameSlice, RecordDataChain, Txt, DNS_SD_OWNER,
};
use heapless::String;
use llv_core::control::PROTOCOL_VERSION;

/// The mDNS group.
pub const GROUP: [u8; 4] = [224, 0, 0, 251];
/// The mDNS port.
pub const PORT: u16 = llv_core::settings::MDNS_PORT;
/// The box's control service type (with `_tcp`).
pub const LLV_SERVICE: &str = "_llv";
/// The OSC service type (with `_udp`).
pub const OSC_SERVICE: &str = "_osc";
/// The web service type (with `_tcp`): the page and HTTP API.
pub const HTTP_SERVICE: &str = "_http";
/// Largest mDNS message the responder reads or writes: the most a UDP
/// datagram carries in one Ethernet frame (the announcement of the longest
/// name, firmware and take with three services takes 1346 bytes).
pub const MAX_MESSAGE: usize = 1472;
/// How long other hosts may cache the records.
pub const TTL_S: u32 = 120;
/// The TTL of an answer to a one-shot query (RFC 6762 §6.7: at most 10 s).
pub const ONE_SHOT_TTL_S: u32 = 10;

/// What the box tells about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity<'a> {
    /// The box's name (`NAME.local`; a host name label).
    pub name: &'a str,
    /// Firmware name and version.
    pub firmware: &'a str,
    /// The box's IPv4 address.
    pub ipv4: [u8; 4],
    /// The TCP control port.
    pub control_port: u16,
    /// The OSC port (UDP and TCP).
    pub osc_port: u16,
    /// The HTTP port of the page and API, if they are served.
    pub http_port: Option<u16>,
    /// Bytes free for takes.
    pub free_bytes: u64,
    /// The take playing; empty when none.
    pub playing: &'a str,
}

/// Runs `f` with the responder of `identity`, its records carrying `ttl_s`.
fn with_handler<R>(
    identity: &Identity<'_>,
    ttl_s: u32,
    f: impl FnOnce(&mut dyn MdnsHandler) -> R,
) -> R {
    let mut free: String<10> = String::new();
    // A u32 has at most 10 digits.
    let _ = write!(free, "{}", identity.free_bytes);
    let mut proto: String<5> = String::new();
    let _ = write!(proto, "{PROTOCOL_VERSION}");
    let txt = [
        ("fw", identity.firmware),
        ("name", identity.name),
        ("free", free.as_str()),
        ("play", identity.playing),
        ("proto", proto.as_str()),
    ];
    let answers = BoxAnswers {
        ttl: Ttl::from_secs(ttl_s),
        name: identity.name,
        ipv4: identity.ipv4,
        services: [
            Some((LLV_SERVICE, "_tcp", identity.control_port)),
            Some((OSC_SERVICE, "_udp", identity.osc_port)),
            identity.http_port.map(|p| (HTTP_SERVICE, "_tcp", p)),
        ],
        txt: &txt,
    };
    let mut handler = HostAnswersMdnsHandler::new(answers);
    f(&mut handler)
}

/// The box's records (edge-mdns's `ServiceAnswers` repeats the host's
/// address record for every service; these hold it once).
struct BoxAnswers<'a> {
    ttl: Ttl,
    name: &'a str,
    ipv4: [u8; 4],
    /// Service type, protocol, port (`None`: not served).
    services: [Option<(&'a str, &'a str, u16)>; 3],
    txt: &'a [(&'a str, &'a str)],
}

impl HostAnswers for BoxAnswers<'_> {
    fn visit<F, E>(&self, mut f: F) -> Result<(), E>
    where
        F: FnMut(HostAnswer) -> Result<(), E>,
        E: From<MdnsError>,
    {
        let ttl = self.ttl;
        let host = [self.name, "local"];
        let address = A::new(Ipv4Addr::from(self.ipv4).octets().into());
        f(Record::new(
            NameSlice::new(&host),
            Class::IN,
            ttl,
            RecordDataChain::Next(AllRecordData::A(address)),
        ))?;
        for (service, protocol, port) in self.services.into_iter().flatten() {
            let instance = [self.name, service, protocol, "local"];
            let kind = [service, protocol, "local"];
            f(Record::new(
                NameSlice::new(&instance),
                Class::IN,
                ttl,
                RecordDataChain::Next(AllRecordData::Srv(Srv::new(
                    0,
                    0,
                    port,
                    NameSlice::new(&host),
                ))),
            ))?;
            f(Record::new(
                NameSlice::new(&instance),
                Class::IN,
                ttl,
                RecordDataChain::This(Txt::new(self.txt)),
            ))?;
            f(Record::new(
                DNS_SD_OWNER,
                Class::IN,
                ttl,
                RecordDataChain::Next(AllRecordData::Ptr(Ptr::new(NameSlice::new(&kind)))),
            ))?;
            f(Record::new(
                NameSlice::new(&kind),
                Class::IN,
                ttl,
                RecordDataChain::Next(AllRecordData::Ptr(Ptr::new(NameSlice::new(&instance)))),
            ))?;
        }
        Ok(())
    }
}

/// Answers `query`, a datagram received on the mDNS port from port `from_port`:
/// the answer's length at the start of `out`, 0 for none (not a query, no
/// question about this box, or bytes that are no DNS message).
pub fn answer(identity: &Identity<'_>, query: &[u8], from_port: u16, out: &mut [u8]) -> usize {
    let legacy = from_port != PORT;
    let ttl = if legacy { ONE_SHOT_TTL_S } else { TTL_S };
    with_handler(identity, ttl, |handler| {
        let request = MdnsRequest::Request {
            legacy,
            multicast: from_port == PORT,
            data: query,
        };
        match handler.handle(request, out) {
            Ok(MdnsResponse::Reply { data, .. }) => data.len(),
            _ => 0,
        }
    })
}

/// Every record of the box, unasked, for the mDNS group (at start-up, and
/// when the records change): the length at the start of `out`, 0 if it
/// does not fit.
pub fn announce(identity: &Identity<'_>, out: &mut [u8]) -> usize {
    unasked(identity, TTL_S, out)
}

/// Every record of `identity` with a TTL of 0, for the mDNS group: the
/// records are gone (a rename, a new address, `llv serve` stopping). The
/// length at the start of `out`, 0 if it does not fit.
pub fn goodbye(identity: &Identity<'_>, out: &mut [u8]) -> usize {
    unasked(identity, 0, out)
}

/// Whether going from the records of `before` to those of `after` takes a
/// [`goodbye`] of `before` first: the name or the address changed (records
/// under the old name, or pointing at the old address, must go).
pub fn needs_goodbye(before: &Identity<'_>, after: &Identity<'_>) -> bool {
    before.name != after.name || before.ipv4 != after.ipv4
}

fn unasked(identity: &Identity<'_>, ttl_s: u32, out: &mut [u8]) -> usize {
    with_handler(identity, ttl_s, |handler| {
        match handler.handle(MdnsRequest::None, out) {
            Ok(MdnsResponse::Reply { data, .. }) => data.len(),
            _ => 0,
        }
    })
}

/// Where an answer to a query from `from` goes: the mDNS group, or (a
/// legacy query, from a port other than 5353) the sender.
pub fn reply_to(from: ([u8; 4], u16)) -> ([u8; 4], u16) {
    if from.1 == PORT {
        (GROUP, PORT)
    } else {
        from
    }
}
