//! The hand-written GLSL twins of the example kernels (`bench/glsl/*.comp`, embedded in the
//! binary), turned into SPIR-V at bench time with `glslangValidator -V` (and `spirv-opt -O`
//! when it is installed), or read from a directory of modules built beforehand
//! (`--build-spv DIR` here, `--spv-dir DIR` on a machine without the tools).
//!
//! The GLSL modules are launched with cajetac's reflection document of the same kernel, so
//! before that [`check_interface`] reads the module's entry point, descriptor bindings and
//! push-constant offsets and insists they are what the reflection says.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use cajeta_runtime::{DescriptorType, Reflection};

/// One GLSL kernel: the entry-point name it gets (cajetac's kernel name) and its source.
pub struct GlslKernel {
    /// Kernel name, equal to the Cajeta kernel's (and the SPIR-V entry point's).
    pub name: &'static str,
    /// Source file name under `bench/glsl/`.
    pub file: &'static str,
    /// The GLSL text.
    pub source: &'static str,
}

/// Every GLSL twin the benchmark uses.
pub const KERNELS: &[GlslKernel] = &[
    GlslKernel {
        name: "blurX",
        file: "blur_x.comp",
        source: include_str!("../../../glsl/blur_x.comp"),
    },
    GlslKernel {
        name: "blurY",
        file: "blur_y.comp",
        source: include_str!("../../../glsl/blur_y.comp"),
    },
    GlslKernel {
        name: "blockSum",
        file: "block_sum.comp",
        source: include_str!("../../../glsl/block_sum.comp"),
    },
    GlslKernel {
        name: "sgemm",
        file: "sgemm.comp",
        source: include_str!("../../../glsl/sgemm.comp"),
    },
];

/// SPIR-V of the GLSL kernels, by kernel name: `-V` output, and `-V` + `spirv-opt -O` when
/// that tool (or a pre-built `.opt.spv`) was available.
pub struct GlslModules {
    /// `glslangValidator -V` modules.
    pub plain: HashMap<String, Vec<u32>>,
    /// The same after `spirv-opt -O`, if available.
    pub opt: Option<HashMap<String, Vec<u32>>>,
    /// Tool versions, one line each (for the report).
    pub tools: String,
}

fn tool(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_string())
}

