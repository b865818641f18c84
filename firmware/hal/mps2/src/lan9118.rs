//! A polled `embassy-net-driver` for the SMSC LAN9118 of the MPS2 boards
//! (QEMU's model: link always up, no checksum offload, no DMA).
//!
//! Frames move through the chip's FIFOs with 32-bit little-endian words:
//! TX command A/B words then data into the TX data FIFO; RX status words and
//! data out of the RX FIFOs. The only interrupt used is "RX status FIFO level"
//! (one frame waiting), which wakes the embassy-net runner.

use core::task::Context;

use embassy_net_driver::{Capabilities, HardwareAddress, LinkState};
use embassy_sync::waitqueue::AtomicWaker;

use crate::interrupt::{interrupt, Interrupt};
use crate::mmio::Regs;

/// The chip's registers on AN385/AN386 (it sits at 0xA000_0000 on AN500).
// SAFETY: the LAN9118 register window of the AN386 image.
const CHIP: Regs = unsafe { Regs::new(0x4020_0000) };

const RX_DATA_FIFO: usize = 0x00;
const TX_DATA_FIFO: usize = 0x20;
const RX_STATUS_FIFO: usize = 0x40;
const TX_STATUS_FIFO: usize = 0x48;
const IRQ_CFG: usize = 0x54;
const INT_STS: usize = 0x58;
const INT_EN: usize = 0x5C;
const BYTE_TEST: usize = 0x64;
const FIFO_INT: usize = 0x68;
const RX_CFG: usize = 0x6C;
const TX_CFG: usize = 0x70;
const HW_CFG: usize = 0x74;
const RX_FIFO_INF: usize = 0x7C;
const TX_FIFO_INF: usize = 0x80;
const PMT_CTRL: usize = 0x84;
const MAC_CSR_CMD: usize = 0xA4;
const MAC_CSR_DATA: usize = 0xA8;

/// IRQ pin enabled, active high, push-pull. Without it the line idles
/// asserted and the core never leaves the handler.
const IRQ_CFG_VALUE: u32 = 0x111;
const INT_RSFL: u32 = 1 << 3;
const HW_CFG_SRST: u32 = 1 << 0;
const PMT_READY: u32 = 1 << 0;
const TX_CFG_ON: u32 = 1 << 1;
const TX_CFG_STATUS_OVERRUN_OK: u32 = 1 << 2;
const CSR_BUSY: u32 = 1 << 31;
const CSR_READ: u32 = 1 << 30;
const RX_STATUS_ERROR: u32 = 1 << 15;
const RX_STATUS_FILTER_FAIL: u32 = 1 << 30;
const TX_CMD_A_FIRST: u32 = 1 << 13;
const TX_CMD_A_LAST: u32 = 1 << 12;

const MAC_CR: u8 = 1;
const MAC_ADDRH: u8 = 2;
const MAC_ADDRL: u8 = 3;
const MAC_MII_ACC: u8 = 6;
const MAC_MII_DATA: u8 = 7;
const MAC_CR_RXEN: u32 = 1 << 2;
const MAC_CR_TXEN: u32 = 1 << 3;
const MAC_CR_FDPX: u32 = 1 << 20;
/// Pass all multicast frames (mDNS, IGMP): the stack filters them.
const MAC_CR_MCPAS: u32 = 1 << 19;
const PHY_ADDR: u32 = 1;
const PHY_BSR: u32 = 1;
const PHY_BSR_LINK: u32 = 1 << 2;

/// Largest Ethernet frame without CRC.
pub const MTU: usize = 1514;
const BUF: usize = 1536;

static WAKER: AtomicWaker = AtomicWaker::new();

/// Why [`Lan9118::new`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, defmt::Format)]
pub enum InitError {
    /// BYTE_TEST did not read 0x87654321: no LAN9118 at this address.
    NoChip(u32),
    /// The chip did not come out of reset.
    NotReady,
}

