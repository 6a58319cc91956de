//! What `cajetac` loads at start (docs/cli.md, "Two executables"): no `libgcc_s.so.1` (its
//! unwinder is linked statically, `build.rs`), and, where no LLVM code is in it (release
//! builds), no `libm.so.6` either: the math functions it calls are looked up in libm the
//! first time one is called (`src/lazy_libm.rs`), and must then give libm's results.

/// The `DT_NEEDED` names of a 64-bit little-endian ELF executable: the libraries the loader
/// opens before `main`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn needed_libraries(elf: &[u8]) -> Vec<String> {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    assert_eq!(
        &elf[..6],
        b"\x7fELF\x02\x01",
        "not a 64-bit little-endian ELF file"
    );
    let (phoff, phentsize, phnum) = (u64_at(0x20), u16_at(0x36), u16_at(0x38));
    let headers: Vec<usize> = (0..phnum).map(|i| phoff + i * phentsize).collect();
    // Virtual address → file offset, through the loadable segments.
    let file_offset = |vaddr: usize| {
        headers
            .iter()
            .filter(|&&h| u32_at(h) == 1) // PT_LOAD
            .find(|&&h| (u64_at(h + 0x10)..u64_at(h + 0x10) + u64_at(h + 0x20)).contains(&vaddr))
            .map(|&h| vaddr - u64_at(h + 0x10) + u64_at(h + 8))
            .expect("an address inside a loadable segment")
    };
    let Some(&dynamic) = headers.iter().find(|&&h| u32_at(h) == 2) else {
        return Vec::new(); // PT_DYNAMIC: none in a static executable
    };
    let entries: Vec<(usize, usize)> = (u64_at(dynamic + 8)..)
        .step_by(16)
        .map(|o| (u64_at(o), u64_at(o + 8)))
        .take_while(|&(tag, _)| tag != 0) // DT_NULL
        .collect();
    let strtab = entries
        .iter()
        .find(|&&(tag, _)| tag == 5)
        .expect("DT_STRTAB")
        .1;
    let strtab = file_offset(strtab);
    entries
        .iter()
        .filter(|&&(tag, _)| tag == 1) // DT_NEEDED
        .map(|&(_, name)| {
            let start = strtab + name;
            let len = elf[start..]
                .iter()
                .position(|&b| b == 0)
                .expect("a C string");
            String::from_utf8_lossy(&elf[start..start + len]).into_owned()
        })
        .collect()
}

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn cajetac_starts_without_libgcc_s_and_without_libm_when_llvm_is_not_in_it() {
    let elf = std::fs::read(env!("CARGO_BIN_EXE_cajetac")).expect("read the cajetac executable");
    let needed = needed_libraries(&elf);
    assert!(needed.iter().any(|n| n == "libc.so.6"), "{needed:?}");
    assert!(
        !needed.iter().any(|n| n.starts_with("libgcc_s")),
        "{needed:?}"
    );
    // A debug build still carries part of LLVM (docs/cli.md), whose C++ names libm and
    // libstdc++; without LLVM code nothing in `cajetac` may name libm.
    if !needed.iter().any(|n| n.starts_with("libstdc++")) {
        assert!(!needed.iter().any(|n| n.starts_with("libm.")), "{needed:?}");
    }
}

/// `Math` through the lazily loaded libm (needs `cajetac-llvm`, which links libm as usual).
#[cfg(feature = "native-host")]
mod lazy_libm {
    use super::super::cli::{cajetac, temp_dir};
    use std::process::Command;

    /// Every `Math` function that is a libm function, printed by the interpreter.
    const MATH_PROGRAM: &str = r#"package t;

public final class M {
    public static void main(String[] args) {
        float64 x = 0.7;
        float64 y = -2.25;
        System.out.println(Math.sin(x) + " " + Math.cos(x) + " " + Math.tan(y) + " " + Math.asin(x) + " " + Math.acos(x) + " " + Math.atan(y));
        System.out.println(Math.sinh(x) + " " + Math.cosh(y) + " " + Math.tanh(x) + " " + Math.exp(y) + " " + Math.exp2(x) + " " + Math.log(x));
        System.out.println(Math.log2(3.5) + " " + Math.log10(x) + " " + Math.atan2(x, y) + " " + Math.atan2(y, x) + " " + Math.pow(x, y) + " " + Math.pow(y, 3.0));
    }
}
"#;

    #[test]
    fn math_through_the_lazily_loaded_libm_matches_libm_linked_directly() {
        let dir = temp_dir("lazy-libm");
        let file = dir.join("m.cajeta");
        std::fs::write(&file, MATH_PROGRAM).expect("write the program");
        let run = |mut command: Command| {
            let out = command
                .args(["run", "--host", "interp"])
                .arg(&file)
                .output()
                .expect("start");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).expect("UTF-8 output")
        };
        // `cajetac-llvm` links libm as usual; `cajetac` looks its functions up on first use.
        let lazy = run(cajetac());
        let linked = run(Command::new(env!("CARGO_BIN_EXE_cajetac-llvm")));
        assert_eq!(lazy.lines().count(), 3, "{lazy}");
        assert_eq!(lazy, linked);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
