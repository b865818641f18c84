//! The ports llv's parts meet on: a leaf that the protocol, the settings and
//! the doors all name.

/// The UDP port Live Link receivers (Unreal, `llv record`) listen on by default.
pub const LIVE_LINK_PORT: u16 = 11111;
/// The box's TCP control port.
pub const CONTROL_PORT: u16 = 11113;
/// The port (UDP and TCP) the box listens for OSC on unless the settings say another.
pub const OSC_PORT: u16 = 11114;
/// The TCP port the box serves its page and HTTP API on unless the settings say another.
pub const HTTP_PORT: u16 = 80;
/// The mDNS port, which no other service of the box may take.
pub const MDNS_PORT: u16 = 5353;
/// The Art-Net port, where the box listens for the show's timecode.
pub const ARTNET_PORT: u16 = 6454;
