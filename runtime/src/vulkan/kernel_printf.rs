//! Printing from kernels (`NonSemantic.DebugPrintf`, GLSL's `debugPrintfEXT`).
//!
//! The Khronos validation layer services the instruction: with
//! `VK_VALIDATION_FEATURE_ENABLE_DEBUG_PRINTF_EXT` it rewrites each printing shader to write
//! its values to a buffer of its own and, when the host waits for the submission, formats
//! them and sends each message through the debug-utils messenger. The runtime turns the
//! layer on for printing only when [`crate::ContextOptions::kernel_printf`] asks for it
//! (its other checks off, so only the printing costs time), collects the messages in launch
//! order and hands them out through [`crate::Context::take_kernel_output`].
//!
//! Without the layer (it is a development package: drivers do not ship it), or with
//! printing off, every printing kernel is loaded with its printf instructions removed: it
//! runs exactly as it would without them, and the first such kernel makes the runtime warn
//! once on standard error.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// The message id the layer gives printf output.
pub(crate) const PRINTF_MESSAGE_ID: &str = "UNASSIGNED-DEBUG-PRINTF";

/// Whether kernel printing works in a context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelPrintf {
    /// Not asked for: printing kernels run with their printing removed.
    Off,
    /// The validation layer's debug printf is on; messages are collected.
    Active,
    /// Asked for but not possible (the reason); printing kernels run with it removed.
    Unavailable(String),
}

/// Printf output collected by the messenger callback, and the one-time warning state.
#[derive(Debug, Default)]
pub(crate) struct PrintfSink {
    messages: Mutex<Vec<String>>,
    warned: AtomicBool,
}

impl PrintfSink {
    /// Stores one message: the text of one printf call, its final newline removed.
    pub(crate) fn push(&self, message: &str) {
        let text = message_text(message);
        let text = text.strip_suffix('\n').unwrap_or(text);
        crate::lock(&self.messages).push(text.to_string());
    }

    /// Every message collected since the previous call, oldest first.
    pub(crate) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *crate::lock(&self.messages))
    }

    /// Warns on standard error, once per context, that `kernel`'s printing is dropped.
    pub(crate) fn warn_dropped(&self, kernel: &str, state: &KernelPrintf) {
        if self.warned.swap(true, Ordering::Relaxed) {
            return;
        }
        let why = match state {
            KernelPrintf::Unavailable(why) => why.clone(),
            _ => "kernel printing is off (ContextOptions::kernel_printf, CAJETA_KERNEL_PRINTF)"
                .to_string(),
        };
        eprintln!(
            "warning: kernel `{kernel}` prints (System.out.printf), but its output is dropped: {why}"
        );
    }
}

/// The printf buffer the runtime asks the layer for. The layer's default, 1024 bytes,
/// holds about twenty messages per launch; 1 MiB (its maximum) some twenty thousand.
const PRINTF_BUFFER_BYTES: u32 = 1 << 20;

/// Points the layer at a settings file asking for [`PRINTF_BUFFER_BYTES`], unless the user
/// set `VK_LAYER_SETTINGS_PATH` already. Layer 1.3.239 takes the setting only from such a
/// file (`VK_EXT_layer_settings` is newer), and reads it once per process, when the first
/// instance with the layer is created, printing or not: so every instance with the layer
/// calls this first. The caller holds `DRIVER_SERIAL`, so no instance or device creation
/// (whose loader and driver read the environment) runs meanwhile.
pub(crate) fn configure_layer() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        if std::env::var_os("VK_LAYER_SETTINGS_PATH").is_some() {
            return;
        }
        // One file for every run (same contents), written under a private name and renamed
        // into place so that concurrent runs never see half of it.
        let dir = std::env::temp_dir().join("cajeta-vk-layer-settings");
        let file = dir.join("vk_layer_settings.txt");
        let part = dir.join(format!("vk_layer_settings.{}.part", std::process::id()));
        let text = format!("khronos_validation.printf_buffer_size = {PRINTF_BUFFER_BYTES}\n");
        let written = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&part, text))
            .and_then(|()| std::fs::rename(&part, &file));
        if written.is_ok() {
            std::env::set_var("VK_LAYER_SETTINGS_PATH", &file);
        } else {
            let _ = std::fs::remove_file(&part);
        }
    });
}

/// The formatted text of a printf message. The layer prefixes some messages with
/// `Validation Information: [ UNASSIGNED-DEBUG-PRINTF ] … | MessageID = 0x… | `; the text
/// the kernel printed follows the last such separator.
fn message_text(message: &str) -> &str {
    match message.rfind("| MessageID = ") {
        Some(at) => {
            let rest = &message[at..];
            match rest.find(" | ") {
                Some(sep) => &rest[sep + 3..],
                None => message,
            }
        }
        None => message,
    }
}

