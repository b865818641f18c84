//! `llv serve`'s player: the box's [`Playback`] on a laptop. A take plays on a
//! thread of its own through `llv play`'s pacing (`crate::playback::play`:
//! absolute deadlines from the take's own frame times, from now or from a
//! time on the player's clock) or follows Art-Net timecode as `llv play
//! --chase` does; a new play or a stop ends the one before at once.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use heapless::Vec as Bounded;
use indicatif::ProgressBar;
use llv_control::Playback;
use llv_core::control::FaultCode;
use llv_core::control::{bounded, Fault, Playing, Start, TargetCounts, MAX_FAULTS};
use llv_core::settings::{Sender, SettingError, Settings, Target};

use super::folder::FolderTake;
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
    thread: JoinHandle<()>,
}

/// The player and the laptop's state.
struct State {
    started: Instant,
    /// The UDP port Art-Net timecode is chased on.
    artnet_port: u16,
    address: Option<[u8; 4]>,
    subject: Option<String>,
    playback: Option<Running>,
    faults: Bounded<Fault, MAX_FAULTS>,
}

/// The player, shared by every connection of `llv serve`.
#[derive(Clone)]
pub struct Player(Arc<Mutex<State>>);

impl Player {
    /// An idle player; `address` is what `Status` reports; `settings` the
    /// ones in force; a chase listens for timecode on `artnet_port`;
    /// `ignored`: a stored setting that breaks the rules (reported as the
    /// box reports one until new settings are saved).
    pub fn new(
        address: Option<Ipv4Addr>,
        settings: &Settings,
        artnet_port: u16,
        ignored: Option<SettingError>,
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
            address: address.map(|a| a.octets()),
            subject: settings.subject.as_ref().map(|s| s.to_string()),
            playback: None,
            faults,
        })))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stops the playback in progress, if any, and waits for its thread.
    pub fn stop_now(&self) {
        let playback = self.state().playback.take();
        if let Some(p) = playback {
            p.stop.store(true, Ordering::SeqCst);
            let _ = p.thread.join();
        }
    }
}

impl Playback<FolderTake> for Player {
    fn play(&mut self, take: FolderTake, targets: &[Target], loop_count: u32, start: Start) {
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
                    Some((receiver, offset)) => {
                        play_chased(&edited, &addrs, *offset, receiver, &flag, &progress).map(drop)
                    }
                    None => play(&edited, &addrs, &options, &flag, &progress).map(drop),
                };
                if let Err(e) = played {
                    eprintln!("warning: playing {name}: {e:#}");
                }
                // Done by itself: no longer playing (unless replaced meanwhile).
                let mut state = me.state();
                if state
                    .playback
                    .as_ref()
                    .is_some_and(|p| Arc::ptr_eq(&p.stop, &flag))
                {
                    state.playback = None;
                }
            })
        };
        eprintln!("playing {name} to {} target(s)", targets.len());
        self.state().playback = Some(Running {
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

    fn clock_us(&self) -> u64 {
        u64::try_from(self.state().started.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn address(&self) -> Option<[u8; 4]> {
        self.state().address
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
}
