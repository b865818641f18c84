//! The upload contract: how a take image arrives at any library (the box's
//! flash store, its card, `llv serve`'s folder). One [`Upload`] per upload
//! enforces the announcement (name, length, CRC), the chunk order and size,
//! overruns and completeness, and checks the image as it streams by
//! ([`ImageCheck`]); a library only stores the bytes. Every library refuses
//! alike, with one [`UploadError`].

use core::fmt;

use heapless::String;

use super::{ImageCheck, TakeError, TakeHeader, ENTRY_LEN, HEADER_LEN, NAME_LEN};
use crate::packet::MIN_LEN;

/// Largest `data` of one chunk.
pub const MAX_CHUNK: usize = 1024;
/// The shortest image there is: the header, one entry and one packet.
pub const MIN_IMAGE: u32 = (HEADER_LEN + ENTRY_LEN + MIN_LEN) as u32;

/// Why an upload is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum UploadError {
    /// The take name is empty or longer than [`NAME_LEN`] bytes.
    BadName,
    /// The announced length cannot hold a take.
    TooShort {
        /// The announced length.
        total: u32,
    },
    /// A chunk of more than [`MAX_CHUNK`] bytes.
    ChunkTooLarge {
        /// Its length.
        len: usize,
    },
    /// A chunk at another offset than the next expected one.
    Order {
        /// The next offset expected.
        expected: u32,
    },
    /// More bytes than announced.
    TooLong {
        /// The announced length.
        total: u32,
    },
    /// Commit before all bytes arrived.
    Incomplete {
        /// Bytes received.
        received: u32,
        /// Bytes announced.
        total: u32,
    },
    /// The image is not a valid take.
    Image(TakeError),
    /// The image's header names another take than the upload.
    NameMismatch,
    /// The image's header carries another CRC than the upload announced.
    CrcMismatch {
        /// The announced CRC.
        announced: u32,
        /// The header's CRC.
        header: u32,
    },
}

impl fmt::Display for UploadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UploadError::BadName => write!(f, "name must be 1..={NAME_LEN} bytes"),
            UploadError::TooShort { total } => {
                write!(f, "{total} bytes cannot hold a take (at least {MIN_IMAGE})")
            }
            UploadError::ChunkTooLarge { len } => {
                write!(f, "chunk of {len} bytes: at most {MAX_CHUNK}")
            }
            UploadError::Order { expected } => write!(f, "expected a chunk at offset {expected}"),
            UploadError::TooLong { total } => write!(f, "more bytes than the {total} announced"),
            UploadError::Incomplete { received, total } => {
                write!(f, "received {received} of {total} bytes")
            }
            UploadError::Image(e) => write!(f, "{e}"),
            UploadError::NameMismatch => f.write_str("image name differs from the upload name"),
            UploadError::CrcMismatch { announced, header } => write!(
                f,
                "image CRC {header:08x} differs from the announced {announced:08x}"
            ),
        }
    }
}

impl UploadError {
    /// Whether the upload can no longer succeed (the image is bad): the
    /// library drops it. Order, length and chunk size errors leave it open.
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            UploadError::Image(_) | UploadError::NameMismatch | UploadError::CrcMismatch { .. }
        )
    }
}

impl From<TakeError> for UploadError {
    fn from(e: TakeError) -> Self {
        UploadError::Image(e)
    }
}

/// One upload in progress: what was announced and what has arrived.
pub struct Upload {
    name: String<NAME_LEN>,
    total: u32,
    crc: u32,
    received: u32,
    check: ImageCheck,
}

impl fmt::Debug for Upload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upload")
            .field("name", &self.name)
            .field("total", &self.total)
            .field("crc", &self.crc)
            .field("received", &self.received)
            .finish()
    }
}

impl Upload {
    /// An upload of the take `name`: an image of `total` bytes whose header CRC is `crc`.
    pub fn begin(name: &str, total: u32, crc: u32) -> Result<Upload, UploadError> {
        let mut owned = String::new();
        if name.is_empty() || owned.push_str(name).is_err() {
            return Err(UploadError::BadName);
        }
        if total < MIN_IMAGE {
            return Err(UploadError::TooShort { total });
        }
        Ok(Upload {
            name: owned,
            total,
            crc,
            received: 0,
            check: ImageCheck::default(),
        })
    }

    /// Takes the chunk `data` at image offset `offset`: checks its place and
    /// size and the image so far. The library stores `data` only when this is
    /// `Ok`, and drops the upload after a fatal error ([`UploadError::is_fatal`]).
    pub fn chunk(&mut self, offset: u32, data: &[u8]) -> Result<(), UploadError> {
        if data.len() > MAX_CHUNK {
            return Err(UploadError::ChunkTooLarge { len: data.len() });
        }
        if offset != self.received {
            return Err(UploadError::Order {
                expected: self.received,
            });
        }
        let end = u64::from(offset) + data.len() as u64;
        if end > u64::from(self.total) {
            return Err(UploadError::TooLong { total: self.total });
        }
        let had_header = self.check.header().is_some();
        self.check.update(data)?;
        if !had_header {
            if let Some(header) = self.check.header() {
                self.matches(header)?;
            }
        }
        self.received = end as u32;
        Ok(())
    }

    /// The header of the complete, valid image: the take to make visible.
    pub fn finish(self) -> Result<TakeHeader, UploadError> {
        if self.received != self.total {
            return Err(UploadError::Incomplete {
                received: self.received,
                total: self.total,
            });
        }
        let header = self.check.finish()?;
        if header.total_len != self.total {
            return Err(UploadError::Image(TakeError::LengthMismatch {
                expected: header.total_len,
                actual: self.total,
            }));
        }
        Ok(header)
    }

    /// Whether every announced byte has arrived.
    pub fn is_complete(&self) -> bool {
        self.received == self.total
    }

    /// The take's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The announced image length.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// The announced CRC.
    pub fn crc(&self) -> u32 {
        self.crc
    }

    /// Bytes received so far: the offset of the next chunk.
    pub fn received(&self) -> u32 {
        self.received
    }

    fn matches(&self, header: &TakeHeader) -> Result<(), UploadError> {
        if header.name != self.name {
            return Err(UploadError::NameMismatch);
        }
        if header.crc32 != self.crc {
            return Err(UploadError::CrcMismatch {
                announced: self.crc,
                header: header.crc32,
            });
        }
        if header.total_len != self.total {
            return Err(UploadError::Image(TakeError::LengthMismatch {
                expected: header.total_len,
                actual: self.total,
            }));
        }
        Ok(())
    }
}
