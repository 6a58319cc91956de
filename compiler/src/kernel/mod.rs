//! Kernel backends: consumers of the checked [`crate::ir::Module`] that turn each kernel (and
//! the `@Device` helpers it calls) into a SPIR-V module plus its reflection document.
//!
//! `spirv` emits the words itself through rspirv (the default); `llvm` (feature
//! `native-host`) lowers the kernel to LLVM IR and emits through LLVM's SPIR-V target
//! (`--backend llvm`). The two share only the IR, the backend-independent layout in
//! [`crate::layout`] and the small entry points `spirv` exports for both (kernel shape checks,
//! resource access, the compiled-kernel types).

#[cfg(feature = "native-host")]
pub mod llvm;
pub mod spirv;
