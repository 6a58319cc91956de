//! POD classes: user classes with only scalar and vector fields, passed by value to kernels
//! in the push-constant block with std430 layout.

use super::types::Type;

/// The layout-relevant declaration of a POD class.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StructDef {
    /// Class name (also the reflection type name).
    pub name: String,
    /// Fields in declaration order: name and type (a scalar or vector).
    pub fields: Vec<(String, Type)>,
}

impl StructDef {
    /// The std430 byte offset of each field (each aligned to its own alignment).
    pub fn offsets(&self) -> Vec<u32> {
        let mut offset = 0u32;
        self.fields
            .iter()
            .map(|(_, t)| {
                let (size, align) = t.std430_layout().unwrap_or((4, 4));
                offset = offset.div_ceil(align) * align;
                let at = offset;
                offset += size;
                at
            })
            .collect()
    }

    /// std430 `(size, alignment)`: the largest field alignment, the size rounded up to it.
    pub fn layout(&self) -> (u32, u32) {
        let align = self
            .fields
            .iter()
            .filter_map(|(_, t)| t.std430_layout().map(|(_, a)| a))
            .max()
            .unwrap_or(4);
        let end = self
            .offsets()
            .last()
            .zip(self.fields.last())
            .map(|(o, (_, t))| o + t.std430_layout().map(|(s, _)| s).unwrap_or(4))
            .unwrap_or(0);
        (end.div_ceil(align) * align, align)
    }

    /// The index of a field by name.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|(n, _)| n == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ScalarType::*;

    #[test]
    fn std430_offsets_align_each_field() {
        let d = StructDef {
            name: "P".into(),
            fields: vec![
                ("a".into(), Type::Scalar(F32)),
                ("v".into(), Type::Vector(F32, 3)),
                ("b".into(), Type::Scalar(U32)),
                ("w".into(), Type::Vector(I32, 2)),
                ("h".into(), Type::Scalar(U16)),
            ],
        };
        assert_eq!(d.offsets(), vec![0, 16, 28, 32, 40]);
        assert_eq!(d.layout(), (48, 16));
    }
}
