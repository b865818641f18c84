//! Network bring-up policy: DHCP first, a static address if no lease comes
//! within the configured time (or straight away with `dhcp=off`).

use core::net::Ipv4Addr;
use embassy_net::{Config, ConfigV4, DhcpConfig, Ipv4Cidr, Stack, StaticConfigV4};
use embassy_time::{with_timeout, Duration};

use heapless::Vec;
use llv_core::settings::StaticAddress;

use crate::config::NetPolicy;
use crate::fmt::{info, warning};

/// How the address was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AddressSource {
    /// Leased from a DHCP server.
    Dhcp,
    /// The static address (DHCP off, or no lease in time).
    Static,
}

/// The address in use after [`bring_up`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetUp {
    /// Where the address came from.
    pub source: AddressSource,
    /// The address and prefix.
    pub address: Ipv4Cidr,
}

/// The smoltcp form of a [`StaticAddress`].
pub fn static_config(s: &StaticAddress) -> StaticConfigV4 {
    StaticConfigV4 {
        address: Ipv4Cidr::new(Ipv4Addr::from(s.ip), s.prefix_len),
        gateway: s.gateway.map(Ipv4Addr::from),
        dns_servers: Vec::new(),
    }
}

/// The configuration to create the stack with (`embassy_net::new`): DHCP
/// when the policy asks for it, else the static address.
///
/// DHCP must be in the stack from the start: `Stack::set_config_v4` does
/// not wake the stack's runner, so a DHCP client set later would sit idle
/// until some other traffic woke it.
pub fn stack_config(policy: &NetPolicy) -> Config {
    if policy.dhcp {
        Config::dhcpv4(DhcpConfig::default())
    } else {
        Config::ipv4_static(static_config(&policy.fallback))
    }
}

/// Waits for the link, then for a DHCP lease (if the policy wants one) for
/// at most `dhcp_timeout_ms`, else sets the static fallback address. The
/// stack must have been created with [`stack_config`] of the same policy
/// and its runner must be running in another task.
pub async fn bring_up(stack: Stack<'_>, policy: &NetPolicy) -> NetUp {
    stack.wait_link_up().await;
    info!("link up");
    if policy.dhcp {
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

/// `policy` with the stored static address, if the settings hold one: that
/// address is used instead of DHCP.
pub fn with_stored_address(policy: NetPolicy, stored: Option<&StaticAddress>) -> NetPolicy {
    match stored {
        Some(s) => NetPolicy {
            dhcp: false,
            fallback: *s,
            ..policy
        },
        None => policy,
    }
}
