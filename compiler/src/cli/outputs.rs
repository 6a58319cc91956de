//! Writing `build`'s output files. A rebuild mostly writes what is already there, and on
//! ext4 replacing a file is costly either way: closing a file that was truncated to zero and
//! rewritten starts its write-back at once (`auto_da_alloc`, which protects
//! replace-by-truncate from a crash), and unlinking one frees its blocks. For 200 kernels (400
//! files) that was more time than compiling them. So a file whose bytes are already the ones
//! to write is left as it is, with only its modification time moved (build tools that compare
//! times see it as rebuilt), and another is removed and created anew rather than truncated.

use std::io::{Read as _, Write as _};
use std::path::Path;

/// Writes `bytes` as the file `path` (see the module comment). A symbolic link or other
/// non-regular file is written through, as before.
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
    {
        let same_size = file
            .metadata()
            .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64);
        let mut old = Vec::with_capacity(bytes.len());
        if same_size && file.read_to_end(&mut old).is_ok() && old == bytes {
            return file.set_modified(std::time::SystemTime::now());
        }
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        // A failure here (a read-only folder) shows in the write that follows.
        let _ = std::fs::remove_file(path);
    }
    let mut file = std::fs::File::create(path)?;
    file.write_all(bytes)
}
