//! Definitions, for the CPU target, of the SPIR-V placeholder functions the shared lowering
//! declares (`../spirv_ops.rs`): on SPIR-V they become instructions after code generation;
//! on the CPU they are small LLVM functions the optimizer inlines. A placeholder without a
//! definition here is refused, naming the instruction.

use rspirv::spirv::{GlslStd450Op as GLOp, Op};

/// The definition replacing `decl` (a `declare` line of a placeholder), `Ok(None)` when
/// `decl` declares no placeholder, or the instruction's name when the CPU target has none.
pub(crate) fn define(decl: &str) -> Result<Option<String>, String> {
    let Some(rest) = decl.strip_prefix("declare ") else {
        return Ok(None);
    };
    let Some(at) = rest.find("@\"spirv.op.") else {
        return Ok(None);
    };
    let ret = rest[..at].trim();
    let name_end = rest[at + 2..]
        .find('"')
        .map(|i| at + 2 + i + 1)
        .unwrap_or(rest.len());
    let name = &rest[at..name_end];
    let op = name
        .trim_start_matches("@\"spirv.op.")
        .trim_end_matches('"');
    let op = op.rsplit_once('.').map_or(op, |(o, _sig)| o);
    let params_text = rest[name_end..]
        .trim_start()
        .strip_prefix('(')
        .map(until_closing)
        .unwrap_or("");
    let params: Vec<&str> = params_text.split(", ").filter(|p| !p.is_empty()).collect();
    let args: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %a{i}"))
        .collect();
    let scalar = |t: &str| !t.starts_with('<');
    let body = match (op, params.as_slice()) {
        ("AtomicCompareExchange", [ptr, _, _, _, ty, _]) => format!(
            "  %r = cmpxchg {ptr} %a0, {ty} %a5, {ty} %a4 seq_cst seq_cst\n  %v = extractvalue {{ {ty}, i1 }} %r, 0\n  ret {ty} %v\n"
        ),
        ("BitCount", [ty]) if *ty == ret => {
            format!("  %r = call {ty} @llvm.ctpop.{}({ty} %a0)\n  ret {ty} %r\n", mangle(ty))
        }
        ("BitReverse", [ty]) if *ty == ret => format!(
            "  %r = call {ty} @llvm.bitreverse.{}({ty} %a0)\n  ret {ty} %r\n",
            mangle(ty)
        ),
        ("IsNan", [ty]) if scalar(ty) => {
            format!("  %r = fcmp uno {ty} %a0, %a0\n  ret i1 %r\n")
        }
        ("IsInf", [ty]) if scalar(ty) => {
            let inf = if *ty == "half" {
                "0xH7C00"
            } else {
                "0x7FF0000000000000"
            };
            format!(
                "  %m = call {ty} @llvm.fabs.{}({ty} %a0)\n  %r = fcmp oeq {ty} %m, {inf}\n  ret i1 %r\n",
                mangle(ty)
            )
        }
        ("BitFieldUExtract" | "BitFieldSExtract", ["i32", "i32", "i32"]) => {
            bit_field_extract(op == "BitFieldSExtract")
        }
        ("BitFieldInsert", ["i32", "i32", "i32", "i32"]) => BIT_FIELD_INSERT.to_string(),
        // The fences around a float atomic's compare-exchange loop (`atomics.rs`): every
        // atomic here is sequentially consistent already; the fence keeps the order asked.
        ("MemoryBarrier", ["i32", "i32"]) if ret == "void" => "  fence seq_cst\n  ret void\n".to_string(),
        _ => match op.strip_prefix("glsl.").and_then(|n| n.parse::<u32>().ok()) {
            Some(n) => glsl(n, ret, &params).ok_or_else(|| describe(op))?,
            None => atomic(op, ret, &params).ok_or_else(|| describe(op))?,
        },
    };
    // The C library functions a body calls are declared beside it (each placeholder
    // signature is defined once per module, so each function is declared once).
    let mut libm = String::new();
    for f in LIBM {
        if body.contains(&format!("@{f}(")) {
            let params = if *f == "atan2f" {
                "float, float"
            } else {
                "float"
            };
            libm.push_str(&format!("declare float @{f}({params})\n"));
        }
    }
    Ok(Some(format!(
        "{libm}define internal {ret} {name}({}) alwaysinline {{\n{body}}}",
        args.join(", ")
    )))
}

