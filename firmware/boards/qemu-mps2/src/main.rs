//! The llv playback box on QEMU's `mps2-an386` (Cortex-M4, SMSC LAN9118).
//!
//! Boot: clock, command line (`-append`), NIC, embassy-net, then the
//! board-independent session of `llv-box`.
//!
//! With `flash=PATH` on the command line, the box mounts its take store on
//! that host file ([`FileFlash`], shaped and timed like the STM32H7's flash
//! bank; `erase_ms=N` sets the time of one block erase), autoplays, and serves the control
//! port until QEMU is stopped. Without it, the box plays the built-in take
//! and, when playback ends (it does unless `loop=forever`), QEMU exits through
//! semihosting with a status: 0 played, 1 playback failed, 2 bad command
//! line, 3 no NIC, 4 some datagrams refused, 5 flash file or store unusable,
//! 101 panic.
//!
//! The watchdog runs from boot on, fed by [`watchdog_task`]; a boot it
//! caused is logged. With the `test-faults` feature, `hang_after_ms=N`
//! hangs the executor N ms after a boot the watchdog did not cause (see
//! [`board_keys`]).
#![no_std]
#![no_main]

mod board_keys;

use core::ffi::CStr;
use core::mem::MaybeUninit;
use core::net::{Ipv4Addr, SocketAddrV4};

use defmt_semihosting as _;
use embassy_executor::Spawner;
use embassy_net::{Runner, Stack, StackResources};
use embassy_sync::mutex::Mutex;
use embassy_time::{Duration, Ticker};
use llv_box::config::StaticV4;
use llv_box::control::ControlBuffers;
use llv_box::session::{self, SessionError};
use llv_box::sink::SocketBuffers;
use llv_box::stored::SharedStore;
use llv_box::{builtin, BoxConfig, StopSignal};
use llv_box_store::Store;
use llv_hal_mps2::executor::Executor;
use llv_hal_mps2::file_flash::{self, FileFlash};
use llv_hal_mps2::lan9118::Lan9118;
use llv_hal_mps2::watchdog::{self, ResetCause, Watchdog};
use llv_hal_mps2::{semihosting, time_driver};
use static_cell::StaticCell;

use crate::board_keys::BoardKeys;

/// Sockets: DHCP, the player's UDP socket, the control connections, one spare.
const SOCKETS: usize = 3 + llv_box::control::LISTENERS;

/// Firmware name and version, as `Status` reports it.
const FIRMWARE: &str = concat!("llv-box-qemu ", env!("CARGO_PKG_VERSION"));

/// Unfed this long, the watchdog's NMI fires; the reset follows as long again.
const WATCHDOG_TIMEOUT: Duration = Duration::from_secs(2);
/// How often [`watchdog_task`] feeds it.
const FEED_PERIOD: Duration = Duration::from_millis(250);

/// Without `-append`: QEMU's user network host on the default port.
fn default_config() -> BoxConfig {
    BoxConfig::new(
        &[SocketAddrV4::new(Ipv4Addr::new(10, 0, 2, 2), 11111)],
        StaticV4 {
            address: Ipv4Addr::new(10, 0, 2, 15),
            prefix_len: 24,
            gateway: Some(Ipv4Addr::new(10, 0, 2, 2)),
        },
    )
}

static STOP: StopSignal = StopSignal::new();

#[cortex_m_rt::entry]
fn main() -> ! {
    time_driver::init();
    static EXECUTOR: StaticCell<Executor> = StaticCell::new();
    EXECUTOR
        .init(Executor::new())
        .run(|spawner| spawner.spawn(boot(spawner).unwrap()))
}

/// Watchdog, command line, store (its erases wait on the executor), NIC and
/// stack, then the box's tasks.
#[embassy_executor::task]
async fn boot(spawner: Spawner) {
    let reset_cause = watchdog::take_reset_cause();
    spawner.spawn(watchdog_task().unwrap());
    let (keys, mut config) = command_line();
    if reset_cause == ResetCause::Watchdog {
        defmt::warn!("reset by the watchdog");
    }
    let store = match keys.flash {
        Some(path) => {
            let store = mount(&path, keys.erase_time).await;
            config.net =
                llv_box::net::with_stored_address(config.net, store.settings().address.as_ref());
            static STORE: StaticCell<SharedStore<FileFlash>> = StaticCell::new();
            Some(&*STORE.init(Mutex::new(store)))
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

    #[cfg(feature = "test-faults")]
    if let (Some(after), ResetCause::PowerOn) = (keys.hang_after, reset_cause) {
        spawner.spawn(hang_task(after).unwrap());
    }
    spawner.spawn(net_task(runner).unwrap());
    match store {
        Some(store) => spawner.spawn(store_task(stack, config, store).unwrap()),
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

/// Opens the flash file and mounts the store on all of it; exits with 5 if it cannot.
async fn mount(path: &[u8], erase_time: Duration) -> Store<FileFlash> {
    let Ok(path) = CStr::from_bytes_until_nul(path) else {
        semihosting::exit(5);
    };
    let flash = match FileFlash::open(path, erase_time) {
        Ok(flash) => flash,
        Err(e) => {
            defmt::error!("flash file: {}", defmt::Debug2Format(&e));
            semihosting::exit(5);
        }
    };
    match Store::mount(flash, 0..file_flash::CAPACITY as u32).await {
        Ok(store) => {
            defmt::info!(
                "store mounted: {} takes, {} bytes free",
                store.list().len(),
                store.free_bytes()
            );
            store
        }
        Err(e) => {
            defmt::error!("store: {}", defmt::Display2Format(&e));
            semihosting::exit(5);
        }
    }
}

#[embassy_executor::task]
async fn store_task(
    stack: Stack<'static>,
    config: BoxConfig,
    store: &'static SharedStore<FileFlash>,
) {
    let mut buffers = SocketBuffers::new();
    let mut control = ControlBuffers::new();
    let e = session::run_store(
        stack,
        &config.net,
        store,
        FIRMWARE,
        &mut buffers,
        &mut control,
    )
    .await;
    defmt::error!("cannot bind the UDP socket: {}", e);
    semihosting::exit(1);
}

/// First wiring only (the app's supervisor will feed it instead): starts
/// the watchdog and feeds it while the executor runs.
#[embassy_executor::task]
async fn watchdog_task() -> ! {
    let mut watchdog = Watchdog::start(WATCHDOG_TIMEOUT);
    let mut ticker = Ticker::every(FEED_PERIOD);
    loop {
        watchdog.feed();
        ticker.next().await;
    }
}

/// Test fault: from `after` past boot on, never yield again (interrupts
/// stay enabled, so only the watchdog ends it).
#[cfg(feature = "test-faults")]
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
    match session::run(stack, &mut source, &config, &mut buffers, &STOP).await {
        Ok((_, report)) => {
            defmt::info!("done: {}", report);
            semihosting::exit(if report.send_errors == 0 { 0 } else { 4 });
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
