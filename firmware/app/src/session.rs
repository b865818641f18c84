//! One power-up of the box: network up, then either the configured playback
//! of one take ([`run`]) or the box with its store ([`run_store`]).

use embassy_futures::select::{select, Either};
use embassy_net::udp::BindError;
use embassy_net::Stack;
use embedded_storage_async::nor_flash::NorFlash;

use crate::config::{BoxConfig, NetPolicy};
use crate::control::{serve, ControlBuffers};
use crate::device::{autoplay, run_player, BoxState};
use crate::fmt::{info, warning};
use crate::net::{bring_up, NetUp};
use crate::player::{play, PlayError, PlayReport, StopSignal};
use crate::sink::{SocketBuffers, UdpSink};
use crate::source::FrameSource;
use crate::stored::SharedStore;

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

/// Brings the network up per `policy`, starts the autoplay take if the
/// settings name one, then plays what is asked and serves control
/// connections forever. Returns only if the UDP socket cannot be bound.
pub async fn run_store<F: NorFlash>(
    stack: Stack<'_>,
    policy: &NetPolicy,
    store: &SharedStore<F>,
    firmware: &'static str,
    buffers: &mut SocketBuffers,
    control: &mut ControlBuffers,
) -> BindError {
    static STATE: BoxState = BoxState::new();
    let up = bring_up(stack, policy).await;
    info!("address {} ({})", up.address.address().octets(), up.source);
    STATE.set_address(up.address.address());
    let mut sink = match UdpSink::bind(stack, buffers) {
        Ok(sink) => sink,
        Err(e) => return e,
    };
    autoplay(store, &STATE).await;
    info!("control port {}", llv_core::control::CONTROL_PORT);
    match select(
        run_player(store, &STATE, &mut sink),
        serve(stack, store, &STATE, firmware, control),
    )
    .await
    {
        Either::First(never) | Either::Second(never) => never,
    }
}
