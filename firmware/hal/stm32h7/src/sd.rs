//! [`SdSlot`]: a microSD slot on SDMMC1, 4-bit on PC8-PC11 (D0-D3), PC12
//! (CK), PD2 (CMD), as the card library's [`Blocks`].
//!
//! There is no card-detect pin: a card is "in" once it answered the
//! initialisation; a read or write that times out says "removed", and the
//! card is initialised again when the library next asks whether one is in.
//!
//! One data line instead of four, only where four failed and one works on
//! the same card: when an initialisation over four lines fails, the slot
//! tries one line at once, and keeps it only if that succeeds (an empty slot
//! fails both and stays on four). Data that fails its CRC is read or written
//! again once; failing again it counts as a strike and the card is
//! initialised anew; after [`crate::lines::CRC_STRIKES`] strikes in a row
//! the next initialisation tries one line first. A card found gone (no
//! answer on one line either) sends the slot back to four lines for the next
//! card. The rule is [`crate::lines`]'s. Both drivers live in statics for good, and the slot swaps which one
//! its device drives (both program SDMMC1's CLKCR.WIDBUS at every
//! initialisation).
//!
//! An initialisation never holds the executor for long and always ends:
//! embassy-stm32 is patched (`firmware/vendor/README.md`) so that every
//! command of the initialisation yields while it is on the wire, its
//! power-up loop (ACMD41) gives the card [`POWER_UP_LIMIT`] (the SD
//! specification's initialisation timeout) awaiting 1 ms between tries, a
//! write's programming is awaited (500 ms at most), and every register wait
//! is bounded; what stays synchronous is the 74 clocks of power-up (185 µs)
//! and a few register accesses per look. The whole initialisation is bounded
//! again here by [`INIT_LIMIT`] (its data reads wait on the SDMMC's own data
//! timeout, seconds at 400 kHz). A card that answers but stays busy past
//! its power-up is in but unusable ([`Blocks::unusable`]), and the slot does
//! not try one line for it.
//!
//! Blocks go through the driver's own [`DataBlock`] (aligned for the IDMA,
//! in the slot, so wherever the board keeps the slot must be memory the
//! SDMMC1 IDMA reaches: AXI SRAM, not DTCM).

use embassy_stm32::interrupt::typelevel::{Binding, SDMMC1 as Sdmmc1Interrupt};
use embassy_stm32::peripherals::{PC10, PC11, PC12, PC8, PC9, PD2, SDMMC1};
use embassy_stm32::sdmmc::sd::{Addressable, Card, CmdBlock, DataBlock, StorageDevice};
use embassy_stm32::sdmmc::{self, InterruptHandler, Sdmmc};
use embassy_stm32::time::Hertz;
use embassy_stm32::Peri;
use embassy_time::{with_timeout, Duration};
use llv_card::{BlockBuf, BlockError, Blocks, BLOCK, POWER_UP_LIMIT, STAYS_BUSY};
use static_cell::StaticCell;

use crate::fmt::warning;
use crate::lines::{Lines, Outcome, Width};

/// The card's bus clock once initialised (default speed; the kernel clock is
/// PLL1Q at 100 MHz, divided by 4).
const BUS: Hertz = Hertz(25_000_000);

/// The longest one initialisation may take: the card's power-up and half
/// a second for the rest (a dozen commands and two short reads).
pub const INIT_LIMIT: Duration = Duration::from_millis(POWER_UP_LIMIT.as_millis() + 500);

/// The slot's pins and peripheral, as the board hands them over.
pub struct SdPins {
    /// SDMMC1.
    pub sdmmc: Peri<'static, SDMMC1>,
    /// CK.
    pub ck: Peri<'static, PC12>,
    /// CMD.
    pub cmd: Peri<'static, PD2>,
    /// D0.
    pub d0: Peri<'static, PC8>,
    /// D1.
    pub d1: Peri<'static, PC9>,
    /// D2.
    pub d2: Peri<'static, PC10>,
    /// D3.
    pub d3: Peri<'static, PC11>,
}

/// The slot: the SD driver over four data lines, or one (see the module docs).
pub struct SdSlot {
    dev: StorageDevice<'static, 'static, Card>,
    /// The driver `dev` does not use now: the 1-bit one while `dev` drives
    /// four lines, the 4-bit one while it drives one.
    spare: &'static mut Sdmmc<'static>,
    /// The lines of the driver `dev` uses.
    width: Width,
    /// Four lines or one, and the CRC strikes.
    lines: Lines,
    /// Whether the card answered the initialisation.
    ready: bool,
    /// Whether the last initialisation found a card that stayed busy.
    busy: bool,
    cmd: CmdBlock,
    /// The block in transfer (the driver's word-aligned buffer).
    block: DataBlock,
}

static FOUR: StaticCell<Sdmmc<'static>> = StaticCell::new();
static ONE: StaticCell<Sdmmc<'static>> = StaticCell::new();