/// A module as the device gets it: without active printing, a printing kernel loses its
/// printf instructions (with the one-time warning). The flag says whether the module's
/// `SPV_KHR_non_semantic_info` needs nothing from the device: the instructions were removed
/// here, or the layer consumes them.
pub(crate) fn for_device(
    instance: &crate::instance::InstanceHandle,
    spirv: &[u32],
    kernel: &str,
) -> (Option<Vec<u32>>, bool) {
    let state = &instance.printf_state;
    if *state == KernelPrintf::Active {
        return (None, kernel_prints(spirv));
    }
    let stripped = strip_printf(spirv);
    if stripped.is_some() {
        instance.sink.printf.warn_dropped(kernel, state);
    }
    let handled = stripped.is_some();
    (stripped, handled)
}

/// Opcodes and the literal string reader needed to find the printf instructions.
const OP_EXTENSION: u32 = 10;
const OP_EXT_INST_IMPORT: u32 = 11;
const OP_EXT_INST: u32 = 12;
const DEBUG_PRINTF_SET: &str = "NonSemantic.DebugPrintf";
const NON_SEMANTIC_EXTENSION: &str = "SPV_KHR_non_semantic_info";

/// The nul-terminated string packed in `words` (SPIR-V literal string encoding).
fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The instructions of a module after its 5-word header: `(start, opcode, word count)`;
/// stops at a malformed word count (the loader's own checks report such modules).
fn instructions(spirv: &[u32]) -> Vec<(usize, u32, usize)> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < spirv.len() {
        let count = (spirv[at] >> 16) as usize;
        if count == 0 || at + count > spirv.len() {
            break;
        }
        out.push((at, spirv[at] & 0xffff, count));
        at += count;
    }
    out
}

/// The result id of the module's `NonSemantic.DebugPrintf` import, if it prints.
fn printf_set(spirv: &[u32]) -> Option<u32> {
    instructions(spirv)
        .into_iter()
        .find(|&(at, op, count)| {
            op == OP_EXT_INST_IMPORT
                && count > 2
                && literal_string(&spirv[at + 2..at + count]) == DEBUG_PRINTF_SET
        })
        .map(|(at, _, _)| spirv[at + 1])
}

/// Whether a SPIR-V module prints (imports `NonSemantic.DebugPrintf`).
pub fn kernel_prints(spirv: &[u32]) -> bool {
    printf_set(spirv).is_some()
}

/// The module without its printing: the `NonSemantic.DebugPrintf` import, every
/// instruction of that set (their `void` results are never used) and, when no other
/// non-semantic set is left, the `SPV_KHR_non_semantic_info` extension. `None` when the
/// module does not print.
pub(crate) fn strip_printf(spirv: &[u32]) -> Option<Vec<u32>> {
    let set = printf_set(spirv)?;
    let insts = instructions(spirv);
    let other_non_semantic = insts.iter().any(|&(at, op, count)| {
        op == OP_EXT_INST_IMPORT
            && spirv[at + 1] != set
            && literal_string(&spirv[at + 2..at + count]).starts_with("NonSemantic.")
    });
    let mut out = spirv[..5].to_vec();
    for (at, op, count) in insts {
        let words = &spirv[at..at + count];
        let drop = match op {
            OP_EXT_INST_IMPORT => words[1] == set,
            OP_EXT_INST => count > 3 && words[3] == set,
            OP_EXTENSION => {
                !other_non_semantic && literal_string(&words[1..]) == NON_SEMANTIC_EXTENSION
            }
            _ => false,
        };
        if !drop {
            out.extend_from_slice(words);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string_words(s: &str) -> Vec<u32> {
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        while !bytes.len().is_multiple_of(4) {
            bytes.push(0);
        }
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn inst(op: u32, operands: &[u32]) -> Vec<u32> {
        let mut w = vec![((operands.len() as u32 + 1) << 16) | op];
        w.extend_from_slice(operands);
        w
    }

    /// Header, `OpExtension`, the import as %7, one printf (result %9, format %8), and an
    /// unrelated `OpNop`.
    fn module() -> Vec<u32> {
        let mut m = vec![0x0723_0203, 0x0001_0300, 0, 20, 0];
        m.extend(inst(OP_EXTENSION, &string_words(NON_SEMANTIC_EXTENSION)));
        let mut import = vec![7];
        import.extend(string_words(DEBUG_PRINTF_SET));
        m.extend(inst(OP_EXT_INST_IMPORT, &import));
        m.extend(inst(OP_EXT_INST, &[2, 9, 7, 1, 8]));
        m.extend(inst(0, &[]));
        m
    }

    #[test]
    fn stripping_removes_exactly_the_printf_instructions() {
        let m = module();
        assert!(kernel_prints(&m));
        let stripped = strip_printf(&m).expect("prints");
        let mut expected = m[..5].to_vec();
        expected.extend(inst(0, &[]));
        assert_eq!(stripped, expected);
        assert!(!kernel_prints(&stripped));
        assert_eq!(strip_printf(&stripped), None);
    }

    #[test]
    fn message_text_drops_the_layer_prefix() {
        let full = "Validation Information: [ UNASSIGNED-DEBUG-PRINTF ] Object 0: handle = 0x1, type = VK_OBJECT_TYPE_QUEUE; | MessageID = 0x92394c89 | k=3 x=1.5";
        assert_eq!(message_text(full), "k=3 x=1.5");
        assert_eq!(message_text("k=3 | x"), "k=3 | x");
    }
}
