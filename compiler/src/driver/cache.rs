//! The compile cache: compiled kernels (SPIR-V words and reflection) keyed by a hash of the
//! sources, the backend options, an optional device profile and the compiler binary itself,
//! so `cajetac run` of an unchanged program skips the SPIR-V backend. (Parsing and checking
//! still run: the host interpreter needs the IR.)
//!
//! Entries live in `<cache dir>/kernels/<key>.json` (`CAJETA_CACHE_DIR`, see
//! `cajeta_runtime::cache_dir_from_env`; caching is off when that is `off` or empty). A
//! missing, unreadable or mismatching entry is a miss, never an error; writes go through a
//! temporary file and a rename.
//!
//! The folder is bounded: every rebuilt compiler and every edited program makes new keys, so
//! after each write the least recently used entries (a hit refreshes an entry's modification
//! time) are removed until at most [`MAX_ENTRIES`] entries and [`MAX_BYTES`] bytes remain,
//! with leftover temporary files of crashed writers.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::diagnostics::Diagnostic;
use crate::ir::{self, FunctionId};
use crate::kernel::spirv::{AddressVariant, CompiledKernel, SpirvOptions};

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    kernels: Vec<CachedKernel>,
}

#[derive(Serialize, Deserialize)]
struct CachedKernel {
    function: usize,
    name: String,
    words: Vec<u32>,
    reflection: cajeta_runtime::Reflection,
    /// The address variant's words and reflection, when compiled.
    #[serde(default)]
    by_address: Option<(Vec<u32>, cajeta_runtime::Reflection)>,
    /// Why the backend refused the address variant.
    #[serde(default)]
    by_address_refused: Option<String>,
}

/// Identifies the compiler build: the running executable's path, size and modification time,
/// so a rebuilt compiler never reuses kernels an older one produced.
fn compiler_fingerprint() -> String {
    let exe = std::env::current_exe().ok();
    let meta = exe.as_ref().and_then(|e| std::fs::metadata(e).ok());
    format!(
        "{}|{:?}|{:?}|{}",
        env!("CARGO_PKG_VERSION"),
        exe,
        meta.as_ref().map(|m| (m.len(), m.modified().ok())),
        meta.is_none()
    )
}

/// The cache key of compiling `files` with `options`, restricted to `only`, for `profile`.
pub fn compile_key(
    files: &[(String, String)],
    options: &SpirvOptions,
    only: Option<&str>,
    profile: Option<&cajeta_runtime::DeviceProfile>,
) -> String {
    let mut h = DefaultHasher::new();
    compiler_fingerprint().hash(&mut h);
    files.hash(&mut h);
    format!("{options:?}").hash(&mut h);
    only.hash(&mut h);
    profile.map(|p| p.to_json()).hash(&mut h);
    // Two independent 64-bit hashes make accidental collisions negligible.
    let first = h.finish();
    "salt".hash(&mut h);
    format!("{first:016x}{:016x}", h.finish())
}

/// Most entries the compile cache keeps.
pub const MAX_ENTRIES: usize = 512;
/// Most bytes the compile cache's entries take together.
pub const MAX_BYTES: u64 = 64 << 20;
/// Age after which a temporary file is a crashed writer's leftover.
const STALE_TEMPORARY: Duration = Duration::from_secs(3600);

/// Sets when an entry was last used: its modification time, which eviction orders by.
fn set_last_used(path: &Path, when: SystemTime) -> std::io::Result<()> {
    std::fs::File::options()
        .append(true)
        .open(path)?
        .set_modified(when)
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    dir.join("kernels").join(format!("{key}.json"))
}

/// Compiled kernels with the function each one comes from.
pub type Kernels = Vec<(FunctionId, CompiledKernel)>;

