//! Three-lane vectors in native host code: held in four-lane LLVM vectors whose fourth lane is
//! zero, so that no operation reads a stack slot's unwritten bytes (a subnormal there made a
//! `Vector<float32,3>` loop ten times slower than C, docs/PERFORMANCE.md), with the results
//! of the interpreter.

use super::native_host::{cajetac, differential_with};

/// A POD of two `Vector<float32,3>` fields and a scalar updated in a loop, as `host_speed`'s
/// particle program, printing every lane of the result and of three-lane vectors of other
/// lane types.
const PARTICLE: &str = "public final class Particle {
    Vector<float32,3> pos;
    Vector<float32,3> vel;
    float32 drag;
}

public class P {
    public static int64 run() {
        Particle b = stack Particle(stack Vector<float32,3>(0.0f, 1.0f, 0.0f),
            stack Vector<float32,3>(0.5f, 2.0f, -1.0f), 0.999f);
        Vector<float32,3> g = stack Vector<float32,3>(0.0001f, -0.001f, 0.0002f);
        for (int32 i = 0; i < 1000; i++) {
            b.vel = b.vel * b.drag + g;
            b.pos = b.pos + b.vel * 0.01f;
            if (b.pos.y < 0.0f) {
                b.pos.y = -b.pos.y;
                b.vel.y = -b.vel.y;
            }
        }
        Vector<int64,3> n = stack Vector<int64,3>(7L, -8L, 9L) / stack Vector<int64,3>(2L);
        Vector<float64,3> d = stack Vector<float64,3>(1.0, 2.0, 3.0) / stack Vector<float64,3>(0.0);
        Vector<float32,3> one = stack Vector<float32,3>(1.0f);
        Vector<boolean,3> up = g < g + one;
        Vector<boolean,3> down = g + one <= g;
        System.out.println(b.pos + \" \" + b.vel + \" \" + n + \" \" + d + \" \" + up.all() + \" \" + down.any());
        System.out.println(b.pos.cross(b.vel).dot(g) + \" \" + b.pos.zyx + \" \" + b.vel.length());
        return (int64) ((b.pos.x + b.pos.y + b.pos.z) * 1000.0f);
    }
}
";

#[test]
fn three_lane_vectors_are_held_in_four_lanes_with_a_zero_fourth() {
    let dir = std::env::temp_dir().join(format!("cajetac-vec3-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("particle.cajeta");
    std::fs::write(&file, PARTICLE).unwrap();
    let status = cajetac()
        .args(["build", "--emit", "llvm", "-o"])
        .arg(&dir)
        .arg(&file)
        .status()
        .unwrap();
    assert!(status.success());
    let ir = std::fs::read_to_string(dir.join("particle.ll")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    // No value is a `<3 x …>`, whose fourth lane LLVM leaves undefined in registers.
    assert!(!ir.contains("<3 x"), "{ir}");
    // The POD local is stored whole, the fourth lane of each field written as zero.
    assert!(
        ir.contains(
            "{ <4 x float> <float 0.000000e+00, float 1.000000e+00, float 0.000000e+00, float 0.000000e+00>, \
             <4 x float> <float 5.000000e-01, float 2.000000e+00, float -1.000000e+00, float 0.000000e+00>, \
             float 9.990000e-01 }"
        ),
        "{ir}"
    );
}

#[test]
fn three_lane_vectors_agree_with_the_interpreter() {
    // Lanes are taken three by three: a division by the zero fourth lane is no error, and
    // `all`, `any`, printing, `cross`, swizzles and `length` see three lanes.
    let r = differential_with("particle.cajeta", PARTICLE, &[]);
    assert_eq!(r.out.lines().count(), 2, "{}", r.out);
    assert!(
        r.out
            .contains("(3, -4, 4) (Infinity, Infinity, Infinity) true false\n"),
        "{}",
        r.out
    );
    assert!(r.end.starts_with("returned "), "{}", r.end);
}
