//! Checked mode's resource queries, hoisted to the function's first block.
//!
//! A bounds check needs its resource's extent: `OpArrayLength` of a buffer,
//! `OpImageQuerySize` of a storage image, `OpImageQuerySizeLod` of a texture at level 0.
//! These depend only on the resource, which is fixed for the whole launch, so each is
//! emitted once per function, in its first block, and every check of that resource reuses
//! the value. Emitted at each access instead, inside the loop of a stencil, NVIDIA's
//! compiler kept a storage-image size query at every iteration, in the dependency chain of
//! the load it guards (docs/PERFORMANCE.md, "Cost of checked mode").

use std::collections::HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, Word};

use super::function::FnCx;
use super::Res;

/// The instructions hoisted into a function's first block, and their results by operation.
#[derive(Debug, Default)]
pub(crate) struct Hoisted {
    /// In order; placed after the function's `OpVariable`s.
    instructions: Vec<Instruction>,
    /// Each result by (opcode, result type, operands): an operation is emitted once.
    results: HashMap<(u32, Word, Vec<u32>), Word>,
}

impl Hoisted {
    /// The instructions to place in the first block, leaving none behind.
    pub(crate) fn take(&mut self) -> Vec<Instruction> {
        self.results.clear();
        std::mem::take(&mut self.instructions)
    }
}

impl FnCx<'_, '_> {
    /// The result of `opcode` (result type `ty`) on `operands`, computed once in the
    /// function's first block. Every operand must be available there: a module-level id
    /// (a global variable, a constant) or the result of another hoisted operation.
    pub(crate) fn hoisted(&mut self, opcode: Op, ty: Word, operands: &[Operand]) -> Res<Word> {
        let key_operands = operands
            .iter()
            .map(|o| match o {
                Operand::IdRef(w) => *w,
                Operand::LiteralBit32(v) => *v,
                _ => u32::MAX,
            })
            .collect();
        let key = (opcode as u32, ty, key_operands);
        if let Some(&id) = self.hoist.results.get(&key) {
            return Ok(id);
        }
        let id = self.cx.b.id();
        self.hoist.instructions.push(Instruction::new(
            opcode,
            Some(ty),
            Some(id),
            operands.to_vec(),
        ));
        self.hoist.results.insert(key, id);
        Ok(id)
    }

    /// The `uint32` element count of the buffer variable `var` (`OpArrayLength` of its
    /// member 0), hoisted.
    pub(crate) fn hoisted_array_length(&mut self, var: Word) -> Res<Word> {
        let uint = self.cx.u32_type();
        self.hoisted(
            Op::ArrayLength,
            uint,
            &[Operand::IdRef(var), Operand::LiteralBit32(0)],
        )
    }

    /// The image object of the resource variable `var` (of image type `ty`), loaded once in
    /// the first block: checked mode queries its size there.
    pub(crate) fn hoisted_image(&mut self, var: Word, ty: Word) -> Res<Word> {
        self.hoisted(Op::Load, ty, &[Operand::IdRef(var)])
    }
}
