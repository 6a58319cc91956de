//! `Device.*` and `Option.*` queries (SPEC §8), the cooperative-matrix types, and `psc(p)`.
//!
//! Queries stay symbolic here: each becomes an [`Intrinsic::Device`] node that the
//! specialization stage (`specialize/device.rs`) replaces by a constant for its target. What
//! sema does is check the names: a field that does not exist, a feature the runtime does not
//! know, or a string that is not an extension name is an error here, whatever the target.

use super::body::{FnCtx, R};
use crate::diagnostics::{Code, Diagnostic, Span};
use crate::ir::{self, CoopUse, DeviceQuery, ExprKind, Intrinsic, ScalarType, Type};
use crate::syntax::ast;

/// A stdlib field carrying `@Intrinsic("device.…")` / `@Intrinsic("option.…")`: its type and
/// query. `None` for fields without the annotation; a bad one is reported.
pub fn query_field_decl(
    f: &ast::FieldDecl,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Type, DeviceQuery)> {
    super::names::annotated_field(
        f,
        "Intrinsic",
        |arg| match arg {
            ast::ExprKind::Str(s) => match Intrinsic::from_name(s) {
                Some(Intrinsic::Device(q)) => Some(q),
                _ => None,
            },
            _ => None,
        },
        "a field's @Intrinsic must name a `device.*` or `option.*` query",
        diags,
    )
}

/// The cooperative-matrix type a class name denotes (`CoopMatrixA`…).
pub fn coop_type(name: &str) -> Option<Type> {
    [CoopUse::A, CoopUse::B, CoopUse::Acc]
        .into_iter()
        .find(|u| u.class_name() == name)
        .map(|u| Type::CoopMatrix(ir::CoopType::default_of(u)))
}

/// Whether `name` has the shape of a Vulkan extension name: `VK_<AUTHOR>_<name>`.
pub fn is_extension_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("VK_") else {
        return false;
    };
    let Some((author, ext)) = rest.split_once('_') else {
        return false;
    };
    !author.is_empty()
        && author
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && !ext.is_empty()
        && ext.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl<'s, 'a> FnCtx<'s, 'a> {
    /// `Device.subgroupSize`, `Option.fp16Storage`…: a query field of a stdlib class; `None`
    /// when `base.field` is something else.
    pub fn query_field(
        &mut self,
        base: &ast::Expr,
        field: &ast::Ident,
        span: Span,
    ) -> Option<R<ir::Expr>> {
        let class = self.class_name(base)?;
        let table = self.syms.query_fields.get(class)?;
        Some(match table.get(&field.name) {
            Some((ty, q)) => {
                let (ty, q) = (ty.clone(), *q);
                if !self.is_device() && class == "Device" && field.name == "subgroupSize" {
                    // In host code, the run's device: the same answer as `waveSize()`.
                    return Some(Ok(ir::Expr {
                        kind: ExprKind::Host {
                            op: ir::HostOp::DeviceQuery(ir::HostDeviceQuery::WaveSize),
                            args: Vec::new(),
                        },
                        ty,
                        span,
                    }));
                }
                if self
                    .device_only(span, &format!("`{class}.{}`", field.name))
                    .is_err()
                {
                    return Some(Err(()));
                }
                Ok(ir::Expr {
                    kind: ExprKind::Intrinsic {
                        op: Intrinsic::Device(q),
                        args: Vec::new(),
                    },
                    ty,
                    span,
                })
            }
            None => self.unknown_member(class, field, "field", table.keys()),
        })
    }

    /// `Device.hasExtension("VK_…")` / `Device.hasFeature("name")`: the argument must be a
    /// string literal (strings do not exist in device code otherwise). `None` for other calls.
    pub fn query_string_call(
        &mut self,
        recv: &ast::Expr,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        if self.class_name(recv) != Some("Device") {
            return None;
        }
        let query = match name.name.as_str() {
            "hasExtension" => DeviceQuery::HasExtension,
            "hasFeature" => DeviceQuery::HasFeature,
            "extensionVersion" => DeviceQuery::ExtensionVersion,
            "limit" => DeviceQuery::Limit,
            "hasCoopMatrix" => DeviceQuery::HasCoopMatrix,
            _ => return None,
        };
        Some(self.string_query(query, name, args, span))
    }

    fn string_query(
        &mut self,
        query: DeviceQuery,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> R<ir::Expr> {
        self.device_only(span, &format!("`Device.{}`", name.name))?;
        let args = self.positional(args)?;
        let [arg] = args.as_slice() else {
            return self.error(Diagnostic::error(
                Code::ArgumentCount,
                span,
                format!(
                    "`Device.{}` takes 1 argument but {} were supplied",
                    name.name,
                    args.len()
                ),
            ));
        };
        let ast::ExprKind::Str(text) = &arg.kind else {
            return self.error(
                Diagnostic::error(
                    Code::NotConstant,
                    arg.span,
                    format!("`Device.{}` takes a string literal", name.name),
                )
                .with_note("the name is looked up when the kernel is compiled for a device"),
            );
        };
        if query == DeviceQuery::HasCoopMatrix {
            if let Err(why) = ir::CoopShapeQuery::parse(text) {
                return self.error(
                    Diagnostic::error(Code::UnknownDeviceName, arg.span, why).with_note(format!(
                        "a shape reads `16x16x16 float16 float32`: M×N×K, the type of A and B, \
                         the type of the accumulator (one of {})",
                        ir::CoopShapeQuery::COMPONENTS.join(", ")
                    )),
                );
            }
        }
        let limits = || cajeta_runtime::COMPUTE_LIMITS.iter().map(|l| l.0);
        let ok = match query {
            DeviceQuery::HasCoopMatrix => true,
            DeviceQuery::HasExtension | DeviceQuery::ExtensionVersion => is_extension_name(text),
            DeviceQuery::Limit => limits().any(|l| l == text),
            _ => cajeta_runtime::known_features().contains(&text.as_str()),
        };
        if !ok {
            let d = Diagnostic::error(
                Code::UnknownDeviceName,
                arg.span,
                match query {
                    DeviceQuery::HasExtension | DeviceQuery::ExtensionVersion => {
                        format!("`{text}` is not a Vulkan extension name")
                    }
                    DeviceQuery::Limit => format!("unknown compute limit `{text}`"),
                    _ => format!("unknown Vulkan feature `{text}`"),
                },
            );
            let d = match query {
                DeviceQuery::HasExtension | DeviceQuery::ExtensionVersion => {
                    d.with_note("extension names look like `VK_KHR_cooperative_matrix`")
                }
                DeviceQuery::Limit => d.with_note(format!(
                    "the limits: {}",
                    limits().collect::<Vec<_>>().join(", ")
                )),
                _ => {
                    let known = cajeta_runtime::known_features();
                    // The same name in another case, else the one sharing the longest
                    // prefix (the list is long: every Vulkan 1.0-1.3 core feature).
                    let prefix = |k: &str| {
                        k.chars()
                            .zip(text.chars())
                            .take_while(|(a, b)| a == b)
                            .count()
                    };
                    let close = known
                        .iter()
                        .find(|k| k.eq_ignore_ascii_case(text))
                        .or_else(|| {
                            known
                                .iter()
                                .filter(|k| prefix(k) >= 6)
                                .max_by_key(|k| prefix(k))
                        })
                        .map(|k| format!("help: did you mean `{k}`?"));
                    d.with_note(close.unwrap_or_else(|| {
                        "the names are those of VkPhysicalDeviceFeatures, VkPhysicalDeviceVulkan11/12/13Features, the integer dot-product properties and the runtime's own table (docs/language.md, device queries)".to_string()
                    }))
                }
            };
            return self.error(d);
        }
        Ok(ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Device(query),
                args: vec![ir::Expr {
                    kind: ExprKind::Str(text.clone()),
                    ty: Type::String,
                    span: arg.span,
                }],
            },
            ty: Type::Scalar(match query {
                DeviceQuery::ExtensionVersion | DeviceQuery::Limit => ScalarType::U32,
                _ => ScalarType::Bool,
            }),
            span,
        })
    }

    /// E0019 in host code: device queries describe the device a kernel is compiled for.
    fn device_only(&mut self, span: Span, what: &str) -> R<()> {
        if self.is_device() {
            return Ok(());
        }
        self.error(
            Diagnostic::error(
                Code::DeviceOnlyInHost,
                span,
                format!("{what} is only available in kernels and @Device methods"),
            )
            .with_note("it is a constant of the device the kernel is compiled for"),
        )
    }
}

