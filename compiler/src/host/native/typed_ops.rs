//! Device work, files and array allocation in native code: each such host operation (and
//! each kernel launch) is one typed call of `device_calls.rs`, its operands computed by
//! native code first, in source order, and passed as plain arguments: objects as the
//! address of the frame slot that holds them, integers as their `i64` bits, a launch's
//! operands in two buffers (object addresses; words of the rest). No operand is evaluated
//! by the interpreter unless native code cannot compute it itself, and the operation
//! itself is not a hand-off.
//!
//! An operation whose operands include a vector or POD (none among these but a launch's
//! arguments), or an operand that assigns a local, is still handed over as a whole.

use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, PointerValue};
use inkwell::AddressSpace;

use super::codegen::{b, Codegen, FnState, Gen};
use super::delegate::Uses;
use super::repr::{in_registers, repr, Repr};
use super::words::word_count;
use crate::ir::{CommOp, DevicesOp, Expr, ExprKind, HostDeviceQuery, HostOp, Launch, Place};

/// Where a typed call puts the operation's result.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ret {
    /// It has none.
    None,
    /// Its last parameter is the frame slot receiving the object result.
    Dst,
    /// Its last parameter receives the bits of a scalar result (null when there is none).
    Out,
}

/// The result place passed to a typed call.
enum Dest<'ctx> {
    /// None (the function has no result parameter).
    None,
    /// This frame slot (an object result).
    Slot(u64),
    /// This 8-byte buffer for a scalar result, or null when the call has none.
    Out(Option<PointerValue<'ctx>>),
}

/// The typed call of host operation `op` and where its result goes; `None` for the
/// operations native code does not run this way.
fn typed_call(op: HostOp) -> Option<(&'static str, Ret)> {
    Some(match op {
        HostOp::NewArray => ("cajeta_array_new", Ret::Dst),
        HostOp::NewBuffer => ("cajeta_buffer_new", Ret::Dst),
        HostOp::NewImage2D => ("cajeta_image_new", Ret::Dst),
        HostOp::BufferSlice => ("cajeta_buffer_slice", Ret::Dst),
        HostOp::BufferFree => ("cajeta_buffer_free", Ret::Out),
        HostOp::BufferLength => ("cajeta_buffer_length", Ret::Out),
        HostOp::ImageDownload => ("cajeta_image_download", Ret::Out),
        HostOp::ImageWidth | HostOp::ImageHeight => ("cajeta_image_size", Ret::Out),
        HostOp::BufferUpload | HostOp::BufferUploadAsync => ("cajeta_buffer_upload", Ret::None),
        HostOp::BufferDownload | HostOp::BufferDownloadAsync => {
            ("cajeta_buffer_download", Ret::None)
        }
        HostOp::StreamCurrent => ("cajeta_stream_current", Ret::Dst),
        HostOp::StreamCreate => ("cajeta_stream_create", Ret::Dst),
        HostOp::EventCreate => ("cajeta_event_create", Ret::Dst),
        HostOp::StreamSync => ("cajeta_stream_sync", Ret::Out),
        HostOp::StreamDestroy => ("cajeta_stream_destroy", Ret::Out),
        HostOp::StreamWaitEvent => ("cajeta_stream_wait_event", Ret::Out),
        HostOp::EventRecord => ("cajeta_event_record", Ret::Out),
        HostOp::EventWaitHost => ("cajeta_event_wait_host", Ret::Out),
        HostOp::EventQuery => ("cajeta_event_query", Ret::Out),
        HostOp::EventElapsed => ("cajeta_event_elapsed", Ret::Out),
        HostOp::FileWrite(_) => ("cajeta_file_write", Ret::Out),
        HostOp::ImageSave => ("cajeta_image_save", Ret::Out),
        HostOp::ImageFileWidth | HostOp::ImageFileHeight => ("cajeta_image_file_size", Ret::Out),
        HostOp::FileRead(_) => ("cajeta_file_read", Ret::Dst),
        HostOp::ReadImage | HostOp::ReadImageRgba => ("cajeta_read_image", Ret::Dst),
        HostOp::WriteImage(_) => ("cajeta_write_image", Ret::None),
        HostOp::NewTexture(..) => ("cajeta_texture_new", Ret::Dst),
        HostOp::NewSampler => ("cajeta_sampler_new", Ret::Dst),
        HostOp::NewLegacyBuffer => ("cajeta_legacy_buffer_new", Ret::Dst),
        HostOp::DeviceQuery(HostDeviceQuery::Name | HostDeviceQuery::ActiveBackend) => {
            ("cajeta_device_query_text", Ret::Dst)
        }
        HostOp::DeviceQuery(_) => ("cajeta_device_query", Ret::Out),
        HostOp::Devices(DevicesOp::Count | DevicesOp::Current) => ("cajeta_devices_int", Ret::Out),
        HostOp::Devices(DevicesOp::All) => ("cajeta_devices_all", Ret::Dst),
        HostOp::Devices(DevicesOp::Set) => ("cajeta_devices_set", Ret::Out),
        HostOp::Devices(DevicesOp::CopyFrom) => ("cajeta_devices_copy", Ret::Out),
        HostOp::Comm(
            CommOp::Rank | CommOp::Size | CommOp::LocalRank | CommOp::LocalDevice | CommOp::Barrier,
        ) => ("cajeta_comm_int", Ret::Out),
        HostOp::Comm(CommOp::Broadcast) => ("cajeta_comm_broadcast", Ret::Out),
        HostOp::Comm(CommOp::Send | CommOp::Recv) => ("cajeta_comm_send_recv", Ret::Out),
        HostOp::Comm(CommOp::AllReduce) => ("cajeta_comm_all_reduce", Ret::Out),
        HostOp::Comm(CommOp::AllGather) => ("cajeta_comm_all_gather", Ret::Out),
        HostOp::BufferAllocate => ("cajeta_buffer_allocate", Ret::Out),
        HostOp::TextureUpload => ("cajeta_texture_upload", Ret::Out),
        HostOp::TextureUploadLevel => ("cajeta_texture_upload_level", Ret::Out),
        HostOp::TextureWidth | HostOp::TextureHeight | HostOp::TextureDepth => {
            ("cajeta_texture_size", Ret::Out)
        }
        HostOp::Gemm => ("cajeta_gemm", Ret::None),
        _ => return None,
    })
}

