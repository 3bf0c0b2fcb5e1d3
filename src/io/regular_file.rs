//! Opening a file the user named (a configuration, a language file, `convert`'s input) only
//! when it is a regular file: a FIFO, a device or a socket — or a link to one — is refused at
//! once with what it is, never waited on (a FIFO with no writer would block the daemon's start
//! for ever, a device like /dev/zero would never end).

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Opens `path` for reading if it is a regular file (links followed); anything else is an
/// `InvalidInput` error naming what it is.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading blocks until a writer comes; non-blocking, it returns at
        // once and is refused below.
        options.custom_flags(nix::libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() {
        return Ok(file);
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is {}, not a regular file",
            path.display(),
            kind_of(&meta)
        ),
    ))
}

/// What a file that is not a regular file is, in words ("a FIFO", "a directory").
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_or_a_device_is_refused_at_once() {
        let dir = std::env::temp_dir().join(format!("annabella-regular-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        #[cfg(unix)]
        {
            let fifo = dir.join("fifo");
            nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
            let e = open_regular(&fifo).unwrap_err();
            assert!(
                e.to_string().ends_with("is a FIFO, not a regular file"),
                "{e}"
            );
            let link = dir.join("link");
            std::os::unix::fs::symlink(&fifo, &link).unwrap();
            assert!(
                open_regular(&link)
                    .unwrap_err()
                    .to_string()
                    .contains("a FIFO")
            );
            let e = open_regular(Path::new("/dev/zero")).unwrap_err();
            assert!(e.to_string().contains("a device"), "{e}");
        }
        let plain = dir.join("plain.toml");
        std::fs::write(&plain, "x").unwrap();
        assert!(open_regular(&plain).is_ok());
        assert!(open_regular(&dir).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
