//! Where a request's library work runs ([`Finish`]): in the door's own future
//! ([`InPlace`]: `llv serve`, the tests), or in one task that every door hands
//! its work to ([`Worker`]: the box). The library's futures (a card upload's
//! commit holds a few KiB) then take the box's memory once, not once in every
//! connection's future; and a connection closed while its request runs no
//! longer cuts the library's work short: the worker finishes it.
//!
//! A door hands over its session and an owned copy of the request's pending
//! part ([`Job`]: a chunk's bytes are copied, at most [`MAX_CHUNK`]); the
//! worker finishes it under the library's lock and hands the session and the
//! response back. Doors take turns; a door that goes away while its work runs
//! leaves the result to nobody (an upload it began gives way after
//! [`crate::pace::UPLOAD_IDLE`]).

use core::cell::RefCell;

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_sync::blocking_mutex::Mutex as Blocking;
use embassy_sync::mutex::{Mutex, MutexGuard};
use embassy_sync::signal::Signal;
use heapless::{String, Vec};
use llv_core::control::{Place, Response, Start};
use llv_core::settings::{Settings, Target, MAX_TARGETS};
use llv_core::take::{UploadError, MAX_CHUNK, NAME_LEN};

use crate::library::{upload_refusal, Refusal, TakeLibrary};
use crate::session::{Pending, Playback, Session};

/// Finishes a request's pending part for a door.
#[allow(
    async_fn_in_trait,
    reason = "the firmware's executor is single-threaded"
)]
pub trait Finish<M: RawMutex, L: TakeLibrary> {
    /// Finishes `pending` of `session`; `library` is the library the door
    /// holds (a worker lets it go first: the worker takes it itself).
    async fn finish<D: Playback<L::Take>>(
        &self,
        session: &mut Session,
        pending: Pending<'_>,
        library: MutexGuard<'_, M, L>,
        device: &mut D,
    ) -> Response;
}

/// Finishes in the door's own future, under the lock the door holds.
#[derive(Clone, Copy, Debug, Default)]
pub struct InPlace;

impl<M: RawMutex, L: TakeLibrary> Finish<M, L> for InPlace {
    async fn finish<D: Playback<L::Take>>(
        &self,
        session: &mut Session,
        pending: Pending<'_>,
        mut library: MutexGuard<'_, M, L>,
        device: &mut D,
    ) -> Response {
        session.finish(pending, &mut *library, device).await
    }
}

/// A request's pending part, owned: what a door hands to the [`Worker`].
#[derive(Clone, Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "no heap to box into: one job lives at a time"
)]
pub enum Job {
    /// Start an upload.
    Begin {
        /// Take name.
        name: String<NAME_LEN>,
        /// Image length.
        total_len: u32,
        /// Image CRC.
        crc32: u32,
        /// Flash or card.
        place: Place,
    },
    /// Write a chunk.
    Chunk {
        /// The upload.
        id: u32,
        /// Offset in the image.
        offset: u32,
        /// The bytes.
        data: Vec<u8, MAX_CHUNK>,
    },
    /// Commit an upload.
    Commit {
        /// The upload.
        id: u32,
    },
    /// Delete a take.
    Delete {
        /// Take name.
        name: String<NAME_LEN>,
    },
    /// Store settings.
    Save(Settings),
    /// List a page.
    List {
        /// Index of the page's first take.
        start: u32,
        /// Answer `Takes` (else `List`).
        paged: bool,
    },
    /// Open the live relay's idle take and turn the relay on.
    Live {
        /// The idle take's name.
        idle: String<NAME_LEN>,
    },
    /// Open a take and play it.
    Play {
        /// Take name.
        name: String<NAME_LEN>,
        /// Where to send frames.
        targets: Vec<Target, MAX_TARGETS>,
        /// How many times.
        loop_count: u32,
        /// When.
        start: Start,
    },
}

impl Job {
    /// An owned copy of `pending`, or the refusal when it cannot be copied
    /// (a chunk longer than any upload takes: refused as the library would).
    pub fn of(pending: &Pending<'_>) -> Result<Job, Refusal> {
        let name = |n: &str| llv_core::control::bounded::<NAME_LEN>(n);
        Ok(match pending {
            Pending::Begin {
                name: n,
                total_len,
                crc32,
                place,
            } => Job::Begin {
                name: name(n),
                total_len: *total_len,
                crc32: *crc32,
                place: *place,
            },
            Pending::Chunk { id, offset, data } => Job::Chunk {
                id: *id,
                offset: *offset,
                data: Vec::from_slice(data)
                    .map_err(|_| upload_refusal(&UploadError::ChunkTooLarge { len: data.len() }))?,
            },
            Pending::Commit { id } => Job::Commit { id: *id },
            Pending::Delete { name: n } => Job::Delete { name: name(n) },
            Pending::Save(settings) => Job::Save(settings.clone()),
            Pending::List { start, paged } => Job::List {
                start: *start,
                paged: *paged,
            },
            Pending::Live { idle } => Job::Live { idle: idle.clone() },
            Pending::Play {
                name: n,
                targets,
                loop_count,
                start,
            } => Job::Play {
                name: name(n),
                targets: targets.clone(),
                loop_count: *loop_count,
                start: *start,
            },
        })
    }

