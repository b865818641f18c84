//! The OSC front door (`docs/show-control.md`): show tools (QLab, Companion,
//! Chataigne, lighting desks) drive the box with OSC messages over UDP and
//! TCP. Each message becomes the same [`Request`] the binary protocol sends
//! and goes through the same [`Session::handle`], so the two doors cannot
//! disagree: the token, the locked box and the wrong-token penalties apply
//! to OSC exactly as to `llv`.
//!
//! | address | arguments | request |
//! |---|---|---|
//! | `/llv/connect` | `[token]` | `Hello` |
//! | `/llv/play` | `take [loops]` (0 loops forever; 1 by default) | `Play` to the configured targets |
//! | `/llv/chase` | `take [offset]` (`HH:MM:SS:FF`; the take's own timecode by default) | `Play` following Art-Net timecode |
//! | `/llv/stop` | | `Stop` |
//! | `/llv/live` | `on` or `off` (also 1 or 0, T or F) | `Live`: the live relay on or off now |
//! | `/llv/status` | | `Status` |
//! | `/llv/takes` | `[start]` (0 by default) | `ListPage`: a page of the takes |
//! | `/llv/subscribe` | `[seconds]` (3600 by default, 0 ends it) | the state pushed on every change and each second |
//!
//! Every message gets one reply `/reply<address>` whose one string argument
//! is JSON `{"address":...,"status":"ok"|"error"|"denied","data":...}`
//! (QLab's convention): over TCP on the same connection, over UDP to the
//! sender and also to the configured reply port ([`UdpDoor`]). Without a
//! token on the box no `/llv/connect` is needed; with one, a client that has
//! not connected is `denied`. A packet that does not parse gets one
//! `/llv/error` reply; replies and pushes themselves (`/reply...`,
//! `/llv/state`, `/llv/error`) are never answered, so two boxes cannot
//! answer each other forever. Of a bundle, the first [`MAX_MESSAGES`]
//! messages run (time tags are not waited for) and the rest are refused in
//! one `/llv/error`.
//!
//! A subscriber gets `/llv/state ,isiiss` (playing 1 or 0, take, frame, loops
//! done, chase state or `off`, the timecode chased or `""`): at once, whenever
//! the take, playing, the loop count or the chase state changes
//! (looked at every [`crate::Limits::push_poll`]), and every [`HEARTBEAT`].
//!
//! | module | what it holds |
//! |---|---|
//! | [`command`] | an OSC message's address and arguments as the request it asks for |
//! | [`message`] | one client's session and subscription, and how one message runs through them |
//! | [`subscription`] | a client's subscription to the state and when it is due |
//! | [`reply`] | the replies: `/reply<address>` JSON, `/llv/error`, the `/llv/state` push |
//! | [`udp`] | the door over UDP: the clients with rights, replies to sender and reply port |
//! | [`stream`] | the door over TCP, in both framings |

use embassy_time::Duration;

pub mod command;
pub mod message;
pub mod reply;
pub mod stream;
pub mod subscription;
pub mod udp;

pub use message::{handle_message, Client, Handled, PenaltyMode};
pub use reply::{error_reply, reply, state_message, ReplyStatus};
pub use stream::{serve_osc_connection, OscBuffers};
pub use subscription::Subscription;
pub use udp::{ReplySink, UdpDoor};

/// Largest OSC packet the door reads (a UDP datagram or one stream frame);
/// a larger one gets an `/llv/error` reply.
pub const MAX_PACKET: usize = 512;
/// Largest reply packet (fits one Ethernet frame over UDP; a list of takes
/// says where the next page starts when more follow).
pub const MAX_REPLY: usize = 1024;
/// Messages of one packet (a bundle) the door runs.
pub const MAX_MESSAGES: usize = 8;
/// UDP clients with rights remembered at once (their sessions and
/// subscriptions); a sender without rights never takes one's place.
pub const UDP_CLIENTS: usize = 16;
/// How often a subscriber gets the state when nothing changes.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
/// A subscription's length without a `seconds` argument.
pub const DEFAULT_SUBSCRIPTION_S: u32 = 3600;
/// The longest subscription.
pub const MAX_SUBSCRIPTION_S: u32 = 86_400;
/// Where the state goes to subscribers.
pub const STATE_ADDRESS: &str = "/llv/state";
/// Where a packet that does not parse, or the rest of a too long bundle, is answered.
pub const ERROR_ADDRESS: &str = "/llv/error";
/// A stream frame must arrive whole within this of its first byte.
pub const FRAME_LIMIT: Duration = Duration::from_secs(5);
/// A TCP connection without input (and without a subscription) is closed after this.
pub const IDLE_LIMIT: Duration = Duration::from_secs(60);
