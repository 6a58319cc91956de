//! Splits the SPIR-V module of a batch of kernels (`batch.rs`: one LLVM module, one entry
//! point per kernel) into one stand-alone module per kernel: its entry point, the functions
//! it calls, and the types, constants, globals, decorations and names those use, with ids
//! renumbered in order of first appearance (so a kernel's module does not depend on how
//! many ids the other kernels of its batch took). The names `emit::parse_batch` prefixed
//! are given back their own.
//!
//! Capabilities: the batch's module declares the union of its kernels'. Those that follow
//! from a type (`Int8`, `Int16`, `Int64`, `Float16`, `Float64`) go to the kernels whose
//! module has the type; `Shader` to all, and `Linkage` too (the post-pass removes it from a
//! module left with no linkage, as from a kernel's own). Any other capability, and any
//! extension, cannot be
//! told apart here, so such a batch is refused ([`split`] returns an error) and its kernels
//! are emitted one by one: a module never declares what its kernel does not need.

use rspirv::dr::{Function, Instruction, Module, Operand};
use rspirv::spirv::{Capability, Op, Word};

use super::emit::BATCH_PREFIX;

/// The module of each of `kernels` (their names, in batch order) out of the batch's `words`.
pub(crate) fn split(words: &[u32], kernels: &[&str]) -> Result<Vec<Module>, String> {
    let m = rspirv::dr::load_words(words).map_err(|e| format!("{e:?}"))?;
    let bound = m.header.as_ref().map_or(0, |h| h.bound) as usize;
    if !m.extensions.is_empty() {
        return Err("the batch's module has extensions".into());
    }
    for c in &m.capabilities {
        if let Some(Operand::Capability(c)) = c.operands.first() {
            if !matches!(c, Capability::Shader | Capability::Linkage) && width_of(*c).is_none() {
                return Err(format!("the batch's module has capability {c:?}"));
            }
        }
    }
    if m.annotations
        .iter()
        .any(|a| matches!(a.class.opcode, Op::DecorationGroup | Op::GroupDecorate))
    {
        return Err("the batch's module has decoration groups".into());
    }
    // By id: ids are dense, below the header's bound.
    let mut globals: Vec<Option<&Instruction>> = vec![None; bound];
    for i in m
        .types_global_values
        .iter()
        .chain(&m.ext_inst_imports)
        .chain(&m.debug_string_source)
    {
        if let Some(slot) = i.result_id.and_then(|id| globals.get_mut(id as usize)) {
            *slot = Some(i);
        }
    }
    let mut functions: Vec<Option<&Function>> = vec![None; bound];
    for f in &m.functions {
        let id = f.def.as_ref().and_then(|d| d.result_id);
        if let Some(slot) = id.and_then(|id| functions.get_mut(id as usize)) {
            *slot = Some(f);
        }
    }
    kernels
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let prefixed = format!("{BATCH_PREFIX}{i}.{name}");
            one(&m, &globals, &functions, &prefixed)
        })
        .collect()
}

/// The type a width capability follows from: (float?, bits).
fn width_of(c: Capability) -> Option<(bool, u32)> {
    Some(match c {
        Capability::Int8 => (false, 8),
        Capability::Int16 => (false, 16),
        Capability::Int64 => (false, 64),
        Capability::Float16 => (true, 16),
        Capability::Float64 => (true, 64),
        _ => return None,
    })
}

/// Every id `inst` names (its result type and id operands).
fn ids_of(inst: &Instruction) -> impl Iterator<Item = Word> + '_ {
    inst.result_type
        .into_iter()
        .chain(inst.operands.iter().filter_map(Operand::id_ref_any))
}

