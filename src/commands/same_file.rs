//! Refusing an output that is one of the inputs. Paths cannot tell: a hard link, a
//! symbolic link, `./x` and `x`, and standard input redirected from the file all name it
//! differently, so files are compared by device and inode. Writing an input destroys it:
//! `read -w` truncated the file it was reading (and died of SIGBUS on the mapping), and
//! `analyze --html x x` overwrote the capture with its own report.

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use anyhow::bail;

use crate::capture::merge::display_path;

/// What every name of one file shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct FileId {
    device: u64,
    inode: u64,
}

impl FileId {
    /// Only regular files: devices and pipes are not destroyed by being written, and
    /// `/dev/null` may well be both an input and the output.
    #[cfg(unix)]
    fn of(metadata: &Metadata) -> Option<FileId> {
        use std::os::unix::fs::MetadataExt;
        metadata.is_file().then(|| FileId {
            device: metadata.dev(),
            inode: metadata.ino(),
        })
    }

    #[cfg(not(unix))]
    fn of(_metadata: &Metadata) -> Option<FileId> {
        None
    }

    pub(super) fn of_path(path: &Path) -> Option<FileId> {
        FileId::of(&std::fs::metadata(path).ok()?)
    }

    /// The file behind standard input or output, through a duplicate of the descriptor.
    #[cfg(unix)]
    fn of_stream(stream: std::os::fd::BorrowedFd<'_>) -> Option<FileId> {
        let file = File::from(stream.try_clone_to_owned().ok()?);
        FileId::of(&file.metadata().ok()?)
    }
}

/// The inputs of a run, as files, each with the name it was given.
pub struct InputFiles {
    files: Vec<(FileId, String)>,
}

impl InputFiles {
    /// `-` is standard input, which is a file when the shell redirected one into it.
    pub fn of(paths: &[PathBuf]) -> InputFiles {
        let files = paths
            .iter()
            .filter_map(|path| {
                let id = if path.as_os_str() == "-" {
                    stdin_id()
                } else {
                    FileId::of_path(path)
                };
                Some((id?, display_path(path)))
            })
            .collect();
        InputFiles { files }
    }

    fn find(&self, id: Option<FileId>) -> Option<&str> {
        let id = id?;
        self.files
            .iter()
            .find(|(input, _)| *input == id)
            .map(|(_, name)| name.as_str())
    }

    /// Refuses `output` (given as `option`, e.g. `-w`) when it is one of the inputs.
    pub fn refuse_output(&self, option: &str, output: &Path) -> anyhow::Result<()> {
        if let Some(input) = self.find(FileId::of_path(output)) {
            bail!(
                "{option} {} names an input, {input} (the same file): writing it would \
                 destroy what is being read",
                output.display()
            );
        }
        Ok(())
    }

    /// Refuses a standard output that the shell redirected onto an input (`> x` has
    /// emptied it already, `>> x` would feed the output back in).
    pub fn refuse_stdout(&self) -> anyhow::Result<()> {
        if let Some(input) = self.find(stdout_id()) {
            bail!(
                "standard output is the input {input} (the same file): writing it would \
                 destroy what is being read; redirect the output to another file"
            );
        }
        Ok(())
    }

    /// Refuses an input that is one of `files` (those of an output dataset).
    #[cfg(feature = "export")]
    pub fn refuse_any(&self, files: &[PathBuf], output: &Path) -> anyhow::Result<()> {
        for file in files {
            if let Some(input) = self.find(FileId::of_path(file)) {
                bail!(
                    "the input {input} is {}, in the output {}: exporting could replace or \
                     remove it",
                    file.display(),
                    output.display()
                );
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn stdin_id() -> Option<FileId> {
    use std::os::fd::AsFd;
    FileId::of_stream(io::stdin().as_fd())
}

#[cfg(unix)]
fn stdout_id() -> Option<FileId> {
    use std::os::fd::AsFd;
    FileId::of_stream(io::stdout().as_fd())
}

#[cfg(not(unix))]
fn stdin_id() -> Option<FileId> {
    None
}

#[cfg(not(unix))]
fn stdout_id() -> Option<FileId> {
    None
}