/// Compiles like [`super::compile_kernels`], reusing a cached result under `key` from `dir`
/// (when given). Returns the kernels and whether they came from the cache.
pub fn compile_kernels_cached(
    module: &ir::Module,
    options: &SpirvOptions,
    only: Option<&str>,
    dir: Option<&Path>,
    key: &str,
) -> Result<(Kernels, bool), Vec<Diagnostic>> {
    if let Some(dir) = dir {
        let cached = std::fs::read(entry_path(dir, key))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Entry>(&bytes).ok())
            .filter(|e| e.key == key)
            .filter(|e| {
                e.kernels.iter().all(|k| {
                    module
                        .functions
                        .get(k.function)
                        .is_some_and(|f| f.name == k.name)
                })
            });
        if let Some(entry) = cached {
            // Best effort: a failure only makes the entry look older to eviction.
            let _ = set_last_used(&entry_path(dir, key), SystemTime::now());
            let kernels = entry
                .kernels
                .into_iter()
                .map(|k| {
                    (
                        FunctionId(k.function),
                        CompiledKernel {
                            by_address: match (k.by_address, k.by_address_refused) {
                                (Some((words, reflection)), _) => {
                                    AddressVariant::Compiled(Box::new(CompiledKernel {
                                        name: k.name.clone(),
                                        words,
                                        reflection,
                                        by_address: AddressVariant::None,
                                    }))
                                }
                                (None, Some(why)) => AddressVariant::Refused(why),
                                (None, None) => AddressVariant::None,
                            },
                            name: k.name,
                            words: k.words,
                            reflection: k.reflection,
                        },
                    )
                })
                .collect();
            return Ok((kernels, true));
        }
    }
    let kernels = super::compile_kernels(module, options, only)?;
    if let Some(dir) = dir {
        store(dir, key, &kernels);
    }
    Ok((kernels, false))
}

