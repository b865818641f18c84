//! Work spread over the machine's cores, results handed back in order.

use std::num::NonZeroUsize;
use std::sync::mpsc::sync_channel;
use std::thread;

/// Worker threads [`map_ordered`] starts: one per core, at most 8.
fn workers() -> usize {
    thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(8)
}

/// Runs `work` for jobs `0..jobs` on worker threads and hands each result to
/// `sink` on the calling thread in job order; stops at the first `sink` error.
pub fn map_ordered<T: Send, E>(
    jobs: usize,
    work: impl Fn(usize) -> T + Sync,
    mut sink: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    let workers = workers().min(jobs);
    if workers <= 1 {
        return (0..jobs).try_for_each(|job| sink(work(job)));
    }
    thread::scope(|scope| {
        // Worker w does jobs w, w + workers, ...; one finished result waits per worker.
        let receivers: Vec<_> = (0..workers)
            .map(|first| {
                let (sender, receiver) = sync_channel(1);
                let work = &work;
                scope.spawn(move || {
                    for job in (first..jobs).step_by(workers) {
                        if sender.send(work(job)).is_err() {
                            break;
                        }
                    }
                });
                receiver
            })
            .collect();
        for job in 0..jobs {
            // A worker only hangs up early by panicking, which the scope re-raises.
            let Ok(result) = receivers[job % workers].recv() else {
                break;
            };
            sink(result)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_arrive_in_order_and_errors_stop_early() {
        let mut seen = Vec::new();
        map_ordered(
            100,
            |job| job * 2,
            |v| -> Result<(), ()> {
                seen.push(v);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, (0..100).map(|j| j * 2).collect::<Vec<_>>());
        let mut count = 0;
        let result = map_ordered(
            1000,
            |job| job,
            |v| {
                count += 1;
                if v == 10 {
                    Err("stop")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!((result, count), (Err("stop"), 11));
    }
}