/// The body of `GLSL.std.450` instruction `n` returning `ret` on `params` (the arguments
/// are `%a0`, `%a1`, …), as its specification defines it; `None` when the CPU target has
/// no definition of it for these types.
fn glsl(n: u32, ret: &str, params: &[&str]) -> Option<String> {
    let ty = *params.first()?;
    if let Some(body) = reflect_refract(n, ret, params) {
        return Some(body);
    }
    if let Some(body) = super::matrix_ops::determinant_or_inverse(n, ret, params) {
        return Some(body);
    }
    if params.iter().any(|p| *p != ty) {
        return None;
    }
    let vector = ty.starts_with('<');
    let lane = if vector {
        ty.rsplit_once(" x ")?.1.trim_end_matches('>')
    } else {
        ty
    };
    let float = matches!(lane, "float" | "double" | "half");
    let m = intrinsic_suffix(ty);
    // A constant of `ty` (splat for vectors).
    let k = |v: &str| {
        if vector {
            format!("splat ({lane} {v})")
        } else {
            v.to_string()
        }
    };
    let call1 = |f: &str, x: &str| format!("call {ty} @llvm.{f}.{m}({ty} {x})");
    let call2 = |f: &str, x: &str, y: &str| format!("call {ty} @llvm.{f}.{m}({ty} {x}, {ty} {y})");
    let body = match GLOp::from_u32(n)? {
        GLOp::Trunc if float => format!(
            "  %r = {}
",
            call1("trunc", "%a0")
        ),
        GLOp::FAbs if float => format!(
            "  %r = {}
",
            call1("fabs", "%a0")
        ),
        GLOp::InverseSqrt if float => format!(
            "  %s = {}
  %r = fdiv {ty} {}, %s
",
            call1("sqrt", "%a0"),
            k("1.0")
        ),
        GLOp::Fract if float => format!(
            "  %f = {}
  %r = fsub {ty} %a0, %f
",
            call1("floor", "%a0")
        ),
        GLOp::FSign if float => format!(
            "  %p = fcmp ogt {ty} %a0, {z}
  %n = fcmp olt {ty} %a0, {z}
  %q = select {c} %n, {ty} {m1}, {ty} %a0
  %r = select {c} %p, {ty} {one}, {ty} %q
",
            z = k("0.0"),
            m1 = k("-1.0"),
            one = k("1.0"),
            c = cond(ty),
        ),
        GLOp::SSign if !float => format!(
            "  %p = icmp sgt {ty} %a0, {z}
  %n = icmp slt {ty} %a0, {z}
  %q = select {c} %n, {ty} {m1}, {ty} {z}
  %r = select {c} %p, {ty} {one}, {ty} %q
",
            z = k("0"),
            m1 = k("-1"),
            one = k("1"),
            c = cond(ty),
        ),
        GLOp::FClamp if float => format!(
            "  %lo = {}
  %r = {}
",
            call2("maxnum", "%a0", "%a1"),
            call2("minnum", "%lo", "%a2")
        ),
        GLOp::SClamp if !float => format!(
            "  %lo = {}
  %r = {}
",
            call2("smax", "%a0", "%a1"),
            call2("smin", "%lo", "%a2")
        ),
        GLOp::UClamp if !float => format!(
            "  %lo = {}
  %r = {}
",
            call2("umax", "%a0", "%a1"),
            call2("umin", "%lo", "%a2")
        ),
        GLOp::FMix if float => format!(
            "  %o = fsub {ty} {}, %a2
  %x = fmul {ty} %a0, %o
  %y = fmul {ty} %a1, %a2
  %r = fadd {ty} %x, %y
",
            k("1.0")
        ),
        GLOp::Step if float => format!(
            "  %l = fcmp olt {ty} %a1, %a0
  %r = select {} %l, {ty} {}, {ty} {}
",
            cond(ty),
            k("0.0"),
            k("1.0")
        ),
        GLOp::SmoothStep if float => format!(
            "  %d = fsub {ty} %a2, %a0
  %e = fsub {ty} %a1, %a0
  %q = fdiv {ty} %d, %e
  %lo = {}
  %t = {}
  %tt = fmul {ty} %t, %t
  %t2 = fmul {ty} %t, {}
  %u = fsub {ty} {}, %t2
  %r = fmul {ty} %tt, %u
",
            call2("maxnum", "%q", &k("0.0")),
            call2("minnum", "%lo", &k("1.0")),
            k("2.0"),
            k("3.0")
        ),
        GLOp::FindILsb if !float => format!(
            "  %z = icmp eq {ty} %a0, {zero}
  %c = call {ty} @llvm.cttz.{m}({ty} %a0, i1 false)
  %r = select {b} %z, {ty} {m1}, {ty} %c
",
            zero = k("0"),
            m1 = k("-1"),
            b = cond(ty),
        ),
        GLOp::FindUMsb | GLOp::FindSMsb if !float => {
            let bits = lane.trim_start_matches('i');
            let x = if GLOp::from_u32(n)? == GLOp::FindSMsb {
                format!(
                    "  %neg = icmp slt {ty} %a0, {zero}
  %inv = xor {ty} %a0, {m1}
  %x = select {b} %neg, {ty} %inv, {ty} %a0
",
                    zero = k("0"),
                    m1 = k("-1"),
                    b = cond(ty),
                )
            } else {
                format!(
                    "  %x = or {ty} %a0, {}
",
                    k("0")
                )
            };
            format!(
                "{x}  %l = call {ty} @llvm.ctlz.{m}({ty} %x, i1 false)
  %r = sub {ty} {}, %l
",
                k(&(bits.parse::<u32>().ok()? - 1).to_string())
            )
        }
        GLOp::Tan
        | GLOp::Asin
        | GLOp::Acos
        | GLOp::Atan
        | GLOp::Sinh
        | GLOp::Cosh
        | GLOp::Tanh
        | GLOp::Atan2
            if !vector && lane == "float" =>
        {
            // The C library's single-precision functions (linked from the process).
            let f = format!("{:?}f", GLOp::from_u32(n)?).to_ascii_lowercase();
            let args: Vec<String> = (0..params.len()).map(|i| format!("float %a{i}")).collect();
            format!(
                "  %r = call float @{f}({})
",
                args.join(", ")
            )
        }
        _ => return None,
    };
    if ret != ty {
        return None;
    }
    Some(format!("{body}  ret {ty} %r\n"))
}

