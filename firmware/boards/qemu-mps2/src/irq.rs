//! The MPS2-AN386 interrupt lines this board uses and its vector table.
//!
//! No peripheral access crate exists for the board, so the device part of the
//! vector table (`__INTERRUPTS`, which cortex-m-rt's `device` feature expects)
//! is written here.

use cortex_m::interrupt::InterruptNumber;
use cortex_m::peripheral::NVIC;

/// External interrupt lines of the AN386 image (CMSDK subsystem numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum Irq {
    Timer0 = 8,
    Timer1 = 9,
    Ethernet = 13,
}

// SAFETY: the numbers above are valid external interrupt lines of the board.
unsafe impl InterruptNumber for Irq {
    fn number(self) -> u16 {
        self as u16
    }
}

impl Irq {
    pub fn unmask(self) {
        // SAFETY: every handler of these lines only touches state behind
        // critical sections or atomics, so enabling them cannot break a
        // critical section in progress.
        unsafe { NVIC::unmask(self) }
    }
}

extern "C" {
    fn DefaultHandler();
}

extern "C" fn timer0_handler() {
    crate::time_driver::on_timer0();
}

extern "C" fn timer1_handler() {
    crate::time_driver::on_timer1();
}

extern "C" fn ethernet_handler() {
    crate::lan9118::on_interrupt();
}

/// One entry of the device vector table.
#[repr(C)]
pub union Vector {
    handler: unsafe extern "C" fn(),
    reserved: usize,
}

const N_IRQ: usize = 32;

#[link_section = ".vector_table.interrupts"]
#[no_mangle]
#[used]
pub static __INTERRUPTS: [Vector; N_IRQ] = {
    let mut table = [const {
        Vector {
            handler: DefaultHandler,
        }
    }; N_IRQ];
    table[Irq::Timer0 as usize] = Vector {
        handler: timer0_handler,
    };
    table[Irq::Timer1 as usize] = Vector {
        handler: timer1_handler,
    };
    table[Irq::Ethernet as usize] = Vector {
        handler: ethernet_handler,
    };
    table
};
