//! Vectors, matrices and PODs held in registers, crossing into and out of the interpreter's
//! frame: before delegated code reads such a local, after it stores one, for a delegated
//! expression of such a type, a string `+` of one, printing one, a result of the entry
//! function.
//!
//! The value crosses as *words*: one 64-bit word per scalar lane, in order (a vector's
//! lanes, a matrix's column-major, a POD's fields in declaration order), each the pattern of
//! `scalar_fns.rs` (integers extended by their signedness, floats widened to `double`,
//! booleans 0 or 1), written to a buffer in the generated function's entry block. The
//! C-ABI functions here get the IR [`Type`] by address (it lives in the IR module, which
//! outlives the run) and build or read the interpreter's [`Value`].

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, PointerValue};

use super::codegen::{b, Codegen, FnState, Gen};
use super::scalar_fns::{bits_of, scalar_of};
use crate::diagnostics::Span;
use crate::host::interp::{load_element, store_element, Frame, Scalar, Value};
use crate::ir::{Expr, LocalId, ScalarType, Type};

/// The words of a value of type `ty` (see the module comment).
pub fn word_count(ty: &Type) -> usize {
    match ty {
        Type::Struct(d) => d.fields.iter().map(|(_, t)| word_count(t)).sum(),
        other => other.lanes(),
    }
}

/// The value of type `ty` whose words start `words`, and how many it took; `None` for a
/// type or pattern no value has (the generated code never passes one).
pub(super) fn value_of(words: &[i64], ty: &Type) -> Option<(Value, usize)> {
    match ty {
        Type::Scalar(s) => Some((Value::Scalar(scalar_of(*words.first()?, *s)?), 1)),
        Type::Vector(s, _) | Type::Matrix(s, ..) => {
            let n = ty.lanes();
            let lanes: Option<Vec<_>> = words.get(..n)?.iter().map(|&w| scalar_of(w, *s)).collect();
            Some((Value::Vector(lanes?.into()), n))
        }
        Type::Struct(d) => {
            let mut fields = Vec::with_capacity(d.fields.len());
            let mut at = 0;
            for (_, t) in &d.fields {
                let (v, n) = value_of(words.get(at..)?, t)?;
                fields.push(v);
                at += n;
            }
            Some((Value::Struct(fields.into()), at))
        }
        _ => None,
    }
}

/// Writes the words of `v` (of type `ty`) to `out`; zeros where `v` is not such a value
/// (an unassigned local).
pub(super) fn write_words(v: &Value, ty: &Type, out: &mut [i64]) {
    match (v, ty) {
        (Value::Scalar(s), Type::Scalar(_)) => {
            if let Some(o) = out.first_mut() {
                *o = bits_of(*s);
            }
        }
        (Value::Vector(lanes), _) => {
            for (o, l) in out.iter_mut().zip(lanes.iter()) {
                *o = bits_of(*l);
            }
        }
        (Value::Struct(fields), Type::Struct(d)) => {
            let mut at = 0;
            for (f, (_, t)) in fields.iter().zip(&d.fields) {
                let n = word_count(t);
                if let Some(o) = out.get_mut(at..at + n) {
                    write_words(f, t, o);
                }
                at += n;
            }
        }
        _ => out.fill(0),
    }
}

/// `f[s] = ` the value of type `*ty` whose words are at `words`.
///
/// # Safety
/// `f` is a live frame with slot `s`; `ty` points to a type of the IR module; `words`
/// points to its [`word_count`] words.
pub unsafe extern "C" fn cajeta_frame_set_words(
    f: *mut Frame,
    s: i64,
    words: *const i64,
    ty: *const Type,
) {
    let ty = &*ty;
    let words = std::slice::from_raw_parts(words, word_count(ty));
    (&mut *f)[s as usize] = value_of(words, ty).map_or(Value::Void, |v| v.0);
}

/// Writes the words of `f[s]`, a value of type `*ty`, to `words`.
///
/// # Safety
/// As for [`cajeta_frame_set_words`], `words` writable.
pub unsafe extern "C" fn cajeta_frame_get_words(
    f: *mut Frame,
    s: i64,
    words: *mut i64,
    ty: *const Type,
) {
    let ty = &*ty;
    let words = std::slice::from_raw_parts_mut(words, word_count(ty));
    write_words(&(&*f)[s as usize], ty, words);
}

/// A box holding the value of type `*ty` whose words are at `words` (the result of the
/// entry function, returned as an object's).
///
/// # Safety
/// As for [`cajeta_frame_set_words`].
pub unsafe extern "C" fn cajeta_words_box(words: *const i64, ty: *const Type) -> *mut Value {
    let ty = &*ty;
    let words = std::slice::from_raw_parts(words, word_count(ty));
    Box::into_raw(Box::new(value_of(words, ty).map_or(Value::Void, |v| v.0)))
}

