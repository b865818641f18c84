//! The card in the protocol's terms: its errors as [`Refusal`]s and its
//! faults as status [`Fault`]s.

use llv_card::{CardError, CardFault};
use llv_control::library::{detail, not_found, upload_refusal, Refusal};
use llv_core::control::{ErrorCode, Fault, FaultCode};

/// A card error in the protocol's terms; `name` is the take it was about.
pub fn card_error(e: &CardError, name: &str) -> Refusal {
    let code = match e {
        CardError::NotFound => return not_found(name),
        CardError::Upload(e) => return upload_refusal(e),
        CardError::NoCard
        | CardError::Removed
        | CardError::Io
        | CardError::Damaged
        | CardError::ReadOnlyMount => ErrorCode::Flash,
        CardError::Full | CardError::NoSpace | CardError::FolderFull => ErrorCode::NoSpace,
        CardError::Busy | CardError::NoUpload | CardError::NotRecording => ErrorCode::UploadOrder,
        CardError::ReadOnly { .. } => ErrorCode::Invalid,
        CardError::Image(llv_core::take::TakeError::Crc { .. }) => ErrorCode::Crc,
        CardError::Image(_) => ErrorCode::BadImage,
    };
    Refusal::fmt(code, format_args!("card: {e}"))
}

/// What Status says of a card fault.
pub fn card_fault(fault: &CardFault) -> Fault {
    let code = match fault {
        CardFault::Removed { .. } => FaultCode::CardRemoved,
        _ => FaultCode::CardUnusable,
    };
    Fault {
        code,
        detail: detail(format_args!("{fault}")),
    }
}
