//! 8- and 16-bit integer values of LLVM's modules carried in 32 bits, where no narrow type
//! reaches memory, an interface or a function signature: the module then declares no `Int8`
//! or `Int16` capability.
//!
//! Why: LLVM's optimizer narrows 32-bit arithmetic whose operands it knows to fit (its
//! correlated value propagation makes `(x & 0xFF) / 3` on `int32` a division of `i8`s, and
//! `(x & 0xFFFF) % 10` one of `i16`s), and LLVM's SPIR-V target then declares `Int8`/`Int16`
//! for a source with no 8- or 16-bit type: a device without `shaderInt8` refuses the module
//! (tests/device/masked_narrow_values.cajeta). After `narrow_arith` every narrow operation
//! computes in 32 bits between conversions, so what is left of the narrow values is
//! conversions, constants and values passed around unchanged (phis, selects, vector
//! lanes); this pass makes those 32-bit too.
//!
//! A narrow value of width `w` is carried as its zero extension: a truncation to `w` bits
//! is an `and` with the mask `2^w - 1`, a zero extension keeps the value, a sign extension
//! is a left shift by `32 - w` and an arithmetic right shift by as much, a constant is its
//! zero-extended value. Every value is the same by construction. A module with a narrow
//! instruction of any other kind is left as it is (its narrow types stay declared, as the
//! source's own 8- and 16-bit buffers and push constants need).

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Op, Word};

use super::narrow_arith::{declares_narrow_ints, int_types, mask_const, wide_type, IntType};
use super::post::{next_id, value_types};

/// Whether the LLVM IR `text` (as the backend writes it, before optimization) has an 8- or
/// 16-bit integer value: the word `i8` or `i16` on a line that declares no global (the
/// resource names and printf formats are `[N x i8]` constants, which become no value).
pub(crate) fn mentions_narrow_ints(text: &str) -> bool {
    // The last digit of `i8` or `i16` is looked for first (rare in IR text, unlike `i`), and
    // only around those the word and its line: splitting every line into words was 20M of
    // the compiling process's 170M instructions for the 200 kernels of the compile_speed
    // bench, a pass looking at every `i` still 10M.
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(found) = bytes[from..].iter().position(|&b| b == b'8' || b == b'6') {
        let last = from + found;
        from = last + 1;
        let start = match bytes[last] {
            b'8' => last.checked_sub(1),
            _ => last.checked_sub(2).filter(|&s| bytes[s + 1] == b'1'),
        };
        let Some(start) = start.filter(|&s| bytes[s] == b'i') else {
            continue;
        };
        let before_ok = start == 0 || !word(bytes[start - 1]);
        let after_ok = bytes.get(last + 1).is_none_or(|&b| !word(b));
        if before_ok && after_ok {
            let line = bytes[..start]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |nl| nl + 1);
            if bytes[line] != b'@' {
                return true;
            }
        }
    }
    false
}

/// Instructions whose narrow result is one of their operands' values, unchanged: only the
/// result type changes.
fn passes_values_through(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Phi | Select
            | CopyObject
            | Undef
            | CompositeConstruct
            | CompositeExtract
            | CompositeInsert
            | VectorShuffle
            | VectorExtractDynamic
            | VectorInsertDynamic
    )
}

/// Whether `op` converts between integer widths or between integers and floats (the
/// narrow forms this pass rewrites).
fn is_conversion(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        UConvert | SConvert | ConvertFToU | ConvertFToS | ConvertSToF | ConvertUToF
    )
}

/// Rewrites the module's 8- and 16-bit values into 32-bit ones (see the module comment) and
/// drops the narrow types and the `Int8`/`Int16` capabilities. Returns whether it did; a
/// module with a narrow value it cannot carry is left unchanged.
pub(crate) fn values_in_32_bits(m: &mut Module) -> bool {
    if !declares_narrow_ints(m) {
        return false;
    }
    let types = int_types(m);
    let narrow: HashMap<Word, IntType> = types
        .iter()
        .filter(|(_, t)| t.width < 32)
        .map(|(&id, &t)| (id, t))
        .collect();
    if !only_values_are_narrow(m, &narrow) {
        return false;
    }
    // The 32-bit types the narrow ones become, declared first so that every retyped
    // constant follows its type.
    let mut wide_of = HashMap::new();
    for (&id, t) in &narrow {
        wide_of.insert(id, wide_type(m, t.lanes));
    }
    hoist_wide_types(m, &wide_of);
    let value_type = value_types(m);
    let ints = int_types(m);
    for i in m.types_global_values.iter_mut() {
        let Some(t) = i.result_type.and_then(|t| narrow.get(&t)) else {
            continue;
        };
        if i.class.opcode == Op::Constant {
            if let Some(Operand::LiteralBit32(v)) = i.operands.first_mut() {
                *v &= low_mask(t.width);
            }
        }
        i.result_type = i.result_type.map(|t| wide_of[&t]);
    }
    for fi in 0..m.functions.len() {
        for bi in 0..m.functions[fi].blocks.len() {
            let old = std::mem::take(&mut m.functions[fi].blocks[bi].instructions);
            let mut new = Vec::with_capacity(old.len());
            for i in old {
                rewrite(
                    m,
                    i,
                    &Types {
                        narrow: &narrow,
                        wide_of: &wide_of,
                        value_type: &value_type,
                        ints: &ints,
                    },
                    &mut new,
                );
            }
            m.functions[fi].blocks[bi].instructions = new;
        }
    }
    m.types_global_values
        .retain(|i| !i.result_id.is_some_and(|id| narrow.contains_key(&id)));
    let gone = |i: &Instruction| matches!(i.operands.first(), Some(Operand::IdRef(x)) if narrow.contains_key(x));
    m.debug_names.retain(|i| !gone(i));
    m.annotations.retain(|i| !gone(i));
    super::cleanup::drop_unused_width_capabilities(m);
    true
}