/// True when `e` is a host operation with an object result that native code runs by a
/// typed call (`Device.name()`, `heap T[n]`…): an object it can put in a slot itself.
pub(super) fn typed_object(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Host { op, args } => {
            matches!(typed_call(*op), Some((_, Ret::Dst)))
                && operands_ok(operands(*op, args).as_deref())
        }
        _ => false,
    }
}

/// True when no operand assigns a local: an object operand is passed as its local's slot,
/// which a later operand must not replace before the call.
fn no_stores<'a>(operands: impl IntoIterator<Item = &'a Expr>) -> bool {
    operands.into_iter().all(|a| !Uses::of_expr(a).stores_any())
}

/// The operands of a launch in source order.
fn launch_operands(l: &Launch) -> impl Iterator<Item = &Expr> {
    std::iter::once(&l.stream)
        .chain(&l.grid)
        .chain(&l.block)
        .chain(&l.args)
        .chain(&l.shared_bytes)
        .chain(&l.spec)
}

impl<'ctx, 'm> Codegen<'ctx, 'm> {
    /// Whether `e` is a launch or a host operation with a scalar or no result that native
    /// code runs by a typed call (`None`: not one of those, the caller decides).
    pub(super) fn typed_node(&self, e: &'m Expr) -> Option<bool> {
        match &e.kind {
            ExprKind::Host {
                op: HostOp::NanoTime,
                ..
            } => Some(true),
            ExprKind::Host { op, args } => {
                let (_, ret) = typed_call(*op)?;
                Some(ret != Ret::Dst && operands_ok(operands(*op, args).as_deref()))
            }
            ExprKind::Launch(l) => Some(
                repr(&l.stream.ty) == Repr::Object
                    && launch_operands(l)
                        .skip(1)
                        .all(|a| matches!(repr(&a.ty), Repr::Object) || in_registers(&a.ty))
                    && no_stores(launch_operands(l)),
            ),
            _ => None,
        }
    }

