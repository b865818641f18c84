//! The Art-Net timecode generator `llv tc send` runs, for rehearsals and
//! tests: timecode frames at the type's real rate, paced like the player.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use llv_core::artnet::{ArtTimeCode, TimecodeKind, LEN};

use super::pacer::Pacer;

/// Sends timecode frames from `start` at the type's real rate to `target`
/// until `frames` were sent (all, if `None`) or `stop` is set; `each` sees
/// every frame as it leaves. Returns the frames sent.
pub fn send(
    socket: &UdpSocket,
    target: SocketAddr,
    start: ArtTimeCode,
    frames: Option<u64>,
    stop: &AtomicBool,
    mut each: impl FnMut(&ArtTimeCode),
) -> Result<u64> {
    let kind: TimecodeKind = start.kind;
    let first = u64::from(start.frame_count());
    let mut pacer = Pacer::new(true);
    let began = Instant::now();
    let mut buf = [0u8; LEN];
    let mut sent = 0u64;
    while frames.is_none_or(|n| sent < n) {
        let deadline = began + Duration::from_micros(kind.micros(sent));
        if !pacer.wait_until(deadline, stop) {
            break;
        }
        let count = (first + sent) % u64::from(kind.frames_per_day());
        let tc = ArtTimeCode::from_frame_count(count as u32, kind, start.stream);
        let len = tc.emit(&mut buf).map_err(|e| anyhow::anyhow!("{e}"))?;
        socket
            .send_to(&buf[..len], target)
            .with_context(|| format!("sending timecode to {target}"))?;
        each(&tc);
        sent += 1;
    }
    Ok(sent)
}