/// `2^width - 1`.
fn low_mask(width: u32) -> u32 {
    if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    }
}

/// Whether every use of a narrow type is one this pass rewrites: no type but a vector is
/// built of one (no pointer, array, struct or function type), no global but a constant has
/// one, and every instruction with a narrow result or operand is a conversion, a value
/// passed through or (an operand only) a store-free 32-bit use `rewrite` knows.
fn only_values_are_narrow(m: &Module, narrow: &HashMap<Word, IntType>) -> bool {
    let is_narrow = |id: &Word| narrow.contains_key(id);
    for i in &m.types_global_values {
        let refs_narrow = i
            .operands
            .iter()
            .any(|o| matches!(o, Operand::IdRef(x) if is_narrow(x)));
        match i.class.opcode {
            Op::TypeInt => {}
            Op::TypeVector if i.result_id.is_some_and(|id| is_narrow(&id)) => {}
            op if format!("{op:?}").starts_with("Type") && refs_narrow => return false,
            Op::Constant | Op::ConstantComposite | Op::ConstantNull | Op::Undef => {}
            _ if i.result_type.is_some_and(|t| is_narrow(&t)) => return false,
            _ => {}
        }
    }
    let value_type = value_types(m);
    let narrow_value = |o: &Operand| match o {
        Operand::IdRef(x) => value_type.get(x).is_some_and(is_narrow),
        _ => false,
    };
    for f in &m.functions {
        if f.parameters
            .iter()
            .any(|p| p.result_type.is_some_and(|t| is_narrow(&t)))
        {
            return false;
        }
        for b in &f.blocks {
            for i in &b.instructions {
                let op = i.class.opcode;
                let result_narrow = i.result_type.is_some_and(|t| is_narrow(&t));
                let operand_narrow = i.operands.iter().any(narrow_value);
                if !(result_narrow || operand_narrow) {
                    continue;
                }
                if !(is_conversion(op) || passes_values_through(op)) {
                    return false;
                }
            }
        }
    }
    true
}

/// Moves the declarations of the 32-bit types in `wide_of` (and of the unsigned 32-bit
/// scalar their vectors are built of) to the front of the module's types, where they
/// precede every constant retyped to them.
fn hoist_wide_types(m: &mut Module, wide_of: &HashMap<Word, Word>) {
    let u32_type = wide_type(m, 1);
    let mut front: Vec<Word> = vec![u32_type];
    for &w in wide_of.values() {
        if !front.contains(&w) {
            front.push(w);
        }
    }
    let (mut moved, rest): (Vec<Instruction>, Vec<Instruction>) =
        std::mem::take(&mut m.types_global_values)
            .into_iter()
            .partition(|i| i.result_id.is_some_and(|id| front.contains(&id)));
    // The scalar first: the vectors name it.
    moved.sort_by_key(|i| i.class.opcode != Op::TypeInt);
    moved.extend(rest);
    m.types_global_values = moved;
}

/// What `rewrite` looks types up in.
struct Types<'a> {
    /// The narrow integer types, by id.
    narrow: &'a HashMap<Word, IntType>,
    /// The 32-bit type each narrow one becomes.
    wide_of: &'a HashMap<Word, Word>,
    /// The type of every value, as LLVM's module declared it.
    value_type: &'a HashMap<Word, Word>,
    /// Every integer type of the module, the 32-bit ones this pass declared included.
    ints: &'a HashMap<Word, IntType>,
}

