//! The flash store in the protocol's terms: its errors as [`Refusal`]s and
//! its faults as status [`Fault`]s.

use llv_box_store::{StoreError, StoreFault, Unreadable};
use llv_control::library::{detail, not_found, upload_refusal, Refusal};
use llv_core::control::{bounded, ErrorCode, Fault, FaultCode};

/// What Status says of a store fault.
pub fn store_fault(fault: StoreFault) -> Fault {
    let (code, detail) = match fault {
        StoreFault::Layout => (
            FaultCode::StoreUnusable,
            bounded("no usable flash for the take store (see the log): no takes, default settings"),
        ),
        StoreFault::Settings(Unreadable::Newer(v)) => (
            FaultCode::SettingsUnreadable,
            detail(format_args!(
                "settings schema {v} newer than firmware: locked; upgrade or factory reset"
            )),
        ),
        StoreFault::Settings(Unreadable::Damaged(v)) => (
            FaultCode::SettingsUnreadable,
            detail(format_args!(
                "settings record (schema {v}) damaged: locked; factory reset"
            )),
        ),
    };
    Fault { code, detail }
}

/// A store error in the protocol's terms.
pub fn store_error<E: core::fmt::Debug>(e: StoreError<E>) -> Refusal {
    let code = match e {
        StoreError::Upload(e) => return upload_refusal(&e),
        StoreError::Flash(_) | StoreError::Unusable => ErrorCode::Flash,
        StoreError::NotFound => ErrorCode::NotFound,
        StoreError::Full | StoreError::NoSpace { .. } => ErrorCode::NoSpace,
        StoreError::NoUpload | StoreError::Busy { .. } => ErrorCode::UploadOrder,
        StoreError::Image(llv_core::take::TakeError::Crc { .. }) => ErrorCode::Crc,
        StoreError::Image(_) | StoreError::InnerRecord { .. } => ErrorCode::BadImage,
        StoreError::SettingsTooLarge => ErrorCode::Invalid,
        StoreError::SettingsLocked => ErrorCode::Unauthorized,
    };
    Refusal::fmt(code, format_args!("{e}"))
}

/// Like [`store_error`], naming the take when it is missing.
pub fn take_error<E: core::fmt::Debug>(e: StoreError<E>, name: &str) -> Refusal {
    match e {
        StoreError::NotFound => not_found(name),
        other => store_error(other),
    }
}
