//! The llv playback box on QEMU's `mps2-an386` (Cortex-M4, SMSC LAN9118).
//!
//! Boot: clock, command line (`-append`), NIC, embassy-net, then the
//! board-independent session of `llv-box`.
//!
//! With `flash=PATH` on the command line, the box mounts its take store on
//! that host file ([`FileFlash`], shaped and timed like the STM32H7's flash
//! bank; `erase_ms=N` sets the time of one block erase), autoplays, and
//! serves the control port until QEMU is stopped; a file that cannot be
//! opened leaves the box on the network with an unusable store, and
//! `factory_reset=on` clears the stored settings (not the takes), as the
//! NUCLEO's USER button does. The watchdog, fed by `llv_box::watchdog::keep`,
//! restarts a hung box, which says so in `Status`; `hang_after_ms=N` hangs
//! the executor N ms after a boot the watchdog did not cause, to show it
//! (see [`board_keys`]; the NUCLEO has no such key).
//!
//! Without `flash=`, the box plays the built-in take and, when playback ends
//! (it does unless `loop=forever`), QEMU exits through semihosting with a
//! status: 0 played, 1 playback failed, 2 bad command line, 3 no NIC, 4 some
//! frames dropped, 101 panic.
#![no_std]
#![no_main]

mod board_keys;

use core::ffi::CStr;
use core::mem::MaybeUninit;
use core::net::{Ipv4Addr, SocketAddrV4};

use defmt_semihosting as _;
use embassy_executor::Spawner;
use embassy_net::{Runner, Stack, StackResources};
use embassy_time::Duration;
use llv_box::boot::{self, Booted, PowerUp};
use llv_box::chase_feed::ChaseFeedBuffers;
use llv_box::doors::DoorBuffers;
use llv_box::listener::ControlBuffers;
use llv_box::live::LiveBuffers;
use llv_box::power_up::{self, BoxParts, SessionError};
use llv_box::sink::SocketBuffers;
use llv_box::{builtin, BoxConfig};
use llv_box_store::MaybeFlash;
use llv_card::{Card, CardPort};
use llv_core::control::ClockSource;
use llv_core::settings::StaticAddress;
use llv_hal_mps2::executor::Executor;
use llv_hal_mps2::file_card::{FileCard, Stalls};
use llv_hal_mps2::file_flash::{self, FileFlash};
use llv_hal_mps2::lan9118::Lan9118;
use llv_hal_mps2::watchdog::{self, ResetCause, Watchdog};
use llv_hal_mps2::{semihosting, time_driver};
use static_cell::StaticCell;

use crate::board_keys::BoardKeys;

const SOCKETS: usize = llv_box::SOCKETS;

/// The take store's flash: the host file, or none if it could not be opened.
type BoxFlash = MaybeFlash<FileFlash>;

/// The card slot: the image file given as `card=PATH`, or none.
type BoxCard = Option<FileCard<'static>>;

/// Firmware name and version, as `Status` reports it.
const FIRMWARE: &str = concat!("llv-box-qemu ", env!("CARGO_PKG_VERSION"));

/// Unfed this long, the watchdog's NMI fires; the reset follows as long again.
const WATCHDOG_TIMEOUT: Duration = Duration::from_secs(2);

/// Without `-append`: QEMU's user network host on the default port.
fn default_config() -> BoxConfig {
    BoxConfig::new(
        &[SocketAddrV4::new(Ipv4Addr::new(10, 0, 2, 2), 11111)],
        StaticAddress {
            ip: [10, 0, 2, 15],
            prefix_len: 24,
            gateway: Some([10, 0, 2, 2]),
        },
    )
}

#[cortex_m_rt::entry]
fn main() -> ! {
    time_driver::init();
    static EXECUTOR: StaticCell<Executor> = StaticCell::new();
    EXECUTOR
        .init(Executor::new())
        .run(|spawner| spawner.spawn(boot(spawner).unwrap()))
}

/// Command line, store (its erases wait on the executor), NIC and stack,
/// then the box's tasks.
#[embassy_executor::task]
async fn boot(spawner: Spawner) {
    let reset_cause = watchdog::take_reset_cause();
    let (keys, mut config) = command_line();
    if reset_cause == ResetCause::Watchdog {
        defmt::warn!("reset by the watchdog");
    }
    let power_up = PowerUp {
        factory_reset: keys.factory_reset,
        watchdog_reset: reset_cause == ResetCause::Watchdog,
        clock: ClockSource::Emulated,
    };
    let booted = match &keys.flash {
        Some(path) => {
            let flash = open(path, keys.erase_time);
            let region = 0..file_flash::CAPACITY as u32;
            static CARD: StaticCell<CardPort<BoxCard>> = StaticCell::new();
            let slot = keys
                .card
                .as_ref()
                .and_then(|(image, out)| open_card(image, out, &keys));
            let card = Card::new(CARD.init(CardPort::new(slot)));
            static BOOTED: StaticCell<Booted<BoxFlash, BoxCard>> = StaticCell::new();
            let booted =
                BOOTED.init(boot::mount_store(flash, region, card, config.net, power_up).await);
            config.net = booted.net;
            Some(&*booted)
        }
        None => None,
    };

    let nic = match Lan9118::new() {
        Ok(nic) => nic,
        Err(e) => {
            defmt::error!("LAN9118: {}", e);
            semihosting::exit(3);
        }
    };
    let mac = nic.mac();
    defmt::info!("MAC {=[u8]:02x}", mac);
    let seed = u64::from_le_bytes([mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], 0x4c, 0x56])
        ^ embassy_time::Instant::now().as_ticks();

    static RESOURCES: StaticCell<StackResources<SOCKETS>> = StaticCell::new();
    let (stack, runner) = embassy_net::new(
        nic,
        llv_box::net::stack_config(&config.net),
        RESOURCES.init(StackResources::new()),
        seed,
    );

    if let (Some(after), ResetCause::PowerOn) = (keys.hang_after, reset_cause) {
        spawner.spawn(hang_task(after).unwrap());
    }
    spawner.spawn(net_task(runner).unwrap());
    match booted {
        Some(booted) => spawner.spawn(store_task(stack, booted, mac).unwrap()),
        None => spawner.spawn(box_task(stack, config).unwrap()),
    }
}

