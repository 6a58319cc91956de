//! The stdlib prelude, compiled into the binary so `cajetac` needs no install tree.

/// (file name, source) of every stdlib file.
pub const STDLIB_FILES: &[(&str, &str)] = &[
    (
        "cajeta/xpu.cajeta",
        include_str!("../../../stdlib/cajeta/xpu.cajeta"),
    ),
    (
        "cajeta/memory.cajeta",
        include_str!("../../../stdlib/cajeta/memory.cajeta"),
    ),
    (
        "cajeta/lang.cajeta",
        include_str!("../../../stdlib/cajeta/lang.cajeta"),
    ),
    (
        "cajeta/vector.cajeta",
        include_str!("../../../stdlib/cajeta/vector.cajeta"),
    ),
    (
        "cajeta/int_precision.cajeta",
        include_str!("../../../stdlib/cajeta/int_precision.cajeta"),
    ),
    (
        "cajeta/io.cajeta",
        include_str!("../../../stdlib/cajeta/io.cajeta"),
    ),
    (
        "cajeta/device.cajeta",
        include_str!("../../../stdlib/cajeta/device.cajeta"),
    ),
];
