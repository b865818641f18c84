//! `llv serve`'s player: the box's [`Playback`] on a laptop. A take plays on a
//! thread of its own through `llv play`'s pacing (`crate::playback::play`:
//! absolute deadlines from the take's own frame times, from now or from a
//! time on the player's clock) or follows Art-Net timecode as `llv play
//! --chase` does (the core's chase, as on the box); a new play or a stop ends
//! the one before at once, and how it went stays in `Status` until the next.
//! The live relay (`Request::Live`) runs `llv relay`'s code ([`crate::live`])
//! on a thread of its own, to the settings' targets, its idle take and its
//! recordings in the served folder (so they are listed as takes).

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use heapless::Vec as Bounded;
use indicatif::ProgressBar;
use llv_control::library::Refusal;
use llv_control::Playback;
use llv_core::control::{
    bounded, ClockSource, Ended, ErrorCode, Fault, FaultCode, LiveStatus, Played, Playing, Start,
    TargetCounts, MAX_FAULTS,
};
use llv_core::relay::{Idle, NoIdle, Relay};
use llv_core::settings::{Sender, SettingError, Settings, Target};

use super::folder::FolderTake;
use crate::capture::bind as bind_udp;
use crate::live::black_box::BlackBox;
use crate::live::{self, Bounds, IdleTake};
use crate::playback::artnet::Receiver;
use crate::playback::{play, play_chased, Options};
use crate::take::Edit;

/// One playback in progress.
struct Running {
    name: String,
    frames: u64,
    targets: Vec<Target>,
    /// The timecode it follows, when it chases.
    chase: Option<Arc<Receiver>>,
    stop: Arc<AtomicBool>,
    /// Frames sent so far (its position).
    progress: ProgressBar,
    thread: JoinHandle<Option<Outcome>>,
}

/// How a playback thread's playback went, before its summary is made.
struct Outcome {
    frames: u64,
    late_frames: u64,
    dropped: u64,
    /// The playback ended by itself (its loops done) rather than by a stop.
    done: bool,
}

/// The player and the laptop's state.
struct State {
    started: Instant,
    /// The UDP port Art-Net timecode is chased on.
    artnet_port: u16,
    address: Option<[u8; 4]>,
    osc_port: u16,
    subject: Option<String>,
    playback: Option<Running>,
    faults: Bounded<Fault, MAX_FAULTS>,
    /// How the last playback went.
    last: Option<Played>,
    /// The served folder: the live relay's idle takes and recordings.
    dir: PathBuf,
    /// The address the live relay listens on.
    bind: Ipv4Addr,
    /// The live relay, while it runs.
    live: Option<LiveRun>,
}

/// The live relay on its thread.
struct LiveRun {
    stop: Arc<AtomicBool>,
    status: Arc<Mutex<Option<LiveStatus>>>,
    thread: JoinHandle<()>,
}

/// The player, shared by every connection of `llv serve`.
#[derive(Clone)]
pub struct Player(Arc<Mutex<State>>);

impl Player {
    /// An idle player; `address` and `osc_port` are what `Status` reports
    /// (the address listened on, `None` for every interface, and the OSC
    /// port served); `settings` the ones in force; a chase listens for
    /// timecode on `artnet_port`;
    /// `ignored`: a stored setting that breaks the rules (reported as the
    /// box reports one until new settings are saved); the live relay
    /// listens on `bind` and keeps its takes in `dir`.
    pub fn new(
        address: Option<Ipv4Addr>,
        osc_port: u16,
        settings: &Settings,
        artnet_port: u16,
        ignored: Option<SettingError>,
        dir: &Path,
        bind: Ipv4Addr,
    ) -> Self {
        let faults = ignored
            .map(|e| Fault {
                code: FaultCode::BadStoredSetting,
                detail: llv_control::library::detail(format_args!("stored {e}: ignored")),
            })
            .into_iter()
            .collect();
        Player(Arc::new(Mutex::new(State {
            started: Instant::now(),
            artnet_port,
            address: Some(address.unwrap_or(Ipv4Addr::UNSPECIFIED).octets()),
            osc_port,
            subject: settings.subject.as_ref().map(|s| s.to_string()),
            playback: None,
            faults,
            last: None,
            dir: dir.to_path_buf(),
            bind,
            live: None,
        })))
    }

    /// Stops the live relay, if it runs, and waits for its thread.
    pub fn stop_live(&self) {
        let live = self.state().live.take();
        if let Some(l) = live {
            l.stop.store(true, Ordering::SeqCst);
            let _ = l.thread.join();
        }
    }