    /// The pending part it copies.
    pub fn pending(&self) -> Pending<'_> {
        match self {
            Job::Begin {
                name,
                total_len,
                crc32,
                place,
            } => Pending::Begin {
                name,
                total_len: *total_len,
                crc32: *crc32,
                place: *place,
            },
            Job::Chunk { id, offset, data } => Pending::Chunk {
                id: *id,
                offset: *offset,
                data,
            },
            Job::Commit { id } => Pending::Commit { id: *id },
            Job::Delete { name } => Pending::Delete { name },
            Job::Save(settings) => Pending::Save(settings.clone()),
            Job::List { start, paged } => Pending::List {
                start: *start,
                paged: *paged,
            },
            Job::Live { idle } => Pending::Live { idle: idle.clone() },
            Job::Play {
                name,
                targets,
                loop_count,
                start,
            } => Pending::Play {
                name,
                targets: targets.clone(),
                loop_count: *loop_count,
                start: *start,
            },
        }
    }
}

/// What goes between the doors and the worker.
struct Slots {
    /// Numbers the handovers; a door takes only the result of its own.
    next: u32,
    /// A door's work, waiting for the worker.
    input: Option<(u32, Session, Job)>,
    /// The worker's result, waiting for its door.
    output: Option<(u32, Session, Response)>,
}

/// One task's worth of library work for every door (see the module docs):
/// doors hand it their work through [`Finish`], the task runs [`Worker::serve`].
pub struct Worker<M: RawMutex> {
    turn: Mutex<M, ()>,
    slots: Blocking<M, RefCell<Slots>>,
    submitted: Signal<M, ()>,
    done: Signal<M, u32>,
}

impl<M: RawMutex> Worker<M> {
    /// A worker with nothing to do.
    pub const fn new() -> Self {
        Worker {
            turn: Mutex::new(()),
            slots: Blocking::new(RefCell::new(Slots {
                next: 0,
                input: None,
                output: None,
            })),
            submitted: Signal::new(),
            done: Signal::new(),
        }
    }

    /// Runs the doors' work forever: each job under `library`'s lock, played through `device`.
    pub async fn serve<L: TakeLibrary, D: Playback<L::Take>>(
        &self,
        library: &Mutex<M, L>,
        device: &mut D,
    ) -> ! {
        loop {
            self.submitted.wait().await;
            let Some((seq, mut session, job)) = self.slots.lock(|s| s.borrow_mut().input.take())
            else {
                continue;
            };
            let response = {
                let mut library = library.lock().await;
                session.finish(job.pending(), &mut *library, device).await
            };
            self.slots
                .lock(|s| s.borrow_mut().output = Some((seq, session, response)));
            self.done.signal(seq);
        }
    }
}

impl<M: RawMutex> Default for Worker<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: RawMutex, L: TakeLibrary> Finish<M, L> for &Worker<M> {
    async fn finish<D: Playback<L::Take>>(
        &self,
        session: &mut Session,
        pending: Pending<'_>,
        library: MutexGuard<'_, M, L>,
        _device: &mut D,
    ) -> Response {
        drop(library);
        let _turn = self.turn.lock().await;
        // The job is made in its slot: no copy of it waits in this future.
        let handed = self.slots.lock(|s| {
            let mut s = s.borrow_mut();
            let job = Job::of(&pending)?;
            s.next = s.next.wrapping_add(1);
            let seq = s.next;
            s.input = Some((seq, session.clone(), job));
            Ok(seq)
        });
        let seq = match handed {
            Ok(seq) => seq,
            Err(Refusal { code, detail }) => return Response::Error { code, detail },
        };
        self.submitted.signal(());
        loop {
            if self.done.wait().await != seq {
                continue;
            }
            let result = self.slots.lock(|s| {
                let mut s = s.borrow_mut();
                match s.output.take() {
                    Some((n, session, response)) if n == seq => Some((session, response)),
                    other => {
                        s.output = other;
                        None
                    }
                }
            });
            if let Some((done, response)) = result {
                *session = done;
                return response;
            }
        }
    }
}
