//! One standard gzip member written with every core, as pigz writes it: the
//! data is cut into blocks, each deflated on a worker thread with the last
//! 32 KiB of the block before it as its dictionary and closed with a sync
//! flush (so the blocks join on a byte boundary and read as one deflate
//! stream), their CRC-32s combined in order. Any gunzip reads the result:
//! LLV's and Python's `gzip`, `gzip -t`, flate2.
//!
//! [`Blocks`] deflates a body as it comes and hands the compressed blocks to
//! a writer (LLV's sink spools them until its header, which holds the frame
//! count, is known); [`member`] then writes the gzip header, a head deflated
//! in front of the body, the body, the closing block and the trailer.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use flate2::Crc;

use super::deflate::{Quick, WINDOW};

/// Uncompressed bytes per block (pigz's default is 128 KiB).
pub const BLOCK: usize = 256 << 10;
/// The zlib level whose kind of deflate [`Quick`] does: 1, the quickest
/// (fixed Huffman codes). On a real phone take zlib-rs's level 1 deflates
/// about 140 MB/s a core against 50 at zlib's default 6, for files about
/// 15% larger (1.46:1 against 1.69:1); [`Quick`] faster still.
pub const LEVEL: u32 = 1;

/// A block to deflate and where its result goes.
struct Job {
    data: Vec<u8>,
    dictionary: Vec<u8>,
    done: SyncSender<Done>,
}

/// A deflated block.
struct Done {
    compressed: Vec<u8>,
    crc: Crc,
    /// The block's buffer, to be used again.
    data: Vec<u8>,
}

/// Deflates a stream in blocks on worker threads; the compressed blocks
/// reach `out` in order.
pub struct Blocks<W: Write> {
    /// Taken by [`Blocks::finish`].
    out: Option<W>,
    jobs: Option<SyncSender<Job>>,
    workers: Vec<JoinHandle<()>>,
    pending: VecDeque<Receiver<Done>>,
    /// Blocks in flight at most.
    depth: usize,
    block: Vec<u8>,
    /// The tail of the last block handed out: the next one's dictionary.
    window: Vec<u8>,
    spare: Vec<Vec<u8>>,
    crc: Crc,
}

impl<W: Write> Blocks<W> {
    /// Deflates into `out` on as many threads as the machine has cores.
    pub fn new(out: W) -> Blocks<W> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        let (jobs, queue) = mpsc::sync_channel::<Job>(threads);
        let queue = Arc::new(Mutex::new(queue));
        let workers = (0..threads)
            .map(|_| {
                let queue = Arc::clone(&queue);
                std::thread::spawn(move || {
                    let mut quick = Quick::default();
                    loop {
                        let job = match queue.lock() {
                            Ok(q) => q.recv(),
                            Err(_) => return,
                        };
                        let Ok(job) = job else { return };
                        let mut compressed = Vec::new();
                        quick.deflate(&job.dictionary, &job.data, &mut compressed);
                        let mut crc = Crc::new();
                        crc.update(&job.data);
                        let done = Done {
                            compressed,
                            crc,
                            data: job.data,
                        };
                        // The writer may have gone (an error): nothing to tell.
                        let _ = job.done.send(done);
                    }
                })
            })
            .collect();
        Blocks {
            out: Some(out),
            jobs: Some(jobs),
            workers,
            pending: VecDeque::new(),
            depth: 2 * threads + 1,
            block: Vec::with_capacity(BLOCK),
            window: Vec::with_capacity(WINDOW),
            spare: Vec::new(),
            crc: Crc::new(),
        }
    }

    /// Hands the current block to a worker, first writing out the oldest
    /// block when enough are in flight.
    fn send(&mut self) -> io::Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        while self.pending.len() >= self.depth {
            self.write_oldest()?;
        }
        let next = self
            .spare
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(BLOCK));
        let data = std::mem::replace(&mut self.block, next);
        let dictionary = std::mem::take(&mut self.window);
        let tail = data.len().saturating_sub(WINDOW);
        self.window.extend_from_slice(&data[tail..]);
        let (done, result) = mpsc::sync_channel(1);
        let jobs = self
            .jobs
            .as_ref()
            .ok_or_else(|| io::Error::other("gzip: finished"))?;
        jobs.send(Job {
            data,
            dictionary,
            done,
        })
        .map_err(|_| io::Error::other("gzip: a compression thread stopped"))?;
        self.pending.push_back(result);
        Ok(())
    }

    fn write_oldest(&mut self) -> io::Result<()> {
        let Some(result) = self.pending.pop_front() else {
            return Ok(());
        };
        let done = result
            .recv()
            .map_err(|_| io::Error::other("gzip: a compression thread stopped"))?;
        self.out
            .as_mut()
            .ok_or_else(|| io::Error::other("gzip: finished"))?
            .write_all(&done.compressed)?;
        self.crc.combine(&done.crc);
        let mut data = done.data;
        data.clear();
        self.spare.push(data);
        Ok(())
    }

    /// Deflates what is left and waits for every block; returns the writer
    /// and the CRC-32 and length of everything written.
    pub fn finish(mut self) -> io::Result<(W, Crc)> {
        self.send()?;
        while !self.pending.is_empty() {
            self.write_oldest()?;
        }
        self.jobs = None;
        for worker in self.workers.drain(..) {
            worker
                .join()
                .map_err(|_| io::Error::other("gzip: a compression thread panicked"))?;
        }
        let out = self
            .out
            .take()
            .ok_or_else(|| io::Error::other("gzip: finished"))?;
        Ok((out, std::mem::replace(&mut self.crc, Crc::new())))
    }
}

