//! What the format readers and writers build on, so memory stays flat
//! whatever the length of a take: a reader takes its bytes from an [`Input`]
//! and hands frames to an [`Emitter`] (a chunk at a time, through a bounded
//! channel to [`super::Frames`]); a writer is a [`FrameSink`], fed frame by
//! frame.
//!
//! The two formats whose header holds the frame count (LLV gzip and clear
//! JSON) [`spool`] their body to an anonymous temporary file and write the
//! header when the count is known: the disk holds the take, not the memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, Write};
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::SyncSender;
use std::sync::Arc;

use llv_core::packet::check_face;

use crate::take::Take;

/// Frames a reader thread hands over at a time.
const CHUNK_FRAMES: usize = 1024;

/// A way to read a source from its start again (a file, a spooled stream, bytes).
pub(super) type Reopen = Box<dyn Fn() -> io::Result<Box<dyn Read + Send>> + Send>;

/// Where a format reader reads from.
pub struct Input {
    /// The bytes, buffered.
    pub reader: Box<dyn BufRead + Send>,
    /// The whole source's length, when known.
    pub len: Option<u64>,
    /// Bytes taken from the source so far (also for progress bars).
    pub consumed: Arc<AtomicU64>,
    /// Reads the source again from its start (the clear JSON reader's fallback).
    reopen: Reopen,
}

impl Input {
    /// An input reading `reader`, which `reopen` reads again from its start.
    pub(super) fn new(
        reader: Box<dyn BufRead + Send>,
        len: Option<u64>,
        consumed: Arc<AtomicU64>,
        reopen: Reopen,
    ) -> Input {
        Input {
            reader,
            len,
            consumed,
            reopen,
        }
    }

    /// The source again from its start, buffered.
    pub fn reopen(&self) -> io::Result<Box<dyn BufRead + Send>> {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            (self.reopen)()?,
        )))
    }
}

/// What a reader thread sends.
pub(super) enum Message {
    /// Frames read.
    Chunk(Take),
    /// The end of the source, with the reader's warnings.
    End(Vec<String>),
    /// The error that stopped the reader.
    Failed(anyhow::Error),
}

/// Hands frames from a reader thread to the channel, a chunk at a time.
pub struct Emitter {
    chunk: Take,
    sender: SyncSender<Message>,
}

/// The error an emitter gives when the consumer has stopped reading.
const HUNG_UP: &str = "the reader of the frames stopped";

impl Emitter {
    /// An emitter sending its chunks to `sender`.
    pub(super) fn new(sender: SyncSender<Message>) -> Emitter {
        Emitter {
            chunk: Take::with_capacity(CHUNK_FRAMES),
            sender,
        }
    }

    /// Checks and queues one packet; an invalid one is an error naming its field.
    pub fn frame(&mut self, packet: &[u8]) -> Result<(), String> {
        check_face(packet).map_err(|e| e.to_string())?;
        self.frame_unchecked(packet)
    }

    /// Queues one packet that is known to be a valid face frame.
    pub fn frame_unchecked(&mut self, packet: &[u8]) -> Result<(), String> {
        self.chunk
            .push(packet)
            .map_err(|e| e.to_string())
            .and_then(|()| self.flush_if_full())
    }

    /// Queues a take's frames (all valid).
    pub fn take(&mut self, take: Take) -> Result<(), String> {
        if self.chunk.is_empty() {
            self.chunk = take;
        } else {
            self.chunk.append(take);
        }
        self.flush_if_full()
    }

    fn flush_if_full(&mut self) -> Result<(), String> {
        if self.chunk.len() >= CHUNK_FRAMES {
            self.flush()?;
        }
        Ok(())
    }

    /// Sends the frames queued so far.
    pub(super) fn flush(&mut self) -> Result<(), String> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.chunk, Take::with_capacity(CHUNK_FRAMES));
        self.sender
            .send(Message::Chunk(chunk))
            .map_err(|_| HUNG_UP.to_string())
    }
}

/// Writes frames in one format, one at a time.
pub trait FrameSink {
    /// Writes one packet (a valid face frame).
    fn push(&mut self, packet: &[u8]) -> io::Result<()>;
    /// Completes the file (headers that need the count, trailers, flush).
    fn finish(&mut self) -> io::Result<()>;
    /// Frames written so far.
    fn count(&self) -> u64;
}

/// A writer told the frame count before the frames got another count: what
/// it wrote is wrong and must be written again without the count
/// ([`super::write_counted`] does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountChanged {
    /// The count the writer was told.
    pub announced: u64,
    /// The frames it got.
    pub written: u64,
}

impl CountChanged {
    /// The error a sink returns.
    pub fn error(announced: u64, written: u64) -> io::Error {
        io::Error::other(CountChanged { announced, written })
    }

    /// The `CountChanged` inside `e`, if that is what it is.
    pub fn of(e: &io::Error) -> Option<CountChanged> {
        e.get_ref()?.downcast_ref::<CountChanged>().copied()
    }
}

impl std::fmt::Display for CountChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} frames written where {} were announced",
            self.written, self.announced
        )
    }
}

impl std::error::Error for CountChanged {}

/// An anonymous temporary file to hold a body until its count is known.
pub fn spool() -> io::Result<io::BufWriter<File>> {
    Ok(io::BufWriter::with_capacity(1 << 16, tempfile::tempfile()?))
}

/// A spooled body, from its start.
pub fn unspool(spool: &mut io::BufWriter<File>) -> io::Result<BufReader<&mut File>> {
    spool.flush()?;
    let file = spool.get_mut();
    file.rewind()?;
    Ok(BufReader::with_capacity(1 << 16, file))
}

/// Runs a format reader on `read` and collects what it hands on (for unit tests).
#[cfg(test)]
pub fn emit_to_take<R>(
    read: impl FnOnce(&mut Emitter) -> anyhow::Result<R>,
) -> anyhow::Result<(R, Take)> {
    let (sender, receiver) = std::sync::mpsc::sync_channel(4096);
    let mut emitter = Emitter {
        chunk: Take::default(),
        sender,
    };
    let value = read(&mut emitter)?;
    emitter.flush().map_err(|e| anyhow::anyhow!(e))?;
    drop(emitter);
    let mut take = Take::default();
    while let Ok(Message::Chunk(chunk)) = receiver.try_recv() {
        take.append(chunk);
    }
    Ok((value, take))
}
