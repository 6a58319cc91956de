//! The on-disk cache directory and the persisted `VkPipelineCache`.
//!
//! `CAJETA_CACHE_DIR` names the directory; unset, it is `$XDG_CACHE_HOME/cajeta` or
//! `$HOME/.cache/cajeta`; set to an empty string or `off`, nothing is read or written. The
//! pipeline cache of a device lives in `pipelines-<vendor>-<device>-<hash>.bin`, where the hash
//! covers the device name, driver and API version and the file format, so a driver update
//! starts a fresh file (drivers also reject foreign data themselves: the blob's header carries
//! the device UUID).
//! The file is written when the last handle to the device goes, through a temporary file and a
//! rename, so concurrent processes never see half a file.
//!
//! The file is the driver's blob behind a header of ours ([`wrap`]): a magic, a format
//! version, the blob's length and its FNV-1a 64 checksum. Drivers check their own header but
//! not always the data behind it, so a damaged file (a bit flip, a truncated write) is refused
//! here: a file that does not verify is ignored with a one-line notice on stderr, the device
//! starts from an empty cache, and the file is rewritten when the device goes.

use std::path::{Path, PathBuf};

use ash::vk;

use crate::device::DeviceInfo;
use crate::error::{vk_err, Result};

/// The cache directory from the environment, or `None` when caching is off.
pub fn cache_dir_from_env() -> Option<PathBuf> {
    match std::env::var_os("CAJETA_CACHE_DIR") {
        Some(v) if v.is_empty() || v == "off" => None,
        Some(v) => Some(PathBuf::from(v)),
        None => std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(|d| PathBuf::from(d).join("cajeta"))
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".cache").join("cajeta"))
            }),
    }
}

/// The pipeline-cache file of `info` in `dir`.
pub(crate) fn pipeline_cache_path(dir: &Path, info: &DeviceInfo) -> PathBuf {
    // The file format is in the name too: a cajeta of another format (an older one, whose
    // files have no header) keeps its own file instead of rewriting this one on every run.
    let identity = format!(
        "{:?}\0{:?}\0{:?}\0{:?}\0format {FORMAT}",
        info.name, info.driver_name, info.driver_info, info.api_version
    );
    dir.join(format!(
        "pipelines-{:04x}-{:04x}-{:016x}.bin",
        info.vendor_id,
        info.device_id,
        crate::checksum::fnv1a64(identity.as_bytes())
    ))
}

/// The first bytes of a pipeline-cache file.
const MAGIC: &[u8; 8] = b"CAJETAPC";
/// The layout of the header; a file of another layout does not verify.
const FORMAT: u32 = 1;
/// Magic, format, blob length (u64), blob checksum (u64), little-endian.
const HEADER_BYTES: usize = 8 + 4 + 8 + 8;

/// The file's contents for the driver's `blob`: our header, then the blob.
fn wrap(blob: &[u8]) -> Vec<u8> {
    let mut file = Vec::with_capacity(HEADER_BYTES + blob.len());
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&FORMAT.to_le_bytes());
    file.extend_from_slice(&(blob.len() as u64).to_le_bytes());
    file.extend_from_slice(&crate::checksum::fnv1a64(blob).to_le_bytes());
    file.extend_from_slice(blob);
    file
}

/// The driver's blob in `file`, when the header is ours and the length and checksum match.
fn unwrap(file: &[u8]) -> Option<&[u8]> {
    let (header, blob) = file.split_at_checked(HEADER_BYTES)?;
    let word = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().unwrap_or([0; 8]));
    let format = u32::from_le_bytes(header[8..12].try_into().ok()?);
    (header[..8] == MAGIC[..]
        && format == FORMAT
        && word(12) == blob.len() as u64
        && word(20) == crate::checksum::fnv1a64(blob))
    .then_some(blob)
}