impl<W: Write> Write for Blocks<W> {
    fn write(&mut self, mut data: &[u8]) -> io::Result<usize> {
        let n = data.len();
        while !data.is_empty() {
            let room = BLOCK - self.block.len();
            let take = room.min(data.len());
            self.block.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.block.len() == BLOCK {
                self.send()?;
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Drop for Blocks<W> {
    fn drop(&mut self) {
        self.jobs = None;
        self.pending.clear();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// Writes one gzip member to `out`: `head` deflated on its own, then `body`
/// (deflate blocks ending in a sync flush, as [`Blocks`] writes them, whose
/// uncompressed CRC and length are `body_crc`), then the closing block and
/// the trailer with the CRC-32 of head and body combined.
pub fn member(
    out: &mut dyn Write,
    head: &[u8],
    body: &mut dyn Read,
    body_crc: &Crc,
) -> io::Result<()> {
    let mut crc = start(out, head)?;
    io::copy(body, out)?;
    crc.combine(body_crc);
    end(out, &crc)
}

/// Writes the gzip header and `head` deflated (ending in a sync flush);
/// returns the CRC-32 of `head`, to be combined with the body's.
pub fn start(out: &mut dyn Write, head: &[u8]) -> io::Result<Crc> {
    // Magic, deflate, no flags, no time, no extra flags, OS unknown: as flate2 writes it.
    out.write_all(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255])?;
    let mut block = Vec::new();
    Quick::default().deflate(&[], head, &mut block);
    out.write_all(&block)?;
    let mut crc = Crc::new();
    crc.update(head);
    Ok(crc)
}

/// Closes a member whose data (head and body) has CRC-32 and length `crc`.
pub fn end(out: &mut dyn Write, crc: &Crc) -> io::Result<()> {
    // The final block: fixed Huffman codes, end of block at once.
    out.write_all(&[0x03, 0x00])?;
    out.write_all(&crc.sum().to_le_bytes())?;
    out.write_all(&crc.amount().to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::read::{GzDecoder, MultiGzDecoder};
    use flate2::Compression;

    fn gzip(head: &[u8], body: &[u8]) -> Vec<u8> {
        let mut blocks = Blocks::new(Vec::new());
        // In uneven pieces, as a sink writes frames.
        for piece in body.chunks(777) {
            blocks.write_all(piece).unwrap();
        }
        let (compressed, crc) = blocks.finish().unwrap();
        let mut file = Vec::new();
        member(&mut file, head, &mut compressed.as_slice(), &crc).unwrap();
        file
    }

    #[test]
    fn blocks_make_one_member_that_gunzips_to_the_data() {
        // Text-like data over several blocks, a partial last one.
        let body: Vec<u8> = (0..3 * BLOCK + 12_345)
            .map(|i| b"JawOpen 0.0190581698 EyeBlinkLeft "[i % 34] ^ (i / 5000) as u8)
            .collect();
        let file = gzip(b"head!", &body);
        let mut all = Vec::new();
        GzDecoder::new(file.as_slice())
            .read_to_end(&mut all)
            .unwrap();
        assert_eq!(&all[..5], b"head!");
        assert_eq!(&all[5..], &body[..]);
        // One member: a multi-member reader finds nothing after it.
        let mut again = Vec::new();
        MultiGzDecoder::new(file.as_slice())
            .read_to_end(&mut again)
            .unwrap();
        assert_eq!(again, all);
        // The dictionary carries across blocks: about as small as one stream.
        let mut one = flate2::write::GzEncoder::new(Vec::new(), Compression::new(LEVEL));
        one.write_all(b"head!").unwrap();
        one.write_all(&body).unwrap();
        let one = one.finish().unwrap();
        assert!(
            file.len() < one.len() + one.len() / 50 + 64,
            "{} vs {}",
            file.len(),
            one.len()
        );
    }

    #[test]
    fn an_empty_body_is_the_head_alone() {
        let file = gzip(b"\x06\0\0\0\0", b"");
        let mut all = Vec::new();
        GzDecoder::new(file.as_slice())
            .read_to_end(&mut all)
            .unwrap();
        assert_eq!(all, b"\x06\0\0\0\0");
    }
}