/// `Reflect` (`I - 2 * dot(N, I) * N`) and `Refract` (`k = 1 - eta² (1 - dot(N, I)²)`, zero
/// when `k < 0`, else `eta * I - (eta * dot(N, I) + sqrt(k)) * N`) on `float32`/`float64`
/// scalars and vectors, with GLSL.std.450's formulas and their order of operations (the dot
/// product summed lane after lane).
fn reflect_refract(n: u32, ret: &str, params: &[&str]) -> Option<String> {
    let ty = *params.first()?;
    let lane = ty
        .strip_prefix('<')
        .and_then(|t| t.rsplit_once(" x "))
        .map_or(ty, |(_, l)| l.trim_end_matches('>'));
    let lanes = ty
        .strip_prefix('<')
        .and_then(|t| t.split_once(" x "))
        .map(|(n, _)| n);
    if ret != ty || !matches!(lane, "float" | "double") {
        return None;
    }
    let refract = match (GLOp::from_u32(n)?, params) {
        (GLOp::Reflect, [_, b]) if *b == ty => false,
        (GLOp::Refract, [_, b, e]) if *b == ty && *e == lane => true,
        _ => return None,
    };
    let m = intrinsic_suffix(ty);
    // dot(N, I) into `%d`.
    let mut s = match lanes {
        Some(_) => format!(
            "  %p = fmul {ty} %a1, %a0
  %d = call {lane} @llvm.vector.reduce.fadd.{m}({lane} -0.0, {ty} %p)
"
        ),
        None => format!(
            "  %d = fmul {lane} %a1, %a0
"
        ),
    };
    // `%{name}.v`: the scalar `%{name}` in every lane of `ty`.
    let splat = |name: &str| match lanes {
        Some(n) => format!(
            "  %{name}.i = insertelement {ty} poison, {lane} %{name}, i64 0
  %{name}.v = shufflevector {ty} %{name}.i, {ty} poison, <{n} x i32> zeroinitializer
"
        ),
        None => format!(
            "  %{name}.v = fadd {lane} %{name}, -0.0
"
        ),
    };
    if !refract {
        s.push_str(&format!(
            "  %t = fmul {lane} %d, 2.0
"
        ));
        s.push_str(&splat("t"));
        s.push_str(&format!(
            "  %m = fmul {ty} %t.v, %a1
  %r = fsub {ty} %a0, %m
  ret {ty} %r
"
        ));
        return Some(s);
    }
    let sqrt = mangle(lane);
    s.push_str(&format!(
        "  %dd = fmul {lane} %d, %d
  %o = fsub {lane} 1.0, %dd
  %ee = fmul {lane} %a2, %a2
  %q = fmul {lane} %ee, %o
  %k = fsub {lane} 1.0, %q
  %neg = fcmp olt {lane} %k, 0.0
  %sk = call {lane} @llvm.sqrt.{sqrt}({lane} %k)
  %ed = fmul {lane} %a2, %d
  %c = fadd {lane} %ed, %sk
  %e = fadd {lane} %a2, -0.0
"
    ));
    s.push_str(&splat("e"));
    s.push_str(&splat("c"));
    s.push_str(&format!(
        "  %x = fmul {ty} %e.v, %a0
  %y = fmul {ty} %c.v, %a1
  %t = fsub {ty} %x, %y
  %r = select i1 %neg, {ty} zeroinitializer, {ty} %t
  ret {ty} %r
"
    ));
    Some(s)
}