    /// Starts the live relay with `settings`' and the `idle` take they
    /// name (replacing one that runs).
    fn start_live(&self, settings: &Settings, idle: Option<FolderTake>) -> Result<(), Refusal> {
        self.stop_live();
        let spec = &settings.live;
        let targets: Vec<SocketAddr> = settings
            .targets
            .iter()
            .map(|t| SocketAddr::V4(t.socket_addr()))
            .collect();
        if targets.is_empty() {
            return Err(Refusal::new(
                ErrorCode::Invalid,
                "no targets: set targets first",
            ));
        }
        let (dir, bind, started) = {
            let state = self.state();
            (state.dir.clone(), state.bind, state.started)
        };
        let mut idle = idle.map(|t| idle_take(&t)).transpose()?;
        let (socket, _) = bind_udp(SocketAddr::new(bind.into(), spec.port))
            .map_err(|e| Refusal::fmt(ErrorCode::Invalid, format_args!("{e:#}")))?;
        let black_box = spec
            .record
            .then(|| BlackBox::start(&dir))
            .transpose()
            .map_err(|e| Refusal::fmt(ErrorCode::Flash, format_args!("{e:#}")))?;
        let relay = Relay::new(
            spec.config(),
            spec.subject.as_deref(),
            spec.from.map(|ip| Ipv4Addr::from(ip).into()),
        );
        let stop = Arc::new(AtomicBool::new(false));
        let status = Arc::new(Mutex::new(None));
        let thread = std::thread::spawn({
            let (stop, status) = (Arc::clone(&stop), Arc::clone(&status));
            move || {
                let epoch = Instant::now();
                let started_ms = u64::try_from((epoch - started).as_millis()).unwrap_or(0);
                let mut hold = NoIdle;
                let idle: &mut dyn Idle = match &mut idle {
                    Some(take) => take,
                    None => &mut hold,
                };
                let bounds = Bounds {
                    epoch,
                    stop: &stop,
                    until: None,
                };
                let mut progress = |relay: &Relay, bytes: u64| {
                    *status.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some(LiveStatus::of(relay, started_ms, bytes));
                };
                let ran = live::run(
                    &socket,
                    &targets,
                    relay,
                    idle,
                    black_box,
                    bounds,
                    &mut progress,
                );
                if let Err(e) = ran {
                    eprintln!("live relay: {e:#}");
                }
            }
        });
        self.state().live = Some(LiveRun {
            stop,
            status,
            thread,
        });
        Ok(())
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stops the playback in progress, if any, waits for its thread and
    /// keeps how it went.
    pub fn stop_now(&self) {
        let playback = self.state().playback.take();
        if let Some(p) = playback {
            p.stop.store(true, Ordering::SeqCst);
            let outcome = p.thread.join().ok().flatten();
            self.state().last = Some(summary(&p.name, outcome.as_ref(), Ended::Stopped));
        }
    }
}

/// The `Status` summary of a playback of `take` that went as `outcome` (a
/// failed one has none).
fn summary(take: &str, outcome: Option<&Outcome>, ended: Ended) -> Played {
    let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    Played {
        take: bounded(take),
        frames: count(outcome.map_or(0, |o| o.frames)),
        late_frames: count(outcome.map_or(0, |o| o.late_frames)),
        dropped: count(outcome.map_or(0, |o| o.dropped)),
        ended: match outcome {
            None => Ended::Failed,
            Some(_) => ended,
        },
    }
}

impl Playback<FolderTake> for Player {
    fn play(&mut self, take: FolderTake, targets: &[Target], loop_count: u32, start: Start) {
        // One stream to the targets at a time: a playback replaces the relay.
        self.stop_live();
        self.stop_now();
        let subject = self.state().subject.clone();
        let edited = match &subject {
            Some(s) => take.take.edited(&Edit {
                subject: Some(s.clone()),
                anonymize: false,
            }),
            None => Ok((*take.take).clone()),
        };
        let edited = match edited {
            Ok(t) => t,
            Err(e) => {
                eprintln!("warning: {}: {e:#}", take.header.name);
                return;
            }
        };
        let addrs: Vec<SocketAddr> = targets
            .iter()
            .map(|t| SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::from(t.ip), t.port)))
            .collect();
        let stop = Arc::new(AtomicBool::new(false));
        let progress = ProgressBar::hidden();
        let (started, artnet_port) = {
            let state = self.state();
            (state.started, state.artnet_port)
        };
        let options = Options {
            fps: None,
            repeat: (loop_count > 0).then_some(u64::from(loop_count)),
            start_at: match start {
                Start::At(us) => Some(started + Duration::from_micros(us)),
                Start::Now | Start::Chase(_) => None,
            },
            ..Options::default()
        };
        let chase = match start {
            Start::Chase(spec) => match Receiver::start(artnet_port, spec.stream, spec.config()) {
                Ok(r) => Some((Arc::new(r), spec.offset)),
                Err(e) => {
                    eprintln!("warning: {}: {e:#}", take.header.name);
                    return;
                }
            },
            Start::Now | Start::At(_) => None,
        };
        let name = take.header.name.to_string();
        let frames = edited.len() as u64;
        let thread = {
            let flag: Arc<AtomicBool> = stop.clone();
            let (progress, name) = (progress.clone(), name.clone());
            let me = self.clone();
            let chase = chase.clone();
            std::thread::spawn(move || {
                let played = match &chase {
                    Some((receiver, offset)) => play_chased(
                        &edited, &addrs, *offset, receiver, &flag, &progress,
                    )
                    .map(|(r, errors)| Outcome {
                        frames: u64::from(r.cues.frames),
                        late_frames: u64::from(r.cues.late_frames),
                        dropped: errors,
                        done: false,
                    }),
                    None => play(&edited, &addrs, &options, &flag, &progress).map(|r| Outcome {
                        frames: r.frames,
                        late_frames: r.late_frames,
                        dropped: r.send_errors,
                        done: !r.stopped,
                    }),
                };
                let outcome = match played {
                    Ok(o) => Some(o),
                    Err(e) => {
                        eprintln!("warning: playing {name}: {e:#}");
                        None
                    }
                };
                // Ended by itself: no longer playing (unless replaced or stopped meanwhile).
                let mut state = me.state();
                let mine = state
                    .playback
                    .as_ref()
                    .is_some_and(|p| Arc::ptr_eq(&p.stop, &flag));
                if mine && outcome.as_ref().is_none_or(|o| o.done) {
                    state.playback = None;
                    state.last = Some(summary(&name, outcome.as_ref(), Ended::Done));
                    return None;
                }
                outcome
            })
        };
        eprintln!("playing {name} to {} target(s)", targets.len());
        let mut state = self.state();
        state.last = None;
        state.playback = Some(Running {
            name,
            frames,
            targets: targets.to_vec(),
            chase: chase.map(|(receiver, _)| receiver),
            stop,
            progress,
            thread,
        });
    }

    fn stop(&mut self) {
        self.stop_now();
    }

    fn playing(&self) -> Option<Playing> {
        let state = self.state();
        let p = state.playback.as_ref()?;
        let sent = p.progress.position();
        let frames = p.frames.max(1);
        let counts = |t: &Target| TargetCounts {
            target: *t,
            sent: u32::try_from(sent).unwrap_or(u32::MAX),
            dropped: 0,
        };
        Some(Playing {
            take: bounded(&p.name),
            frame: u32::try_from(sent.saturating_sub(1) % frames).unwrap_or(0),
            loops_done: u32::try_from(sent / frames).unwrap_or(u32::MAX),
            late_frames: 0,
            max_late_us: 0,
            read_ahead_low: u32::MAX,
            targets: p.targets.iter().take(4).map(counts).collect(),
            chase: p.chase.as_ref().map(|r| r.with(|f, _| f.status())),
        })
    }

    fn last(&self) -> Option<Played> {
        self.state().last.clone()
    }

    fn clock_us(&self) -> u64 {
        u64::try_from(self.state().started.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn clock_source(&self) -> ClockSource {
        ClockSource::Host
    }

    fn address(&self) -> Option<[u8; 4]> {
        self.state().address
    }

    fn osc_port(&self) -> u16 {
        self.state().osc_port
    }

    fn faults(&self) -> Bounded<Fault, MAX_FAULTS> {
        self.state().faults.clone()
    }

    fn read_ahead_short(&self) -> bool {
        false
    }

    fn settings_changed(&mut self, settings: &Settings) {
        let mut state = self.state();
        state.subject = settings.subject.as_ref().map(|s| s.to_string());
        // Stored now are settings that passed the rules.
        state
            .faults
            .retain(|f| f.code != FaultCode::BadStoredSetting);
    }

    fn sender(&self) -> Sender {
        Sender::Laptop
    }

    fn live(
        &mut self,
        on: bool,
        settings: &Settings,
        idle: Option<FolderTake>,
    ) -> Result<(), Refusal> {
        if on {
            // One stream to the targets at a time: the relay replaces a playback.
            self.start_live(settings, idle)?;
            self.stop_now();
            Ok(())
        } else {
            self.stop_live();
            Ok(())
        }
    }

    fn live_status(&self) -> Option<LiveStatus> {
        let state = self.state();
        let live = state.live.as_ref()?;
        let status = live
            .status
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        Some(status.unwrap_or_default())
    }
}

/// The live relay's idle take: its values, frame after frame.
fn idle_take(take: &FolderTake) -> Result<IdleTake, Refusal> {
    if take.take.is_empty() {
        return Err(Refusal::fmt(
            ErrorCode::BadImage,
            format_args!("idle take {}: no frames", take.header.name),
        ));
    }
    Ok(IdleTake::new(&take.take))
}
