//! The compile cache: compiled kernels (SPIR-V words and reflection) keyed by a hash of the
//! sources, the backend options, an optional device profile and the compiler binary itself,
//! so `cajetac run` of an unchanged program skips the SPIR-V backend. (Parsing and checking
//! still run: the host interpreter needs the IR.)
//!
//! Entries live in `<cache dir>/kernels/<key>.json` (`CAJETA_CACHE_DIR`, see
//! `cajeta_runtime::cache_dir_from_env`; caching is off when that is `off` or empty). A
//! missing entry is a miss, never an error; writes go through a temporary file and a rename.
//!
//! An entry carries the compiler version that wrote it and an FNV-1a 64 checksum of its
//! contents (key, version, every kernel's words and reflection and its address variant), so
//! damage that still parses (a flipped bit in the SPIR-V words) is not handed to the driver: an
//! entry that does not verify is recompiled and replaced, with one line on stderr
//! ([`Lookup::Damaged`]).
//!
//! The folder is bounded: every rebuilt compiler and every edited program makes new keys, so
//! after each write the least recently used entries (a hit refreshes an entry's modification
//! time) are removed until at most [`MAX_ENTRIES`] entries and [`MAX_BYTES`] bytes remain,
//! with leftover temporary files of crashed writers.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use cajeta_runtime::checksum::Fnv1a64;
use serde::{Deserialize, Serialize};

use crate::diagnostics::Diagnostic;
use crate::ir::{self, FunctionId};
use crate::kernel::spirv::{AddressVariant, CompiledKernel, SpirvOptions};

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    /// The version of the compiler that wrote the entry.
    compiler: String,
    kernels: Vec<CachedKernel>,
    /// [`Entry::checksum`] of the fields above, in hexadecimal.
    checksum: String,
}

impl Entry {
    /// FNV-1a 64 over every field but `checksum`, each part preceded by its length so that
    /// bytes cannot move from one part to the next unnoticed. Reflections go in as their JSON
    /// (deterministic: structs, vectors and integers only).
    fn checksum(&self) -> String {
        fn part(h: Fnv1a64, bytes: &[u8]) -> Fnv1a64 {
            h.update(&(bytes.len() as u64).to_le_bytes()).update(bytes)
        }
        fn words(h: Fnv1a64, words: &[u32]) -> Fnv1a64 {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            part(h, &bytes)
        }
        fn reflection(h: Fnv1a64, r: &cajeta_runtime::Reflection) -> Fnv1a64 {
            part(h, &serde_json::to_vec(r).unwrap_or_default())
        }
        let mut h = part(Fnv1a64::new(), self.key.as_bytes());
        h = part(h, self.compiler.as_bytes());
        for k in &self.kernels {
            h = part(h, &(k.function as u64).to_le_bytes());
            h = part(h, k.name.as_bytes());
            h = words(h, &k.words);
            h = reflection(h, &k.reflection);
            match &k.by_address {
                Some((w, r)) => h = reflection(words(h.update(&[1]), w), r),
                None => h = h.update(&[0]),
            }
            match &k.by_address_refused {
                Some(why) => h = part(h.update(&[1]), why.as_bytes()),
                None => h = h.update(&[0]),
            }
        }
        format!("{:016x}", h.finish())
    }
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

/// Where [`compile_kernels_cached`]'s kernels came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// From the cache.
    Hit,
    /// Compiled: no cache, or no entry for the key.
    Miss,
    /// Compiled: the entry did not verify (damaged, or not of this compiler's format or
    /// version); it was replaced, and a notice went to stderr.
    Damaged,
}

/// The entry under `key`: `Ok(None)` when there is none, `Err` when there is one that does
/// not verify.
fn read_entry(path: &Path, key: &str, module: &ir::Module) -> Result<Option<Entry>, ()> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(None);
    };
    let entry = serde_json::from_slice::<Entry>(&bytes).map_err(|_| ())?;
    let verifies = entry.key == key
        && entry.compiler == env!("CARGO_PKG_VERSION")
        && entry.checksum == entry.checksum()
        && entry.kernels.iter().all(|k| {
            module
                .functions
                .get(k.function)
                .is_some_and(|f| f.name == k.name)
        });
    if verifies {
        Ok(Some(entry))
    } else {
        Err(())
    }
}

