//! Why the chip last reset: RCC_RSR, read once at power-up and then cleared
//! so the next reset reads fresh (RM0433 RCC_RSR: the flags stay set until
//! RMVF is written).

use stm32_metapac::rcc::regs::Rsr;

/// What caused the last reset, most telling first when several flags are set
/// (a watchdog reset also pulls NRST, so PINRSTF comes with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ResetCause {
    /// Power-on (PORRSTF): the supply just came up.
    PowerOn,
    /// Brown-out (BORRSTF without PORRSTF): the supply dipped and came back.
    BrownOut,
    /// The independent watchdog (IWDG1RSTF): the box hung.
    Watchdog,
    /// Anything else: the reset pin, a software reset, the window watchdog.
    Other,
}

impl ResetCause {
    /// The cause in a word, for logs.
    pub const fn name(self) -> &'static str {
        match self {
            ResetCause::PowerOn => "power-on",
            ResetCause::BrownOut => "brown-out",
            ResetCause::Watchdog => "watchdog",
            ResetCause::Other => "pin or software",
        }
    }

    /// The cause RCC_RSR's flags name.
    pub fn of(rsr: Rsr) -> Self {
        if rsr.porrstf() {
            ResetCause::PowerOn
        } else if rsr.borrstf() {
            ResetCause::BrownOut
        } else if rsr.iwdg1rstf() {
            ResetCause::Watchdog
        } else {
            ResetCause::Other
        }
    }
}

/// Reads the cause of the last reset and clears RCC_RSR's flags (RMVF).
#[cfg(target_os = "none")]
pub fn take() -> ResetCause {
    use stm32_metapac::RCC;
    let cause = ResetCause::of(RCC.rsr().read());
    RCC.rsr().modify(|w| w.set_rmvf(true));
    cause
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORRSTF: u32 = 1 << 23;
    const PINRSTF: u32 = 1 << 22;
    const BORRSTF: u32 = 1 << 21;
    const IWDG1RSTF: u32 = 1 << 26;
    const SFTRSTF: u32 = 1 << 24;
    /// D1RSTF, D2RSTF, CPURSTF: set with every system reset.
    const DOMAINS: u32 = (1 << 19) | (1 << 20) | (1 << 17);

    #[test]
    fn flags_sit_where_rm0433_puts_them() {
        assert!(Rsr(PORRSTF).porrstf());
        assert!(Rsr(BORRSTF).borrstf());
        assert!(Rsr(IWDG1RSTF).iwdg1rstf());
        assert!(Rsr(PINRSTF).pinrstf());
    }

    #[test]
    fn a_power_up_is_a_power_up_whatever_else_is_set() {
        let all = Rsr(PORRSTF | BORRSTF | PINRSTF | DOMAINS);
        assert_eq!(ResetCause::of(all), ResetCause::PowerOn);
    }

    #[test]
    fn a_brown_out_without_power_on() {
        assert_eq!(ResetCause::of(Rsr(BORRSTF | PINRSTF)), ResetCause::BrownOut);
    }

    #[test]
    fn the_watchdog_pulls_the_pin_too() {
        assert_eq!(
            ResetCause::of(Rsr(IWDG1RSTF | PINRSTF)),
            ResetCause::Watchdog
        );
    }

    #[test]
    fn the_pin_or_software_is_other() {
        assert_eq!(ResetCause::of(Rsr(PINRSTF)), ResetCause::Other);
        assert_eq!(ResetCause::of(Rsr(SFTRSTF | PINRSTF)), ResetCause::Other);
        assert_eq!(ResetCause::of(Rsr(0)), ResetCause::Other);
    }
}
