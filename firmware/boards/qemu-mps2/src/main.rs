//! The llv playback box on QEMU's `mps2-an386` (Cortex-M4, SMSC LAN9118).
//!
//! Boot: clock, command line (`-append`), NIC, embassy-net, then the
//! board-independent session of `llv-box`.
//!
//! With `flash=PATH` on the command line, the box mounts its take store on
//! that host file ([`flash::FileFlash`]), autoplays, and serves the control
//! port until QEMU is stopped. Without it, the box plays the built-in take
//! and, when playback ends (it does unless `loop=forever`), QEMU exits through
//! semihosting with a status: 0 played, 1 playback failed, 2 bad command
//! line, 3 no NIC, 4 some datagrams refused, 5 flash file or store unusable,
//! 101 panic.
#![no_std]
#![no_main]

mod executor;
mod flash;
mod irq;
mod lan9118;
mod semihosting;
mod time_driver;

use core::ffi::CStr;
use core::mem::MaybeUninit;
use core::net::{Ipv4Addr, SocketAddrV4};

use defmt_semihosting as _;
use embassy_net::{Runner, Stack, StackResources};
use llv_box::boot::{Booted, PowerUp};
use llv_box::config::NetPolicy;
use llv_box::health::Watchdog;
use llv_box::listener::ControlBuffers;
use llv_box::session::{self, SessionError};
use llv_box::sink::SocketBuffers;
use llv_box::{boot, builtin, BoxConfig};
use llv_core::settings::StaticAddress;
use static_cell::StaticCell;

use crate::executor::Executor;
use crate::flash::FileFlash;
use crate::lan9118::Lan9118;

/// Sockets: DHCP, the player's UDP socket, the control connections, one spare.
const SOCKETS: usize = llv_box::SOCKETS;

/// Firmware name and version, as `Status` reports it.
const FIRMWARE: &str = concat!("llv-box-qemu ", env!("CARGO_PKG_VERSION"));

/// The command line word naming the flash file.
const FLASH_KEY: &str = "flash=";

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

    let mut line_buf = [MaybeUninit::uninit(); semihosting::CMDLINE_MAX];
    let line = semihosting::cmdline(&mut line_buf);
    defmt::info!("llv-box on mps2-an386, command line: {=str}", line);
    let (flash_path, rest) = split_flash(line);
    let mut config = match default_config().apply(&rest) {
        Ok(config) => config,
        Err(e) => {
            defmt::error!("command line: {}", e);
            semihosting::exit(2);
        }
    };
    let store = flash_path.map(|path| {
        let booted = mount(&path, config.net);
        config.net = booted.net;
        booted
    });

    let nic = match Lan9118::new(lan9118::BASE_AN386) {
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

    static EXECUTOR: StaticCell<Executor> = StaticCell::new();
    EXECUTOR.init(Executor::new()).run(|spawner| {
        spawner.spawn(net_task(runner).unwrap());
        match store {
            Some(booted) => spawner.spawn(store_task(stack, booted).unwrap()),
            None => spawner.spawn(box_task(stack, config).unwrap()),
        }
    })
}

/// The `flash=` path (NUL-terminated for semihosting) and the other words.
fn split_flash(
    line: &str,
) -> (
    Option<heapless::Vec<u8, { semihosting::CMDLINE_MAX }>>,
    heapless::String<{ semihosting::CMDLINE_MAX }>,
) {
    let mut path = None;
    let mut rest = heapless::String::new();
    for word in line.split_ascii_whitespace() {
        if let Some(p) = word.strip_prefix(FLASH_KEY) {
            let mut bytes = heapless::Vec::new();
            // The line fits CMDLINE_MAX, so a word and its NUL fit as well.
            let _ = bytes.extend_from_slice(p.as_bytes());
            let _ = bytes.push(0);
            path = Some(bytes);
        } else {
            let _ = rest.push_str(word);
            let _ = rest.push(' ');
        }
    }
    (path, rest)
}

/// Opens the flash file and mounts the store on all of it; exits with 5 if
/// the file cannot be opened.
fn mount(path: &[u8], net: NetPolicy) -> Booted<FileFlash> {
    let Ok(path) = CStr::from_bytes_until_nul(path) else {
        semihosting::exit(5);
    };
    let flash = match FileFlash::open(path) {
        Ok(flash) => flash,
        Err(e) => {
            defmt::error!("flash file: {}", defmt::Debug2Format(&e));
            semihosting::exit(5);
        }
    };
    // The file flash answers at once: mounting needs no executor.
    embassy_futures::block_on(boot::mount_store(
        flash,
        0..flash::CAPACITY as u32,
        net,
        PowerUp::default(),
    ))
}

/// Until the board drives its watchdog.
struct NoWatchdog;

impl Watchdog for NoWatchdog {
    fn feed(&mut self) {}
}

#[embassy_executor::task]
async fn store_task(stack: Stack<'static>, booted: Booted<FileFlash>) {
    let mut buffers = SocketBuffers::new();
    let mut control = ControlBuffers::new();
    let e = session::run_store(
        stack,
        booted,
        FIRMWARE,
        &mut NoWatchdog,
        &mut buffers,
        &mut control,
    )
    .await;
    defmt::error!("cannot bind the UDP socket: {}", e);
    semihosting::exit(1);
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
    match session::run(stack, &mut source, &config, &mut buffers).await {
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
