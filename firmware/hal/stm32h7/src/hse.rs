//! Is the external 8 MHz clock there? A bounded probe of HSE in bypass mode,
//! made before `embassy_stm32::init`, whose own wait for HSERDY never ends.
//!
//! On the NUCLEO-144 the 8 MHz comes from the on-board ST-LINK's MCO, which
//! that MCU starts only once its own firmware runs: about 2 s after the board
//! is powered from an external supply (ST community, "STM32F767ZI on external
//! power supply is stuck until reset button is pressed"; RIOT issue 19778:
//! externally powered Nucleo-144 boards hang for seconds waiting for HSE).
//! So after a power-on or a brown-out (the ST-LINK restarted too) the probe
//! waits up to [`COLD_WAIT_MS`]; after any other reset the ST-LINK kept
//! running and [`WARM_WAIT_MS`] is plenty (a clock in bypass needs no
//! start-up).

use crate::pll::ClockSource;
use crate::reset::ResetCause;

/// How long to wait for HSE after a power-on or brown-out reset, in ms.
pub const COLD_WAIT_MS: u32 = 3_000;
/// How long to wait for HSE after any other reset, in ms.
pub const WARM_WAIT_MS: u32 = 10;

/// How long to wait for HSE after a reset of `cause`, in ms.
pub const fn wait_ms(cause: ResetCause) -> u32 {
    match cause {
        ResetCause::PowerOn | ResetCause::BrownOut => COLD_WAIT_MS,
        ResetCause::Watchdog | ResetCause::Other => WARM_WAIT_MS,
    }
}

/// What the probe found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Probe {
    /// The clock to run from.
    pub source: ClockSource,
    /// About how long the probe waited, in ms (HSE's arrival, or the bound).
    pub waited_ms: u32,
}

/// Turns HSE on in bypass mode (a clock on OSC_IN, such as the ST-LINK's
/// MCO) and waits at most about `wait_ms` for RCC_CR.HSERDY, looking every
/// millisecond and calling `feed` (the watchdog's) at each look. Returns
/// [`ClockSource::Hse`] with HSE left on for `embassy_stm32::init`, or turns
/// HSE off again and returns [`ClockSource::Hsi`]. Call it right after reset,
/// while the core still runs from HSI (64 MHz) with its I-cache on: then a
/// millisecond of `asm::delay` takes 1 to 3 ms (one cycle per iteration on
/// the Cortex-M7, cortex-m's `delay` docs; up to three elsewhere).
#[cfg(target_os = "none")]
pub fn probe_hse_bypass(wait_ms: u32, mut feed: impl FnMut()) -> Probe {
    use stm32_metapac::RCC;

    /// Cycles of a millisecond at the reset clock (HSI, 64 MHz).
    const CYCLES_PER_MS: u32 = 64_000;

    let cr = RCC.cr();
    if cr.read().hserdy() {
        return Probe {
            source: ClockSource::Hse,
            waited_ms: 0,
        };
    }
    // RCC_CR.HSEBYP can be written only while HSE is off (RM0433, RCC_CR).
    cr.modify(|w| w.set_hseon(false));
    cr.modify(|w| w.set_hsebyp(true));
    cr.modify(|w| w.set_hseon(true));
    for waited_ms in 0..=wait_ms {
        if cr.read().hserdy() {
            return Probe {
                source: ClockSource::Hse,
                waited_ms,
            };
        }
        feed();
        cortex_m::asm::delay(CYCLES_PER_MS);
    }
    cr.modify(|w| w.set_hseon(false));
    Probe {
        source: ClockSource::Hsi,
        waited_ms: wait_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cold_start_waits_for_the_st_links_clock() {
        assert_eq!(wait_ms(ResetCause::PowerOn), 3_000);
        assert_eq!(wait_ms(ResetCause::BrownOut), 3_000);
    }

    #[test]
    fn a_warm_start_looks_briefly() {
        assert_eq!(wait_ms(ResetCause::Watchdog), 10);
        assert_eq!(wait_ms(ResetCause::Other), 10);
    }

    #[test]
    fn rcc_cr_fields_sit_where_rm0433_puts_them() {
        use stm32_metapac::rcc::regs::Cr;
        assert!(Cr(1 << 16).hseon());
        assert!(Cr(1 << 17).hserdy());
        assert!(Cr(1 << 18).hsebyp());
    }

    #[test]
    fn the_longest_wait_stays_inside_the_watchdog_even_unfed() {
        // Fed at every look anyway; this is the margin if a feed were lost:
        // 3 s at one cycle per delay iteration, the 4 s watchdog's LSI at +10 %.
        let watchdog = crate::watchdog::Plan::for_timeout(4_000_000).unwrap();
        assert!(u64::from(COLD_WAIT_MS) * 1000 < u64::from(watchdog.timeout_us()) * 9 / 10);
    }
}
