//! Logging that goes to defmt when the `defmt` feature is on and compiles to
//! nothing (without unused-variable warnings) when it is off.

macro_rules! warning {
    ($s:literal $(, $x:expr)* $(,)?) => {{
        #[cfg(feature = "defmt")]
        ::defmt::warn!($s $(, $x)*);
        #[cfg(not(feature = "defmt"))]
        let _ = ($(&$x,)*);
    }};
}

pub(crate) use warning;
