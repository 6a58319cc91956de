//! Parallel code generation: the inlined module is cut into partitions of whole functions,
//! and each partition is optimized and compiled to an object file on a thread of its own,
//! in an LLVM context of its own (LLVM's contexts are not shared between threads; the
//! partitions travel as bitcode, as in LLVM's own `splitCodeGen`). [`super::orc`] links the
//! objects.
//!
//! Inlining is done before the cut, on the whole module, so a partition loses nothing the
//! optimizer would have done: what follows inlining is function-local. Every function and
//! global becomes an external (hidden) symbol first, so that each partition can refer to
//! what another defines; the globals (the unwinding flag, the call depth, string
//! constants) are defined by the first partition only.

use std::time::{Duration, Instant};

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetMachine};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{FunctionValue, GlobalValue};
use inkwell::OptimizationLevel;

/// Partitions at most: past this the largest function bounds the time anyway.
const MAX_PARTITIONS: usize = 8;

/// Instructions a partition should have at least: each costs a few milliseconds before its
/// first function (parsing the module, building the pass pipelines), so a small program
/// is compiled whole, on the calling thread. Counted after inlining, before the rest of
/// the optimization, which grows loops (vectorized bodies, epilogues): sgemm's 200
/// instructions at this point became 300 and took 31–40 ms of CPU on one thread on the
/// H200, past the 50 ms goal once with the device's creation beside it.
const MIN_PARTITION_WEIGHT: usize = 60;

/// Stack of a partition's thread: LLVM's code generator recurses over large functions.
const THREAD_STACK: usize = 64 << 20;

/// The functions each partition defines (names), the heaviest partition first.
pub type Plan = Vec<Vec<String>>;

/// A function's weight for partitioning: its instruction count (the code generator's time
/// grows with it), a quarter of it for an `optnone` function (the fast instruction
/// selector and no optimization: about a quarter of the time per instruction, measured).
fn weight(f: FunctionValue<'_>) -> usize {
    let instructions: usize = f
        .get_basic_block_iter()
        .map(|bb| bb.get_instructions().count())
        .sum();
    let optnone = Attribute::get_named_enum_kind_id("optnone");
    if f.get_enum_attribute(AttributeLoc::Function, optnone)
        .is_some()
    {
        instructions / 4
    } else {
        instructions
    }
}

/// Spreads the module's defined functions over at most `threads` partitions, heaviest first
/// onto the lightest partition (longest-processing-time order).
pub fn plan(module: &Module<'_>, threads: usize) -> Plan {
    let mut funcs: Vec<(usize, String)> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| (weight(f), f.get_name().to_string_lossy().into_owned()))
        .collect();
    funcs.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total: usize = funcs.iter().map(|f| f.0).sum();
    let n = threads
        .clamp(1, MAX_PARTITIONS)
        .min(funcs.len())
        .min(total / MIN_PARTITION_WEIGHT)
        .max(1);
    let mut parts: Vec<(usize, Vec<String>)> = vec![(0, Vec::new()); n];
    for (w, name) in funcs {
        let lightest = parts
            .iter_mut()
            .min_by_key(|p| p.0)
            .expect("at least one partition");
        lightest.0 += w.max(1);
        lightest.1.push(name);
    }
    parts.sort_by_key(|p| std::cmp::Reverse(p.0));
    parts.into_iter().map(|p| p.1).collect()
}

/// Makes every defined function and global an external, hidden symbol (named, if it was
/// not), so that partitions can refer to one another's definitions.
fn externalize(module: &Module<'_>) {
    for f in module.get_functions() {
        if f.count_basic_blocks() > 0 && f.get_linkage() != Linkage::External {
            f.set_linkage(Linkage::External);
        }
    }
    for (i, g) in module.get_globals().enumerate() {
        if g.get_initializer().is_none() {
            continue;
        }
        if g.get_name().to_bytes().is_empty() {
            g.set_name(&format!("cajeta.global.{i}"));
        }
        if g.get_linkage() != Linkage::External {
            g.set_linkage(Linkage::External);
        }
    }
}

