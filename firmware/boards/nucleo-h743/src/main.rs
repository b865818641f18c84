//! The llv playback box on a NUCLEO-H743ZI2: STM32H743 at 400 MHz from the
//! ST-LINK's 8 MHz clock (or, without it, from the internal 64 MHz HSI),
//! LAN8742A PHY over RMII, defmt over RTT.
//!
//! Takes live in the store on internal flash bank 2 ([`STORE_REGION`]; the
//! image stays in bank 1, see `memory.x`); they are uploaded with `llv flash`
//! over the control port, and the settings' autoplay take plays at power-up to
//! the settings' targets.
//!
//! The box has no console: its network policy is fixed at build time, the
//! default below with the keys of `LLV_BOX_CMDLINE` (if set) applied on top,
//! for example `LLV_BOX_CMDLINE="dhcp=off static=192.168.1.60/24" cargo build ...`;
//! a static address stored in the settings wins over both.
//!
//! Survival: the blue USER button (B1, PC13) held at power-up clears the
//! settings and keeps the takes (factory reset); the independent watchdog
//! (IWDG1, [`WATCHDOG_TIMEOUT_US`]), started in the first line of `main`,
//! restarts a hung box, and `Status` says so after the restart
//! (RCC_RSR.IWDG1RSTF); a box without the ST-LINK's clock
//! runs from HSI and says so; a flash that does not start leaves the box on
//! the network with an empty, unusable store.
#![no_std]
#![no_main]

use core::net::{Ipv4Addr, SocketAddrV4};

use embassy_executor::Spawner;
use embassy_net::{Runner, StackResources};
use embassy_stm32::bind_interrupts;
use embassy_stm32::eth::{self, Ethernet, GenericPhy, PacketQueue, Sma};
use embassy_stm32::gpio::{Input, Pull};
use embassy_stm32::peripherals::{ETH, ETH_SMA, SDMMC1};
use embassy_stm32::sdmmc;
use embassy_time::{Duration, Timer};
use llv_box::boot::{Booted, PowerUp};
use llv_box::chase_feed::ChaseFeedBuffers;
use llv_box::doors::DoorBuffers;
use llv_box::listener::ControlBuffers;
use llv_box::live::LiveBuffers;
use llv_box::power_up::BoxParts;
use llv_box::sink::SocketBuffers;
use llv_box::watchdog::{Handover, Watchdog, BOOT_LIMIT};
use llv_box::{boot, power_up, BoxConfig};
use llv_box_store::MaybeFlash;
use llv_card::{Card, CardPort};
use llv_core::control::ClockSource as Clock;
use llv_core::settings::StaticAddress;
use llv_hal_stm32h7::pll::{pll1, ClockSource};
use llv_hal_stm32h7::reset::{self, ResetCause};
use llv_hal_stm32h7::watchdog::{Iwdg1, Plan};
use llv_hal_stm32h7::{hse, Bank2Flash, SdPins, SdSlot};
use static_cell::StaticCell;
use {defmt_rtt as _, panic_probe as _};

bind_interrupts!(struct Irqs {
    ETH => eth::InterruptHandler;
    FLASH => llv_hal_stm32h7::InterruptHandler;
    SDMMC1 => sdmmc::InterruptHandler<SDMMC1>;
});

type Device = Ethernet<'static, ETH, GenericPhy<Sma<'static, ETH_SMA>>>;

/// Flash bank 2: ECC-safe reads, program and erase on the FLASH interrupt
/// (missing if its driver refused to start).
type BoxFlash = MaybeFlash<Bank2Flash<'static>>;

const SOCKETS: usize = llv_box::SOCKETS;

/// The watchdog restarts a box not fed for this long (the LSI's ±10 % included,
/// far above `llv_box::watchdog::FEED_EVERY`).
const WATCHDOG_TIMEOUT_US: u32 = 4_000_000;

/// IWDG1's prescaler and reload for [`WATCHDOG_TIMEOUT_US`] (/32, 3999).
const WATCHDOG: Plan = match Plan::for_timeout(WATCHDOG_TIMEOUT_US) {
    Some(plan) => plan,
    None => panic!("no IWDG1 plan for the watchdog's timeout"),
};

/// IWDG1, started in the first line of `main`.
static DOG: StaticCell<Iwdg1> = StaticCell::new();

/// The watchdog passes from the power-up's feeder to the box's keeper.
static HANDOVER: Handover = Handover::new();

/// The store: all of flash bank 2 (0x0810_0000, eight 128 KiB sectors), as
/// offsets from the start of flash. The store addresses it from 0.
const STORE_REGION: core::ops::Range<u32> = 0x10_0000..0x20_0000;

/// The microSD slot (SDMMC1).
static CARD: StaticCell<CardPort<SdSlot>> = StaticCell::new();

/// Firmware name and version, as `Status` reports it.
const FIRMWARE: &str = concat!("llv-box-nucleo ", env!("CARGO_PKG_VERSION"));

