//! Writing a named output file: refused when it is one of the command's
//! inputs (whatever `--force` says), refused when it exists unless forced,
//! written to a temporary file in the same folder and renamed into place once
//! complete, so a reader never sees half a file and a failed write leaves none.
//! Every command that writes a named file runs [`check`] (or
//! [`Inputs::check`]) before any work.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use anyhow::{bail, Context, Result};

/// The checks before writing `path`: it is none of `inputs`, and it does not
/// exist unless `force`. `-` (standard input or output) is no file.
pub fn check(path: &Path, inputs: &[&Path], force: bool) -> Result<()> {
    Inputs::new(inputs).check(path, force)
}

/// A command's input files, known by what they are rather than how they are
/// spelled: device and inode (so `./a`, `d/../a`, a hard link and a symlink
/// to `a` are all `a`), or the canonical folder and name of a file that does
/// not exist.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    files: Vec<(PathBuf, Identity)>,
    /// Every input as named (standard input aside).
    named: Vec<PathBuf>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    /// Device and inode of an existing file.
    #[cfg(unix)]
    Node(u64, u64),
    /// The canonical path (for a file that does not exist: of its folder, and its name).
    Path(PathBuf),
}

fn identity(path: &Path) -> Option<Identity> {
    if is_stdio(path) {
        return None;
    }
    if let Ok(meta) = std::fs::metadata(path) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            return Some(Identity::Node(meta.dev(), meta.ino()));
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            return path.canonicalize().ok().map(Identity::Path);
        }
    }
    let name = path.file_name()?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Some(Identity::Path(dir.canonicalize().ok()?.join(name)))
}

fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

impl Inputs {
    /// The identities of `inputs`, taken now.
    pub fn new(inputs: &[&Path]) -> Inputs {
        let mut all = Inputs::default();
        for input in inputs {
            all.add(input);
        }
        all
    }

    /// One input more.
    pub fn add(&mut self, input: &Path) {
        if !is_stdio(input) {
            self.named.push(input.to_path_buf());
        }
        if let Some(id) = identity(input) {
            self.files.push((input.to_path_buf(), id));
        }
    }

    /// The input that `path` is, if any.
    pub fn find(&self, path: &Path) -> Option<&Path> {
        let id = identity(path)?;
        self.files
            .iter()
            .find(|(_, other)| *other == id)
            .map(|(p, _)| p.as_path())
    }

    /// Refuses `path` when an input is missing (the real problem, said
    /// before any about the output), when it is one of the inputs (with or
    /// without `force`) or, without `force`, when it exists.
    pub fn check(&self, path: &Path, force: bool) -> Result<()> {
        for input in &self.named {
            if let Err(e) = std::fs::metadata(input) {
                return Err(e).with_context(|| format!("{}: cannot read", input.display()));
            }
        }
        if is_stdio(path) {
            return Ok(());
        }
        if let Some(input) = self.find(path) {
            if input == path {
                bail!(
                    "{}: is also an input of this command; name another output \
                     (--force never replaces an input)",
                    path.display()
                );
            }
            bail!(
                "{}: is the input {}; name another output (--force never replaces an input)",
                path.display(),
                input.display()
            );
        }
        check_free(path, force)
    }
}

/// The refusal when `path` exists and `force` is off; checked again, atomically, at the rename.
fn check_free(path: &Path, force: bool) -> Result<()> {
    if !force && path.symlink_metadata().is_ok() {
        bail!("{}: exists; --force replaces it", path.display());
    }
    Ok(())
}

/// Bytes written between two syncs started on the side (see [`SyncAhead`]).
const SYNC_AHEAD: u64 = 16 << 20;

/// A file whose written data a helper thread syncs every [`SYNC_AHEAD`]
/// bytes (a request while one is running is dropped), so the disk writes
/// while the rest of the file is made and the closing `sync_all` waits for
/// the last piece only: on a 441 MB clear JSON file it alone took 0.16 s of
/// a 0.66 s `llv unpack` (2 cores, ext4 on virtio, 2026-12-02).
struct SyncAhead<'a> {
    file: &'a File,
    /// Bytes written since the last sync was asked for.
    since: u64,
    start: mpsc::SyncSender<()>,
}

