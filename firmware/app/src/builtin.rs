//! The take built into the firmware image by `build.rs`
//! (`examples/dao.gesichter` unless `LLV_BOX_TAKE` names another).

use llv_core::take::TakeError;

use crate::source::ImageSource;

/// The take image bytes.
pub static TAKE_IMAGE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/take.img"));

/// The built-in take, CRC checked.
pub fn take() -> Result<ImageSource<'static>, TakeError> {
    ImageSource::new(TAKE_IMAGE)
}