/// Replaces the definition of `f` by a declaration of the same name and type.
fn declare_only<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>) {
    let name = f.get_name().to_string_lossy().into_owned();
    f.as_global_value().set_name(&format!("{name}.elsewhere"));
    let decl = module.add_function(&name, f.get_type(), Some(Linkage::External));
    f.replace_all_uses_with(decl);
    // SAFETY: no use of `f` is left.
    unsafe { f.delete() };
}

/// Replaces the definition of the global `g` by a declaration of the same name and type,
/// for another partition defines it. A new one, not `g` without its initializer: `g` may be
/// `dso_local` (it was internal before `externalize`), and a `dso_local` declaration would
/// be reached by a 32-bit PC-relative address, which fails to link once the other
/// partition's object lands more than 2 GiB away (seen on the H200 with 16 compiles at
/// once); a plain declaration goes through the GOT.
fn declare_global<'ctx>(module: &Module<'ctx>, g: GlobalValue<'ctx>) -> Result<(), String> {
    let name = g.get_name().to_string_lossy().into_owned();
    let ty = BasicTypeEnum::try_from(g.get_value_type())
        .map_err(|_| format!("internal error: global `{name}` of a non-basic type"))?;
    g.set_name(&format!("{name}.elsewhere"));
    let decl = module.add_global(ty, None, &name);
    decl.set_linkage(Linkage::External);
    decl.set_constant(g.is_constant());
    g.as_pointer_value()
        .replace_all_uses_with(decl.as_pointer_value());
    // SAFETY: no use of `g` is left.
    unsafe { g.delete() };
    Ok(())
}

/// Keeps the definitions of `owned` (and the globals, when `globals`); every other function
/// and global becomes a declaration.
fn keep_only(module: &Module<'_>, owned: &[String], globals: bool) -> Result<(), String> {
    let defined: Vec<FunctionValue<'_>> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .collect();
    for f in defined {
        let name = f.get_name().to_string_lossy();
        if !owned.iter().any(|o| *o == name) {
            declare_only(module, f);
        }
    }
    if !globals {
        let defined: Vec<GlobalValue<'_>> = module
            .get_globals()
            .filter(|g| g.get_initializer().is_some())
            .collect();
        for g in defined {
            declare_global(module, g)?;
        }
    }
    Ok(())
}

/// The machine the objects are compiled for: a generic x86-64 (SSE2, as `gcc -O2`
/// targets by default), 64-bit absolute addresses (the code and the runtime's functions
/// are anywhere in the address space).
fn object_machine() -> Result<TargetMachine, String> {
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| format!("LLVM target: {e}"))?;
    target
        .create_target_machine(
            &triple,
            "",
            "",
            OptimizationLevel::Default,
            RelocMode::PIC,
            CodeModel::Small,
        )
        .ok_or_else(|| "cannot create an LLVM target machine".to_string())
}

/// Runs `passes` (the optimization after inlining) over `module` and compiles it to an
/// object file; `CAJETA_JIT_PLAN=1` reports each partition's functions and times on
/// standard error.
fn object_of(module: &Module<'_>, passes: &str) -> Result<Vec<u8>, String> {
    let start = Instant::now();
    let cpu_start = thread_cpu();
    let host = super::jit::target_machine()?;
    module
        .run_passes(passes, &host, PassBuilderOptions::create())
        .map_err(|e| format!("internal error: LLVM passes: {e}"))?;
    let optimized = start.elapsed();
    let machine = object_machine()?;
    let object = machine
        .write_to_memory_buffer(module, FileType::Object)
        .map_err(|e| format!("LLVM code generation: {e}"))?;
    if std::env::var_os("CAJETA_JIT_PLAN").is_some() {
        let funcs: Vec<String> = module
            .get_functions()
            .filter(|f| f.count_basic_blocks() > 0)
            .map(|f| format!("{} ({})", f.get_name().to_string_lossy(), weight(f)))
            .collect();
        eprintln!(
            "cajeta jit partition: optimize {:.1} ms, machine code {:.1} ms (thread CPU {:.1} ms): {}",
            optimized.as_secs_f64() * 1e3,
            (start.elapsed() - optimized).as_secs_f64() * 1e3,
            (thread_cpu() - cpu_start).as_secs_f64() * 1e3,
            funcs.join(", ")
        );
    }
    Ok(object.as_slice().to_vec())
}

