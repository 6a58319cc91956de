//! Generic classes and methods, `@Host @Device` helpers and function tables in host code
//! (docs/language.md#generics), run through both host executors, which must print the same
//! values (worked out by hand in the comments).
//! Kernels in generic classes are run by `tests/device/generics.cajeta`.

use crate::host_run::run_source;

/// Runs the program `src` with `--host mode`: stdout and stderr, and whether it succeeded.
fn run(tag: &str, mode: &str, src: &str) -> (bool, String, String) {
    let out = run_source("generics", tag, mode, src);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The lines both executors print for `src` (they must agree and succeed).
fn both(tag: &str, src: &str) -> Vec<String> {
    let (ok_i, interp, err_i) = run(tag, "interp", src);
    assert!(ok_i, "{tag} --host interp: {interp}{err_i}");
    let (ok_n, native, err_n) = run(tag, "native", src);
    assert!(ok_n, "{tag} --host native: {native}{err_n}");
    assert_eq!(interp, native, "{tag}: the executors disagree");
    interp.lines().map(str::to_string).collect()
}

#[test]
fn generic_methods_instantiate_per_argument_type() {
    let out = both(
        "methods",
        "public final class G {
    static <T> T add(T a, T b) {
        return a + b;
    }

    static <T> T first(T[] xs) {
        return xs[0];
    }

    static <T> T pick(T a, T b, boolean useFirst) {
        return useFirst ? a : b;
    }

    public static int32 main(String[] args) {
        int32 i = 2147483647;
        float32[] fs = [0.25f, 8.0f];
        // int32 wraps; float32 adds in single precision; uint32 and int64 from suffixes.
        System.out.println(add(i, 1) + \" \" + add(fs[0], fs[1]) + \" \" + add(3u, 4u) + \" \" + add(1L << 40, 5L));
        // Literals alone: int32 and float64 (Java's int and double).
        System.out.println(add(20, 22) + \" \" + add(0.1, 0.2));
        // Explicit arguments, Cajeta's and Java's spellings; an array parameter `T[]`.
        System.out.println(add<int64>(5L, 6) + \" \" + G.<float32>add(1.5f, 2.0f) + \" \" + first(fs) + \" \" + pick(i, 7, false));
        return 0;
    }
}
",
    );
    assert_eq!(out[0], "-2147483648 8.25 7 1099511627781");
    assert_eq!(out[1], "42 0.30000000000000004");
    assert_eq!(out[2], "11 3.5 0.25 7");
}

#[test]
fn generic_class_constants_size_arrays_and_bound_loops() {
    let out = both(
        "classes",
        "public final class Ring<uint32 N> {
    public static uint32 next(uint32 i) {
        return (i + 1) % N;
    }

    public static int32 sumOfSquares() {
        int32[] sq = heap int32[N];
        int32 acc = 0;
        for (uint32 i = 0; i < N; i++) {
            sq[i] = (int32) (i * i);
            acc += sq[i];
        }
        return acc;
    }
}

public final class Offset<int32 K, T> {
    public static T shift(T x) {
        return x + (T) K;
    }
}

public final class Main {
    public static int32 main(String[] args) {
        // N is a uint32: 4 wraps to 0 in Ring<5>, and 0..7 squared sum to 140 in Ring<8>.
        System.out.println(Ring<5>.next(4) + \" \" + Ring<8>.next(4) + \" \" + Ring<8>.sumOfSquares() + \" \" + Ring<3>.sumOfSquares());
        // A negative constant and a type argument together; 0x10 names the same instance as 16.
        System.out.println(Offset<-3, float32>.shift(0.5f) + \" \" + Offset<0x10, int64>.shift(1L) + \" \" + Offset<16, int64>.shift(2L));
        return 0;
    }
}
",
    );
    assert_eq!(out[0], "0 5 140 5");
    assert_eq!(out[1], "-2.5 17 18");
}

#[test]
fn a_generic_used_wrongly_is_e0050_at_the_use() {
    let (ok, _, err) = run(
        "wrong",
        "interp",
        "public final class Ring<uint32 N> {
    public static uint32 size() {
        return N;
    }
}

public final class Main {
    public static int32 main(String[] args) {
        return (int32) Ring<2, 3>.size();
    }
}
",
    );
    assert!(!ok);
    assert!(err.contains("error[E0050]"), "{err}");
    assert!(
        err.contains("class `Ring` takes 1 generic argument, found 2"),
        "{err}"
    );
    assert!(err.contains("p.cajeta:9:24"), "{err}");
}

#[test]
fn host_device_helpers_run_in_host_code_on_both_executors() {
    // `@Host @Device` is callable from host code (and kernels: tests/device/host_device.cajeta);
    // `@Host` alone is plain host code. 7 * 6 = 42; 42 ^ (42 >>> 3) = 42 ^ 5 = 47.
    let out = both(
        "hostdevice",
        "public final class H {
    @Host @Device
    static uint32 mix(uint32 a, uint32 b) {
        uint32 p = a * b;
        return p ^ (p >>> 3);
    }

    @Host
    static uint32 seven() {
        return 7;
    }

    public static int32 main(String[] args) {
        System.out.println(mix(seven(), 6) + \" \" + mix(4294967295u, 2u));
        return 0;
    }
}
",
    );
    // 0xFFFFFFFF * 2 wraps to 0xFFFFFFFE; ^ (0xFFFFFFFE >>> 3 = 0x1FFFFFFF) = 0xE0000001.
    assert_eq!(out[0], "47 3758096385");
}

const TABLES: &str = "public final class T {
    static int32 twice(int32 x) {
        return 2 * x;
    }

    static int32 square(int32 x) {
        return x * x;
    }

    static boolean odd(int32 x) {
        return x % 2 != 0;
    }

    public static int32 main(String[] args) {
        ((int32)->int32)[] ops = {T::twice, T::square};
        ((int32)->boolean)[] tests = {T::odd};
        int32 acc = 0;
        for (int32 i = 0; i < ops.length; i++) {
            acc = acc * 100 + ops[i](i + 5);
        }
        System.out.println(acc + \" \" + tests[0](7) + \" \" + tests.length);
        int32 k = args.length + 2;
        System.out.println(ops[k](3));
        return 0;
    }
}
";

#[test]
fn function_tables_call_their_entries_and_refuse_an_index_out_of_range() {
    // ops[0](5) = 10, ops[1](6) = 36: 1036. Then index 2 of a 2-entry table: Java's
    // ArrayIndexOutOfBoundsException is a runtime error (exit 3) in both executors.
    for mode in ["interp", "native"] {
        let (ok, out, err) = run("tables", mode, TABLES);
        assert!(!ok, "{mode}: {out}");
        assert_eq!(
            out.lines().next(),
            Some("1036 true 1"),
            "{mode}: {out}{err}"
        );
        assert!(
            err.contains("runtime error: array index 2 out of bounds for length 2"),
            "{mode}: {err}"
        );
        assert!(err.contains("p.cajeta:23:28"), "{mode}: {err}");
    }
}

#[test]
fn device_supports_in_host_code_answers_as_the_kernels_fold() {
    // The kernel's answers are constants of the run's device profile; host code asks the
    // same device at run time, so the two agree, on lavapipe and on the CPU device alike.
    let src = "public final class S {
    @Kernel
    public static void k(KernelBuffer<int32> b) {
        b[0] = Device.supports(Capability.Int64Atomics) ? 1 : 0;
        b[1] = Device.supports(Capability.GroupNonUniform) ? 1 : 0;
        b[2] = Device.supports(Capability.RayQuery) ? 1 : 0;
    }

    public static int32 main(String[] args) {
        KernelBuffer<int32> b = heap KernelBuffer<int32>(3);
        k.launch(KernelStream.current(), grid: [1], block: [1])(b);
        int32[] r = heap int32[3];
        b.download(r);
        boolean[] host = [Device.supports(Capability.Int64Atomics), Device.supports(Capability.GroupNonUniform), Device.supports(Capability.RayQuery)];
        for (int32 i = 0; i < 3; i++) {
            if (host[i] != (r[i] == 1)) {
                System.out.println(\"capability \" + i + \": host \" + host[i] + \", kernel \" + r[i]);
                return 1;
            }
        }
        System.out.println(\"agree\");
        return 0;
    }
}
";
    let out = both("supports", src);
    assert_eq!(out, ["agree"]);
}