/// Waits until the MAC CSR interface is idle (bounded: QEMU answers at once).
fn wait_csr() {
    for _ in 0..100_000 {
        if CHIP.read(MAC_CSR_CMD) & CSR_BUSY == 0 {
            return;
        }
    }
}

fn mac_read(reg: u8) -> u32 {
    wait_csr();
    CHIP.write(MAC_CSR_CMD, CSR_BUSY | CSR_READ | u32::from(reg));
    wait_csr();
    CHIP.read(MAC_CSR_DATA)
}

fn mac_write(reg: u8, value: u32) {
    wait_csr();
    CHIP.write(MAC_CSR_DATA, value);
    CHIP.write(MAC_CSR_CMD, CSR_BUSY | u32::from(reg));
    wait_csr();
}

fn phy_read(reg: u32) -> u32 {
    mac_write(MAC_MII_ACC, (PHY_ADDR << 11) | (reg << 6) | 1);
    for _ in 0..100_000 {
        if mac_read(MAC_MII_ACC) & 1 == 0 {
            break;
        }
    }
    mac_read(MAC_MII_DATA) & 0xFFFF
}

/// The LAN9118 as an embassy-net driver, with one RX and one TX frame buffer.
pub struct Lan9118 {
    mac: [u8; 6],
    rx_buf: [u8; BUF],
    tx_buf: [u8; BUF],
}

impl Lan9118 {
    /// Resets and starts the chip, then unmasks its interrupt.
    pub fn new() -> Result<Self, InitError> {
        let test = CHIP.read(BYTE_TEST);
        if test != 0x8765_4321 {
            return Err(InitError::NoChip(test));
        }
        CHIP.write(HW_CFG, HW_CFG_SRST);
        let ready = (0..100_000)
            .any(|_| CHIP.read(HW_CFG) & HW_CFG_SRST == 0 && CHIP.read(PMT_CTRL) & PMT_READY != 0);
        if !ready {
            return Err(InitError::NotReady);
        }
        CHIP.write(IRQ_CFG, IRQ_CFG_VALUE);
        CHIP.write(INT_EN, 0);
        CHIP.write(INT_STS, u32::MAX);
        // Interrupt as soon as one RX status word is waiting.
        CHIP.write(FIFO_INT, 0x4800_0000);
        CHIP.write(RX_CFG, 0);
        CHIP.write(TX_CFG, TX_CFG_ON | TX_CFG_STATUS_OVERRUN_OK);
        mac_write(
            MAC_CR,
            MAC_CR_TXEN | MAC_CR_RXEN | MAC_CR_FDPX | MAC_CR_MCPAS,
        );

        let low = mac_read(MAC_ADDRL).to_le_bytes();
        let high = mac_read(MAC_ADDRH).to_le_bytes();
        let mut mac = [low[0], low[1], low[2], low[3], high[0], high[1]];
        if mac == [0; 6] || mac == [0xFF; 6] {
            // Locally administered fallback.
            mac = [0x02, 0x00, 0x00, 0x11, 0x81, 0x18];
            mac_write(
                MAC_ADDRL,
                u32::from_le_bytes([mac[0], mac[1], mac[2], mac[3]]),
            );
            mac_write(MAC_ADDRH, u32::from(mac[4]) | (u32::from(mac[5]) << 8));
        }

        CHIP.write(INT_EN, INT_RSFL);
        Interrupt::ETHERNET.unmask();
        Ok(Self {
            mac,
            rx_buf: [0; BUF],
            tx_buf: [0; BUF],
        })
    }

    /// The MAC address (the chip's, or a locally administered fallback).
    pub fn mac(&self) -> [u8; 6] {
        self.mac
    }

    /// Number of frames waiting in the RX FIFO.
    fn rx_waiting(&self) -> u32 {
        (CHIP.read(RX_FIFO_INF) >> 16) & 0xFF
    }

    /// Free bytes in the TX data FIFO.
    fn tx_free(&self) -> usize {
        (CHIP.read(TX_FIFO_INF) & 0xFFFF) as usize
    }