/// Pushes `op` of type `ty` on `args` onto `out`, returning its new result id.
fn emit(m: &mut Module, out: &mut Vec<Instruction>, op: Op, ty: Word, args: Vec<Word>) -> Word {
    let id = next_id(m);
    out.push(Instruction::new(
        op,
        Some(ty),
        Some(id),
        args.into_iter().map(Operand::IdRef).collect(),
    ));
    id
}

/// Pushes the 32-bit form of `i` onto `out` (see the module comment).
fn rewrite(m: &mut Module, mut i: Instruction, t: &Types<'_>, out: &mut Vec<Instruction>) {
    let Types {
        narrow,
        wide_of,
        value_type,
        ints,
    } = *t;
    let op = i.class.opcode;
    let operand_type = match i.operands.first() {
        Some(Operand::IdRef(x)) => value_type.get(x).copied(),
        _ => None,
    };
    let from_narrow = operand_type.and_then(|t| narrow.get(&t)).copied();
    let to_narrow = i.result_type.and_then(|t| narrow.get(&t)).copied();
    let (Some(result), Some(result_type)) = (i.result_id, i.result_type) else {
        out.push(i);
        return;
    };
    let x = match i.operands.first() {
        Some(Operand::IdRef(x)) => *x,
        _ => 0,
    };
    match (op, from_narrow, to_narrow) {
        // Narrow to narrow: a truncation or zero extension masks; a sign extension
        // extends from the operand's width, then masks.
        (Op::UConvert | Op::SConvert, Some(f), Some(t)) => {
            let wide = wide_of[&result_type];
            let mut v = x;
            if op == Op::SConvert && t.width > f.width {
                v = sign_extend(m, out, wide, v, f);
            }
            let mask = mask_const(m, wide, t.lanes, low_mask(t.width));
            out.push(and(wide, result, v, mask));
        }
        // Wide (or float) to narrow: converted to 32 bits, then masked.
        (_, None, Some(t)) if is_conversion(op) => {
            let wide = wide_of[&result_type];
            let from_width = operand_type.and_then(|ot| ints.get(&ot)).map(|it| it.width);
            let v = match (op, from_width) {
                (Op::UConvert | Op::SConvert, Some(32)) if operand_type != Some(wide) => {
                    emit(m, out, Op::Bitcast, wide, vec![x])
                }
                (Op::UConvert | Op::SConvert, Some(32)) => x,
                // 64 bits: truncated to 32 first; a float: converted to 32 bits (LLVM's
                // module has clamped it into the narrow range, the language saturates).
                _ => emit(m, out, op, wide, vec![x]),
            };
            let mask = mask_const(m, wide, t.lanes, low_mask(t.width));
            out.push(and(wide, result, v, mask));
        }
        // Narrow to wide (or float): the zero extension is the value; a signed reading
        // sign-extends it.
        (_, Some(f), None) if is_conversion(op) => {
            let wide = wide_of[&operand_type.unwrap_or_default()];
            let signed = matches!(op, Op::SConvert | Op::ConvertSToF);
            let v = if signed {
                sign_extend(m, out, wide, x, f)
            } else {
                x
            };
            let result_width = ints.get(&result_type).map(|it| it.width);
            let (op, args) = match (op, result_width) {
                (Op::UConvert | Op::SConvert, Some(32)) if result_type == wide => {
                    (Op::CopyObject, vec![v])
                }
                (Op::UConvert | Op::SConvert, Some(32)) => (Op::Bitcast, vec![v]),
                // To a float, or to 64 bits: converted by the operand's reading (a signed
                // one sign-extended above).
                _ => (op, vec![v]),
            };
            out.push(Instruction::new(
                op,
                Some(result_type),
                Some(result),
                args.into_iter().map(Operand::IdRef).collect(),
            ));
        }
        _ => {
            if let Some(t) = i.result_type.and_then(|t| wide_of.get(&t)) {
                i.result_type = Some(*t);
            }
            out.push(i);
        }
    }
}

/// `v` (a narrow value of `f`'s width carried as its zero extension in `wide`) sign-extended
/// to 32 bits: shifted left by `32 - width`, then arithmetically right by as much.
fn sign_extend(
    m: &mut Module,
    out: &mut Vec<Instruction>,
    wide: Word,
    v: Word,
    f: IntType,
) -> Word {
    let by = mask_const(m, wide, f.lanes, 32 - f.width);
    let up = emit(m, out, Op::ShiftLeftLogical, wide, vec![v, by]);
    emit(m, out, Op::ShiftRightArithmetic, wide, vec![up, by])
}