fn first_line(cmd: &str, arg: &str) -> Option<String> {
    let out = Command::new(cmd).arg(arg).output().ok()?;
    // spirv-opt prints its version on stderr, glslangValidator on stdout.
    let mut text = String::from_utf8_lossy(&out.stdout).to_string();
    text += &String::from_utf8_lossy(&out.stderr);
    text.lines().next().map(|l| l.trim().to_string())
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e} (install it or pass --spv-dir DIR)"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// Compiles every GLSL kernel into `dir` as `NAME.glslang.spv` and, when `spirv-opt` runs,
/// `NAME.opt.spv`; writes the tool versions to `dir/tools.txt`. Tools come from `$GLSLANG`
/// (default `glslangValidator`) and `$SPIRV_OPT` (default `spirv-opt`).
pub fn build_into(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let glslang = tool("GLSLANG", "glslangValidator");
    let opt = tool("SPIRV_OPT", "spirv-opt");
    let opt_version = first_line(&opt, "--version");
    let mut tools = format!(
        "{}\n",
        first_line(&glslang, "--version").unwrap_or_else(|| "glslangValidator".into())
    );
    for k in KERNELS {
        let src = dir.join(k.file);
        std::fs::write(&src, k.source)
            .map_err(|e| format!("cannot write {}: {e}", src.display()))?;
        let plain = dir.join(format!("{}.glslang.spv", k.name));
        // `-e NAME --source-entrypoint main` names the entry point like cajetac's kernel, so
        // the reflection document (and the runtime's profile, keyed by it) fits unchanged.
        run(
            Command::new(&glslang)
                .args(["-V", "--target-env", "vulkan1.1", "-e", k.name])
                .args(["--source-entrypoint", "main", "-o"])
                .arg(&plain)
                .arg(&src),
            &format!("{glslang} on {}", k.file),
        )?;
        if opt_version.is_some() {
            let o = dir.join(format!("{}.opt.spv", k.name));
            run(
                Command::new(&opt).arg("-O").arg(&plain).arg("-o").arg(&o),
                &format!("{opt} -O on {}", k.file),
            )?;
        }
    }
    if let Some(v) = &opt_version {
        tools += &format!("{v} (spirv-opt -O)\n");
    }
    let path = dir.join("tools.txt");
    std::fs::write(&path, &tools).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn read_words(path: &Path) -> Result<Vec<u32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() % 4 != 0 || bytes.len() < 20 {
        return Err(format!("{} is not a SPIR-V module", path.display()));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Loads the modules [`build_into`] wrote into `dir` (the `.opt.spv` set only if complete).
pub fn load_from(dir: &Path) -> Result<GlslModules, String> {
    let mut plain = HashMap::new();
    let mut opt = HashMap::new();
    for k in KERNELS {
        let p = dir.join(format!("{}.glslang.spv", k.name));
        plain.insert(k.name.to_string(), read_words(&p)?);
        let o = dir.join(format!("{}.opt.spv", k.name));
        if o.exists() {
            opt.insert(k.name.to_string(), read_words(&o)?);
        }
    }
    let tools = std::fs::read_to_string(dir.join("tools.txt")).unwrap_or_default();
    let opt = (opt.len() == KERNELS.len()).then_some(opt);
    Ok(GlslModules { plain, opt, tools })
}

/// Compiles the GLSL now (into a fresh temporary directory) and loads the result.
pub fn compile_now() -> Result<GlslModules, String> {
    let dir: PathBuf = std::env::temp_dir().join(format!("cajeta-kspeed-{}", std::process::id()));
    build_into(&dir)?;
    let m = load_from(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    m
}

const OP_ENTRY_POINT: u32 = 15;
const OP_TYPE_IMAGE: u32 = 25;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
const DEC_BINDING: u32 = 33;
const DEC_DESCRIPTOR_SET: u32 = 34;
const DEC_OFFSET: u32 = 35;
const SC_PUSH_CONSTANT: u32 = 9;

/// What a module's interface looks like, as far as the launch cares.
#[derive(Debug, Default, PartialEq)]
struct Interface {
    entry: String,
    /// (set, binding, descriptor type, storage-image format as SPIR-V's number).
    bindings: Vec<(u32, u32, DescriptorType, u32)>,
    push_offsets: Vec<u32>,
}

fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

fn interface(words: &[u32]) -> Result<Interface, String> {
    let mut pointers = HashMap::new(); // pointer id -> pointee
    let mut images = HashMap::new(); // image type id -> (sampled, format)
    let mut structs = Vec::new();
    let mut decor: HashMap<(u32, u32), u32> = HashMap::new();
    let mut offsets: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    let mut vars = Vec::new(); // (id, pointer type, storage class)
    let mut entry = String::new();
    let mut i = 5;
    while i < words.len() {
        let (count, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if count == 0 || i + count > words.len() {
            return Err("malformed SPIR-V instruction stream".into());
        }
        let w = &words[i + 1..i + count];
        match op {
            OP_ENTRY_POINT if w.len() >= 3 => entry = literal_string(&w[2..]),
            OP_TYPE_IMAGE if w.len() >= 8 => {
                images.insert(w[0], (w[6], w[7]));
            }
            OP_TYPE_STRUCT if !w.is_empty() => structs.push(w[0]),
            OP_TYPE_POINTER if w.len() >= 3 => {
                pointers.insert(w[0], w[2]);
            }
            OP_VARIABLE if w.len() >= 3 => vars.push((w[1], w[0], w[2])),
            OP_DECORATE if w.len() >= 3 => {
                decor.insert((w[0], w[1]), w[2]);
            }
            OP_MEMBER_DECORATE if w.len() >= 4 && w[2] == DEC_OFFSET => {
                offsets.entry(w[0]).or_default().push((w[1], w[3]));
            }
            _ => {}
        }
        i += count;
    }
    let mut out = Interface {
        entry,
        ..Interface::default()
    };
    for (id, ptr, class) in vars {
        let pointee = pointers.get(&ptr).copied().unwrap_or(0);
        if class == SC_PUSH_CONSTANT {
            let mut o = offsets.get(&pointee).cloned().unwrap_or_default();
            o.sort();
            out.push_offsets = o.into_iter().map(|(_, off)| off).collect();
            continue;
        }
        let (Some(&set), Some(&binding)) = (
            decor.get(&(id, DEC_DESCRIPTOR_SET)),
            decor.get(&(id, DEC_BINDING)),
        ) else {
            continue;
        };
        let (ty, format) = match images.get(&pointee) {
            Some(&(1, _)) => (DescriptorType::SampledImage, 0),
            Some(&(_, format)) => (DescriptorType::StorageImage, format),
            None if structs.contains(&pointee) => (DescriptorType::StorageBuffer, 0),
            None => return Err(format!("binding {binding}: an unexpected resource type")),
        };
        out.bindings.push((set, binding, ty, format));
    }
    out.bindings.sort_by_key(|b| (b.0, b.1));
    Ok(out)
}

/// SPIR-V's image-format number for a reflection format name (only those the kernels use).
fn spirv_format(name: Option<&str>) -> u32 {
    match name {
        Some("rgba32f") => 1,
        Some("r32f") => 3,
        _ => u32::MAX,
    }
}

/// Checks that `words` has the entry point, bindings (set, binding, kind, storage-image
/// format) and push-constant offsets `reflection` describes.
pub fn check_interface(words: &[u32], reflection: &Reflection) -> Result<(), String> {
    let got = interface(words)?;
    let mut want = Interface {
        entry: reflection.entry_point.clone(),
        bindings: reflection
            .bindings
            .iter()
            .map(|b| {
                let format = match b.descriptor_type {
                    DescriptorType::StorageImage => spirv_format(b.image_format.as_deref()),
                    _ => 0,
                };
                (b.set, b.binding, b.descriptor_type, format)
            })
            .collect(),
        push_offsets: reflection
            .push_constants
            .members
            .iter()
            .map(|m| m.offset)
            .collect(),
    };
    want.bindings.sort_by_key(|b| (b.0, b.1));
    if got != want {
        return Err(format!(
            "the GLSL module's interface differs from cajetac's reflection of `{}`:\n  module:     {got:?}\n  reflection: {want:?}",
            reflection.entry_point
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cajetac's own module fits its reflection; a reflection with a binding moved, a
    /// different image format or another push-constant layout does not.
    #[test]
    fn interface_check_reads_bindings_formats_and_push_constants() {
        let ours = crate::compile_examples(false).unwrap();
        for name in ["blurX", "blurY", "blockSum", "sgemm"] {
            let (words, r) = &ours[name];
            check_interface(words, r).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let (words, r) = &ours["blurY"];
        let mut moved = r.clone();
        moved.bindings[1].binding = 5;
        assert!(check_interface(words, &moved).is_err());
        let mut format = r.clone();
        format.bindings[2].image_format = Some("rgba32f".into());
        assert!(check_interface(words, &format).is_err());
        let mut push = r.clone();
        push.push_constants.members[2].offset = 12;
        assert!(check_interface(words, &push).is_err());
        let mut entry = r.clone();
        entry.entry_point = "main".into();
        assert!(check_interface(words, &entry).is_err());
    }
}
