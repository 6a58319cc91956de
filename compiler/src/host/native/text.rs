//! Printing: `System.out.print`/`println` of scalars, vectors, matrices, PODs, string
//! literals and objects in frame slots (strings…), and `+` of them, through the C-ABI
//! runtime (`runtime.rs`, `words.rs`, `string_calls.rs`), which formats exactly like the
//! interpreter (Java's `Float.toString`; a vector, POD or object through the interpreter's
//! own `Display` of the value). A printed `+` is printed piece by piece, never built.

use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, IntValue};
use inkwell::IntPredicate;

use super::codegen::{b, Codegen, FnState, Gen};
use super::expr::scalar;
use super::repr::{repr, Repr};
use super::runtime::SiteKind;
use crate::ir::{Expr, ExprKind, HostOp, ScalarType, Type};

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// The host operations native code does itself (see the module comment).
    pub fn host(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        op: HostOp,
        args: &'m [Expr],
        e: &'m Expr,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        match op {
            HostOp::Print | HostOp::Println => {
                // The pieces of a printed concatenation are evaluated first (an error in one
                // prints nothing, as in the interpreter) and then printed one by one, without
                // building the string.
                let mut leaves = Vec::new();
                if let [x] = args {
                    flatten(x, &mut leaves);
                }
                let mut values = Vec::with_capacity(leaves.len());
                let mut temps = Vec::new();
                for (k, leaf) in leaves.iter().enumerate() {
                    let v = match (&leaf.kind, repr(&leaf.ty)) {
                        (ExprKind::Str(text), _) => Printed::Value(self.literal(text)?.into()),
                        (_, Repr::Object) => {
                            let later = &leaves[k + 1..];
                            Printed::Slot(self.operand_slot(st, leaf, later, &mut temps)?)
                        }
                        _ => Printed::Value(self.value(st, leaf)?),
                    };
                    values.push((v, &leaf.ty));
                }
                let site = self.site(SiteKind::Write, e.span);
                for (v, ty) in values {
                    let ok = match v {
                        Printed::Value(v) => self.print_value(v, ty)?,
                        Printed::Slot(s) => {
                            let frame = self.frame(st);
                            let args = [frame.into(), self.i64c(s).into()];
                            self.rt_call("cajeta_print_slot", &args)?
                                .ok_or("internal error: print")?
                                .into_int_value()
                        }
                    };
                    self.fail_unless(st, ok, site)?;
                }
                self.clear_temps(st, temps)?;
                if op == HostOp::Println {
                    let call =
                        b(self
                            .builder
                            .build_call(self.rt["cajeta_print_newline"], &[], ""))?;
                    let ok = call
                        .try_as_basic_value()
                        .basic()
                        .ok_or("internal error: print")?;
                    self.fail_unless(st, ok.into_int_value(), site)?;
                }
                Ok(None)
            }
            other => Err(format!("internal error: host operation {other:?}")),
        }
    }

    /// Fails with `site` when the runtime call's `i32` status is 0.
    fn fail_unless(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        ok: IntValue<'ctx>,
        site: i32,
    ) -> Gen<()> {
        let zero = ok.get_type().const_zero();
        let bad = b(self
            .builder
            .build_int_compare(IntPredicate::EQ, ok, zero, "writefail"))?;
        self.fail_if(st, bad, site)
    }

    /// The runtime function for a scalar's text, and its argument widened to that
    /// function's parameter (`prefix` is `cajeta_print_`).
    fn text_call(
        &self,
        prefix: &str,
        v: BasicValueEnum<'ctx>,
        ty: &Type,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        let c = self.ctx;
        let bld = &self.builder;
        let s = match ty {
            Type::String => return Ok(None),
            t => scalar(t)?,
        };
        let (name, args): (&str, Vec<BasicMetadataValueEnum>) = match s {
            ScalarType::Bool => {
                let w = b(bld.build_int_z_extend(v.into_int_value(), c.i32_type(), ""))?;
                ("bool", vec![w.into()])
            }
            ScalarType::F16 => {
                // A float16 value is exact in float32 and prints as that float32.
                let w = b(bld.build_float_ext(v.into_float_value(), c.f32_type(), ""))?;
                ("f32", vec![w.into()])
            }
            // A bfloat16 value is its float32 and prints as that, as the interpreter's.
            ScalarType::F32 | ScalarType::BF16 => ("f32", vec![v.into()]),
            ScalarType::F64 => ("f64", vec![v.into()]),
            s => {
                let x = v.into_int_value();
                let w = if s.is_signed_integer() {
                    b(bld.build_int_s_extend_or_bit_cast(x, c.i64_type(), ""))?
                } else {
                    b(bld.build_int_z_extend_or_bit_cast(x, c.i64_type(), ""))?
                };
                let unsigned = c
                    .i32_type()
                    .const_int(u64::from(s == ScalarType::U64), false);
                ("int", vec![w.into(), unsigned.into()])
            }
        };
        let f = *self
            .rt
            .iter()
            .find(|(k, _)| k.strip_prefix(prefix) == Some(name))
            .map(|(_, f)| f)
            .ok_or("internal error: runtime function")?;
        let call = b(bld.build_call(f, &args, ""))?;
        Ok(call.try_as_basic_value().basic())
    }

    /// Prints one value (a scalar, vector, matrix, POD or string literal); returns the
    /// `i32` status.
    fn print_value(&self, v: BasicValueEnum<'ctx>, ty: &'m Type) -> Gen<IntValue<'ctx>> {
        if super::repr::aggregate(ty) {
            return self.print_words(v, ty);
        }
        let r = match self.text_call("cajeta_print_", v, ty)? {
            Some(r) => r,
            None => {
                let call =
                    b(self
                        .builder
                        .build_call(self.rt["cajeta_print_str"], &[v.into()], ""))?;
                call.try_as_basic_value()
                    .basic()
                    .ok_or("internal error: print")?
            }
        };
        Ok(r.into_int_value())
    }
}

/// A printed piece: a value in registers (or a literal's constant), or an object's slot.
enum Printed<'ctx> {
    Value(BasicValueEnum<'ctx>),
    Slot(u64),
}

/// The leaves of a printed string expression, left to right: `a + b` and `String.valueOf`
/// print their parts.
pub fn flatten<'m>(e: &'m Expr, out: &mut Vec<&'m Expr>) {
    match &e.kind {
        ExprKind::Host {
            op: HostOp::Concat,
            args,
        } if args.len() == 2 => args.iter().for_each(|a| flatten(a, out)),
        ExprKind::Host {
            op: HostOp::ToString,
            args,
        } if args.len() == 1 => flatten(&args[0], out),
        _ => out.push(e),
    }
}