/// The board's keys and the box's settings from `-append`; exits with 2 on an error.
fn command_line() -> (BoardKeys, BoxConfig) {
    let mut line_buf = [MaybeUninit::uninit(); semihosting::CMDLINE_MAX];
    let line = semihosting::cmdline(&mut line_buf);
    defmt::info!("llv-box on mps2-an386, command line: {=str}", line);
    let (keys, rest) = match board_keys::split(line) {
        Ok(split) => split,
        Err(word) => {
            defmt::error!("command line: bad value in {=str}", word);
            semihosting::exit(2);
        }
    };
    match default_config().apply(&rest) {
        Ok(config) => (keys, config),
        Err(e) => {
            defmt::error!("command line: {}", e);
            semihosting::exit(2);
        }
    }
}

/// The flash file, or none (logged) if it cannot be opened.
fn open(path: &[u8], erase_time: Duration) -> BoxFlash {
    let opened = CStr::from_bytes_until_nul(path)
        .map_err(|_| file_flash::FlashError::Host)
        .and_then(|path| FileFlash::open(path, erase_time));
    match opened {
        Ok(flash) => MaybeFlash::Present(flash),
        Err(e) => {
            defmt::error!(
                "flash file: {}; the store is unusable",
                defmt::Debug2Format(&e)
            );
            MaybeFlash::Missing
        }
    }
}

/// Opens the card image (a card that cannot be opened is logged, and
/// answers no read: the box reports it unusable).
fn open_card(image: &[u8], out: &[u8], keys: &BoardKeys) -> BoxCard {
    static OUT: StaticCell<[u8; semihosting::CMDLINE_MAX]> = StaticCell::new();
    let out_path = OUT.init([0; semihosting::CMDLINE_MAX]);
    out_path[..out.len()].copy_from_slice(out);
    let Ok(out) = CStr::from_bytes_until_nul(&out_path[..]) else {
        return None;
    };
    let stalls = (keys.card_stall.as_ticks() > 0).then_some(Stalls {
        stall: keys.card_stall,
        every: keys.card_stall_every,
    });
    let path = image.strip_suffix(&[0]).unwrap_or(image);
    let (card, failed) = FileCard::open(path, keys.card_parts, out, stalls, keys.card_power_up);
    if let Some(e) = failed {
        defmt::error!("card image: {}", e);
    }
    Some(card)
}

/// The CMSDK watchdog as the box's health keeper feeds it.
struct Cmsdk(Watchdog);

impl llv_box::watchdog::Watchdog for Cmsdk {
    fn feed(&mut self) {
        self.0.feed();
    }
}

#[embassy_executor::task]
async fn store_task(
    stack: Stack<'static>,
    booted: &'static Booted<BoxFlash, BoxCard>,
    mac: [u8; 6],
) {
    let mut buffers = SocketBuffers::new();
    let mut control = ControlBuffers::new();
    let mut show = DoorBuffers::new();
    let mut timecode = ChaseFeedBuffers::new();
    let mut live = LiveBuffers::new();
    let mut watchdog = Cmsdk(Watchdog::start(WATCHDOG_TIMEOUT));
    let name = llv_box::config::default_name(&mac);
    let parts = BoxParts {
        firmware: FIRMWARE,
        default_name: &name,
        watchdog: &mut watchdog,
        sockets: &mut buffers,
        control: &mut control,
        show: &mut show,
        timecode: &mut timecode,
        live: &mut live,
    };
    let e = power_up::run_store(stack, booted, parts).await;
    defmt::error!("cannot bind the UDP sockets: {}", e);
    semihosting::exit(1);
}

/// An injected hang: from `after` past boot on, never yield again
/// (interrupts stay enabled, so only the watchdog ends it).
#[embassy_executor::task]
async fn hang_task(after: Duration) -> ! {
    embassy_time::Timer::at(embassy_time::Instant::from_ticks(0) + after).await;
    defmt::warn!("test fault: the executor hangs");
    loop {
        core::hint::spin_loop();
    }
}

#[embassy_executor::task]
async fn net_task(mut runner: Runner<'static, Lan9118>) -> ! {
    runner.run().await
}

#[embassy_executor::task]
async fn box_task(stack: Stack<'static>, config: BoxConfig) {
    let mut source = match builtin::take() {
        Ok(source) => source,
        Err(e) => {
            defmt::error!("built-in take: {}", e);
            semihosting::exit(1);
        }
    };
    defmt::info!(
        "take {=str}: {} frames, loop period {} us",
        source.header().name.as_str(),
        source.header().frame_count,
        source.header().period_us
    );
    let mut buffers = SocketBuffers::new();
    match power_up::run(stack, &mut source, &config, &mut buffers).await {
        Ok((_, report)) => {
            defmt::info!("done: {}", report);
            semihosting::exit(if report.dropped() == 0 { 0 } else { 4 });
        }
        Err(SessionError::Bind) => {
            defmt::error!("cannot bind the UDP socket");
            semihosting::exit(1);
        }
        Err(SessionError::Play(e)) => {
            defmt::error!("playback: {}", e);
            semihosting::exit(1);
        }
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    defmt::error!("panic: {}", defmt::Display2Format(info));
    semihosting::exit(101)
}
