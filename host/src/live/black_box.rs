//! The black box: the live stream recorded as it arrives, on its own thread
//! behind an unbounded queue, so a slow disk never delays the relay. One
//! native line per face frame into `live-YYYY-MM-DD-HH-MM-SS.gesichter-lines`
//! (a take `llv play` and `llv info` read); written out whenever the queue
//! is empty and synced to the disk every half second, so a kill or a power cut
//! loses at most the last second.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::recording::format::NATIVE_EXTENSION;
use crate::recording::native::write_line;

/// Longest a received frame waits before it is synced to the disk.
pub const SYNC_EVERY: Duration = Duration::from_secs(1);

/// A running black box: hand it each live frame with [`BlackBox::keep`].
pub struct BlackBox {
    queue: Option<Sender<Vec<u8>>>,
    writer: Option<JoinHandle<Result<()>>>,
    path: PathBuf,
    bytes: Arc<AtomicU64>,
}

impl BlackBox {
    /// Creates a new take named by the date and time in `dir` (never
    /// overwriting one) and starts its writer.
    pub fn start(dir: &Path) -> Result<BlackBox> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the folder", dir.display()))?;
        let stamp = chrono::Local::now().format("%Y-%m-%d-%H-%M-%S");
        let (path, file) = (0..100)
            .find_map(|n| {
                let suffix = if n == 0 {
                    String::new()
                } else {
                    format!("-{n}")
                };
                let path = dir.join(format!("live-{stamp}{suffix}{NATIVE_EXTENSION}"));
                let file = OpenOptions::new().write(true).create_new(true).open(&path);
                file.ok().map(|f| (path, f))
            })
            .with_context(|| format!("{}: cannot create a take", dir.display()))?;
        let (queue, frames) = channel::<Vec<u8>>();
        let bytes = Arc::new(AtomicU64::new(0));
        let written = Arc::clone(&bytes);
        let name = path.display().to_string();
        let writer = std::thread::Builder::new()
            .name("black box".into())
            .spawn(move || {
                write_all(file, &frames, &written).with_context(|| format!("{name}: cannot write"))
            })
            .context("starting the black box's writer")?;
        Ok(BlackBox {
            queue: Some(queue),
            writer: Some(writer),
            path,
            bytes,
        })
    }

    /// Queues a live frame for the take (never waits).
    pub fn keep(&self, packet: &[u8]) {
        if let Some(queue) = &self.queue {
            let _ = queue.send(packet.to_vec());
        }
    }

    /// The take being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Writes what is queued, syncs and closes the take.
    pub fn finish(mut self) -> Result<PathBuf> {
        self.queue = None;
        if let Some(writer) = self.writer.take() {
            writer
                .join()
                .map_err(|_| anyhow::anyhow!("the black box's writer panicked"))??;
        }
        Ok(self.path.clone())
    }
}

/// The writer: lines out whenever the queue is empty, a sync each half second.
fn write_all(file: File, frames: &Receiver<Vec<u8>>, written: &AtomicU64) -> Result<()> {
    let mut out = BufWriter::with_capacity(1 << 16, file);
    let mut synced = Instant::now();
    let mut dirty = false;
    loop {
        match frames.recv_timeout(SYNC_EVERY / 4) {
            Ok(first) => {
                let mut next = Some(first);
                while let Some(packet) = next {
                    write_line(&packet, &mut out)?;
                    written.fetch_add(line_len(packet.len()), Ordering::Relaxed);
                    next = frames.try_recv().ok();
                }
                out.flush()?;
                dirty = true;
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        if dirty && synced.elapsed() >= SYNC_EVERY / 2 {
            out.get_ref().sync_data()?;
            synced = Instant::now();
            dirty = false;
        }
    }
    out.flush()?;
    out.get_ref().sync_all()?;
    Ok(())
}

/// Bytes of the native line of a packet of `len` bytes: base64 and a line end.
fn line_len(len: usize) -> u64 {
    (len.div_ceil(3) * 4 + 1) as u64
}