/// Prints the value of type `*ty` whose words are at `words` as the interpreter's `print`
/// does (its `Display`); 0 when writing failed.
///
/// # Safety
/// As for [`cajeta_frame_set_words`].
pub unsafe extern "C" fn cajeta_print_words(words: *const i64, ty: *const Type) -> i32 {
    let ty = &*ty;
    let words = std::slice::from_raw_parts(words, word_count(ty));
    let text = value_of(words, ty).map_or(Value::Void, |v| v.0).to_string();
    super::runtime::write(text.as_bytes())
}

/// Element `index` (of integer type `code`) of the array in `f[s]`, written as the words
/// of a value of type `*ty` (a vector, matrix or POD array element); 0 after recording the
/// interpreter's error (a null array, an index out of bounds) at `*span`.
///
/// # Safety
/// As for [`cajeta_frame_set_words`], `words` writable; `span` points into the IR module.
pub unsafe extern "C" fn cajeta_element_get(
    f: *mut Frame,
    s: i64,
    index: i64,
    code: i32,
    words: *mut i64,
    ty: *const Type,
    span: *const Span,
) -> i32 {
    let ty = &*ty;
    let i = Scalar::from_int_wrapping(i128::from(index), super::bridge::scalar_of_code(code));
    match load_element(&(&*f)[s as usize], i, *span) {
        Ok(v) => {
            write_words(
                &v,
                ty,
                std::slice::from_raw_parts_mut(words, word_count(ty)),
            );
            1
        }
        Err(err) => {
            super::runtime::record(*err);
            0
        }
    }
}

/// `f[s][index] = ` the value of type `*ty` whose words are at `words`; 0 after recording
/// the interpreter's error at `*span`.
///
/// # Safety
/// As for [`cajeta_element_get`], `words` readable.
pub unsafe extern "C" fn cajeta_element_set(
    f: *mut Frame,
    s: i64,
    index: i64,
    code: i32,
    words: *const i64,
    ty: *const Type,
    span: *const Span,
) -> i32 {
    let ty = &*ty;
    let i = Scalar::from_int_wrapping(i128::from(index), super::bridge::scalar_of_code(code));
    let words = std::slice::from_raw_parts(words, word_count(ty));
    let v = value_of(words, ty).map_or(Value::Void, |v| v.0);
    match store_element(&(&*f)[s as usize], i, v, *span) {
        Ok(()) => 1,
        Err(err) => {
            super::runtime::record(*err);
            0
        }
    }
}

