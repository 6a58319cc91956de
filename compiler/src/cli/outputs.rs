//! Writing `build`'s output files. A rebuild mostly writes what is already there, and on
//! ext4 replacing a file is costly either way: closing a file that was truncated to zero and
//! rewritten starts its write-back at once (`auto_da_alloc`, which protects
//! replace-by-truncate from a crash), and unlinking one frees its blocks. For 200 kernels (400
//! files) that was more time than compiling them. So a file whose bytes are already the ones
//! to write is left as it is, with only its modification time moved (build tools that compare
//! times see it as rebuilt), and another is removed and created anew rather than truncated.

use std::io::{Read as _, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

/// Writes `bytes` as the file `path` (see the module comment). A symbolic link or other
/// non-regular file is written through, as before.
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // Non-blocking, so that reading a FIFO found at `path` returns at once (and the bytes
    // are then written through it, as before) instead of waiting for a writer.
    let existing = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path);
    // Nothing at `path` (or a dangling symbolic link, which `create` writes through either
    // way): nothing to remove, and one system call less for each file of a first build.
    let absent = matches!(&existing, Err(e) if e.kind() == std::io::ErrorKind::NotFound);
    if let Ok(mut file) = existing {
        // One `read` of one byte more than the new contents, instead of asking for the
        // size first (400 `statx` for a 200-kernel rebuild): a regular file's read comes
        // back short only at its end, so exactly `bytes.len()` bytes read means the file
        // has that size. Anything else (longer, shorter, an error, a device) is rewritten,
        // and so are empty contents, which an empty device such as `/dev/null` also reads.
        let mut old = vec![0; bytes.len() + 1];
        if !bytes.is_empty()
            && matches!(file.read(&mut old), Ok(n) if n == bytes.len())
            && old[..bytes.len()] == *bytes
        {
            return file.set_modified(std::time::SystemTime::now());
        }
    }
    if !absent && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        // A failure here (a read-only folder) shows in the write that follows.
        let _ = std::fs::remove_file(path);
    }
    let mut file = std::fs::File::create(path)?;
    file.write_all(bytes)
}

/// Writes `bytes` as the file `path` in a folder this process has just made: no old file is
/// expected there to compare with or remove (should another process have put one there
/// meanwhile, it is truncated and written, as a first build of it would).
pub(crate) fn write_new_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::File::create(path)?.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::write_output;
    use std::time::{Duration, SystemTime};

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("cajeta-outputs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    }

    fn set_old_time(path: &std::path::Path) -> SystemTime {
        let old = SystemTime::now() - Duration::from_secs(3600);
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .expect("open");
        f.set_modified(old).expect("set time");
        std::fs::metadata(path)
            .expect("meta")
            .modified()
            .expect("time")
    }

    #[test]
    fn the_same_bytes_leave_the_file_and_move_its_time() {
        let d = dir("same");
        let p = d.join("k.spv");
        write_output(&p, b"abcdef").expect("first write");
        let old = set_old_time(&p);
        write_output(&p, b"abcdef").expect("rewrite");
        assert_eq!(std::fs::read(&p).expect("read"), b"abcdef");
        let now = std::fs::metadata(&p)
            .expect("meta")
            .modified()
            .expect("time");
        assert!(now > old, "the modification time did not move");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn other_bytes_of_the_same_or_another_size_replace_the_file() {
        let d = dir("other");
        let p = d.join("k.json");
        write_output(&p, b"abcdef").expect("first write");
        write_output(&p, b"abcdeX").expect("same size");
        assert_eq!(std::fs::read(&p).expect("read"), b"abcdeX");
        write_output(&p, b"abc").expect("shorter");
        assert_eq!(std::fs::read(&p).expect("read"), b"abc");
        write_output(&p, b"abcdefgh").expect("longer");
        assert_eq!(std::fs::read(&p).expect("read"), b"abcdefgh");
        write_output(&p, b"").expect("empty");
        assert_eq!(std::fs::read(&p).expect("read"), b"");
        let _ = std::fs::remove_dir_all(&d);
    }
}