/// The condition type of a `select` on `ty` (a mask for vectors).
fn cond(ty: &str) -> String {
    match ty.strip_prefix('<').and_then(|t| t.split_once(" x ")) {
        Some((n, _)) => format!("<{n} x i1>"),
        None => "i1".to_string(),
    }
}

/// The LLVM intrinsic suffix of a scalar or vector type (`v4f32`).
fn intrinsic_suffix(ty: &str) -> String {
    match ty.strip_prefix('<').and_then(|t| t.split_once(" x ")) {
        Some((n, lane)) => format!("v{n}{}", mangle(lane.trim_end_matches('>'))),
        None => mangle(ty),
    }
}

/// `text` up to the parenthesis closing the one before it (types nest: `ptr addrspace(11)`).
fn until_closing(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return &text[..i],
            ')' => depth -= 1,
            _ => {}
        }
    }
    text
}

/// `OpBitFieldUExtract`/`OpBitFieldSExtract(x, offset, count)` on `i32`, computed in 64
/// bits so that no shift reaches the width (a count of 0 gives 0, as SPIR-V defines it).
fn bit_field_extract(signed: bool) -> String {
    let sign = if signed {
        "  %top = sub i64 %n, 1\n  %sb = shl i64 1, %top\n  %fx = xor i64 %f, %sb\n  %se = sub i64 %fx, %sb\n  %nz = icmp ne i64 %n, 0\n  %v = select i1 %nz, i64 %se, i64 0\n"
    } else {
        "  %v = or i64 %f, 0\n"
    };
    format!(
        "  %x = zext i32 %a0 to i64\n  %o = zext i32 %a1 to i64\n  %n = zext i32 %a2 to i64\n  %s = lshr i64 %x, %o\n  %one = shl i64 1, %n\n  %m = sub i64 %one, 1\n  %f = and i64 %s, %m\n{sign}  %r = trunc i64 %v to i32\n  ret i32 %r\n"
    )
}

/// `OpBitFieldInsert(base, insert, offset, count)` on `i32`, the mask made in 64 bits.
const BIT_FIELD_INSERT: &str = "  %o = zext i32 %a2 to i64\n  %n = zext i32 %a3 to i64\n  %one = shl i64 1, %n\n  %m0 = sub i64 %one, 1\n  %m1 = shl i64 %m0, %o\n  %m = trunc i64 %m1 to i32\n  %nm = xor i32 %m, -1\n  %keep = and i32 %a0, %nm\n  %i64 = zext i32 %a1 to i64\n  %ins1 = shl i64 %i64, %o\n  %ins = trunc i64 %ins1 to i32\n  %put = and i32 %ins, %m\n  %r = or i32 %keep, %put\n  ret i32 %r\n";

