//! The packed lane store of the integer precision families: a compare-exchange loop on the
//! containing word, with no 8/16-bit capability.

use super::*;

#[test]
fn packed_lane_store_is_a_compare_exchange_loop_without_narrow_capabilities() {
    for bits in [8u8, 16] {
        let mut k = Fb::kernel("lanes");
        let words = k.param("words", Type::buffer(I32));
        let v = k.param("v", I32);
        let store = intr(
            Intrinsic::IntPrecision(IntPrecisionFn::StoreLane(bits)),
            vec![words.clone(), gid(Axis::X), v],
            Type::Void,
        );
        let (r, dis) = build(&module(vec![k.body(vec![Stmt::Expr(store)])]), 0);
        assert_eq!(count_op(&dis, "OpAtomicCompareExchange"), 1, "{dis}");
        assert_eq!(count_op(&dis, "OpAtomicLoad"), 1, "{dis}");
        assert_eq!(count_op(&dis, "OpBitFieldInsert"), 1, "{dis}");
        assert_eq!(count_op(&dis, "OpLoopMerge"), 1, "{dis}");
        // The word index is the lane index shifted right by 2 (bytes) or 1 (halves).
        assert_eq!(count_op(&dis, "OpShiftRightLogical"), 1, "{dis}");
        let caps = &r.reflection.capabilities;
        for narrow in [
            "Int8",
            "Int16",
            "StorageBuffer8BitAccess",
            "StorageBuffer16BitAccess",
        ] {
            assert!(!caps.iter().any(|c| c == narrow), "{narrow} in {caps:?}");
        }
        let access = serde_json::to_string(&r.reflection.bindings[0]).unwrap();
        assert!(access.contains("read_write"), "{access}");
    }
}

#[test]
fn packed_lane_store_rejects_other_widths() {
    let mut k = Fb::kernel("lanes");
    let words = k.param("words", Type::buffer(I32));
    let store = intr(
        Intrinsic::IntPrecision(IntPrecisionFn::StoreLane(4)),
        vec![words, u32c(0), i32c(1)],
        Type::Void,
    );
    let m = module(vec![k.body(vec![Stmt::Expr(store)])]);
    let opts = SpirvOptions::default();
    assert!(compile_kernel(&m, FunctionId(0), &opts).is_err());
}