/// The calling thread's CPU time.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a live timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Compiles `module` (inlined, not yet through `passes`) into object files, one per
/// partition of `plan`, the partitions on threads of their own. The module is changed
/// (its symbols made external) and must not be compiled again.
pub fn compile(module: &Module<'_>, plan: &Plan, passes: &str) -> Result<Vec<Vec<u8>>, String> {
    externalize(module);
    if plan.len() <= 1 {
        return Ok(vec![object_of(module, passes)?]);
    }
    let bitcode = module.write_bitcode_to_memory();
    let bytes = bitcode.as_slice();
    std::thread::scope(|s| {
        let handles: Vec<_> = plan
            .iter()
            .enumerate()
            .map(|(i, owned)| {
                std::thread::Builder::new()
                    .name(format!("cajeta-llvm-{i}"))
                    .stack_size(THREAD_STACK)
                    .spawn_scoped(s, move || {
                        let ctx = Context::create();
                        let buf = MemoryBuffer::create_from_memory_range_copy(bytes, "cajeta_host");
                        let m = Module::parse_bitcode_from_buffer(&buf, &ctx)
                            .map_err(|e| format!("internal error: LLVM bitcode: {e}"))?;
                        keep_only(&m, owned, i == 0)?;
                        object_of(&m, passes)
                    })
                    .map_err(|e| format!("cannot start a compile thread: {e}"))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h?.join()
                    .map_err(|_| "internal error: a compile thread panicked".to_string())?
            })
            .collect::<Result<Vec<_>, String>>()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A partition's declarations of what another partition defines must not be
    /// `dso_local` (they were internal before the cut), or the code reaches them by 32-bit
    /// PC-relative addresses that fail to link when the objects land far apart.
    #[test]
    fn declarations_of_other_partitions_symbols_are_not_dso_local() {
        let ctx = Context::create();
        let m = ctx.create_module("cut");
        let i32t = ctx.i32_type();
        let g = m.add_global(i32t, None, "flag");
        g.set_linkage(Linkage::Internal);
        g.set_initializer(&i32t.const_zero());
        let f = m.add_function("reader", i32t.fn_type(&[], false), Some(Linkage::Internal));
        let callee = m.add_function("other", i32t.fn_type(&[], false), Some(Linkage::Internal));
        let b = ctx.create_builder();
        for func in [f, callee] {
            b.position_at_end(ctx.append_basic_block(func, "entry"));
            let v = b
                .build_load(i32t, g.as_pointer_value(), "v")
                .expect("load")
                .into_int_value();
            b.build_return(Some(&v)).expect("ret");
        }
        assert!(m.print_to_string().to_string().contains("internal global"));
        externalize(&m);
        keep_only(&m, &["reader".to_string()], false).expect("cut");
        let text = m.print_to_string().to_string();
        assert!(text.contains("@flag = external global i32"), "{text}");
        assert!(text.contains("declare i32 @other()"), "{text}");
        let declarations = text
            .lines()
            .filter(|l| l.contains(" external ") || l.starts_with("declare "));
        assert!(declarations.clone().count() == 2, "{text}");
        for line in declarations {
            assert!(!line.contains("dso_local"), "{line}");
        }
        m.verify().expect("valid module");
    }
}