/// Writes an entry (best effort: a failed write only costs a recompilation later).
fn store(dir: &Path, key: &str, kernels: &[(FunctionId, CompiledKernel)]) {
    let entry = Entry {
        key: key.to_string(),
        kernels: kernels
            .iter()
            .map(|(id, k)| CachedKernel {
                function: id.0,
                name: k.name.clone(),
                words: k.words.clone(),
                reflection: k.reflection.clone(),
                by_address: match &k.by_address {
                    AddressVariant::Compiled(v) => Some((v.words.clone(), v.reflection.clone())),
                    _ => None,
                },
                by_address_refused: match &k.by_address {
                    AddressVariant::Refused(why) => Some(why.clone()),
                    _ => None,
                },
            })
            .collect(),
    };
    let Ok(json) = serde_json::to_vec(&entry) else {
        return;
    };
    let path = entry_path(dir, key);
    let Some(parent) = path.parent() else { return };
    if std::fs::create_dir_all(parent).is_err() {
        return;
    }
    let tmp = parent.join(format!(".{key}.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, json).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    evict(parent, MAX_ENTRIES, MAX_BYTES);
}

/// Removes the least recently used entries of the `kernels` folder until at most
/// `max_entries` entries of at most `max_bytes` together remain, and temporary files older
/// than an hour. Best effort: a file another process removed first is skipped.
fn evict(kernels: &Path, max_entries: usize, max_bytes: u64) {
    let Ok(dir) = std::fs::read_dir(kernels) else {
        return;
    };
    let now = SystemTime::now();
    let mut entries = Vec::new();
    for item in dir.flatten() {
        let path = item.path();
        let Ok(meta) = item.metadata() else { continue };
        let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        let name = item.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".tmp") {
            if now
                .duration_since(used)
                .is_ok_and(|age| age > STALE_TEMPORARY)
            {
                let _ = std::fs::remove_file(&path);
            }
        } else if name.ends_with(".json") && meta.is_file() {
            entries.push((used, meta.len(), path));
        }
    }
    let mut bytes: u64 = entries.iter().map(|e| e.1).sum();
    if entries.len() <= max_entries && bytes <= max_bytes {
        return;
    }
    entries.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut count = entries.len();
    while count > max_entries || bytes > max_bytes {
        let Some((_, len, path)) = entries.pop() else {
            break;
        };
        let _ = std::fs::remove_file(&path);
        count -= 1;
        bytes -= len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceMap;

    const SRC: &str = "package t;\nimport cajeta.xpu.*;\npublic final class A {\n    @Kernel\n    public static void k(KernelBuffer<float32> b) { b[0] = 1.0f; }\n}\n";

    /// An empty cache folder named after `tag`, and `SRC`'s module, options and key.
    fn fresh_cache(tag: &str) -> (PathBuf, ir::Module, SpirvOptions, String) {
        let dir = std::env::temp_dir().join(format!("cajeta-ccache-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let files = vec![("a.cajeta".to_string(), SRC.to_string())];
        let opts = SpirvOptions::default();
        let key = compile_key(&files, &opts, None, None);
        let mut sources = SourceMap::new();
        let module =
            super::super::frontend(&mut sources, &files).unwrap_or_else(|_| panic!("frontend"));
        (dir, module, opts, key)
    }

    #[test]
    fn a_second_compile_of_the_same_sources_is_a_hit_and_equal() {
        let (dir, module, opts, key) = fresh_cache("hit");
        let (first, hit) = compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
        assert!(!hit);
        assert_eq!(first.len(), 1);
        let (second, hit) = compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
        assert!(hit);
        assert_eq!(second[0].0, first[0].0);
        assert_eq!(second[0].1.words, first[0].1.words);
        assert_eq!(second[0].1.reflection, first[0].1.reflection);
        // Other sources, another key; a corrupt entry is a miss.
        let other = vec![("a.cajeta".to_string(), SRC.replace("1.0f", "2.0f"))];
        assert_ne!(compile_key(&other, &opts, None, None), key);
        std::fs::write(entry_path(&dir, &key), b"{").unwrap();
        let (_, hit) = compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
        assert!(!hit);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn entry_at(dir: &Path, name: &str, bytes: usize, age_secs: u64) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, vec![b'x'; bytes]).unwrap();
        set_last_used(&path, SystemTime::now() - Duration::from_secs(age_secs)).unwrap();
        path
    }

    #[test]
    fn eviction_removes_the_least_recently_used_entries_and_stale_temporaries() {
        let dir = std::env::temp_dir().join(format!("cajeta-ccache-evict-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Six entries, the oldest first; a fresh and a stale temporary file.
        let entries: Vec<PathBuf> = (0..6)
            .map(|i| entry_at(&dir, &format!("e{i}.json"), 100, 600 - i * 100))
            .collect();
        let fresh_tmp = entry_at(&dir, ".k.1.tmp", 10, 5);
        let stale_tmp = entry_at(&dir, ".k.2.tmp", 10, 7200);
        // By count: the two oldest go.
        evict(&dir, 4, u64::MAX);
        let kept: Vec<bool> = entries.iter().map(|p| p.exists()).collect();
        assert_eq!(kept, [false, false, true, true, true, true]);
        assert!(fresh_tmp.exists() && !stale_tmp.exists());
        // By size: 400 bytes left, at most 250 allowed, so the two oldest of those go.
        evict(&dir, 100, 250);
        let kept: Vec<bool> = entries.iter().map(|p| p.exists()).collect();
        assert_eq!(kept, [false, false, false, false, true, true]);
        // Within both limits nothing goes.
        evict(&dir, 2, 200);
        assert!(entries[4].exists() && entries[5].exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_hit_marks_its_entry_recently_used() {
        let (dir, module, opts, key) = fresh_cache("lru");
        compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
        let path = entry_path(&dir, &key);
        let old = SystemTime::now() - Duration::from_secs(3600);
        set_last_used(&path, old).unwrap();
        let (_, hit) = compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
        assert!(hit);
        let used = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert!(used > old + Duration::from_secs(1800));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
