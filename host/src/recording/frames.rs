//! [`Frames`]: a recording of any format read frame by frame. A reader thread
//! detects the format, runs its reader ([`Format::read_stream`]) and hands
//! over chunks of frames through a bounded channel, so memory stays flat
//! whatever the length of the take.

use std::fs::File;
use std::io::{self, BufReader, Cursor, Read, Seek, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::{anyhow, bail, Context, Result};

use super::stream::{Emitter, Input, Message, Reopen};
use super::{csv, display_name, is_stdio, Format, ReadOptions};
use crate::take::Take;

/// Chunks waiting in the channel at most (about 1.3 MB of usual frames).
const CHANNEL_CHUNKS: usize = 4;
/// Bytes of a file's start kept to tell its format.
const DETECT_BYTES: usize = 64 * 1024;

/// A reader that counts the bytes taken from the one below it.
struct Counted<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The frames of a recording of any format, read on a thread as they are asked for.
pub struct Frames {
    name: String,
    format: Format,
    receiver: Receiver<Message>,
    thread: Option<JoinHandle<()>>,
    chunk: Take,
    at: usize,
    warnings: Vec<String>,
    done: bool,
    consumed: Arc<AtomicU64>,
    len: Option<u64>,
}

impl Frames {
    /// Opens `path` (`-` is standard input), detects its format and starts reading.
    pub fn open(path: &Path, options: &ReadOptions) -> Result<Frames> {
        let name = display_name(path);
        if is_stdio(path) {
            return Frames::start(name, stdin_source()?, None, options);
        }
        let file = File::open(path).with_context(|| format!("{name}: cannot read"))?;
        let len = file.metadata().ok().map(|m| m.len());
        let owned = path.to_path_buf();
        let reopen: Reopen = Box::new(move || Ok(Box::new(File::open(&owned)?)));
        let source = Source {
            first: Box::new(file),
            len,
            reopen,
            copying: None,
        };
        Frames::start(name, source, Some(path), options)
    }

    /// Reads a recording held in memory; `name` is used in messages.
    pub fn from_bytes(name: &str, bytes: Vec<u8>, options: &ReadOptions) -> Result<Frames> {
        let bytes: Arc<[u8]> = bytes.into();
        let len = Some(bytes.len() as u64);
        let again = bytes.clone();
        let reopen: Reopen = Box::new(move || Ok(Box::new(Cursor::new(again.clone()))));
        let source = Source {
            first: Box::new(Cursor::new(bytes)),
            len,
            reopen,
            copying: None,
        };
        Frames::start(name.to_string(), source, None, options)
    }

    fn start(
        name: String,
        source: Source,
        file: Option<&Path>,
        options: &ReadOptions,
    ) -> Result<Frames> {
        let consumed = Arc::new(AtomicU64::new(0));
        let mut reader = BufReader::with_capacity(
            1 << 16,
            Counted {
                inner: source.first,
                count: consumed.clone(),
            },
        );
        let head =
            peek(&mut reader, DETECT_BYTES).with_context(|| format!("{name}: cannot read"))?;
        // Editors on Windows may start a JSON file with a UTF-8 byte order mark.
        let bom = head.starts_with(b"\xEF\xBB\xBF");
        let format =
            Format::detect(if bom { &head[3..] } else { &head }).with_context(|| name.clone())?;
        let head = if bom { head[3..].to_vec() } else { head };
        if let Some(copying) = source.copying.as_ref().filter(|_| format != Format::Json) {
            // Only the clear JSON reader may read its source again.
            copying.store(false, Ordering::Relaxed);
        }
        let mut options = options.clone();
        if format == Format::Csv {
            options.csv = csv::resolve_identity(file, &options.csv)?;
        }
        let reopen_counter = consumed.clone();
        let skip_bom = bom;
        let inner_reopen = source.reopen;
        let reopen: Reopen = Box::new(move || {
            let mut fresh = inner_reopen()?;
            if skip_bom {
                let mut mark = [0u8; 3];
                fresh.read_exact(&mut mark)?;
            }
            Ok(Box::new(Counted {
                inner: fresh,
                count: reopen_counter.clone(),
            }))
        });
        let input = Input::new(
            Box::new(Cursor::new(head).chain(reader)),
            source.len,
            consumed.clone(),
            reopen,
        );
        let (sender, receiver) = sync_channel(CHANNEL_CHUNKS);
        let thread_name = name.clone();
        let thread = std::thread::Builder::new()
            .name("llv-read".into())
            .spawn(move || read_thread(format, thread_name, input, options, sender))
            .context("cannot start a reader thread")?;
        Ok(Frames {
            name,
            format,
            receiver,
            thread: Some(thread),
            chunk: Take::default(),
            at: 0,
            warnings: Vec::new(),
            done: false,
            consumed,
            len: source.len,
        })
    }

    /// The format detected.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The name used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes of the source read so far and the source's length, when known (for progress).
    pub fn position(&self) -> (u64, Option<u64>) {
        (self.consumed.load(Ordering::Relaxed), self.len)
    }

    /// Warnings of the reader (complete once every frame was read).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Prints the warnings to standard error.
    pub fn print_warnings(&self) {
        for warning in &self.warnings {
            eprintln!("warning: {warning}");
        }
    }

    /// The next chunk of frames, `None` at the end.
    pub fn next_chunk(&mut self) -> Result<Option<Take>> {
        if self.at < self.chunk.len() {
            let rest = self.chunk.packets().skip(self.at).fold(
                Take::with_capacity(self.chunk.len() - self.at),
                |mut t, p| {
                    // Every stored packet is valid.
                    let _ = t.push(p);
                    t
                },
            );
            self.at = self.chunk.len();
            return Ok(Some(rest));
        }
        if self.done {
            return Ok(None);
        }
        match self.receiver.recv() {
            Ok(Message::Chunk(chunk)) => Ok(Some(chunk)),
            Ok(Message::End(warnings)) => {
                self.warnings = warnings;
                self.finish_thread();
                Ok(None)
            }
            Ok(Message::Failed(e)) => {
                self.finish_thread();
                Err(e)
            }
            Err(_) => {
                self.finish_thread();
                bail!("{}: the reader thread stopped", self.name)
            }
        }
    }

    fn finish_thread(&mut self) {
        self.done = true;
        if let Some(thread) = self.thread.take() {
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
    }

    /// Reads every frame into memory.
    pub fn collect_take(&mut self) -> Result<Take> {
        let mut take = Take::default();
        while let Some(chunk) = self.next_chunk()? {
            if take.is_empty() {
                take = chunk;
            } else {
                take.append(chunk);
            }
        }
        Ok(take)
    }

    /// Calls `each` with every packet in order.
    pub fn for_each(&mut self, mut each: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        while let Some(chunk) = self.next_chunk()? {
            for packet in chunk.packets() {
                each(packet)?;
            }
        }
        Ok(())
    }
}

impl Iterator for Frames {
    type Item = Result<Vec<u8>>;

    /// The next packet (a copy), or the error that stopped the reading.
    fn next(&mut self) -> Option<Result<Vec<u8>>> {
        loop {
            if let Some(packet) = self.chunk.packets().nth(self.at) {
                self.at += 1;
                return Some(Ok(packet.to_vec()));
            }
            match self.next_chunk() {
                Ok(Some(chunk)) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl Drop for Frames {
    fn drop(&mut self) {
        // Unblock the reader thread: it stops at its next send.
        let (_, dead) = sync_channel(0);
        drop(std::mem::replace(&mut self.receiver, dead));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A source before its format is known.
struct Source {
    first: Box<dyn Read + Send>,
    len: Option<u64>,
    reopen: Reopen,
    /// For standard input: whether it is still copied for a second reading.
    copying: Option<Arc<AtomicBool>>,
}

/// Standard input, copied to an anonymous temporary file as it is read so the
/// clear JSON reader can read it again (the copy stops once the format is
/// known to be another).
fn stdin_source() -> Result<Source> {
    let spool =
        tempfile::tempfile().context("cannot create a temporary file for standard input")?;
    let writer = spool.try_clone().context("temporary file")?;
    let reader = spool.try_clone().context("temporary file")?;
    let reopen: Reopen = Box::new(move || {
        let mut again = reader.try_clone()?;
        again.rewind()?;
        Ok(Box::new(again))
    });
    let copying = Arc::new(AtomicBool::new(true));
    Ok(Source {
        first: Box::new(Tee {
            inner: io::stdin(),
            copy: writer,
            copying: copying.clone(),
        }),
        len: None,
        reopen,
        copying: Some(copying),
    })
}

/// Reads `inner` and, while `copying`, writes what it read to `copy`.
struct Tee<R> {
    inner: R,
    copy: File,
    copying: Arc<AtomicBool>,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if self.copying.load(Ordering::Relaxed) {
            self.copy.write_all(&buf[..n])?;
        }
        Ok(n)
    }
}

/// Reads up to `limit` bytes from the start of `reader` (fewer at the end).
fn peek(reader: &mut impl Read, limit: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(4096);
    reader.take(limit as u64).read_to_end(&mut head)?;
    Ok(head)
}

fn read_thread(
    format: Format,
    name: String,
    mut input: Input,
    options: ReadOptions,
    sender: SyncSender<Message>,
) {
    let mut emitter = Emitter::new(sender.clone());
    let mut warnings = Vec::new();
    let result = format
        .read_stream(&name, &mut input, &options, &mut emitter, &mut warnings)
        .and_then(|()| emitter.flush().map_err(|e| anyhow!("{name}: {e}")));
    let message = match result {
        Ok(()) => Message::End(warnings),
        Err(e) => Message::Failed(e),
    };
    // The consumer may have stopped reading: nothing more to say then.
    let _ = sender.send(message);
}
