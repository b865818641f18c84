//! One power-up of the box: network up, then the configured playback.

use embassy_net::Stack;

use crate::config::BoxConfig;
use crate::fmt::{info, warning};
use crate::net::{bring_up, NetUp};
use crate::player::{play, PlayError, PlayReport, StopSignal};
use crate::sink::{SocketBuffers, UdpSink};
use crate::source::FrameSource;

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SessionError<E> {
    /// The UDP socket could not be bound.
    Bind,
    Play(PlayError<E>),
}

/// Brings the network up per `config.net`, then plays `source` to
/// `config.targets`. Returns when playback is over (never with
/// `loop=forever` unless `stop` is signalled).
pub async fn run<S: FrameSource>(
    stack: Stack<'_>,
    source: &mut S,
    config: &BoxConfig,
    buffers: &mut SocketBuffers,
    stop: &StopSignal,
) -> Result<(NetUp, PlayReport), SessionError<S::Error>> {
    let up = bring_up(stack, &config.net).await;
    info!("address {} ({})", up.address.address().octets(), up.source);
    let mut sink = UdpSink::bind(stack, buffers).map_err(|_| SessionError::Bind)?;
    for t in &config.targets {
        info!("target {}:{}", t.ip().octets(), t.port());
    }
    let report = play(source, &mut sink, &config.targets, config.loops, stop)
        .await
        .map_err(SessionError::Play)?;
    if report.send_errors > 0 || report.late_frames > 0 {
        warning!(
            "{} send errors, {} late frames (max {} us)",
            report.send_errors,
            report.late_frames,
            report.max_late_us
        );
    }
    Ok((up, report))
}
