//! [`SdSlot`]: a microSD slot on SDMMC1, 4-bit on PC8-PC11 (D0-D3), PC12
//! (CK), PD2 (CMD), falling back to 1-bit (D0 only) when four lines fail (no
//! answer to the initialisation, or CRC errors on the data), as the card
//! library's [`Blocks`].
//!
//! There is no card-detect pin: a card is "in" once it answered the
//! initialisation; a read or write that times out (or fails its CRC) says
//! "removed", and the card is initialised again when the library next asks
//! whether one is in.
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
use llv_box_card::{BlockBuf, BlockError, Blocks, BLOCK};
use static_cell::StaticCell;

use crate::fmt::warning;

/// The card's bus clock once initialised (default speed; the kernel clock is
/// PLL1Q at 100 MHz, divided by 4).
const BUS: Hertz = Hertz(25_000_000);

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

/// The slot: the SD driver over four data lines (or one, after a fallback).
pub struct SdSlot<I: 'static> {
    dev: StorageDevice<'static, 'static, Card>,
    irq: I,
    /// Whether the card answered the initialisation.
    ready: bool,
    /// Whether four data lines failed (the next initialisation uses one).
    wide_failed: bool,
    /// Whether the slot already fell back to one data line.
    one_bit: bool,
    cmd: CmdBlock,
    /// The block in transfer (the driver's word-aligned buffer).
    block: DataBlock,
}

static FOUR: StaticCell<Sdmmc<'static>> = StaticCell::new();
static ONE: StaticCell<Sdmmc<'static>> = StaticCell::new();

impl<I> SdSlot<I>
where
    I: Binding<Sdmmc1Interrupt, InterruptHandler<SDMMC1>> + Copy + 'static,
{
    /// The slot over `pins` (no card is touched until the library asks);
    /// `irq` proves the SDMMC1 interrupt is bound to embassy's handler.
    /// Call it once: the drivers live in statics.
    pub fn new(pins: SdPins, irq: I) -> Self {
        let sdmmc = FOUR.init(Sdmmc::new_4bit(
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
        SdSlot {
            dev: StorageDevice::new_uninit_sd_card(sdmmc),
            irq,
            ready: false,
            wide_failed: false,
            one_bit: false,
            cmd: CmdBlock::new(),
            block: DataBlock::new(),
        }
    }

    /// Initialises the card; on four lines first, then on one once four
    /// failed (at the initialisation or with CRC errors after it).
    async fn acquire(&mut self) -> bool {
        if !self.wide_failed || self.one_bit {
            if self.dev.reacquire(&mut self.cmd, BUS).await.is_ok() {
                return true;
            }
            if self.one_bit {
                return false;
            }
        }
        warning!("card: no answer over four data lines; trying one");
        self.one_bit = true;
        // SAFETY: the 4-bit driver built on these (in `FOUR`) is never used
        // again: `self.dev` is replaced below, and nothing else holds it. Its
        // D1-D3 pins stay in their alternate function, unused on one line.
        let (sdmmc, ck, cmd, d0) =
            unsafe { (SDMMC1::steal(), PC12::steal(), PD2::steal(), PC8::steal()) };
        let one = ONE.init(Sdmmc::new_1bit(
            sdmmc,
            self.irq,
            ck,
            cmd,
            d0,
            sdmmc::Config::default(),
        ));
        self.dev = StorageDevice::new_uninit_sd_card(one);
        self.dev.reacquire(&mut self.cmd, BUS).await.is_ok()
    }

    fn failed(&mut self, e: sdmmc::Error) -> BlockError {
        warning!("card: {}", e);
        match e {
            sdmmc::Error::Timeout | sdmmc::Error::SoftwareTimeout | sdmmc::Error::NoCard => {
                self.ready = false;
                BlockError::Removed
            }
            // Data lines that do not all carry: four lines initialised, but
            // the data fails its CRC. Next time, one line.
            sdmmc::Error::Crc if !self.one_bit => {
                self.wide_failed = true;
                self.ready = false;
                BlockError::Removed
            }
            _ => BlockError::Failed,
        }
    }
}

impl<I> Blocks for SdSlot<I>
where
    I: Binding<Sdmmc1Interrupt, InterruptHandler<SDMMC1>> + Copy + 'static,
{
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
        match self.dev.read_block(at, &mut self.block).await {
            Ok(()) => {
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
        match self.dev.write_block(at, &self.block).await {
            Ok(()) => Ok(()),
            Err(e) => Err(self.failed(e)),
        }
    }
}
