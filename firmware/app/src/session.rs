//! One power-up of the box: network up, then either the configured playback
//! of one take ([`run`]) or the box with its store ([`run_store`]).

use embassy_futures::select::{select, Either};
use embassy_net::udp::BindError;
use embassy_net::Stack;
use embassy_sync::mutex::Mutex;
use embedded_storage_async::nor_flash::NorFlash;

use llv_box_control::{Control, Penalties, LIMITS};

use crate::boot::Booted;
use crate::config::BoxConfig;
use crate::device::{autoplay, run_player, BoxState};
use crate::fmt::{info, warning};
use crate::health::{keep, Watchdog};
use crate::listener::{serve, ControlBuffers};
use crate::net::{bring_up, NetUp};
use crate::player::{play, PlayError, PlayReport};
use crate::sink::{SocketBuffers, UdpSink};
use crate::source::FrameSource;

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SessionError<E> {
    /// The UDP socket could not be bound.
    Bind,
    /// Playback could not go on.
    Play(PlayError<E>),
}

/// Brings the network up per `config.net`, then plays `source` to
/// `config.targets`. Returns when playback is over (never with
/// `loop=forever`).
pub async fn run<S: FrameSource>(
    stack: Stack<'_>,
    source: &mut S,
    config: &BoxConfig,
    buffers: &mut SocketBuffers,
) -> Result<(NetUp, PlayReport), SessionError<S::Error>> {
    let up = bring_up(stack, &config.net).await;
    info!("address {} ({})", up.address.address().octets(), up.source);
    let mut sink = UdpSink::bind(stack, buffers).map_err(|_| SessionError::Bind)?;
    for t in &config.targets {
        info!("target {}:{}", t.ip, t.port);
    }
    let report = play(source, &mut sink, &config.targets, config.loops, |_| ())
        .await
        .map_err(SessionError::Play)?;
    if report.dropped() > 0 || report.late_frames > 0 {
        warning!(
            "{} frames dropped, {} late (max {} us)",
            report.dropped(),
            report.late_frames,
            report.max_late_us
        );
    }
    Ok((up, report))
}

/// The box with its store: brings the network up per `booted.net`, starts the
/// autoplay take if the settings name one, then plays what is asked, serves
/// control connections and keeps `watchdog` fed, forever. Returns only if
/// the UDP sockets cannot be bound.
pub async fn run_store<F: NorFlash, W: Watchdog>(
    stack: Stack<'_>,
    booted: Booted<F>,
    firmware: &'static str,
    watchdog: &mut W,
    buffers: &mut SocketBuffers,
    control: &mut ControlBuffers,
) -> BindError {
    let Booted {
        store,
        settings,
        net,
        faults,
    } = booted;
    let store = Mutex::new(store);
    let state = BoxState::new();
    state.set_faults(&faults);
    let penalties = Penalties::new();
    let ports = Control {
        firmware,
        library: &store,
        penalties: &penalties,
        limits: LIMITS,
    };
    let keeper = keep(watchdog, &state);
    let rest = async {
        let up = bring_up(stack, &net).await;
        info!("address {} ({})", up.address.address().octets(), up.source);
        state.set_address(up.address.address());
        let mut sink = match UdpSink::bind(stack, buffers) {
            Ok(sink) => sink,
            Err(e) => return e,
        };
        autoplay(&store, &state, &settings).await;
        info!("control port {}", llv_core::control::CONTROL_PORT);
        match select(
            run_player(&store, &state, &mut sink),
            serve(stack, &ports, &state, control),
        )
        .await
        {
            Either::First(never) | Either::Second(never) => never,
        }
    };
    match select(keeper, rest).await {
        Either::First(never) => never,
        Either::Second(e) => e,
    }
}
