//! A flash the board may not have: when its driver fails to start, the box
//! still mounts a store on [`MaybeFlash::Missing`], which holds nothing and
//! refuses every operation, so the store comes up empty and says why instead
//! of the box staying off the network.

use embedded_storage_async::nor_flash::{
    ErrorType, NorFlash, NorFlashError, NorFlashErrorKind, ReadNorFlash,
};

/// A flash, or none.
pub enum MaybeFlash<F> {
    /// The board's flash.
    Present(F),
    /// No usable flash: capacity 0.
    Missing,
}

/// The flash's error, or the flash is missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MaybeError<E> {
    /// The flash failed.
    Flash(E),
    /// There is no flash.
    Missing,
}

impl<E: NorFlashError> NorFlashError for MaybeError<E> {
    fn kind(&self) -> NorFlashErrorKind {
        match self {
            MaybeError::Flash(e) => e.kind(),
            MaybeError::Missing => NorFlashErrorKind::OutOfBounds,
        }
    }
}

impl<F: NorFlash> ErrorType for MaybeFlash<F> {
    type Error = MaybeError<F::Error>;
}

impl<F: NorFlash> ReadNorFlash for MaybeFlash<F> {
    const READ_SIZE: usize = F::READ_SIZE;

    async fn read(&mut self, offset: u32, bytes: &mut [u8]) -> Result<(), Self::Error> {
        match self {
            MaybeFlash::Present(f) => f.read(offset, bytes).await.map_err(MaybeError::Flash),
            MaybeFlash::Missing => Err(MaybeError::Missing),
        }
    }

    fn capacity(&self) -> usize {
        match self {
            MaybeFlash::Present(f) => f.capacity(),
            MaybeFlash::Missing => 0,
        }
    }
}

impl<F: NorFlash> NorFlash for MaybeFlash<F> {
    const WRITE_SIZE: usize = F::WRITE_SIZE;
    const ERASE_SIZE: usize = F::ERASE_SIZE;

    async fn erase(&mut self, from: u32, to: u32) -> Result<(), Self::Error> {
        match self {
            MaybeFlash::Present(f) => f.erase(from, to).await.map_err(MaybeError::Flash),
            MaybeFlash::Missing => Err(MaybeError::Missing),
        }
    }

    async fn write(&mut self, offset: u32, bytes: &[u8]) -> Result<(), Self::Error> {
        match self {
            MaybeFlash::Present(f) => f.write(offset, bytes).await.map_err(MaybeError::Flash),
            MaybeFlash::Missing => Err(MaybeError::Missing),
        }
    }
}
