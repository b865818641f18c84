//! PLL1 settings for a 400 MHz system clock from either oscillator, and the
//! arithmetic that checks them against RM0433's PLL limits (RCC chapter, "PLL
//! description"): reference clock after DIVM1 in 1-16 MHz, wide-range VCO
//! (PLL1VCOSEL = 0) in 192-836 MHz, DIVP1 even, system clock at most 400 MHz in
//! voltage scale 1. Both plans give the PLL the same 4 MHz reference, so
//! everything after DIVM1 is identical.

use stm32_metapac::rcc::vals::{Plldiv, Pllm, Plln};

/// The oscillator feeding PLL1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ClockSource {
    /// HSE in bypass: the 8 MHz clock of the NUCLEO's ST-LINK (MCO), crystal accurate.
    Hse,
    /// HSI, the internal 64 MHz RC oscillator (percent-level, not a crystal's ppm): the fallback without HSE.
    Hsi,
}

impl ClockSource {
    /// Short name for logs and status reports.
    pub const fn name(self) -> &'static str {
        match self {
            ClockSource::Hse => "HSE 8 MHz",
            ClockSource::Hsi => "HSI 64 MHz",
        }
    }

    /// What the clock is, in words, for the log at power-up.
    pub const fn words(self) -> &'static str {
        match self {
            ClockSource::Hse => "the ST-LINK's 8 MHz clock (HSE bypass), crystal accurate",
            ClockSource::Hsi => {
                "the internal 64 MHz RC oscillator (HSI): timing only as good as an RC oscillator"
            }
        }
    }
}

/// One PLL1 plan: input frequency and dividers, as the RCC registers take them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pll1 {
    /// Frequency of the oscillator feeding the PLL, in Hz.
    pub input_hz: u32,
    /// DIVM1: input to reference clock.
    pub divm: Pllm,
    /// DIVN1: reference clock to VCO.
    pub divn: Plln,
    /// DIVP1: VCO to the system clock.
    pub divp: Plldiv,
    /// DIVQ1: VCO to the peripheral kernel clock pll1_q.
    pub divq: Plldiv,
}

/// HSE in bypass on the NUCLEO: the ST-LINK's 8 MHz.
const HSE_HZ: u32 = 8_000_000;
/// HSI with HSIDIV = 1 (its reset value).
const HSI_HZ: u32 = 64_000_000;
/// Highest system clock in voltage scale 1 (revision V silicon).
const SYSCLK_MAX_HZ: u64 = 400_000_000;

/// PLL1 for a 400 MHz system clock (pll1_p) and 100 MHz pll1_q from `source`.
pub const fn pll1(source: ClockSource) -> Pll1 {
    let (input_hz, divm) = match source {
        ClockSource::Hse => (HSE_HZ, Pllm::DIV2),
        ClockSource::Hsi => (HSI_HZ, Pllm::DIV16),
    };
    Pll1 {
        input_hz,
        divm,
        divn: Plln::MUL200,
        divp: Plldiv::DIV2,
        divq: Plldiv::DIV8,
    }
}

impl Pll1 {
    /// Reference clock after DIVM1, in Hz (DIVM1 field = divider; 0 is "off").
    pub const fn ref_hz(&self) -> u64 {
        match self.divm.to_bits() {
            0 => 0,
            m => self.input_hz as u64 / m as u64,
        }
    }

    /// VCO output, in Hz (DIVN1 field = multiplier - 1; no fractional part).
    pub const fn vco_hz(&self) -> u64 {
        self.ref_hz() * (self.divn.to_bits() as u64 + 1)
    }

    /// pll1_p, the system clock, in Hz (DIVP1 field = divider - 1).
    pub const fn p_hz(&self) -> u64 {
        self.vco_hz() / (self.divp.to_bits() as u64 + 1)
    }

    /// pll1_q, in Hz (DIVQ1 field = divider - 1).
    pub const fn q_hz(&self) -> u64 {
        self.vco_hz() / (self.divq.to_bits() as u64 + 1)
    }

    /// Whether the plan divides exactly and keeps every stage in its range.
    pub const fn is_valid(&self) -> bool {
        let m = self.divm.to_bits() as u32;
        let r = self.ref_hz();
        let vco = self.vco_hz();
        let p = self.divp.to_bits() as u64 + 1;
        m != 0
            && self.input_hz.is_multiple_of(m)
            && r >= 1_000_000
            && r <= 16_000_000
            && vco >= 192_000_000
            && vco <= 836_000_000
            && p.is_multiple_of(2)
            && vco.is_multiple_of(p)
            && self.p_hz() <= SYSCLK_MAX_HZ
    }
}

// Both plans are checked when the crate compiles, not only in tests.
const _: () = assert!(pll1(ClockSource::Hse).is_valid() && pll1(ClockSource::Hsi).is_valid());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sources_give_400_mhz_through_the_same_4_mhz_reference() {
        for source in [ClockSource::Hse, ClockSource::Hsi] {
            let pll = pll1(source);
            assert!(pll.is_valid(), "{source:?}");
            assert_eq!(pll.ref_hz(), 4_000_000, "{source:?}");
            assert_eq!(pll.vco_hz(), 800_000_000, "{source:?}");
            assert_eq!(pll.p_hz(), 400_000_000, "{source:?}");
            assert_eq!(pll.q_hz(), 100_000_000, "{source:?}");
        }
        assert_eq!(pll1(ClockSource::Hse).divm.to_bits(), 2);
        assert_eq!(pll1(ClockSource::Hsi).divm.to_bits(), 16);
    }

    #[test]
    fn register_fields_encode_the_dividers_as_rm0433_does() {
        // DIVM1 is the divider itself; DIVN1, DIVP1, DIVQ1 hold the factor minus one.
        assert_eq!(Plln::MUL200.to_bits(), 199);
        assert_eq!(Plldiv::DIV2.to_bits(), 1);
        assert_eq!(Plldiv::DIV8.to_bits(), 7);
    }

    #[test]
    fn out_of_range_plans_are_rejected() {
        let ok = pll1(ClockSource::Hse);
        // 8 MHz / 1 * 200 = 1.6 GHz: VCO too fast.
        assert!(!Pll1 {
            divm: Pllm::DIV1,
            ..ok
        }
        .is_valid());
        // 8 MHz / 16 = 500 kHz: reference too slow.
        assert!(!Pll1 {
            divm: Pllm::DIV16,
            ..ok
        }
        .is_valid());
        // DIVP1 = 1 gives 800 MHz, over the limit (and odd dividers are not allowed on PLL1).
        assert!(!Pll1 {
            divp: Plldiv::DIV1,
            ..ok
        }
        .is_valid());
        assert!(!Pll1 {
            divp: Plldiv::DIV3,
            ..ok
        }
        .is_valid());
        // 64 MHz / 2 = 32 MHz: reference too fast.
        assert!(!Pll1 {
            divm: Pllm::DIV2,
            ..pll1(ClockSource::Hsi)
        }
        .is_valid());
    }
}
