//! IWDG1, the independent watchdog: started from the first line of `main`,
//! before embassy-stm32's init, so nothing the box does at power-up runs
//! unguarded, and fed through a shared handle ([`Iwdg1`]).
//!
//! The sequence is ST's HAL's (`HAL_IWDG_Init`): start (which forces the LSI
//! on), unlock PR and RLR, write them, wait until the status register says
//! both took, reload.

/// The LSI's nominal frequency on the STM32H7 (its tolerance moves every
/// timeout by about ±10 %).
pub const LSI_HZ: u32 = 32_000;

/// A prescaler and a reload value for one timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Plan {
    /// IWDG_PR: the LSI is divided by 4 << `pr`.
    pub pr: u8,
    /// IWDG_RLR: the counter counts down from this (12 bits).
    pub reload: u16,
}

impl Plan {
    /// The smallest prescaler whose 12-bit reload reaches `timeout_us` at
    /// [`LSI_HZ`] (the finest steps; the timeout rounded down to a whole
    /// tick), or `None` past the longest (32.768 s) or below one tick.
    pub const fn for_timeout(timeout_us: u32) -> Option<Plan> {
        let mut pr = 0;
        while pr <= 6 {
            let lsi_us = timeout_us as u64 * LSI_HZ as u64;
            let per_tick = (4u64 << pr) * 1_000_000;
            let ticks = lsi_us / per_tick;
            if ticks >= 1 && lsi_us <= 0x1000 * per_tick {
                return Some(Plan {
                    pr,
                    reload: (ticks - 1) as u16,
                });
            }
            pr += 1;
        }
        None
    }

    /// The timeout this plan gives at [`LSI_HZ`], in µs.
    pub const fn timeout_us(self) -> u32 {
        ((self.reload as u64 + 1) * (4u64 << self.pr) * 1_000_000 / LSI_HZ as u64) as u32
    }
}

/// The running IWDG1: feeding it is all that is left to do (it cannot be
/// stopped but by a reset).
#[cfg(target_os = "none")]
pub struct Iwdg1 {
    _running: (),
}

#[cfg(target_os = "none")]
impl Iwdg1 {
    /// Starts IWDG1 with `plan` and feeds it once. Returns the handle and
    /// whether the status register confirmed the new prescaler and reload
    /// within about 100 ms (if not, the reset values run: about 512 ms).
    /// Call it once, first thing after reset, at the reset clock (HSI).
    pub fn start(plan: Plan) -> (Self, bool) {
        use stm32_metapac::iwdg::vals::{Key, Pr};
        use stm32_metapac::IWDG1;

        /// Looks at IWDG_SR this many times, about 10 µs apart at 64 MHz:
        /// ST's HAL waits at most 49 ms (six prescaled LSI periods at /256).
        const POLLS: u32 = 10_000;
        const CYCLES_BETWEEN_POLLS: u32 = 640;

        IWDG1.kr().write(|w| w.set_key(Key::START));
        IWDG1.kr().write(|w| w.set_key(Key::ENABLE));
        IWDG1.pr().write(|w| w.set_pr(Pr::from_bits(plan.pr)));
        IWDG1.rlr().write(|w| w.set_rl(plan.reload));
        let mut settled = false;
        for _ in 0..POLLS {
            let sr = IWDG1.sr().read();
            if !sr.pvu() && !sr.rvu() {
                settled = true;
                break;
            }
            cortex_m::asm::delay(CYCLES_BETWEEN_POLLS);
        }
        let dog = Iwdg1 { _running: () };
        dog.feed();
        (dog, settled)
    }

    /// Restarts the countdown (IWDG_KR = 0xAAAA).
    pub fn feed(&self) {
        stm32_metapac::IWDG1
            .kr()
            .write(|w| w.set_key(stm32_metapac::iwdg::vals::Key::RESET));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_seconds_is_lsi_over_32_counting_4000() {
        let plan = Plan::for_timeout(4_000_000).unwrap();
        assert_eq!(
            plan,
            Plan {
                pr: 3,
                reload: 3999
            }
        );
        assert_eq!(plan.timeout_us(), 4_000_000);
    }

    #[test]
    fn the_finest_prescaler_that_reaches() {
        // /4: 8 kHz, 4096 ticks = 512 ms (the reset values).
        assert_eq!(
            Plan::for_timeout(512_000),
            Some(Plan {
                pr: 0,
                reload: 0xFFF
            })
        );
        assert_eq!(Plan::for_timeout(513_000).unwrap().pr, 1);
        // /256: 125 Hz, 4096 ticks = 32.768 s, the longest.
        assert_eq!(
            Plan::for_timeout(32_768_000),
            Some(Plan {
                pr: 6,
                reload: 0xFFF
            })
        );
        assert_eq!(Plan::for_timeout(32_769_000), None);
        assert_eq!(Plan::for_timeout(0), None);
    }

    #[test]
    fn register_fields_sit_where_rm0433_puts_them() {
        use stm32_metapac::iwdg::regs::{Pr, Rlr, Sr};
        assert!(Sr(1).pvu());
        assert!(Sr(2).rvu());
        assert_eq!(Rlr(0xFFF).rl(), 0xFFF);
        assert_eq!(Pr(3).pr().to_bits(), 3);
    }
}