impl SdSlot {
    /// The slot over `pins` (no card is touched until the library asks);
    /// `irq` proves the SDMMC1 interrupt is bound to embassy's handler.
    /// Call it once: the drivers live in statics.
    pub fn new(
        pins: SdPins,
        irq: impl Binding<Sdmmc1Interrupt, InterruptHandler<SDMMC1>> + 'static,
    ) -> Self {
        let four = FOUR.init(Sdmmc::new_4bit(
            pins.sdmmc,
            irq,
            pins.ck,
            pins.cmd,
            pins.d0,
            pins.d1,
            pins.d2,
            pins.d3,
            sdmmc::Config::default(),
        ));
        // SAFETY: the two drivers share SDMMC1, CK, CMD and D0, and only
        // one is ever used at a time: the slot owns both for good (never
        // dropped, so neither ever resets the pins or the peripheral's
        // clock) and hands exactly one to its device. Building this one
        // resets SDMMC1 before any card was touched and sets CK, CMD and D0
        // to the same alternate function the 4-bit driver gave them; D1-D3
        // keep theirs, unused on one line.
        let (sdmmc, ck, cmd, d0) =
            unsafe { (SDMMC1::steal(), PC12::steal(), PD2::steal(), PC8::steal()) };
        let one = ONE.init(Sdmmc::new_1bit(
            sdmmc,
            irq,
            ck,
            cmd,
            d0,
            sdmmc::Config::default(),
        ));
        SdSlot {
            dev: StorageDevice::new_uninit_sd_card(four),
            spare: one,
            width: Width::Four,
            lines: Lines::new(),
            ready: false,
            busy: false,
            cmd: CmdBlock::new(),
            block: DataBlock::new(),
        }
    }

    /// Initialises the card in the slot: over four data lines, or one where
    /// four failed and one works on this card ([`Lines::acquire`]); notes
    /// whether it stayed busy past its power-up deadline (the patched
    /// driver's `SoftwareTimeout`, which only that loop returns there).
    async fn acquire(&mut self) -> bool {
        let SdSlot {
            dev,
            spare,
            width,
            lines,
            cmd,
            ..
        } = self;
        let (outcome, fell_back) = lines
            .acquire(async |want| {
                if *width != want {
                    core::mem::swap(&mut dev.sdmmc, spare);
                    *width = want;
                }
                match with_timeout(INIT_LIMIT, dev.reacquire(cmd, BUS)).await {
                    Ok(Ok(())) => Outcome::Ready,
                    Ok(Err(sdmmc::Error::SoftwareTimeout)) => Outcome::Busy,
                    Ok(Err(_)) | Err(_) => Outcome::Failed,
                }
            })
            .await;
        if fell_back {
            warning!(
                "card: four data lines failed where one works: using one (check D1-D3 and their pull-ups)"
            );
        }
        self.busy = outcome == Outcome::Busy;
        outcome == Outcome::Ready
    }

    /// What a failed transfer means for the library; marks the card for a
    /// new initialisation where needed.
    fn failed(&mut self, e: sdmmc::Error) -> BlockError {
        warning!("card: {}", e);
        match e {
            sdmmc::Error::Timeout | sdmmc::Error::SoftwareTimeout | sdmmc::Error::NoCard => {
                self.ready = false;
                BlockError::Removed
            }
            // Failed twice: initialise again; strikes over four lines
            // count towards one line.
            sdmmc::Error::Crc => {
                self.lines.crc_failed();
                self.ready = false;
                BlockError::Removed
            }
            _ => BlockError::Failed,
        }
    }

    /// Reads block `at` into the slot's block, again once if its CRC fails.
    async fn read_block(&mut self, at: u32) -> Result<(), sdmmc::Error> {
        match self.dev.read_block(at, &mut self.block).await {
            Err(sdmmc::Error::Crc) => self.dev.read_block(at, &mut self.block).await,
            done => done,
        }
    }

    /// Writes the slot's block to block `at`, again once if its CRC fails.
    async fn write_block(&mut self, at: u32) -> Result<(), sdmmc::Error> {
        match self.dev.write_block(at, &self.block).await {
            Err(sdmmc::Error::Crc) => self.dev.write_block(at, &self.block).await,
            done => done,
        }
    }
}

impl Blocks for SdSlot {
    fn unusable(&self) -> Option<&'static str> {
        self.busy.then_some(STAYS_BUSY)
    }

    async fn present(&mut self) -> Option<u64> {
        if !self.ready {
            self.ready = self.acquire().await;
        }
        self.ready.then(|| self.dev.card().size() / BLOCK as u64)
    }

    async fn read(&mut self, block: u64, buf: &mut BlockBuf) -> Result<(), BlockError> {
        if !self.ready {
            return Err(BlockError::Removed);
        }
        let at = u32::try_from(block).map_err(|_| BlockError::Failed)?;
        match self.read_block(at).await {
            Ok(()) => {
                self.lines.transferred();
                buf.0 = *self.block;
                Ok(())
            }
            Err(e) => Err(self.failed(e)),
        }
    }

    async fn write(&mut self, block: u64, buf: &BlockBuf) -> Result<(), BlockError> {
        if !self.ready {
            return Err(BlockError::Removed);
        }
        let at = u32::try_from(block).map_err(|_| BlockError::Failed)?;
        *self.block = buf.0;
        match self.write_block(at).await {
            Ok(()) => {
                self.lines.transferred();
                Ok(())
            }
            Err(e) => Err(self.failed(e)),
        }
    }
}
