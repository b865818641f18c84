//! Drivers for QEMU's `mps2-an386` machine (Cortex-M4, the AN385/AN386
//! memory map), for the llv box's QEMU board.
//!
//! | module | what it holds |
//! |---|---|
//! | [`interrupt`] | the device interrupt lines and the device vector table |
//! | [`time_driver`] | the embassy-time driver on the two CMSDK APB timers |
//! | [`executor`] | an embassy executor that sleeps with WFI |
//! | [`lan9118`] | the SMSC LAN9118 Ethernet chip as an embassy-net driver |
//! | [`watchdog`] | the CMSDK APB watchdog, and whether it caused the last reset |
//! | [`semihosting`] | the command line (`-append`) and the exit status |
//! | [`file_flash`] | a NOR flash in a host file |
//! | [`file_card`] | the microSD card as an image in a host file, with injected read stalls |
//!
//! Handlers are bound as in a peripheral access crate: the vector table
//! names each device interrupt by symbol (`TIMER0`, `TIMER1`, `ETHERNET`),
//! `device.x` points every such symbol at `DefaultHandler`, and the driver
//! that owns a line defines its handler with `#[interrupt]`. So the table
//! names no driver module and each handler sits next to the state it touches.
//!
//! Semihosting traps into the debugger (here: QEMU); on a board without one
//! it faults, so this crate is for QEMU only.
#![no_std]
#![warn(missing_docs)]

pub mod executor;
pub mod file_card;
pub mod file_flash;
pub mod interrupt;
pub mod lan9118;
mod mmio;
pub mod semihosting;
pub mod time_driver;
pub mod watchdog;
