//! The llv playback box on QEMU's `mps2-an386` (Cortex-M4, SMSC LAN9118).
//!
//! Boot: clock, command line (`-append`), NIC, embassy-net, then the
//! board-independent session of `llv-box`. When playback ends (and it does
//! unless `loop=forever`), QEMU exits through semihosting with a status:
//! 0 played, 1 playback failed, 2 bad command line, 3 no NIC, 4 some
//! datagrams refused, 101 panic.
#![no_std]
#![no_main]

mod executor;
mod irq;
mod lan9118;
mod semihosting;
mod time_driver;

use core::mem::MaybeUninit;
use core::net::{Ipv4Addr, SocketAddrV4};

use defmt_semihosting as _;
use embassy_net::{Runner, Stack, StackResources};
use llv_box::config::StaticV4;
use llv_box::session::{self, SessionError};
use llv_box::sink::SocketBuffers;
use llv_box::{builtin, BoxConfig, StopSignal};
use static_cell::StaticCell;

use crate::executor::Executor;
use crate::lan9118::Lan9118;

/// Sockets: DHCP, the player's UDP socket, one spare.
const SOCKETS: usize = 3;

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

    let mut line_buf = [MaybeUninit::uninit(); semihosting::CMDLINE_MAX];
    let line = semihosting::cmdline(&mut line_buf);
    defmt::info!("llv-box on mps2-an386, command line: {=str}", line);
    let config = match default_config().apply(line) {
        Ok(config) => config,
        Err(e) => {
            defmt::error!("command line: {}", e);
            semihosting::exit(2);
        }
    };

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
        spawner.spawn(box_task(stack, config).unwrap());
    })
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