/// The module of the kernel whose entry point is named `prefixed` in the batch's module.
fn one(
    m: &Module,
    globals: &[Option<&Instruction>],
    functions: &[Option<&Function>],
    prefixed: &str,
) -> Result<Module, String> {
    let entry = m
        .entry_points
        .iter()
        .find(|e| matches!(e.operands.get(2), Some(Operand::LiteralString(s)) if s == prefixed))
        .ok_or_else(|| format!("no entry point `{prefixed}` in the batch's module"))?;
    let Some(Operand::IdRef(entry_fn)) = entry.operands.get(1) else {
        return Err("an entry point without its function".into());
    };
    // The functions the entry point calls, transitively.
    let mut kept_fns = Ids::new(functions.len());
    kept_fns.insert(*entry_fn);
    let mut work = vec![*entry_fn];
    let mut needed = Ids::new(globals.len());
    while let Some(id) = work.pop() {
        let f = functions
            .get(id as usize)
            .copied()
            .flatten()
            .ok_or_else(|| format!("no function %{id} in the batch's module"))?;
        for inst in f.all_inst_iter() {
            needed.extend(inst.result_id.into_iter().chain(ids_of(inst)));
            if inst.class.opcode == Op::FunctionCall {
                if let Some(Operand::IdRef(callee)) = inst.operands.first() {
                    if kept_fns.insert(*callee) {
                        work.push(*callee);
                    }
                }
            }
        }
    }
    let modes: Vec<&Instruction> = m
        .execution_modes
        .iter()
        .filter(|e| e.operands.first() == Some(&Operand::IdRef(*entry_fn)))
        .collect();
    // A mode may name constants (`LocalSizeId`).
    needed.extend(modes.iter().flat_map(|e| ids_of(e)));
    // What those name at module scope, with what that names, and what decorations of
    // kept ids name (to a fixed point: a decoration may name a constant).
    let mut work: Vec<Word> = needed.iter().collect();
    loop {
        while let Some(id) = work.pop() {
            if let Some(inst) = globals.get(id as usize).copied().flatten() {
                for used in ids_of(inst) {
                    if needed.insert(used) {
                        work.push(used);
                    }
                }
            }
        }
        for a in &m.annotations {
            let target = a.operands.first().and_then(Operand::id_ref_any);
            if target.is_some_and(|t| needed.contains(t)) {
                for used in a.operands.iter().skip(1).filter_map(Operand::id_ref_any) {
                    if needed.insert(used) {
                        work.push(used);
                    }
                }
            }
        }
        if work.is_empty() {
            break;
        }
    }
    let keep = |i: &Instruction| i.result_id.is_none_or(|id| needed.contains(id));
    let targets_kept = |i: &Instruction| {
        i.operands
            .first()
            .and_then(Operand::id_ref_any)
            .is_some_and(|t| needed.contains(t))
    };
    let widths: Vec<(bool, u32)> = m
        .types_global_values
        .iter()
        .filter(|t| t.result_id.is_some_and(|id| needed.contains(id)))
        .filter_map(|t| match (t.class.opcode, t.operands.first()) {
            (Op::TypeInt, Some(Operand::LiteralBit32(w))) => Some((false, *w)),
            (Op::TypeFloat, Some(Operand::LiteralBit32(w))) => Some((true, *w)),
            _ => None,
        })
        .collect();
    // The instructions of one of the module's sections that the kernel's part keeps.
    let kept = |list: &[Instruction], pred: &dyn Fn(&Instruction) -> bool| -> Vec<Instruction> {
        list.iter().filter(|i| pred(i)).cloned().collect()
    };
    let mut k = Module::new();
    k.header = m.header.clone();
    k.capabilities = m
        .capabilities
        .iter()
        .filter(|c| match c.operands.first() {
            Some(Operand::Capability(c)) => width_of(*c).is_none_or(|w| widths.contains(&w)),
            _ => true,
        })
        .cloned()
        .collect();
    k.ext_inst_imports = kept(&m.ext_inst_imports, &keep);
    k.memory_model = m.memory_model.clone();
    let mut entry = entry.clone();
    // The interface: the kept globals only (LLVM may list every global of the module).
    entry.operands.retain(|o| match o {
        Operand::IdRef(id) if id != entry_fn => needed.contains(*id),
        _ => true,
    });
    k.entry_points = vec![entry];
    k.execution_modes = modes.into_iter().cloned().collect();
    k.debug_string_source = kept(&m.debug_string_source, &keep);
    k.debug_names = kept(&m.debug_names, &targets_kept);
    k.debug_module_processed = m.debug_module_processed.clone();
    k.annotations = kept(&m.annotations, &targets_kept);
    k.types_global_values = kept(&m.types_global_values, &keep);
    k.functions = m
        .functions
        .iter()
        .filter(|f| {
            f.def
                .as_ref()
                .and_then(|d| d.result_id)
                .is_some_and(|id| kept_fns.contains(id))
        })
        .cloned()
        .collect();
    for inst in k.all_inst_iter_mut() {
        for o in &mut inst.operands {
            if let Operand::LiteralString(s) = o {
                if let Some(own) = unprefixed(s) {
                    *s = own.to_string();
                }
            }
        }
    }
    renumber(&mut k);
    Ok(k)
}

/// A set of ids (dense, below the module's bound).
struct Ids(Vec<bool>);

impl Ids {
    fn new(bound: usize) -> Self {
        Ids(vec![false; bound])
    }

    /// Adds `id`; whether it was new. An id past the bound (a malformed module) grows the
    /// set rather than being lost.
    fn insert(&mut self, id: Word) -> bool {
        let i = id as usize;
        if i >= self.0.len() {
            self.0.resize(i + 1, false);
        }
        !std::mem::replace(&mut self.0[i], true)
    }

    fn extend(&mut self, ids: impl Iterator<Item = Word>) {
        for id in ids {
            self.insert(id);
        }
    }

    fn contains(&self, id: Word) -> bool {
        self.0.get(id as usize).copied().unwrap_or(false)
    }

    fn iter(&self) -> impl Iterator<Item = Word> + '_ {
        (0..self.0.len() as Word).filter(|&i| self.0[i as usize])
    }
}

/// `name` without a batch prefix (`cjb<digits>.`), when it has one. Any batch index: LLVM
/// may merge two kernels' equal constants into one named for either.
fn unprefixed(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(BATCH_PREFIX)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then_some(())?;
    rest[digits..].strip_prefix('.')
}

/// Renumbers `k`'s ids from 1 in order of first appearance and sets its bound.
fn renumber(k: &mut Module) {
    let bound = k.header.as_ref().map_or(0, |h| h.bound) as usize;
    // 0: not numbered yet.
    let mut map: Vec<Word> = vec![0; bound];
    let mut next = 1;
    let mut new_id = |id: &mut Word| {
        let i = *id as usize;
        if i >= map.len() {
            map.resize(i + 1, 0);
        }
        if map[i] == 0 {
            map[i] = next;
            next += 1;
        }
        *id = map[i];
    };
    for inst in k.all_inst_iter_mut() {
        if let Some(t) = &mut inst.result_type {
            new_id(t);
        }
        if let Some(r) = &mut inst.result_id {
            new_id(r);
        }
        for o in &mut inst.operands {
            if let Some(id) = o.id_ref_any_mut() {
                new_id(id);
            }
        }
    }
    if let Some(h) = &mut k.header {
        h.bound = next;
    }
}
