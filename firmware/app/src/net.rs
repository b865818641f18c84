//! Network bring-up policy: DHCP first, a static address if no lease comes
//! within the configured time (or straight away with `dhcp=off`).

use embassy_net::{ConfigV4, DhcpConfig, Ipv4Cidr, Stack, StaticConfigV4};
use embassy_time::{with_timeout, Duration};
use heapless::Vec;

use crate::config::{NetPolicy, StaticV4};
use crate::fmt::{info, warning};

/// How the address was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AddressSource {
    Dhcp,
    Static,
}

/// The address in use after [`bring_up`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetUp {
    pub source: AddressSource,
    pub address: Ipv4Cidr,
}

/// The smoltcp form of a [`StaticV4`].
pub fn static_config(s: &StaticV4) -> StaticConfigV4 {
    StaticConfigV4 {
        address: Ipv4Cidr::new(s.address, s.prefix_len),
        gateway: s.gateway,
        dns_servers: Vec::new(),
    }
}

/// Waits for the link, then applies `policy`. The stack's runner must be
/// running in another task.
pub async fn bring_up(stack: Stack<'_>, policy: &NetPolicy) -> NetUp {
    stack.wait_link_up().await;
    info!("link up");
    if policy.dhcp {
        stack.set_config_v4(ConfigV4::Dhcp(DhcpConfig::default()));
        let wait = Duration::from_millis(u64::from(policy.dhcp_timeout_ms));
        if with_timeout(wait, stack.wait_config_up()).await.is_ok() {
            if let Some(config) = stack.config_v4() {
                return NetUp {
                    source: AddressSource::Dhcp,
                    address: config.address,
                };
            }
        }
        warning!(
            "no DHCP lease after {} ms: static fallback",
            policy.dhcp_timeout_ms
        );
    }
    let config = static_config(&policy.fallback);
    let address = config.address;
    stack.set_config_v4(ConfigV4::Static(config));
    stack.wait_config_up().await;
    NetUp {
        source: AddressSource::Static,
        address,
    }
}
