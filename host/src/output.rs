//! Writing a named output file: refused when the file exists (unless forced),
//! written to a temporary file in the same folder and renamed into place once
//! complete, so a reader never sees half a file and a failed write leaves none.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};

/// The refusal when `path` exists and `force` is off; checked again, atomically, at the rename.
pub fn check_free(path: &Path, force: bool) -> Result<()> {
    if !force && path.symlink_metadata().is_ok() {
        bail!("{}: exists; --force replaces it", path.display());
    }
    Ok(())
}

/// True when `a` and `b` name one existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
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
    let mut temp = builder.tempfile_in(dir).with_context(|| {
        format!(
            "{}: cannot create a file in {}",
            path.display(),
            dir.display()
        )
    })?;
    {
        let mut out = BufWriter::with_capacity(1 << 16, temp.as_file_mut());
        body(&mut out)?;
        out.flush()
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    temp.as_file()
        .sync_all()
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
}
