//! Is the external 8 MHz clock there? A bounded probe of HSE in bypass mode,
//! made before `embassy_stm32::init`, whose own wait for HSERDY never ends.

use stm32_metapac::RCC;

use crate::pll::ClockSource;

/// Looks at HSERDY this many times before giving up.
const POLLS: u32 = 10;
/// Cycles between two looks: 1 ms at the reset clock (HSI, 64 MHz), about
/// 0.5 ms if the Cortex-M7 dual-issues `asm::delay`'s loop.
const CYCLES_BETWEEN_POLLS: u32 = 64_000;

/// Turns HSE on in bypass mode (a clock on OSC_IN, such as the ST-LINK's MCO)
/// and waits at most about 10 ms for RCC_CR.HSERDY. Returns
/// [`ClockSource::Hse`] with HSE left on for `embassy_stm32::init`, or turns
/// HSE off again and returns [`ClockSource::Hsi`]. Call it first thing after
/// reset, while the core still runs from HSI.
pub fn probe_hse_bypass() -> ClockSource {
    let cr = RCC.cr();
    if cr.read().hserdy() {
        return ClockSource::Hse;
    }
    // RCC_CR.HSEBYP can be written only while HSE is off (RM0433, RCC_CR).
    cr.modify(|w| w.set_hseon(false));
    cr.modify(|w| w.set_hsebyp(true));
    cr.modify(|w| w.set_hseon(true));
    for _ in 0..POLLS {
        if cr.read().hserdy() {
            return ClockSource::Hse;
        }
        cortex_m::asm::delay(CYCLES_BETWEEN_POLLS);
    }
    if cr.read().hserdy() {
        return ClockSource::Hse;
    }
    cr.modify(|w| w.set_hseon(false));
    ClockSource::Hsi
}