    /// Lowers a node [`Self::typed_node`] accepted (`None`: not one of those); the inner
    /// option is the scalar result.
    pub(super) fn typed_expr(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
    ) -> Gen<Option<Option<BasicValueEnum<'ctx>>>> {
        if self.typed_node(e) != Some(true) {
            return Ok(None);
        }
        match &e.kind {
            ExprKind::Host {
                op: HostOp::NanoTime,
                ..
            } => {
                let v = self
                    .rt_call("cajeta_nano_time", &[])?
                    .ok_or("internal error: nanoTime")?;
                Ok(Some(Some(v)))
            }
            ExprKind::Host { op, args } => {
                let (name, ret) = typed_call(*op).ok_or("internal error: typed call")?;
                let out = match repr(&e.ty) {
                    Repr::Scalar(_) => Some(st.out),
                    _ => None,
                };
                let dest = if ret == Ret::Out {
                    Dest::Out(out)
                } else {
                    Dest::None
                };
                let operands = operands(*op, args).ok_or("internal error: operands")?;
                self.typed_call(st, e, &operands, name, dest)?;
                match (out, e.ty.as_scalar()) {
                    (Some(out), Some(s)) => {
                        let i64t = self.ctx.i64_type();
                        let bits = b(self.builder.build_load(i64t, out, "bits"))?;
                        let v = self.scalar_from_bits(bits.into_int_value(), s)?;
                        Ok(Some(Some(v)))
                    }
                    _ => Ok(Some(None)),
                }
            }
            ExprKind::Launch(l) => {
                self.launch(st, e, l)?;
                Ok(Some(None))
            }
            _ => Err("internal error: typed operation".into()),
        }
    }

    /// Evaluates object expression `e` into frame slot `slot` when it is a host operation
    /// with an object result that native code runs by a typed call; false otherwise.
    pub(super) fn typed_into(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
        slot: u64,
    ) -> Gen<bool> {
        if let ExprKind::Load(Place::Index { base, index }) = &e.kind {
            return self.element_into(st, e, base, index, slot);
        }
        let ExprKind::Host { op, args } = &e.kind else {
            return Ok(false);
        };
        if *op == HostOp::ArrayLiteral {
            if !(args.iter().all(|a| in_registers(&a.ty)) && no_stores(args)) {
                return Ok(false);
            }
            self.array_literal(st, e, args, slot)?;
            return Ok(true);
        }
        let Some((name, Ret::Dst)) = typed_call(*op) else {
            return Ok(false);
        };
        let operands: Vec<&Expr> = args.iter().collect();
        if !operands_ok(Some(&operands)) {
            return Ok(false);
        }
        self.typed_call(st, e, &operands, name, Dest::Slot(slot))?;
        Ok(true)
    }

    /// Array literal `e` (`[a, b, c]`) of elements held in registers into `slot` by
    /// `cajeta_array_literal`: the elements computed in order, as words in one buffer
    /// (as a launch's operands), the array built by the interpreter's own function.
    fn array_literal(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
        args: &'m [Expr],
        slot: u64,
    ) -> Gen<()> {
        let i64t = self.ctx.i64_type();
        let n_words = args.iter().map(|a| word_count(&a.ty)).sum::<usize>().max(1);
        let words = self.entry_alloca(i64t.array_type(n_words as u32).into(), "literal")?;
        let mut w = 0;
        for a in args {
            let v = self.value(st, a)?;
            w = self.store_words(v, &a.ty, words, w)?;
        }
        let dst = self.slot_address(st, slot)?;
        let node = self.node_ptr(e);
        let call = [node.into(), words.into(), dst.into()];
        self.bridge(st, "cajeta_array_literal", &call)
    }

    /// `base[index]` of an array of objects (`args[0]` of a `String[]`, an array of
    /// buffers…) into `slot` by `cajeta_element_object`: the interpreter's element load
    /// on the array and the index native code computed, in that order; false when the
    /// index is not a native integer or assigns a local (then it is handed over whole).
    fn element_into(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
        base: &'m Expr,
        index: &'m Expr,
        slot: u64,
    ) -> Gen<bool> {
        let Repr::Scalar(s) = repr(&index.ty) else {
            return Ok(false);
        };
        if !s.is_integer() || repr(&base.ty) != Repr::Object || !no_stores([base, index]) {
            return Ok(false);
        }
        let (array, temp) = self.object_arg(st, base)?;
        let i = self.value(st, index)?;
        let bits = self.scalar_bits(i, s)?;
        let dst = self.slot_address(st, slot)?;
        let node = self.node_ptr(e);
        let args = [node.into(), array.into(), bits.into(), dst.into()];
        self.bridge(st, "cajeta_element_object", &args)?;
        self.clear_temps(st, temp.into_iter().collect())?;
        Ok(true)
    }

    /// Calls typed function `name` for host operation `e` on `args`: `e`, the operands,
    /// nulls (or zeros) for absent optional ones, then the result's place, if the function
    /// has one.
    fn typed_call(
        &mut self,
        st: &mut FnState<'ctx, 'm>,
        e: &'m Expr,
        args: &[&'m Expr],
        name: &str,
        dest: Dest<'ctx>,
    ) -> Gen<()> {
        let null = self.ctx.ptr_type(AddressSpace::default()).const_null();
        let mut call: Vec<BasicMetadataValueEnum> = vec![self.node_ptr(e).into()];
        let mut temps = Vec::new();
        for &a in args {
            match repr(&a.ty) {
                Repr::Object => {
                    let (p, temp) = self.object_arg(st, a)?;
                    temps.extend(temp);
                    call.push(p.into());
                }
                Repr::Scalar(s) => {
                    let v = self.value(st, a)?;
                    call.push(self.scalar_bits(v, s)?.into());
                }
                _ => return Err(format!("internal error: operand of type {}", a.ty)),
            }
        }
        let params = self
            .rt
            .get(name)
            .ok_or_else(|| format!("internal error: no runtime function {name}"))?
            .get_type()
            .get_param_types();
        let tail = match dest {
            Dest::None => None,
            Dest::Slot(slot) => Some(self.slot_address(st, slot)?),
            Dest::Out(p) => Some(p.unwrap_or(null)),
        };
        while call.len() + usize::from(tail.is_some()) < params.len() {
            // The padding's type is the parameter's: a null address or a zero integer.
            let zero = match params[call.len()] {
                inkwell::types::BasicMetadataTypeEnum::IntType(t) => t.const_zero().into(),
                _ => null.into(),
            };
            call.push(zero);
        }
        call.extend(tail.map(BasicMetadataValueEnum::from));
        self.bridge(st, name, &call)?;
        self.clear_temps(st, temps)
    }

    /// A kernel launch by `cajeta_launch`.
    fn launch(&mut self, st: &mut FnState<'ctx, 'm>, e: &'m Expr, l: &'m Launch) -> Gen<()> {
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let i64t = self.ctx.i64_type();
        let n_objs = 1 + l
            .args
            .iter()
            .filter(|a| repr(&a.ty) == Repr::Object)
            .count();
        let n_words = launch_operands(l)
            .skip(1)
            .filter(|a| repr(&a.ty) != Repr::Object)
            .map(|a| word_count(&a.ty))
            .sum::<usize>()
            .max(1);
        let objs = self.entry_alloca(ptr.array_type(n_objs as u32).into(), "launch.objs")?;
        let words = self.entry_alloca(i64t.array_type(n_words as u32).into(), "launch.words")?;
        let (mut o, mut w) = (0usize, 0usize);
        let mut temps = Vec::new();
        for a in launch_operands(l) {
            if repr(&a.ty) == Repr::Object {
                let (p, temp) = self.object_arg(st, a)?;
                temps.extend(temp);
                // SAFETY (of the generated code): `o` is below the array's length.
                let at = b(unsafe {
                    self.builder.build_in_bounds_gep(
                        ptr,
                        objs,
                        &[i64t.const_int(o as u64, false)],
                        "obj",
                    )
                })?;
                b(self.builder.build_store(at, p))?;
                o += 1;
            } else {
                let v = self.value(st, a)?;
                w = self.store_words(v, &a.ty, words, w)?;
            }
        }
        let node = self.node_ptr(e);
        let args: [BasicMetadataValueEnum; 3] = [node.into(), words.into(), objs.into()];
        self.bridge(st, "cajeta_launch", &args)?;
        self.clear_temps(st, temps)
    }
}

/// The operands of host operation `op` that are values, in source order
/// (`allocate(kind)`'s memory kind, `allReduce(data, how)`'s operation and `Blas.gemm`'s
/// layouts are constants the operation reads from the IR); `None` for a call whose operands
/// the operation does not admit (it is handed over whole).
fn operands(op: HostOp, args: &[Expr]) -> Option<Vec<&Expr>> {
    match (op, args) {
        (HostOp::BufferAllocate | HostOp::Comm(CommOp::AllReduce), [a, ..]) => Some(vec![a]),
        (HostOp::Gemm, _) => crate::host::interp::gemm_value_operands(args),
        _ => Some(args.iter().collect()),
    }
}

/// True when there are operands, each an object or a scalar held in a register, and none
/// assigns a local.
fn operands_ok(args: Option<&[&Expr]>) -> bool {
    args.is_some_and(|args| {
        args.iter()
            .all(|a| matches!(repr(&a.ty), Repr::Object | Repr::Scalar(_)))
            && no_stores(args.iter().copied())
    })
}