/// Keys compiled in with `LLV_BOX_CMDLINE`, applied over [`default_config`].
const BUILD_CMDLINE: &str = match option_env!("LLV_BOX_CMDLINE") {
    Some(line) => line,
    None => "",
};

/// DHCP, else 192.168.1.50/24 (the targets are the stored settings').
fn default_config() -> BoxConfig {
    BoxConfig::new(
        &[SocketAddrV4::new(Ipv4Addr::new(192, 168, 1, 10), 11111)],
        StaticAddress {
            ip: [192, 168, 1, 50],
            prefix_len: 24,
            gateway: None,
        },
    )
}

/// 400 MHz system clock, 200 MHz AHB, 100 MHz APBs, from `source` through
/// PLL1 (both sources give PLL1 the same 4 MHz reference: `pll1`).
fn clocks(source: ClockSource) -> embassy_stm32::Config {
    use embassy_stm32::rcc::*;
    let plan = pll1(source);
    let mut config = embassy_stm32::Config::default();
    config.rcc.hsi = Some(HSIPrescaler::DIV1); // 64 MHz, as `pll1` assumes
    config.rcc.hse = match source {
        ClockSource::Hse => Some(Hse {
            freq: embassy_stm32::time::Hertz(plan.input_hz),
            mode: HseMode::Bypass,
        }),
        ClockSource::Hsi => None,
    };
    config.rcc.pll1 = Some(Pll {
        source: match source {
            ClockSource::Hse => PllSource::HSE,
            ClockSource::Hsi => PllSource::HSI,
        },
        prediv: plan.divm,
        mul: plan.divn,
        fracn: None,
        divp: Some(plan.divp), // 400 MHz system clock
        divq: Some(plan.divq),
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

/// Whether the USER button (B1: PC13, high when pressed, pulled down on the
/// board) is held through 50 ms of power-up.
async fn user_button_held(pin: Input<'_>) -> bool {
    for _ in 0..10 {
        if pin.is_low() {
            return false;
        }
        Timer::after(Duration::from_millis(5)).await;
    }
    true
}

#[embassy_executor::main]
async fn main(spawner: Spawner) {
    // The watchdog first: whatever hangs from here on restarts the box.
    let (dog, settled) = Iwdg1::start(WATCHDOG);
    // Then the instruction cache: without it every instruction is fetched
    // from flash at 2 wait states. The data cache stays off: the Ethernet
    // and SDMMC DMA buffers and the flash driver rely on uncached memory.
    if let Some(mut core) = cortex_m::Peripherals::take() {
        core.SCB.enable_icache();
    }
    let dog = DOG.init(dog);
    // Why the chip reset decides how long the ST-LINK's clock may take.
    let reset = reset::take();
    // embassy's own wait for HSE never ends: probe it first, with a bound.
    // The probe feeds the watchdog at every look (each millisecond), so even
    // its 3 s after a power-on cannot trip the 4 s started above.
    let probe = hse::probe_hse_bypass(hse::wait_ms(reset), || dog.feed());
    let clock = probe.source;
    let p = embassy_stm32::init(clocks(clock));
    // The executor's timers run from here on: the power-up's feeder takes
    // over until the box's keeper does.
    spawner.spawn(boot_watchdog(Dog(dog)).unwrap());
    if settled {
        defmt::info!("watchdog: IWDG1, {=u32} ms", WATCHDOG.timeout_us() / 1000);
    } else {
        defmt::warn!(
            "watchdog: IWDG1 did not confirm its timeout; it runs on its reset values (512 ms)"
        );
    }
    match clock {
        ClockSource::Hse => defmt::info!(
            "clock: {=str}, there {=u32} ms after a {=str} reset; PLL1 400 MHz",
            clock.words(),
            probe.waited_ms,
            reset.name()
        ),
        ClockSource::Hsi => defmt::warn!(
            "clock: {=str}; no clock from the ST-LINK within {=u32} ms of a {=str} reset; PLL1 400 MHz",
            clock.words(),
            probe.waited_ms,
            reset.name()
        ),
    }
    let power_up = PowerUp {
        factory_reset: user_button_held(Input::new(p.PC13, Pull::Down)).await,
        watchdog_reset: reset == ResetCause::Watchdog,
        clock: match clock {
            ClockSource::Hse => Clock::Crystal,
            ClockSource::Hsi => Clock::Internal,
        },
    };
    defmt::info!(
        "llv-box on NUCLEO-H743ZI2, command line: {=str}",
        BUILD_CMDLINE
    );
    let config = default_config().apply(BUILD_CMDLINE).unwrap_or_else(|e| {
        defmt::error!("command line: {}; running on the defaults", e);
        default_config()
    });

    let flash = match Bank2Flash::new(p.FLASH, Irqs, STORE_REGION) {
        Ok(flash) => MaybeFlash::Present(flash),
        Err(e) => {
            defmt::error!("flash: {}; the store is unusable", e);
            MaybeFlash::Missing
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

    // The Ethernet DMA cannot reach DTCM: memory.x puts RAM (and so these
    // statics) in AXI SRAM at 0x2400_0000. Six receive buffers hold a burst
    // while the executor is busy: a segment for each control and OSC TCP
    // connection that has data in flight (their 1 KiB and 512 B windows allow
    // one each), with room for ARP, timecode and broadcasts; a packet dropped
    // beyond that is a TCP retransmit, never a frame of the take. Three
    // transmit buffers: a frame's datagram to each of four targets waits
    // about 30 µs at 100 Mbit/s for the first to go, well within a frame.
    static PACKETS: StaticCell<PacketQueue<3, 6>> = StaticCell::new();
    let packets = PACKETS.uninit();
    PacketQueue::init(packets);
    // SAFETY: `PacketQueue::init` fully initialised it (all zero is valid).
    let packets = unsafe { packets.assume_init_mut() };
    let device: Device = Ethernet::new(
        packets, p.ETH, Irqs, p.PA1, p.PA7, p.PC4, p.PC5, p.PG13, p.PB13, p.PG11, mac, p.ETH_SMA,
        p.PA2, p.PC1,
    );
    // The store is mounted in the box's task: its mount shares that task's
    // memory with the running box instead of holding some of its own.
    let card = SdSlot::new(
        SdPins {
            sdmmc: p.SDMMC1,
            ck: p.PC12,
            cmd: p.PD2,
            d0: p.PC8,
            d1: p.PC9,
            d2: p.PC10,
            d3: p.PC11,
        },
        Irqs,
    );
    let board = Board {
        card,
        flash,
        device,
        config,
        power_up,
        seed,
        mac,
    };
    spawner.spawn(box_task(spawner, board, Dog(dog)).unwrap());
}

/// What the box's task takes from the board's start-up.
struct Board {
    card: SdSlot,
    flash: BoxFlash,
    device: Device,
    config: BoxConfig,
    power_up: PowerUp,
    seed: u64,
    mac: [u8; 6],
}

#[embassy_executor::task]
async fn net_task(mut runner: Runner<'static, Device>) -> ! {
    runner.run().await
}

/// IWDG1 as the box feeds it.
#[derive(Clone, Copy)]
struct Dog(&'static Iwdg1);

impl Watchdog for Dog {
    fn feed(&mut self) {
        self.0.feed();
    }
}

/// Feeds the watchdog through the power-up (see [`Handover`]).
#[embassy_executor::task]
async fn boot_watchdog(dog: Dog) {
    if !HANDOVER.boot(dog).await {
        defmt::error!(
            "power-up not done after {=u64} s: the watchdog restarts the box",
            BOOT_LIMIT.as_secs()
        );
    }
}

#[embassy_executor::task]
async fn box_task(spawner: Spawner, board: Board, dog: Dog) {
    let Board {
        card,
        flash,
        device,
        mut config,
        power_up,
        seed,
        mac,
    } = board;
    let size = STORE_REGION.end - STORE_REGION.start;
    let card = Card::new(CARD.init(CardPort::new(card)));
    static BOOTED: StaticCell<Booted<BoxFlash, SdSlot>> = StaticCell::new();
    let booted = BOOTED.init(boot::mount_store(flash, 0..size, card, config.net, power_up).await);
    config.net = booted.net;

    static RESOURCES: StaticCell<StackResources<SOCKETS>> = StaticCell::new();
    let (stack, runner) = embassy_net::new(
        device,
        llv_box::net::stack_config(&config.net),
        RESOURCES.init(StackResources::new()),
        seed,
    );
    spawner.spawn(net_task(runner).unwrap());

    static BUFFERS: StaticCell<SocketBuffers> = StaticCell::new();
    static CONTROL: StaticCell<ControlBuffers> = StaticCell::new();
    static SHOW: StaticCell<DoorBuffers> = StaticCell::new();
    static TIMECODE: StaticCell<ChaseFeedBuffers> = StaticCell::new();
    static LIVE: StaticCell<LiveBuffers> = StaticCell::new();
    let buffers = BUFFERS.init(SocketBuffers::new());
    let control = CONTROL.init(ControlBuffers::new());
    let show = SHOW.init(DoorBuffers::new());
    let timecode = TIMECODE.init(ChaseFeedBuffers::new());
    let live = LIVE.init(LiveBuffers::new());
    let mut watchdog = HANDOVER.keeper(dog);
    let name = llv_box::config::default_name(&mac);
    let parts = BoxParts {
        firmware: FIRMWARE,
        default_name: &name,
        watchdog: &mut watchdog,
        sockets: buffers,
        control,
        show,
        timecode,
        live,
    };
    let e = power_up::run_store(stack, booted, parts).await;
    defmt::error!("cannot bind the UDP sockets: {}", e);
}
