//! Calls between host functions and the entry point.
//!
//! A call site counts the depth (`cajeta.depth`), refuses to go deeper than
//! [`MAX_CALL_DEPTH`] (the interpreter's "recursion too deep" error at the same call) and,
//! after the call, returns too when the callee is unwinding a runtime error.

use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};
use inkwell::{AddressSpace, IntPredicate};

use super::codegen::{b, Codegen, FnState, Gen};
use super::repr::{repr, Repr};
use super::runtime::SiteKind;
use crate::diagnostics::Span;
use crate::host::interp::MAX_CALL_DEPTH;
use crate::ir::FunctionId;

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// A call of host function `func` with lowered arguments; `span` is the call site (where
    /// a too-deep recursion is reported, as the interpreter does).
    pub fn call(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        func: FunctionId,
        args: &[BasicMetadataValueEnum<'ctx>],
        span: Span,
    ) -> Gen<Option<BasicValueEnum<'ctx>>> {
        let callee = *self
            .funcs
            .get(&func)
            .ok_or("internal error: callee not lowered")?;
        let i32t = self.ctx.i32_type();
        let depth_ptr = self.depth.as_pointer_value();
        let depth = b(self.builder.build_load(i32t, depth_ptr, "depth"))?.into_int_value();
        let limit = i32t.const_int(MAX_CALL_DEPTH as u64, false);
        let too_deep = b(self
            .builder
            .build_int_compare(IntPredicate::UGE, depth, limit, "deep"))?;
        let name = self.ir.function(func).name.clone();
        let site = self.site(SiteKind::Recursion(name), span);
        self.fail_if(st, too_deep, site)?;
        let deeper = b(self
            .builder
            .build_int_add(depth, i32t.const_int(1, false), ""))?;
        b(self.builder.build_store(depth_ptr, deeper))?;
        let result = b(self.builder.build_call(callee, args, ""))?;
        b(self.builder.build_store(depth_ptr, depth))?;
        self.check_unwinding(st)?;
        Ok(result.try_as_basic_value().basic())
    }

    /// After a call: returns from this function too when a runtime error propagates.
    pub fn check_unwinding(&mut self, st: &FnState<'ctx, 'm>) -> Gen<()> {
        let flag = b(self.builder.build_load(
            self.ctx.bool_type(),
            self.unwinding.as_pointer_value(),
            "unwinding",
        ))?
        .into_int_value();
        let ok_bb = self.ctx.append_basic_block(st.func, "ok");
        b(self
            .builder
            .build_conditional_branch(flag, st.unwind, ok_bb))?;
        self.builder.position_at_end(ok_bb);
        Ok(())
    }

    /// `i32 cajeta.main(ptr out, ptr args)`: runs the entry function from depth 1 (the
    /// entry itself, as the interpreter counts) with `args` (the address of the `String[]`
    /// value, for `main(String[] args)`), stores its result in `*out` (integers as `i64`,
    /// floats as `double`, strings and boxed objects as the pointer) and returns 1 on
    /// success, 0 after a runtime error.
    pub fn entry_wrapper(&mut self, entry: FunctionId) -> Gen<()> {
        let c = self.ctx;
        let ptr = c.ptr_type(AddressSpace::default());
        let wrapper = self.module.add_function(
            "cajeta.main",
            c.i32_type().fn_type(&[ptr.into(), ptr.into()], false),
            None,
        );
        let args_ptr = wrapper
            .get_nth_param(1)
            .ok_or("internal error: args")?
            .into_pointer_value();
        let bb = c.append_basic_block(wrapper, "entry");
        self.builder.position_at_end(bb);
        b(self.builder.build_store(
            self.unwinding.as_pointer_value(),
            c.bool_type().const_zero(),
        ))?;
        b(self.builder.build_store(
            self.depth.as_pointer_value(),
            c.i32_type().const_int(1, false),
        ))?;
        let ir_fn = self.ir.function(entry);
        let args: Vec<BasicMetadataValueEnum> = ir_fn
            .params()
            .iter()
            .map(|p| match (repr(&p.ty), self.llvm_type(&p.ty)) {
                (Repr::Object, _) => args_ptr.into(),
                (_, Some(t)) => t.const_zero().into(),
                (_, None) => ptr.const_null().into(),
            })
            .collect();
        let result = b(self.builder.build_call(self.funcs[&entry], &args, "result"))?;
        let out = wrapper
            .get_nth_param(0)
            .ok_or("internal error: out")?
            .into_pointer_value();
        let scalar = match repr(&ir_fn.return_type) {
            Repr::Scalar(s) => Some(s),
            _ => None,
        };
        if let (Some(v), Some(s)) = (result.try_as_basic_value().basic(), scalar) {
            let widened: BasicValueEnum = if s.is_float() {
                b(self
                    .builder
                    .build_float_ext(v.into_float_value(), c.f64_type(), ""))?
                .into()
            } else if s.is_signed_integer() {
                b(self
                    .builder
                    .build_int_s_extend(v.into_int_value(), c.i64_type(), ""))?
                .into()
            } else {
                b(self
                    .builder
                    .build_int_z_extend(v.into_int_value(), c.i64_type(), ""))?
                .into()
            };
            b(self.builder.build_store(out, widened))?;
        } else if let (Some(v), true) = (
            result.try_as_basic_value().basic(),
            super::repr::aggregate(&ir_fn.return_type),
        ) {
            // A vector or POD result crosses boxed, as an object's.
            let boxed = self.words_box(v, &ir_fn.return_type)?;
            b(self.builder.build_store(out, boxed))?;
        } else if let Some(v) = result.try_as_basic_value().basic() {
            b(self.builder.build_store(out, v))?;
        }
        let flag =
            b(self
                .builder
                .build_load(c.bool_type(), self.unwinding.as_pointer_value(), ""))?;
        let ok = b(self.builder.build_not(flag.into_int_value(), ""))?;
        let ok = b(self.builder.build_int_z_extend(ok, c.i32_type(), ""))?;
        b(self.builder.build_return(Some(&ok)))?;
        Ok(())
    }
}
