//! Files that appear under their name whole or not at all. A file output is written to a
//! hidden temporary name beside its target and renamed over the target only when the
//! command succeeded: a full disk, an input that could not be read or an interrupted run
//! leaves any previous file as it was, and nobody reading the target sees half of it. The
//! temporary file is created before any work, which proves early that the directory can be
//! written: an unwritable `--html` path used to fail only after the whole analysis.

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Names tried for the temporary file before giving up: a name is taken only when an
/// earlier run with the same process id was killed before it could remove its own.
const TEMPORARY_NAMES: u32 = 100;

/// A temporary file beside its target, removed when dropped unless renamed into place.
#[derive(Debug)]
pub struct Temporary {
    path: PathBuf,
    target: PathBuf,
    /// The previous target's permissions, which the new file takes over: a rename would
    /// otherwise turn a file someone made private into one readable by all.
    permissions: Option<Permissions>,
    renamed: bool,
}

impl Temporary {
    /// Creates `.NAME.rdmadump-PID.tmp` in `target`'s directory, never over an existing file.
    /// A symbolic link is followed, so that the link stays and its file is replaced.
    pub fn create(target: &Path) -> io::Result<(File, Temporary)> {
        let is_link = fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink());
        let target = match is_link {
            true => fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf()),
            false => target.to_path_buf(),
        };
        let Some(name) = target.file_name() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the path names a directory, not a file",
            ));
        };
        let directory = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let stem = format!(
            ".{}.rdmadump-{}",
            name.to_string_lossy(),
            std::process::id()
        );
        let mut attempt = 0;
        loop {
            let suffix = match attempt {
                0 => String::new(),
                n => format!("-{n}"),
            };
            let path = directory.join(format!("{stem}{suffix}.tmp"));
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    let permissions = fs::metadata(&target).ok().map(|m| m.permissions());
                    let temporary = Temporary {
                        path,
                        target,
                        permissions,
                        renamed: false,
                    };
                    return Ok((file, temporary));
                }
                Err(err)
                    if err.kind() == io::ErrorKind::AlreadyExists
                        && attempt + 1 < TEMPORARY_NAMES =>
                {
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// The file's name while it is being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The name the file takes when it is done.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the file over its target. The caller has written and closed it.
    pub fn rename(mut self) -> io::Result<()> {
        if let Some(permissions) = self.permissions.take() {
            fs::set_permissions(&self.path, permissions)?;
        }
        fs::rename(&self.path, &self.target)?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// An output file written under a temporary name and put in place by [`AtomicFile::commit`];
/// dropped without it, it leaves nothing behind and the target untouched.
#[derive(Debug)]
pub struct AtomicFile {
    file: File,
    /// `None` when the target is not a regular file (`/dev/null`, a FIFO, a terminal): it
    /// is written in place, since renaming over it would replace the device itself.
    temporary: Option<Temporary>,
}

impl AtomicFile {
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        let special = fs::metadata(target).is_ok_and(|m| !m.is_file());
        if special {
            let file = OpenOptions::new().write(true).open(target)?;
            return Ok(AtomicFile {
                file,
                temporary: None,
            });
        }
        let (file, temporary) = Temporary::create(target)?;
        Ok(AtomicFile {
            file,
            temporary: Some(temporary),
        })
    }

    /// Puts the file in place, over any previous one.
    pub fn commit(mut self) -> io::Result<()> {
        self.file.flush()?;
        match self.temporary.take() {
            Some(temporary) => temporary.rename(),
            None => Ok(()),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::AtomicFile;
    use std::io::Write;
    use std::os::unix::fs::FileTypeExt;

    fn directory(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("rdmadump-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_dropped_file_leaves_the_previous_one_and_no_temporary() {
        let dir = directory("drop");
        let target = dir.join("out.pcap");
        std::fs::write(&target, b"previous").unwrap();
        let mut file = AtomicFile::create(&target).unwrap();
        file.write_all(b"half").unwrap();
        assert_eq!(
            names(&dir).len(),
            2,
            "the temporary file is beside the target"
        );
        drop(file);
        assert_eq!(std::fs::read(&target).unwrap(), b"previous");
        assert_eq!(names(&dir), ["out.pcap"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_committed_file_replaces_the_target_through_a_link() {
        let dir = directory("commit");
        let target = dir.join("real.html");
        std::fs::write(&target, b"previous").unwrap();
        let link = dir.join("link.html");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut file = AtomicFile::create(&link).unwrap();
        file.write_all(b"new").unwrap();
        file.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(names(&dir), ["link.html", "real.html"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_device_is_written_in_place() {
        let mut file = AtomicFile::create(std::path::Path::new("/dev/null")).unwrap();
        file.write_all(b"gone").unwrap();
        file.commit().unwrap();
        assert!(
            std::fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
}
