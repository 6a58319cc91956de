//! The compile cache: compiled kernels (SPIR-V words and reflection) keyed by a hash of the
//! sources, the backend options, an optional device profile and the compiler binary itself,
//! so `cajetac run` of an unchanged program skips the SPIR-V backend. (Parsing and checking
//! still run: the host interpreter needs the IR.)
//!
//! Entries live in `<cache dir>/kernels/<key>.json` (`CAJETA_CACHE_DIR`, see
//! `cajeta_runtime::cache_dir_from_env`; caching is off when that is `off` or empty). A
//! missing, unreadable or mismatching entry is a miss, never an error; writes go through a
//! temporary file and a rename.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::backend::spirv::{CompiledKernel, SpirvOptions};
use crate::diagnostics::Diagnostic;
use crate::ir::{self, FunctionId};

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
            let kernels = entry
                .kernels
                .into_iter()
                .map(|k| {
                    (
                        FunctionId(k.function),
                        CompiledKernel {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceMap;

    const SRC: &str = "package t;\nimport cajeta.xpu.*;\npublic final class A {\n    @Kernel\n    public static void k(KernelBuffer<float32> b) { b[0] = 1.0f; }\n}\n";

    #[test]
    fn a_second_compile_of_the_same_sources_is_a_hit_and_equal() {
        let dir = std::env::temp_dir().join(format!("cajeta-ccache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let files = vec![("a.cajeta".to_string(), SRC.to_string())];
        let opts = SpirvOptions::default();
        let key = compile_key(&files, &opts, None, None);
        let mut sources = SourceMap::new();
        let module =
            super::super::frontend(&mut sources, &files).unwrap_or_else(|_| panic!("frontend"));
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
}