impl FnCtx<'_, '_> {
    /// `psc(p)` (SPEC §8, ncnn's "prefer specialization constant over push constant"), unless
    /// the class declares a method `psc`: `p` must name an `int32`, `uint32` or `float32`
    /// parameter of the kernel being checked. `None` for other calls.
    pub fn psc_call(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Arg],
        span: Span,
    ) -> Option<R<ir::Expr>> {
        let own = self
            .syms
            .user_methods
            .get(&self.class)
            .is_some_and(|m| m.contains_key("psc"));
        if name.name != "psc" || own {
            return None;
        }
        Some(self.psc_arg(args, span))
    }

    fn psc_arg(&mut self, args: &[ast::Arg], span: Span) -> R<ir::Expr> {
        let args = self.positional(args)?;
        let bad = |at: Span, msg: String| {
            Diagnostic::error(Code::InvalidPsc, at, msg).with_note(
                "psc(p) takes a scalar kernel parameter (int32, uint32 or float32) by name",
            )
        };
        let [arg] = args.as_slice() else {
            return self.error(bad(
                span,
                format!("psc takes 1 argument, found {}", args.len()),
            ));
        };
        if self.kind != ir::FunctionKind::Kernel {
            return self.error(bad(span, "psc is only available in kernels".to_string()));
        }
        let param = match &arg.kind {
            ast::ExprKind::Name(n) => self.lookup(n).filter(|id| self.is_param_local(*id)),
            _ => None,
        };
        let Some(id) = param else {
            return self.error(bad(arg.span, "psc needs a kernel parameter".to_string()));
        };
        let ty = self.locals[id.0].ty.clone();
        if !matches!(
            ty,
            Type::Scalar(ScalarType::I32 | ScalarType::U32 | ScalarType::F32)
        ) {
            return self.error(bad(arg.span, format!("psc of a {ty} parameter")));
        }
        let read = self.expr(arg, None)?;
        Ok(ir::Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Psc,
                args: vec![read],
            },
            ty,
            span,
        })
    }

    /// The `psc:` launch option: `true` or `false`.
    pub fn psc_option(&mut self, e: &ast::Expr) -> R<bool> {
        match e.kind {
            ast::ExprKind::Bool(b) => Ok(b),
            _ => self.error(Diagnostic::error(
                Code::NotConstant,
                e.span,
                "`psc:` takes `true` or `false`",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_names_are_checked_by_shape() {
        assert!(is_extension_name("VK_KHR_cooperative_matrix"));
        assert!(is_extension_name("VK_NV_cooperative_matrix2"));
        assert!(is_extension_name("VK_EXT_shader_atomic_float"));
        assert!(!is_extension_name("cooperative_matrix"));
        assert!(!is_extension_name("VK_khr_x"));
        assert!(!is_extension_name("VK_KHR_"));
        assert!(!is_extension_name("VK_KHR_a-b"));
    }
}