/// The blob stored at `path` (empty when there is none), and the notice to print when the
/// file exists but does not verify.
fn read_blob(path: &Path) -> (Vec<u8>, Option<String>) {
    let Ok(file) = std::fs::read(path) else {
        return (Vec::new(), None);
    };
    match unwrap(&file) {
        Some(blob) => (blob.to_vec(), None),
        None => (
            Vec::new(),
            Some(format!(
                "note: pipeline cache {} did not verify; starting with an empty one",
                path.display()
            )),
        ),
    }
}

/// Creates the device's pipeline cache, seeded from `path` when that file exists and
/// verifies. Data the driver rejects (another device) falls back to an empty cache.
pub(crate) fn create_pipeline_cache(
    device: &ash::Device,
    path: Option<&Path>,
) -> Result<vk::PipelineCache> {
    let (data, notice) = path.map(read_blob).unwrap_or_default();
    if let Some(notice) = notice {
        eprintln!("{notice}");
    }
    if !data.is_empty() {
        let info = vk::PipelineCacheCreateInfo::default().initial_data(&data);
        // SAFETY: valid device; the driver validates the blob's header.
        if let Ok(cache) = unsafe { device.create_pipeline_cache(&info, None) } {
            return Ok(cache);
        }
    }
    // SAFETY: valid device, empty initial data.
    unsafe { device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }
        .map_err(vk_err("vkCreatePipelineCache"))
}

/// Writes the cache's data to `path` (best effort: a cache that cannot be saved only costs
/// time in the next run). A file that did not verify differs from what is written, so it is
/// replaced.
pub(crate) fn save_pipeline_cache(device: &ash::Device, cache: vk::PipelineCache, path: &Path) {
    // SAFETY: valid device and cache, not used concurrently (called from the last owner).
    let Ok(data) = (unsafe { device.get_pipeline_cache_data(cache) }) else {
        return;
    };
    if data.is_empty() {
        return;
    }
    write_blob(path, &data);
}

/// Stores `blob` at `path` behind our header, unless the file already holds exactly that.
fn write_blob(path: &Path, blob: &[u8]) {
    let file = wrap(blob);
    if std::fs::read(path).is_ok_and(|old| old == file) {
        return;
    }
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("pipelines"),
        std::process::id()
    ));
    if std::fs::write(&tmp, &file).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_blob_verifies_and_any_damage_does_not() {
        let blob: Vec<u8> = (0..200u32).map(|i| (i * 7) as u8).collect();
        let file = wrap(&blob);
        assert_eq!(unwrap(&file), Some(&blob[..]));
        // One flipped bit anywhere: header or blob.
        for at in [0, 9, 13, 21, HEADER_BYTES, file.len() - 1] {
            let mut bad = file.clone();
            bad[at] ^= 0x10;
            assert_eq!(unwrap(&bad), None, "bit flipped at byte {at}");
        }
        assert_eq!(unwrap(&file[..file.len() - 1]), None, "truncated");
        assert_eq!(unwrap(&file[..5]), None, "shorter than the header");
        assert_eq!(unwrap(&blob), None, "a bare driver blob (no header)");
    }

    #[test]
    fn a_damaged_file_is_ignored_with_a_notice_and_replaced() {
        let dir = std::env::temp_dir().join(format!("cajeta-pcache-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("pipelines-test.bin");
        // No file: empty, quietly.
        assert_eq!(read_blob(&path), (Vec::new(), None));
        let blob = vec![1u8, 2, 3, 4, 5, 6, 7, 8];
        write_blob(&path, &blob);
        assert_eq!(read_blob(&path), (blob.clone(), None));
        // Damaged: empty, with the notice naming the file.
        let mut file = std::fs::read(&path).unwrap();
        let last = file.len() - 1;
        file[last] ^= 1;
        std::fs::write(&path, &file).unwrap();
        let (data, notice) = read_blob(&path);
        assert!(data.is_empty());
        let notice = notice.expect("a notice");
        assert!(
            notice.contains("did not verify") && notice.contains("pipelines-test.bin"),
            "{notice}"
        );
        // The next save replaces it, and it verifies again.
        write_blob(&path, &blob);
        assert_eq!(read_blob(&path), (blob, None));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