/// `result = v & mask` in `ty`.
fn and(ty: Word, result: Word, v: Word, mask: Word) -> Instruction {
    Instruction::new(
        Op::BitwiseAnd,
        Some(ty),
        Some(result),
        vec![Operand::IdRef(v), Operand::IdRef(mask)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::binary::Assemble;
    use rspirv::spirv::Capability;

    /// `(x & 0xFF) / 3` as LLVM narrows it, after `narrow_arith`: `x` truncated to `i8`, the
    /// `i8` operands zero-extended to 32 bits for the division, the quotient truncated back
    /// and zero-extended into the 32-bit result; then the same value sign-extended.
    fn module() -> (Module, Word) {
        let mut b = rspirv::dr::Builder::new();
        b.set_version(1, 6);
        b.capability(Capability::Shader);
        b.capability(Capability::Int8);
        let void = b.type_void();
        let fn_ty = b.type_function(void, []);
        let u32t = b.type_int(32, 0);
        let u8t = b.type_int(8, 0);
        let three = b.constant_bit32(u8t, 3);
        let x = b.constant_bit32(u32t, 0xFFFF_FF80);
        b.begin_function(void, None, rspirv::spirv::FunctionControl::NONE, fn_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        let t = b.u_convert(u8t, None, x).unwrap();
        let wt = b.u_convert(u32t, None, t).unwrap();
        let w3 = b.u_convert(u32t, None, three).unwrap();
        let q = b.u_div(u32t, None, wt, w3).unwrap();
        let qn = b.u_convert(u8t, None, q).unwrap();
        b.u_convert(u32t, None, qn).unwrap();
        b.s_convert(u32t, None, t).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        (b.module(), u8t)
    }

    #[test]
    fn narrow_values_become_32_bit_values_and_int8_goes() {
        let (mut m, u8t) = module();
        assert!(values_in_32_bits(&mut m));
        use Op::*;
        let ops: Vec<Op> = m.functions[0].blocks[0]
            .instructions
            .iter()
            .map(|i| i.class.opcode)
            .collect();
        let want = [
            BitwiseAnd, // the truncation: masked to 8 bits
            CopyObject, // its zero extension: the value
            CopyObject, // the constant's: the value
            UDiv,
            BitwiseAnd, // the quotient's truncation
            CopyObject,
            ShiftLeftLogical, // the sign extension: up by 24 and back down
            ShiftRightArithmetic,
            CopyObject,
            Return,
        ];
        assert_eq!(ops, want);
        assert!(!m
            .types_global_values
            .iter()
            .any(|i| i.result_id == Some(u8t)));
        assert!(!declares_narrow_ints(&m));
        let caps: Vec<_> = m
            .capabilities
            .iter()
            .map(|i| i.operands[0].clone())
            .collect();
        assert_eq!(
            caps,
            [Operand::Capability(rspirv::spirv::Capability::Shader)]
        );
        // The masks and shift counts: 0xFF and 24.
        let consts: Vec<_> = m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Constant)
            .map(|i| i.operands[0].clone())
            .collect();
        assert!(consts.contains(&Operand::LiteralBit32(0xFF)), "{consts:?}");
        assert!(consts.contains(&Operand::LiteralBit32(24)), "{consts:?}");
        assert!(rspirv::dr::load_words(m.assemble()).is_ok());
    }

    #[test]
    fn narrow_source_values_are_found_but_not_resource_names() {
        let names = "@.name.0 = private unnamed_addr constant [3 x i8] c\"xs\\00\"\n";
        let wide = format!("{names}  %t1 = and i32 %t0, 255\n  %t2 = udiv i32 %t1, 3\n");
        assert!(!mentions_narrow_ints(&wide));
        for narrow in ["  %t1 = trunc i32 %t0 to i8", "  %v = add <4 x i16> %a, %b"] {
            assert!(
                mentions_narrow_ints(&format!("{wide}{narrow}\n")),
                "{narrow}"
            );
        }
        // A name that merely contains the letters is no type.
        assert!(!mentions_narrow_ints("  %ti8 = add i32 %i16x, 1\n"));
        assert!(!mentions_narrow_ints(
            "  %x = add i32 %i168, 16\n  %y = add i32 %x6, 8\n"
        ));
        // At the very start and end of the text.
        assert!(mentions_narrow_ints("i8"));
        assert!(mentions_narrow_ints("%t = trunc i32 %x to i16"));
        assert!(!mentions_narrow_ints("@g = global i16 0"));
    }

    #[test]
    fn a_module_with_narrow_memory_is_left_as_it_is() {
        let (mut m, u8t) = module();
        let ptr = next_id(&mut m);
        m.types_global_values.push(Instruction::new(
            Op::TypePointer,
            None,
            Some(ptr),
            vec![
                Operand::StorageClass(rspirv::spirv::StorageClass::Function),
                Operand::IdRef(u8t),
            ],
        ));
        let before = m.assemble();
        assert!(!values_in_32_bits(&mut m));
        assert_eq!(m.assemble(), before);
    }
}