/// The body of atomic instruction `op` (`core.<opcode>`) on the pointer `%a0` (its scope
/// and semantics operands are ignored: every CPU atomic is sequentially consistent).
fn atomic(op: &str, ret: &str, params: &[&str]) -> Option<String> {
    let code: u32 = op.strip_prefix("core.")?.parse().ok()?;
    let ptr = *params.first()?;
    let align = |ty: &str| if ty == "i64" { 8 } else { 4 };
    let rmw = match Op::from_u32(code)? {
        // `KernelThread.clock()` and `deviceClock()`: the CPU's cycle counter (as lavapipe
        // reads it), one counter for both scopes.
        Op::ReadClockKHR if ret == "i64" => {
            return Some("  %r = call i64 @llvm.readcyclecounter()\n  ret i64 %r\n".to_string())
        }
        Op::AtomicLoad => {
            return Some(format!(
                "  %r = load atomic {ret}, {ptr} %a0 seq_cst, align {}\n  ret {ret} %r\n",
                align(ret)
            ))
        }
        Op::AtomicStore => {
            let ty = *params.get(3)?;
            return Some(format!(
                "  store atomic {ty} %a3, {ptr} %a0 seq_cst, align {}\n  ret void\n",
                align(ty)
            ));
        }
        Op::AtomicIIncrement | Op::AtomicIDecrement => {
            let how = if Op::from_u32(code)? == Op::AtomicIIncrement {
                "add"
            } else {
                "sub"
            };
            return Some(format!(
                "  %r = atomicrmw {how} {ptr} %a0, {ret} 1 seq_cst, align {}\n  ret {ret} %r\n",
                align(ret)
            ));
        }
        Op::AtomicExchange => "xchg",
        Op::AtomicIAdd => "add",
        Op::AtomicISub => "sub",
        Op::AtomicSMin => "min",
        Op::AtomicUMin => "umin",
        Op::AtomicSMax => "max",
        Op::AtomicUMax => "umax",
        Op::AtomicAnd => "and",
        Op::AtomicOr => "or",
        Op::AtomicXor => "xor",
        _ => return None,
    };
    let ty = *params.get(3)?;
    (ty == ret).then(|| {
        format!(
            "  %r = atomicrmw {rmw} {ptr} %a0, {ty} %a3 seq_cst, align {}\n  ret {ty} %r\n",
            align(ty)
        )
    })
}

/// The single-precision C library functions [`glsl`] calls.
const LIBM: &[&str] = &[
    "tanf", "asinf", "acosf", "atanf", "sinhf", "coshf", "tanhf", "atan2f",
];

/// The LLVM intrinsic suffix of a scalar type.
fn mangle(ty: &str) -> String {
    match ty {
        "float" => "f32".into(),
        "double" => "f64".into(),
        "half" => "f16".into(),
        t => t.into(),
    }
}

/// A readable name of placeholder operation `op` (`core.<opcode>`, `glsl.<number>` or a
/// named instruction).
fn describe(op: &str) -> String {
    if let Some(n) = op.strip_prefix("core.") {
        let code = n.split('.').next().and_then(|c| c.parse::<u32>().ok());
        if let Some(o) = code.and_then(Op::from_u32) {
            return format!("the SPIR-V instruction `Op{o:?}`");
        }
    }
    if let Some(n) = op.strip_prefix("glsl.") {
        return format!("the `GLSL.std.450` instruction {n}");
    }
    format!("the SPIR-V instruction `Op{op}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_exchange_becomes_cmpxchg() {
        let d = define("declare i32 @\"spirv.op.AtomicCompareExchange.i32_ptraddrspace11_i32_i32_i32_i32_i32\"(ptr addrspace(11), i32, i32, i32, i32, i32) convergent")
            .unwrap()
            .unwrap();
        assert!(
            d.contains("cmpxchg ptr addrspace(11) %a0, i32 %a5, i32 %a4"),
            "{d}"
        );
    }

    #[test]
    fn unknown_instruction_is_named() {
        let e = define("declare float @\"spirv.op.glsl.40.float_float\"(float) memory(none)")
            .unwrap_err();
        assert_eq!(e, "the `GLSL.std.450` instruction 40");
    }

    #[test]
    fn other_declarations_are_left_alone() {
        assert_eq!(define("declare float @llvm.sqrt.f32(float)").unwrap(), None);
    }
}