impl Write for SyncAhead<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.since += n as u64;
        if self.since >= SYNC_AHEAD {
            self.since = 0;
            // Full: a sync is waiting already; gone: it failed, as the join says.
            let _ = self.start.try_send(());
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Writes `path` through `body`, atomically: a temporary file beside it, then a rename.
pub fn write_file(
    path: &Path,
    force: bool,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    write_file_with(path, force, |out| {
        body(out).with_context(|| format!("{}: cannot write", path.display()))
    })
}

/// [`write_file`] whose `body` says what went wrong itself (an input error
/// names its input, not `path`); errors of the file itself name `path`.
pub fn write_file_with(
    path: &Path,
    force: bool,
    body: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    check_free(path, force)?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".llv-").suffix(".part");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As `File::create` does: 0666 less the umask.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let temp = builder.tempfile_in(dir).with_context(|| {
        format!(
            "{}: cannot create a file in {}",
            path.display(),
            dir.display()
        )
    })?;
    let file = temp.as_file();
    std::thread::scope(|scope| -> Result<()> {
        let (start, starts) = mpsc::sync_channel::<()>(1);
        // Ends when the writer (holding `start`) is gone; stops at the first error.
        let helper = scope.spawn(move || -> io::Result<()> {
            while starts.recv().is_ok() {
                file.sync_data()?;
            }
            Ok(())
        });
        let written = {
            let mut out = BufWriter::with_capacity(
                1 << 16,
                SyncAhead {
                    file,
                    since: 0,
                    start,
                },
            );
            body(&mut out).and_then(|()| {
                out.flush()
                    .with_context(|| format!("{}: cannot write", path.display()))
            })
        };
        let synced = helper
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the sync thread panicked")));
        written?;
        synced.with_context(|| format!("{}: cannot write", path.display()))
    })?;
    file.sync_all()
        .with_context(|| format!("{}: cannot write", path.display()))?;
    let placed = if force {
        temp.persist(path).map(|_| ())
    } else {
        temp.persist_noclobber(path).map(|_| ())
    };
    match placed {
        Ok(()) => Ok(()),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {
            bail!("{}: exists; --force replaces it", path.display())
        }
        Err(e) => Err(e.error).with_context(|| format!("{}: cannot write", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn existing_files_stay_unless_forced_and_failures_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_file(&path, false, |w| w.write_all(b"one")).unwrap();
        let e = write_file(&path, false, |w| w.write_all(b"two")).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: exists; --force replaces it", path.display())
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        write_file(&path, true, |w| w.write_all(b"three")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"three");
        let failed = dir.path().join("failed.txt");
        let e = write_file(&failed, false, |_| Err(io::Error::other("disk on fire"))).unwrap_err();
        assert!(format!("{e:#}").contains("disk on fire"), "{e:#}");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.txt"]);
    }

    #[test]
    fn files_past_the_sync_step_are_written_whole() {
        // Over two steps in uneven pieces, a failure after them leaving nothing.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.bin");
        let data: Vec<u8> = (0..2 * SYNC_AHEAD + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        write_file(&path, false, |w| {
            data.chunks(100_003)
                .try_for_each(|piece| w.write_all(piece))
        })
        .unwrap();
        assert!(std::fs::read(&path).unwrap() == data);
        let failed = dir.path().join("failed.bin");
        let e = write_file(&failed, false, |w| {
            w.write_all(&data)?;
            Err(io::Error::other("disk on fire"))
        })
        .unwrap_err();
        assert!(format!("{e:#}").contains("disk on fire"), "{e:#}");
        assert!(!failed.exists());
    }

    #[test]
    fn an_input_is_never_an_output_however_it_is_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let take = dir.path().join("take.gesichter");
        std::fs::write(&take, b"take").unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let spelled = sub.join("..").join("take.gesichter");
        let linked = dir.path().join("hard.gesichter");
        std::fs::hard_link(&take, &linked).unwrap();
        for force in [false, true] {
            let e = check(&take, &[&take], force).unwrap_err().to_string();
            assert!(e.contains("is also an input of this command"), "{e}");
            for other in [&spelled, &linked] {
                let e = check(other, &[&take], force).unwrap_err().to_string();
                assert!(
                    e.contains(&format!("is the input {}", take.display())),
                    "{e}"
                );
            }
        }
        #[cfg(unix)]
        {
            let symlink = dir.path().join("link.png");
            std::os::unix::fs::symlink(&take, &symlink).unwrap();
            assert!(check(&symlink, &[&take], true).is_err());
        }
        // A new file, and stdio, are free; an unrelated existing file needs --force.
        assert!(check(&dir.path().join("new.png"), &[&take], false).is_ok());
        assert!(check(Path::new("-"), &[Path::new("-")], false).is_ok());
        let other = dir.path().join("other.png");
        std::fs::write(&other, b"x").unwrap();
        assert!(check(&other, &[&take], false).is_err());
        assert!(check(&other, &[&take], true).is_ok());
        // An input that does not exist yet is known by its canonical folder and name.
        let missing = sub.join("..").join("later.csv");
        assert!(check(&dir.path().join("later.csv"), &[&missing], true).is_err());
    }
}