/// This file's C-ABI functions (see `runtime::functions`).
pub fn functions() -> Vec<(&'static str, &'static str, usize)> {
    vec![
        (
            "cajeta_frame_set_words",
            "v(plpp)",
            cajeta_frame_set_words as *const () as usize,
        ),
        (
            "cajeta_frame_get_words",
            "v(plpp)",
            cajeta_frame_get_words as *const () as usize,
        ),
        (
            "cajeta_element_get",
            "i(pllippp)",
            cajeta_element_get as *const () as usize,
        ),
        (
            "cajeta_element_set",
            "i(pllippp)",
            cajeta_element_set as *const () as usize,
        ),
        (
            "cajeta_print_words",
            "i(pp)",
            cajeta_print_words as *const () as usize,
        ),
        (
            "cajeta_words_box",
            "p(pp)",
            cajeta_words_box as *const () as usize,
        ),
    ]
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// An `alloca` in the entry block of the function being generated (so that one made
    /// inside a loop does not grow the stack at every iteration).
    pub fn entry_alloca(&self, ty: BasicTypeEnum<'ctx>, name: &str) -> Gen<PointerValue<'ctx>> {
        let here = self
            .builder
            .get_insert_block()
            .ok_or("internal error: no block")?;
        let entry = here
            .get_parent()
            .and_then(|f| f.get_first_basic_block())
            .ok_or("internal error: no entry block")?;
        match entry.get_first_instruction() {
            Some(first) => self.builder.position_before(&first),
            None => self.builder.position_at_end(entry),
        }
        let p = b(self.builder.build_alloca(ty, name));
        self.builder.position_at_end(here);
        p
    }

    /// A buffer of the words of a value of type `ty`.
    fn words_buffer(&self, ty: &Type) -> Gen<PointerValue<'ctx>> {
        let n = word_count(ty).max(1) as u32;
        self.entry_alloca(self.ctx.i64_type().array_type(n).into(), "words")
    }

    fn word_ptr(&self, words: PointerValue<'ctx>, i: usize) -> Gen<PointerValue<'ctx>> {
        let i64t = self.ctx.i64_type();
        // SAFETY (of the generated code): `i` is below the buffer's word count.
        b(unsafe {
            self.builder.build_in_bounds_gep(
                i64t,
                words,
                &[i64t.const_int(i as u64, false)],
                "word",
            )
        })
    }

    /// Writes the words of native `v` of type `ty` from word `at` on; the next free word.
    pub(super) fn store_words(
        &self,
        v: BasicValueEnum<'ctx>,
        ty: &Type,
        words: PointerValue<'ctx>,
        at: usize,
    ) -> Gen<usize> {
        match ty {
            Type::Scalar(s) => {
                let bits = self.scalar_bits(v, *s)?;
                b(self.builder.build_store(self.word_ptr(words, at)?, bits))?;
                Ok(at + 1)
            }
            Type::Vector(s, _) | Type::Matrix(s, ..) => {
                let lanes = self.split_lanes(v, ty.lanes())?;
                for (i, l) in lanes.iter().enumerate() {
                    let bits = self.scalar_bits(*l, *s)?;
                    b(self
                        .builder
                        .build_store(self.word_ptr(words, at + i)?, bits))?;
                }
                Ok(at + lanes.len())
            }
            Type::Struct(d) => {
                let sv = v.into_struct_value();
                let mut at = at;
                for (k, (_, t)) in d.fields.iter().enumerate() {
                    let f = b(self.builder.build_extract_value(sv, k as u32, ""))?;
                    at = self.store_words(f, t, words, at)?;
                }
                Ok(at)
            }
            other => Err(format!("internal error: words of {other}")),
        }
    }

    /// The native value of type `ty` whose words start at word `at`, and the next word.
    pub(super) fn load_words(
        &self,
        ty: &Type,
        words: PointerValue<'ctx>,
        at: usize,
    ) -> Gen<(BasicValueEnum<'ctx>, usize)> {
        let i64t = self.ctx.i64_type();
        let word = |i: usize| -> Gen<inkwell::values::IntValue<'ctx>> {
            Ok(b(self.builder.build_load(i64t, self.word_ptr(words, i)?, ""))?.into_int_value())
        };
        match ty {
            Type::Scalar(s) => Ok((self.scalar_from_bits(word(at)?, *s)?, at + 1)),
            Type::Vector(s, _) | Type::Matrix(s, ..) => {
                let n = ty.lanes();
                let mut lanes = Vec::with_capacity(n);
                for i in 0..n {
                    lanes.push(self.scalar_from_bits(word(at + i)?, *s)?);
                }
                Ok((self.join_lanes(*s, &lanes)?, at + n))
            }
            Type::Struct(d) => {
                let t = self
                    .llvm_type(ty)
                    .ok_or("internal error: POD type")?
                    .into_struct_type();
                let mut v = t.get_poison();
                let mut at = at;
                for (k, (_, ft)) in d.fields.iter().enumerate() {
                    let (f, next) = self.load_words(ft, words, at)?;
                    v = b(self.builder.build_insert_value(v, f, k as u32, ""))?.into_struct_value();
                    at = next;
                }
                Ok((v.into(), at))
            }
            other => Err(format!("internal error: words of {other}")),
        }
    }

    fn type_ptr(&self, ty: &'m Type) -> BasicMetadataValueEnum<'ctx> {
        self.node_ptr(ty).into()
    }

    /// Stores native `v` of type `ty` (a vector, matrix or POD) into frame slot `slot`.
    pub fn words_into_slot(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        v: BasicValueEnum<'ctx>,
        ty: &'m Type,
        slot: u64,
    ) -> Gen<()> {
        let words = self.words_buffer(ty)?;
        self.store_words(v, ty, words, 0)?;
        let frame = self.frame(st);
        let slot = self.ctx.i64_type().const_int(slot, false);
        let f = self.rt["cajeta_frame_set_words"];
        let args = [frame.into(), slot.into(), words.into(), self.type_ptr(ty)];
        b(self.builder.build_call(f, &args, ""))?;
        Ok(())
    }

    /// The native value of type `ty` (a vector, matrix or POD) in frame slot `slot`.
    pub fn words_from_slot(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        ty: &'m Type,
        slot: u64,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let words = self.words_buffer(ty)?;
        let frame = self.frame(st);
        let slot = self.ctx.i64_type().const_int(slot, false);
        let f = self.rt["cajeta_frame_get_words"];
        let args = [frame.into(), slot.into(), words.into(), self.type_ptr(ty)];
        b(self.builder.build_call(f, &args, ""))?;
        Ok(self.load_words(ty, words, 0)?.0)
    }

    /// Element `index` (a native integer of type `is`) of the array held by object local
    /// `array`, an element of type `ty`, as a native value; a failure (null array, index out
    /// out of bounds) is the interpreter's error at `span`, and unwinds.
    pub fn element_get(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        (array, index, is): (LocalId, BasicValueEnum<'ctx>, ScalarType),
        ty: &'m Type,
        span: &'m Span,
    ) -> Gen<BasicValueEnum<'ctx>> {
        if st.views.contains_key(&array) {
            return self.flat_get(st, (array, index, is), ty, *span);
        }
        let words = self.words_buffer(ty)?;
        self.element_call(
            st,
            "cajeta_element_get",
            (array, index, is),
            words,
            ty,
            span,
        )?;
        Ok(self.load_words(ty, words, 0)?.0)
    }

    /// `array[index] = v` (see [`Self::element_get`]).
    pub fn element_set(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        (array, index, is): (LocalId, BasicValueEnum<'ctx>, ScalarType),
        v: BasicValueEnum<'ctx>,
        ty: &'m Type,
        span: &'m Span,
    ) -> Gen<()> {
        if st.views.contains_key(&array) {
            return self.flat_set(st, (array, index, is), v, ty, *span);
        }
        let words = self.words_buffer(ty)?;
        self.store_words(v, ty, words, 0)?;
        self.element_call(
            st,
            "cajeta_element_set",
            (array, index, is),
            words,
            ty,
            span,
        )
    }

    fn element_call(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        name: &str,
        (array, index, is): (LocalId, BasicValueEnum<'ctx>, ScalarType),
        words: PointerValue<'ctx>,
        ty: &'m Type,
        span: &'m Span,
    ) -> Gen<()> {
        let i64t = self.ctx.i64_type();
        let index = self.scalar_bits(index, is)?;
        let code = super::bridge::scalar_code(is);
        let frame = self.frame(st);
        let args = [
            frame.into(),
            i64t.const_int(array.0 as u64, false).into(),
            index.into(),
            self.ctx.i32_type().const_int(code, false).into(),
            words.into(),
            self.type_ptr(ty),
            self.node_ptr(span).into(),
        ];
        let ok = b(self.builder.build_call(self.rt[name], &args, "ok"))?
            .try_as_basic_value()
            .basic()
            .ok_or("internal error: element status")?
            .into_int_value();
        self.unwind_unless(st, ok)
    }

    /// Prints native `v` of type `ty`; the `i32` status.
    pub fn print_words(
        &self,
        v: BasicValueEnum<'ctx>,
        ty: &'m Type,
    ) -> Gen<inkwell::values::IntValue<'ctx>> {
        let words = self.words_buffer(ty)?;
        self.store_words(v, ty, words, 0)?;
        let f = self.rt["cajeta_print_words"];
        let args = [words.into(), self.type_ptr(ty)];
        Ok(b(self.builder.build_call(f, &args, "printed"))?
            .try_as_basic_value()
            .basic()
            .ok_or("internal error: print status")?
            .into_int_value())
    }

    /// A box holding native `v` of type `ty` as the interpreter's value.
    pub fn words_box(
        &mut self,
        v: BasicValueEnum<'ctx>,
        ty: &'m Type,
    ) -> Gen<BasicValueEnum<'ctx>> {
        let words = self.words_buffer(ty)?;
        self.store_words(v, ty, words, 0)?;
        let f = self.rt["cajeta_words_box"];
        let args = [words.into(), self.type_ptr(ty)];
        b(self.builder.build_call(f, &args, "boxed"))?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| "internal error: boxed value".into())
    }
}

/// A reader of the words of operands held in registers (a launch's, an array literal's
/// elements), in order.
pub(super) struct Words {
    p: *const i64,
    at: usize,
}

impl Words {
    /// A reader from the first word at `p`.
    pub(super) fn new(p: *const i64) -> Words {
        Words { p, at: 0 }
    }

    /// The next operand, scalar expression `x`.
    ///
    /// # Safety (of the caller)
    /// The buffer holds the word (the generated code sized it for the launch).
    pub(super) fn scalar(&mut self, x: &Expr) -> Scalar {
        // SAFETY: see above.
        let bits = unsafe { *self.p.add(self.at) };
        self.at += 1;
        x.ty.as_scalar()
            .and_then(|s| scalar_of(bits, s))
            .unwrap_or(Scalar::U32(0))
    }

    /// The next operand, a value of type `ty` (a scalar, vector, matrix or POD).
    pub(super) fn value(&mut self, ty: &crate::ir::Type) -> Value {
        let n = word_count(ty);
        // SAFETY: as in `scalar`.
        let lanes = unsafe { std::slice::from_raw_parts(self.p.add(self.at), n) };
        self.at += n;
        value_of(lanes, ty).map_or(Value::Void, |v| v.0)
    }
}
