//! Network bring-up against a link where nobody answers, on embassy-time's
//! mock clock: DHCP is tried from the start, then the static fallback is
//! taken exactly at the timeout.

mod common;

use std::cell::RefCell;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::rc::Rc;
use std::task::Context;

use common::{clock, on_mock_clock};
use embassy_futures::select::{select, Either};
use embassy_net::driver::{Capabilities, Driver, HardwareAddress, LinkState, RxToken, TxToken};
use embassy_net::{Ipv4Cidr, StackResources};
use embassy_time::{Duration, Instant};
use llv_box::net::{bring_up, stack_config, AddressSource};
use llv_box::BoxConfig;
use llv_core::settings::StaticAddress;

/// A link that is up, swallows every frame it is given and never receives.
struct SilentLink {
    sent: Rc<RefCell<Vec<Vec<u8>>>>,
}

struct NoRx;

impl RxToken for NoRx {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, f: F) -> R {
        f(&mut [])
    }
}

struct Capture(Rc<RefCell<Vec<Vec<u8>>>>);

impl TxToken for Capture {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let mut frame = vec![0; len];
        let r = f(&mut frame);
        self.0.borrow_mut().push(frame);
        r
    }
}

impl Driver for SilentLink {
    type RxToken<'a> = NoRx;
    type TxToken<'a> = Capture;

    fn receive(&mut self, _cx: &mut Context) -> Option<(NoRx, Capture)> {
        None
    }

    fn transmit(&mut self, _cx: &mut Context) -> Option<Capture> {
        Some(Capture(self.sent.clone()))
    }

    fn link_state(&mut self, _cx: &mut Context) -> LinkState {
        LinkState::Up
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::default();
        caps.max_transmission_unit = 1514;
        caps
    }

    fn hardware_address(&self) -> HardwareAddress {
        HardwareAddress::Ethernet([0x02, 0, 0, 0, 0, 1])
    }
}

const MS: Duration = Duration::from_millis(1);
const LIMIT: Duration = Duration::from_secs(10);

fn config(line: &str) -> BoxConfig {
    BoxConfig::new(
        &[SocketAddrV4::new(Ipv4Addr::new(10, 0, 2, 2), 11111)],
        StaticAddress {
            ip: [10, 0, 2, 15],
            prefix_len: 24,
            gateway: Some([10, 0, 2, 2]),
        },
    )
    .apply(line)
    .unwrap()
}

fn is_dhcp_request(frame: &[u8]) -> bool {
    // Ethernet IPv4, protocol UDP, destination port 67 (IHL of 5 words).
    frame.len() > 42
        && frame[12..14] == [0x08, 0x00]
        && frame[23] == 17
        && frame[36..38] == 67u16.to_be_bytes()
}

#[test]
fn no_lease_falls_back_to_the_static_address_after_the_timeout() {
    let _clock = clock();
    let policy = config("dhcp_timeout_ms=300 static=10.0.2.77/24").net;
    let sent = Rc::new(RefCell::new(Vec::new()));
    let mut resources = StackResources::<3>::new();
    let (stack, mut runner) = embassy_net::new(
        SilentLink { sent: sent.clone() },
        stack_config(&policy),
        &mut resources,
        7,
    );
    let start = Instant::now();
    let up = match on_mock_clock(select(runner.run(), bring_up(stack, &policy)), MS, LIMIT) {
        Either::First(never) => never,
        Either::Second(up) => up,
    };
    let waited = start.elapsed();
    assert_eq!(up.source, AddressSource::Static);
    assert_eq!(up.address, Ipv4Cidr::new(Ipv4Addr::new(10, 0, 2, 77), 24));
    assert_eq!(stack.config_v4().unwrap().address, up.address);
    assert_eq!(waited, Duration::from_millis(300));
    assert!(
        sent.borrow().iter().any(|f| is_dhcp_request(f)),
        "the DHCP client ran while waiting"
    );
}

#[test]
fn dhcp_off_takes_the_static_address_at_once() {
    let _clock = clock();
    let policy = config("dhcp=off static=192.168.7.9/16 gw=none").net;
    let sent = Rc::new(RefCell::new(Vec::new()));
    let mut resources = StackResources::<3>::new();
    let (stack, mut runner) = embassy_net::new(
        SilentLink { sent: sent.clone() },
        stack_config(&policy),
        &mut resources,
        7,
    );
    let start = Instant::now();
    let up = match on_mock_clock(select(runner.run(), bring_up(stack, &policy)), MS, LIMIT) {
        Either::First(never) => never,
        Either::Second(up) => up,
    };
    assert_eq!(up.source, AddressSource::Static);
    assert_eq!(up.address, Ipv4Cidr::new(Ipv4Addr::new(192, 168, 7, 9), 16));
    assert_eq!(start.elapsed(), Duration::from_ticks(0));
    assert!(
        !sent.borrow().iter().any(|f| is_dhcp_request(f)),
        "no DHCP with dhcp=off"
    );
}