    /// Pop one frame into `rx_buf`; its length without CRC, or None if it
    /// was an error frame (then dropped).
    fn pop_frame(&mut self) -> Option<usize> {
        let status = CHIP.read(RX_STATUS_FIFO);
        let len_with_crc = ((status >> 16) & 0x3FFF) as usize;
        let words = len_with_crc.div_ceil(4);
        let good = status & (RX_STATUS_ERROR | RX_STATUS_FILTER_FAIL) == 0
            && len_with_crc > 4
            && len_with_crc <= BUF;
        for i in 0..words {
            let word = CHIP.read(RX_DATA_FIFO);
            if good {
                let bytes = word.to_le_bytes();
                let at = i * 4;
                let n = (BUF - at).min(4);
                self.rx_buf[at..at + n].copy_from_slice(&bytes[..n]);
            }
        }
        good.then_some(len_with_crc - 4)
    }
}

/// A frame is waiting: acknowledge and wake the runner.
#[interrupt]
fn ETHERNET() {
    let status = CHIP.read(INT_STS);
    CHIP.write(INT_STS, status);
    WAKER.wake();
}

/// A received frame, lent to embassy-net.
pub struct RxToken<'a> {
    buf: &'a mut [u8],
}

impl embassy_net_driver::RxToken for RxToken<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, f: F) -> R {
        f(self.buf)
    }
}

/// Room for one frame to send, lent to embassy-net.
pub struct TxToken<'a> {
    buf: &'a mut [u8; BUF],
}

impl embassy_net_driver::TxToken for TxToken<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let len = len.min(MTU);
        let result = f(&mut self.buf[..len]);
        // One segment: first and last, no offset, `len` bytes; tag = length.
        CHIP.write(TX_DATA_FIFO, TX_CMD_A_FIRST | TX_CMD_A_LAST | len as u32);
        CHIP.write(TX_DATA_FIFO, ((len as u32) << 16) | len as u32);
        for chunk in self.buf[..len].chunks(4) {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            CHIP.write(TX_DATA_FIFO, u32::from_le_bytes(word));
        }
        // Drain TX status words; nothing here needs them.
        while (CHIP.read(TX_FIFO_INF) >> 16) & 0xFF != 0 {
            CHIP.read(TX_STATUS_FIFO);
        }
        result
    }
}

impl embassy_net_driver::Driver for Lan9118 {
    type RxToken<'a> = RxToken<'a>;
    type TxToken<'a> = TxToken<'a>;

    fn receive(&mut self, cx: &mut Context) -> Option<(RxToken<'_>, TxToken<'_>)> {
        // Register first, then look: a frame landing in between still wakes.
        WAKER.register(cx.waker());
        while self.rx_waiting() != 0 {
            if self.tx_free() < BUF + 8 {
                cx.waker().wake_by_ref();
                return None;
            }
            if let Some(len) = self.pop_frame() {
                return Some((
                    RxToken {
                        buf: &mut self.rx_buf[..len],
                    },
                    TxToken {
                        buf: &mut self.tx_buf,
                    },
                ));
            }
        }
        None
    }

    fn transmit(&mut self, cx: &mut Context) -> Option<TxToken<'_>> {
        if self.tx_free() < BUF + 8 {
            // The FIFO drains on its own; look again soon.
            cx.waker().wake_by_ref();
            return None;
        }
        Some(TxToken {
            buf: &mut self.tx_buf,
        })
    }

    fn link_state(&mut self, cx: &mut Context) -> LinkState {
        if phy_read(PHY_BSR) & PHY_BSR_LINK != 0 {
            LinkState::Up
        } else {
            // No PHY interrupt is wired: poll until the link comes up.
            cx.waker().wake_by_ref();
            LinkState::Down
        }
    }

    fn capabilities(&self) -> Capabilities {
        let mut caps = Capabilities::default();
        caps.max_transmission_unit = MTU;
        caps.max_burst_size = Some(1);
        caps
    }

    fn hardware_address(&self) -> HardwareAddress {
        HardwareAddress::Ethernet(self.mac)
    }
}
