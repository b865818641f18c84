//! One power-up of the box: network up, then either the configured playback
//! of one take ([`run`]) or the box with its store ([`run_store`]).

use embassy_futures::select::{select, select6, Either, Either6};
use embassy_net::udp::BindError;
use embassy_net::Stack;
use embedded_storage_async::nor_flash::NorFlash;
use llv_card::CardDriver;

use embassy_time::{Duration, Timer};
use llv_control::{Control, Penalties, Worker, LIMITS};

use crate::boot::Booted;
use crate::card_keeper::keep_card;
use crate::chase_feed::{listen, ChaseFeedBuffers};
use crate::config::BoxConfig;
use crate::device::{autoplay, live_at_power_up, run_player, BoxDevice, BoxState};
use crate::door_slots::keeper;
use crate::doors::{self, DoorBuffers};
use crate::fmt::{info, warning};
use crate::listener::{serve, ControlBuffers};
use crate::live::{LiveBuffers, UdpLive};
use crate::net::{bring_up, NetUp};
use crate::player::{play, PlayError, PlayReport};
use crate::read_ahead::SharedLibrary;
use crate::sink::{SocketBuffers, UdpSink};
use crate::source::FrameSource;
use crate::watchdog::{keep, Watchdog};

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
    let report = play(
        source,
        &mut sink,
        &config.targets,
        config.loops,
        None,
        |_| (),
    )
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

/// What a board gives the box with its store: who it is and its memory.
pub struct BoxParts<'a, W> {
    /// Firmware name and version, as `Status`, OSC and mDNS report it.
    pub firmware: &'static str,
    /// The box's network name when the settings give none (from the MAC).
    pub default_name: &'a str,
    /// The hardware watchdog.
    pub watchdog: &'a mut W,
    /// The player's sockets.
    pub sockets: &'a mut SocketBuffers,
    /// The control connections.
    pub control: &'a mut ControlBuffers,
    /// OSC and mDNS.
    pub show: &'a mut DoorBuffers,
    /// The Art-Net timecode port.
    pub timecode: &'a mut ChaseFeedBuffers,
    /// The live relay's port.
    pub live: &'a mut LiveBuffers,
}

/// The box with its store: brings the network up per `booted.net`, starts the
/// autoplay take if the settings name one, then plays what is asked, serves
/// control connections and show tools (OSC, mDNS) and keeps the watchdog
/// fed, forever. Returns only if the UDP sockets cannot be bound.
pub async fn run_store<F: NorFlash, D: CardDriver, W: Watchdog>(
    stack: Stack<'_>,
    booted: &Booted<F, D>,
    parts: BoxParts<'_, W>,
) -> BindError {
    let BoxParts {
        firmware,
        default_name,
        watchdog,
        sockets: buffers,
        control,
        show: show_buffers,
        timecode: timecode_buffers,
        live: live_buffers,
    } = parts;
    let Booted {
        store,
        settings,
        net,
        faults,
        clock,
    } = booted;
    let identity = doors::Identity {
        firmware,
        default_name,
        osc_port: settings.osc_port(),
        http_port: settings.http_port(),
    };
    let state = BoxState::new();
    state.set_faults(faults);
    state.set_clock(*clock);
    state.set_osc_port(identity.osc_port);
    let penalties = Penalties::new();
    let slots = keeper();
    let worker = Worker::new();
    let ports = Control {
        firmware,
        library: store,
        penalties: &penalties,
        limits: LIMITS,
        finish: &worker,
    };
    let keeper = keep(watchdog, &state);
    let rest = async {
        let up = bring_up(stack, net).await;
        info!("address {} ({})", up.address.address().octets(), up.source);
        state.set_address(up.address.address());
        let mut sink = match UdpSink::bind(stack, buffers) {
            Ok(sink) => sink,
            Err(e) => return e,
        };
        let mut input = UdpLive::new(stack, live_buffers);
        autoplay(store, &state, settings).await;
        live_at_power_up(store, &state, settings).await;
        info!("control port {}", llv_core::control::CONTROL_PORT);
        match select6(
            run_player(store, &state, &mut sink, &mut input),
            serve(stack, &ports, &state, &slots, control),
            doors::serve(stack, &ports, &state, &slots, &identity, show_buffers),
            keep_card(store, &state, settings),
            listen(stack, &state.timecode, timecode_buffers),
            async {
                let mut device = BoxDevice { state: &state };
                match select(write_settings(store), worker.serve(store, &mut device)).await {
                    Either::First(never) | Either::Second(never) => never,
                }
            },
        )
        .await
        {
            Either6::First(never)
            | Either6::Second(never)
            | Either6::Third(never)
            | Either6::Fourth(never)
            | Either6::Fifth(never)
            | Either6::Sixth(never) => never,
        }
    };
    match select(keeper, rest).await {
        Either::First(never) => never,
        Either::Second(e) => e,
    }
}

/// Writes the settings a burst of saves left held, when they are due
/// (`llv_control::pace`: at most one write per `SETTINGS_EVERY`), forever.
async fn write_settings<F: NorFlash, D: CardDriver>(store: &SharedLibrary<F, D>) -> ! {
    loop {
        let due = store.lock().await.due();
        match due {
            Some(at) => Timer::at(at).await,
            // A held save starts its wait only after a write: a second is soon enough to look again.
            None => Timer::after(Duration::from_secs(1)).await,
        }
        if let Err(e) = store.lock().await.flush().await {
            warning!("settings not written: {}", e.detail.as_str());
        }
    }
}
