//! The on-disk cache directory and the persisted `VkPipelineCache`.
//!
//! `CAJETA_CACHE_DIR` names the directory; unset, it is `$XDG_CACHE_HOME/cajeta` or
//! `$HOME/.cache/cajeta`; set to an empty string or `off`, nothing is read or written. The
//! pipeline cache of a device lives in `pipelines-<vendor>-<device>-<hash>.bin`, where the hash
//! covers the device name, driver and API version, so a driver update starts a fresh file
//! (drivers also reject foreign data themselves: the blob's header carries the device UUID).
//! The file is written when the last handle to the device goes, through a temporary file and a
//! rename, so concurrent processes never see half a file.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
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
    let mut h = DefaultHasher::new();
    (
        &info.name,
        &info.driver_name,
        &info.driver_info,
        &info.api_version,
    )
        .hash(&mut h);
    dir.join(format!(
        "pipelines-{:04x}-{:04x}-{:016x}.bin",
        info.vendor_id,
        info.device_id,
        h.finish()
    ))
}

/// Creates the device's pipeline cache, seeded from `path` when that file exists. Data the
/// driver rejects (another device, a corrupt file) falls back to an empty cache.
pub(crate) fn create_pipeline_cache(
    device: &ash::Device,
    path: Option<&Path>,
) -> Result<vk::PipelineCache> {
    let data = path.and_then(|p| std::fs::read(p).ok()).unwrap_or_default();
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
/// time in the next run).
pub(crate) fn save_pipeline_cache(device: &ash::Device, cache: vk::PipelineCache, path: &Path) {
    // SAFETY: valid device and cache, not used concurrently (called from the last owner).
    let Ok(data) = (unsafe { device.get_pipeline_cache_data(cache) }) else {
        return;
    };
    if data.is_empty() {
        return;
    }
    if std::fs::read(path).is_ok_and(|old| old == data) {
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
    if std::fs::write(&tmp, &data).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
