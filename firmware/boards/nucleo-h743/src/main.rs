//! The llv playback box on a NUCLEO-H743ZI2: STM32H743 at 400 MHz from the
//! ST-LINK's 8 MHz clock, LAN8742A PHY over RMII, defmt over RTT.
//!
//! The box has no console: its command line is fixed at build time, the
//! default below with the keys of `LLV_BOX_CMDLINE` (if set) applied on top,
//! for example
//! `LLV_BOX_CMDLINE="targets=192.168.1.20:11111 loop=forever" cargo build ...`.
#![no_std]
#![no_main]

use core::net::{Ipv4Addr, SocketAddrV4};

use embassy_executor::Spawner;
use embassy_net::{Runner, Stack, StackResources};
use embassy_stm32::bind_interrupts;
use embassy_stm32::eth::{self, Ethernet, GenericPhy, PacketQueue, Sma};
use embassy_stm32::peripherals::{ETH, ETH_SMA};
use llv_box::config::StaticV4;
use llv_box::session::{self, SessionError};
use llv_box::sink::SocketBuffers;
use llv_box::{builtin, BoxConfig, StopSignal};
use static_cell::StaticCell;
use {defmt_rtt as _, panic_probe as _};

bind_interrupts!(struct Irqs {
    ETH => eth::InterruptHandler;
});

type Device = Ethernet<'static, ETH, GenericPhy<Sma<'static, ETH_SMA>>>;

/// Sockets: DHCP, the player's UDP socket, one spare.
const SOCKETS: usize = 3;

/// Keys compiled in with `LLV_BOX_CMDLINE`, applied over [`default_config`].
const BUILD_CMDLINE: &str = match option_env!("LLV_BOX_CMDLINE") {
    Some(line) => line,
    None => "",
};

/// Plays once to 192.168.1.10:11111; DHCP, else 192.168.1.50/24.
fn default_config() -> BoxConfig {
    BoxConfig::new(
        &[SocketAddrV4::new(Ipv4Addr::new(192, 168, 1, 10), 11111)],
        StaticV4 {
            address: Ipv4Addr::new(192, 168, 1, 50),
            prefix_len: 24,
            gateway: None,
        },
    )
}

static STOP: StopSignal = StopSignal::new();

fn clocks() -> embassy_stm32::Config {
    use embassy_stm32::rcc::*;
    let mut config = embassy_stm32::Config::default();
    config.rcc.hse = Some(Hse {
        freq: embassy_stm32::time::Hertz(8_000_000),
        mode: HseMode::Bypass,
    });
    config.rcc.pll1 = Some(Pll {
        source: PllSource::HSE,
        prediv: PllPreDiv::DIV2,
        mul: PllMul::MUL200,
        fracn: None,
        divp: Some(PllDiv::DIV2), // 400 MHz system clock
        divq: Some(PllDiv::DIV8),
        divr: None,
    });
    config.rcc.sys = Sysclk::PLL1_P;
    config.rcc.ahb_pre = AHBPrescaler::DIV2;
    config.rcc.apb1_pre = APBPrescaler::DIV2;
    config.rcc.apb2_pre = APBPrescaler::DIV2;
    config.rcc.apb3_pre = APBPrescaler::DIV2;
    config.rcc.apb4_pre = APBPrescaler::DIV2;
    config.rcc.voltage_scale = VoltageScale::Scale1;
    config
}

#[embassy_executor::main]
async fn main(spawner: Spawner) {
    let p = embassy_stm32::init(clocks());
    defmt::info!(
        "llv-box on NUCLEO-H743ZI2, command line: {=str}",
        BUILD_CMDLINE
    );
    let config = match default_config().apply(BUILD_CMDLINE) {
        Ok(config) => config,
        Err(e) => {
            defmt::error!("command line: {}", e);
            return;
        }
    };

    // A stable, locally administered MAC from the chip's unique ID.
    let uid = embassy_stm32::uid::uid();
    let mac = [
        0x02,
        uid[0] ^ uid[6],
        uid[1] ^ uid[7],
        uid[2] ^ uid[8],
        uid[3] ^ uid[9],
        uid[4] ^ uid[10],
    ];
    let seed = u64::from_le_bytes([
        uid[0], uid[1], uid[2], uid[3], uid[4], uid[5], uid[6], uid[7],
    ]);

    // The Ethernet DMA cannot reach DTCM: embassy-stm32's memory.x puts RAM
    // (and so these statics) in AXI SRAM at 0x2400_0000.
    static PACKETS: StaticCell<PacketQueue<4, 4>> = StaticCell::new();
    let packets = PACKETS.uninit();
    PacketQueue::init(packets);
    // SAFETY: `PacketQueue::init` fully initialised it (all zero is valid).
    let packets = unsafe { packets.assume_init_mut() };
    let device: Device = Ethernet::new(
        packets, p.ETH, Irqs, p.PA1, p.PA7, p.PC4, p.PC5, p.PG13, p.PB13, p.PG11, mac, p.ETH_SMA,
        p.PA2, p.PC1,
    );

    static RESOURCES: StaticCell<StackResources<SOCKETS>> = StaticCell::new();
    let (stack, runner) = embassy_net::new(
        device,
        llv_box::net::stack_config(&config.net),
        RESOURCES.init(StackResources::new()),
        seed,
    );
    spawner.spawn(net_task(runner).unwrap());
    spawner.spawn(box_task(stack, config).unwrap());
}

#[embassy_executor::task]
async fn net_task(mut runner: Runner<'static, Device>) -> ! {
    runner.run().await
}

#[embassy_executor::task]
async fn box_task(stack: Stack<'static>, config: BoxConfig) {
    let mut source = match builtin::take() {
        Ok(source) => source,
        Err(e) => {
            defmt::error!("built-in take: {}", e);
            return;
        }
    };
    static BUFFERS: StaticCell<SocketBuffers> = StaticCell::new();
    let buffers = BUFFERS.init(SocketBuffers::new());
    match session::run(stack, &mut source, &config, buffers, &STOP).await {
        Ok((_, report)) => defmt::info!("done: {}", report),
        Err(SessionError::Bind) => defmt::error!("cannot bind the UDP socket"),
        Err(SessionError::Play(e)) => defmt::error!("playback: {}", e),
    }
}