/// Compiles like [`super::compile_kernels`], reusing a cached result under `key` from `dir`
/// (when given). Returns the kernels and where they came from. An entry that does not verify
/// is recompiled and replaced, with a one-line notice on stderr.
pub fn compile_kernels_cached(
    module: &ir::Module,
    options: &SpirvOptions,
    only: Option<&str>,
    dir: Option<&Path>,
    key: &str,
) -> Result<(Kernels, Lookup), Vec<Diagnostic>> {
    let mut lookup = Lookup::Miss;
    if let Some(dir) = dir {
        let path = entry_path(dir, key);
        let cached = read_entry(&path, key, module).unwrap_or_else(|()| {
            lookup = Lookup::Damaged;
            None
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
            return Ok((kernels, Lookup::Hit));
        }
    }
    let kernels = super::compile_kernels(module, options, only)?;
    if let Some(dir) = dir {
        store(dir, key, &kernels);
        if lookup == Lookup::Damaged {
            eprintln!(
                "note: compile cache entry {} did not verify; recompiled",
                entry_path(dir, key).display()
            );
        }
    }
    Ok((kernels, lookup))
}

/// Writes an entry (best effort: a failed write only costs a recompilation later).
fn store(dir: &Path, key: &str, kernels: &[(FunctionId, CompiledKernel)]) {
    let mut entry = Entry {
        key: key.to_string(),
        compiler: env!("CARGO_PKG_VERSION").to_string(),
        checksum: String::new(),
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
    entry.checksum = entry.checksum();
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
        assert_eq!(hit, Lookup::Miss);
        assert_eq!(first.len(), 1);
        let (second, hit) = compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
        assert_eq!(hit, Lookup::Hit);
        assert_eq!(second[0].0, first[0].0);
        assert_eq!(second[0].1.words, first[0].1.words);
        assert_eq!(second[0].1.reflection, first[0].1.reflection);
        // Other sources, another key; a corrupt entry is a miss.
        let other = vec![("a.cajeta".to_string(), SRC.replace("1.0f", "2.0f"))];
        assert_ne!(compile_key(&other, &opts, None, None), key);
        std::fs::write(entry_path(&dir, &key), b"{").unwrap();
        let (_, hit) = compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
        assert_eq!(hit, Lookup::Damaged);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Rewrites the entry under `key` with `damage` applied to its JSON.
    fn damage_entry(dir: &Path, key: &str, damage: impl FnOnce(&mut serde_json::Value)) {
        let path = entry_path(dir, key);
        let mut json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        damage(&mut json);
        std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    }

    #[test]
    fn an_entry_that_does_not_verify_is_recompiled_and_replaced() {
        let (dir, module, opts, key) = fresh_cache("verify");
        let (good, hit) = compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
        assert_eq!(hit, Lookup::Miss);
        let stored = std::fs::read(entry_path(&dir, &key)).unwrap();
        let flip_word = |j: &mut serde_json::Value| {
            let w = &mut j["kernels"][0]["words"][5];
            *w = (w.as_u64().unwrap() ^ 0x8000).into();
        };
        let flip_reflection = |j: &mut serde_json::Value| {
            j["kernels"][0]["reflection"]["entry_point"] = "x".into();
        };
        let older_compiler = |j: &mut serde_json::Value| j["compiler"] = "0.0.0".into();
        let no_checksum = |j: &mut serde_json::Value| {
            j.as_object_mut().unwrap().remove("checksum");
        };
        type Damage = Box<dyn Fn(&mut serde_json::Value)>;
        let damages: [(&str, Damage); 4] = [
            ("a flipped word", Box::new(flip_word)),
            ("a changed reflection", Box::new(flip_reflection)),
            ("another compiler version", Box::new(older_compiler)),
            ("no checksum (an older entry)", Box::new(no_checksum)),
        ];
        for (what, damage) in damages {
            damage_entry(&dir, &key, damage);
            let (again, hit) =
                compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
            assert_eq!(hit, Lookup::Damaged, "{what}");
            assert_eq!(again[0].1.words, good[0].1.words, "{what}: recompiled");
            // Replaced by what a fresh compile writes, and a hit from then on.
            assert_eq!(
                std::fs::read(entry_path(&dir, &key)).unwrap(),
                stored,
                "{what}"
            );
            let (_, hit) = compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
            assert_eq!(hit, Lookup::Hit, "{what}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_checksum_covers_the_address_variant() {
        let (dir, module, opts, key) = fresh_cache("variant");
        compile_kernels_cached(&module, &opts, None, Some(&dir), &key).unwrap();
        let path = entry_path(&dir, &key);
        let mut entry: Entry = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(entry.checksum, entry.checksum());
        let plain = entry.checksum();
        let k = entry.kernels[0].reflection.clone();
        entry.kernels[0].by_address = Some((vec![1, 2, 3], k.clone()));
        let with_variant = entry.checksum();
        assert_ne!(with_variant, plain);
        entry.kernels[0].by_address = Some((vec![1, 2, 4], k));
        assert_ne!(entry.checksum(), with_variant, "the variant's words");
        entry.kernels[0].by_address = None;
        entry.kernels[0].by_address_refused = Some("why".into());
        assert_ne!(entry.checksum(), plain, "the refusal");
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
        assert_eq!(hit, Lookup::Hit);
        let used = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert!(used > old + Duration::from_secs(1800));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
