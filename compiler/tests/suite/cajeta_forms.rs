//! Cajeta's library forms in host code (docs/porting-from-cajeta.md): each is run through
//! both host executors, `--host interp` and `--host native`, which must print the same exact
//! values (worked out by hand in the comments).

use crate::host_run::run_source;

/// `body` as the body of `run()`, in a class of its own.
fn program(body: &str) -> String {
    format!(
        "package t;\nimport cajeta.xpu.*;\npublic final class P {{\n    public static int32 run() {{\n{body}\n        return 777;\n    }}\n}}\n"
    )
}

/// Runs `body` as the body of `run()` with `--host mode`; stdout, or the failure.
fn run(tag: &str, mode: &str, body: &str) -> String {
    let out = run_source("forms", tag, mode, &program(body));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{tag} --host {mode}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The lines both executors print for `body` (they must agree).
fn both(tag: &str, body: &str) -> Vec<String> {
    let interp = run(tag, "interp", body);
    let native = run(tag, "native", body);
    assert_eq!(interp, native, "{tag}: the executors disagree");
    interp.lines().map(str::to_string).collect()
}

#[test]
fn log10_is_exact_on_powers_of_ten() {
    let out = both(
        "log10",
        "Vector<float32, 4> p = stack Vector<float32, 4>(1.0f, 10.0f, 100.0f, 0.1f);
         System.out.println(Math.log10(1000.0f) + \" \" + Math.log10(0.001) + \" \" + Math.log10(p));
         System.out.println(Math.log10(-1.0f) + \" \" + Math.log10(0.0) + \" \" + Math.log10(2.0));",
    );
    assert_eq!(out[0], "3.0 -3.0 (0.0, 1.0, 2.0, -1.0)");
    assert_eq!(out[1], "NaN -Infinity 0.3010299956639812");
}

#[test]
fn reflect_and_refract_follow_glsl() {
    let out = both(
        "optics",
        "Vector<float32, 3> i = stack Vector<float32, 3>(1.0f, -1.0f, 0.0f);
         Vector<float32, 3> n = stack Vector<float32, 3>(0.0f, 1.0f, 0.0f);
         Vector<float32, 3> down = stack Vector<float32, 3>(0.0f, -1.0f, 0.0f);
         Vector<float64, 3> grazing = stack Vector<float64, 3>(0.6, -0.8, 0.0);
         Vector<float64, 3> up = stack Vector<float64, 3>(0.0, 1.0, 0.0);
         System.out.println(i.reflect(n) + \" \" + Math.reflect(i, n));
         System.out.println(down.refract(n, 0.5f) + \" \" + Math.refract(grazing, up, 2.0));
         System.out.println(grazing.refract(up, 0.5));",
    );
    // reflect: i - 2 * dot(n, i) * n = (1, -1, 0) + 2 * (0, 1, 0).
    assert_eq!(out[0], "(1.0, 1.0, 0.0) (1.0, 1.0, 0.0)");
    // Straight down: unbent. eta 2 at 53° from the normal: total internal reflection → 0.
    assert_eq!(out[1], "(0.0, -1.0, 0.0) (0.0, 0.0, 0.0)");
    // eta 0.5: (0.3, -0.4, 0) - (0.5 * -0.8 + sqrt(1 - 0.25 * 0.36)) * (0, 1, 0).
    assert_eq!(out[2], "(0.3, -0.9539392014169457, 0.0)");
}

#[test]
fn bits_rotate_by_uint32_and_count() {
    let out = both(
        "bits",
        "uint32 k = 33;
         System.out.println(Bits.rotateLeft(0x80000001, k) + \" \" + Bits.rotateRight(1, k));
         System.out.println(Bits.count(-1) + \" \" + Bits.count(stack Vector<uint32, 2>(7, 255)));
         uint32 w = 0xf0f0f0f0;
         uint32 c = Bits.count(w);
         int32 d = Bits.count(w);
         Vector<uint32, 2> v = Bits.count(stack Vector<uint32, 2>(w, 1));
         System.out.println((c - 17u) + \" \" + (d - 17) + \" \" + (v - 17u));",
    );
    assert_eq!(out[0], "3 -2147483648");
    assert_eq!(out[1], "32 (3, 8)");
    // Cajeta's `Bits.count(uint32)` is a uint32 (16 - 17 wraps), lane by lane on vectors; a
    // scalar count converts to an int32 where one is wanted (it is at most 32).
    assert_eq!(out[2], "4294967295 -1 (4294967295, 4294967280)");
}

#[test]
fn int8_dot_products_sum_exactly_and_saturate_with_acc() {
    let out = both(
        "idot",
        "Vector<int8, 4> a = stack Vector<int8, 4>(1, -2, 3, -4);
         Vector<int8, 4> b = stack Vector<int8, 4>(5, 6, -7, 8);
         Vector<uint8, 4> u = stack Vector<uint8, 4>(255, 255, 255, 255);
         System.out.println(a.dot(b) + \" \" + a.dot(b, -2147483600) + \" \" + b.dot(b, 2147483600));
         System.out.println(u.dot(u) + \" \" + u.dot(u, 4294967000) + \" \" + u.dot(u, 5));",
    );
    // 5 - 12 - 21 - 32; below int32's minimum; 174 above its maximum.
    assert_eq!(out[0], "-60 -2147483648 2147483647");
    // 4 * 255²; saturated at uint32's maximum; plus 5.
    assert_eq!(out[1], "260100 4294967295 260105");
}

#[test]
fn matrix_determinant_inverse_and_hadamard() {
    let out = both(
        "matrix",
        "Matrix<float32, 2, 2> a = stack Matrix<float32, 2, 2>(4.0f, 2.0f, 7.0f, 6.0f);
         Matrix<float64, 3, 3> b = stack Matrix<float64, 3, 3>(2.0, 0.0, 0.0, 0.0, 4.0, 0.0, 1.0, 0.0, 8.0);
         Matrix<float32, 2, 2> s = stack Matrix<float32, 2, 2>(1.0f, 2.0f, 2.0f, 4.0f);
         System.out.println(a.determinant() + \" \" + a.inverse() + \" \" + a.hadamard(a));
         System.out.println(b.determinant() + \" \" + b.inverse() + \" \" + (b * b.inverse()));
         System.out.println(s.determinant() + \" \" + s.inverse());",
    );
    // [[4, 7], [2, 6]]: 24 - 14; (1/10) [[6, -7], [-2, 4]] column-major; squares.
    assert_eq!(
        out[0],
        "10.0 (0.6, -0.2, -0.7, 0.4) (16.0, 4.0, 49.0, 36.0)"
    );
    // [[2, 0, 1], [0, 4, 0], [0, 0, 8]]: 64; its inverse has -1/16 in row 0, column 2.
    assert_eq!(
        out[1],
        "64.0 (0.5, 0.0, 0.0, 0.0, 0.25, 0.0, -0.0625, 0.0, 0.125) (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)"
    );
    // Singular: each cofactor divided by 0.
    assert_eq!(out[2], "0.0 (Infinity, -Infinity, -Infinity, Infinity)");
}

#[test]
fn host_library_spellings_print_and_query_like_the_originals() {
    let out = both(
        "host-spellings",
        "System.stdout.println(\"backend \" + Device.activeBackend());
         System.stdout.print(Device.integrated() == Device.isIntegrated());
         System.stdout.println(Device.memory() == Device.memoryBytes() && Device.memory() > 0);
         System.stdout.printf(\"%d-%s%n\", 42, \"x\");
         KernelBuffer<int32> b = heap KernelBuffer<int32>(0, 4);
         b.allocate(MemoryKind.Unified);
         int32[] h = [5, -6, 7, -8];
         b.upload(h);
         int32[] g = heap int32[4];
         b.download(g);
         System.stdout.println(g[0] + g[1] * 10 + g[2] * 100 + g[3] * 1000);",
    );
    assert_eq!(out, ["backend vulkan", "truetrue", "42-x", "-7355", "777"]);
}

#[test]
fn quaternions_multiply_rotate_and_interpolate_like_cajetas() {
    let out = both(
        "quaternion",
        "Quaternion<float32> a = stack Quaternion<float32>(1.0f, 2.0f, 3.0f, 4.0f);
         Quaternion<float32> b = stack Quaternion<float32>(5.0f, 6.0f, 7.0f, 8.0f);
         Quaternion<float32> ab = a * b;
         Quaternion<float32> ba = b * a;
         Quaternion<float32> c = a.conjugate();
         Quaternion<float32> s = a + b - -a;
         System.out.println(ab.w + \" \" + ab.x + \" \" + ab.y + \" \" + ab.z + \" \" + ba.x + \" \" + ba.y + \" \" + ba.z);
         System.out.println(c.w + \" \" + c.x + \" \" + c.y + \" \" + c.z + \" \" + s.w + \" \" + s.z + \" \" + a.dot(b) + \" \" + (a * c).w);
         Quaternion<float64> flip = stack Quaternion<float64>(0.0, 1.0, 0.0, 0.0);
         System.out.println(flip * stack Vector<float64, 3>(1.0, 2.0, 3.0));
         Quaternion<float32> spin = stack Quaternion<float32>(0.0f, 0.0f, 0.0f, 1.0f);
         System.out.println(spin * stack Vector<float32, 3>(1.0f, 2.0f, 3.0f));
         Quaternion<float32> inv = stack Quaternion<float32>(2.0f, 0.0f, 0.0f, 0.0f).inverse();
         Quaternion<float32> id = Rotation.identity();
         Quaternion<float32> e0 = Rotation.fromEuler(0.0f, 0.0f, 0.0f);
         System.out.println(inv.w + \" \" + inv.x + \" \" + id.w + \" \" + id.z + \" \" + e0.w + \" \" + e0.y + \" \" + stack Quaternion<float32>(0.0f, 3.0f, 0.0f, 4.0f).length());
         Quaternion<float32> one = stack Quaternion<float32>(1.0f, 0.0f, 0.0f, 0.0f);
         Quaternion<float32> z = stack Quaternion<float32>(0.0f, 0.0f, 0.0f, 1.0f);
         Quaternion<float32> n = one.nlerp(z, 0.5f);
         Quaternion<float32> sl = one.slerp(z, 0.5f);
         Quaternion<float32> far = one.slerp(-one, 0.5f);
         Quaternion<float32> q90 = Rotation.fromAxisAngle(stack Vector<float32, 3>(0.0f, 0.0f, 2.0f), 1.5707964f);
         Vector<float32, 3> r = q90 * stack Vector<float32, 3>(1.0f, 0.0f, 0.0f);
         float32 h = 0.70710677f;
         System.out.println((Math.abs(n.w - h) < 1.0e-6f) + \" \" + (Math.abs(n.z - h) < 1.0e-6f) + \" \" + (Math.abs(sl.w - h) < 1.0e-6f) + \" \" + (Math.abs(sl.z - h) < 1.0e-6f) + \" \" + far.w + \" \" + far.z);
         System.out.println((Math.abs(q90.w - h) < 1.0e-6f) + \" \" + (Math.abs(q90.z - h) < 1.0e-6f) + \" \" + (Math.abs(r.x) < 1.0e-6f) + \" \" + (Math.abs(r.y - 1.0f) < 1.0e-6f));",
    );
    // (1 + 2i + 3j + 4k)(5 + 6i + 7j + 8k) = -60 + 12i + 30j + 24k; the other order differs
    // in the vector part: -60 + 20i + 14j + 32k.
    assert_eq!(out[0], "-60.0 12.0 30.0 24.0 20.0 14.0 32.0");
    // The conjugate; a + b + a; the dot product; a times its conjugate is |a|^2 = 30.
    assert_eq!(out[1], "1.0 -2.0 -3.0 -4.0 7.0 16.0 70.0 30.0");
    // 180 degrees about x and about z.
    assert_eq!(out[2], "(1.0, -2.0, -3.0)");
    assert_eq!(out[3], "(-1.0, -2.0, 3.0)");
    // inverse of (2, 0, 0, 0); the identity both ways; the length of (0, 3, 0, 4).
    assert_eq!(out[4], "0.5 -0.0 1.0 0.0 1.0 0.0 5.0");
    // Half way from 1 to k: 45 degrees about z by nlerp and slerp; q and -q are one rotation,
    // so slerp takes the short way (no motion at all).
    assert_eq!(out[5], "true true true true 1.0 0.0");
    // 90 degrees about a non-unit z axis takes x to y.
    assert_eq!(out[6], "true true true true");
}

#[test]
fn quaternion_arrays_and_buffers_hold_four_lanes() {
    let out = both(
        "quaternion-arrays",
        "Quaternion<float32>[] qs = [stack Quaternion<float32>(1.0f, 2.0f, 3.0f, 4.0f), Rotation.identity()];
         Quaternion<float32>[] more = heap Quaternion<float32>[2];
         more[1] = qs[0] * qs[0];
         KernelBuffer<Quaternion<float32>> buf = heap KernelBuffer<Quaternion<float32>>(2);
         buf.upload(qs);
         float32[] flat = heap float32[8];
         buf.download(flat);
         System.out.println(more[0].w + \" \" + more[1].w + \" \" + more[1].z + \" \" + qs[1].w);
         System.out.println(flat[0] + \" \" + flat[3] + \" \" + flat[4] + \" \" + flat[7]);",
    );
    // A new array holds zeros; q * q = (w^2 - |v|^2, 2 w v) = (-28, 4, 6, 8).
    assert_eq!(out[0], "0.0 -28.0 8.0 1.0");
    // Lanes in storage order (w, x, y, z).
    assert_eq!(out[1], "1.0 4.0 1.0 0.0");
}

#[test]
fn sixteen_lane_byte_vectors_dot_and_reinterpret() {
    let out = both(
        "bytes16",
        "Vector<int8, 16> a = stack Vector<int32, 4>(0x01020304, -1, 0x7F80FF00, 0x11223344).asBytes();
         Vector<int8, 16> two = stack Vector<int8, 16>((int8) 2);
         Vector<uint8, 16> u = stack Vector<uint32, 4>(4294967295u).asBytes();
         System.out.println(a[0] + \" \" + a[3] + \" \" + a[4] + \" \" + a[9] + \" \" + a[15] + \" \" + two.asWords().x);
         System.out.println(a.dot(two) + \" \" + u.dot(u) + \" \" + u.dot(u, 4294967000u) + \" \" + a.dot(a, 2147483600));",
    );
    // Lane 4k + j is byte j (from the low end) of word k; 0x02020202 = 33686018.
    assert_eq!(out[0], "4 1 -1 -1 17 33686018");
    // 2 * (10 - 4 - 2 + 170) = 348; 16 * 255^2 = 1040400 (and saturated at 2^32 - 1);
    // a.a = 30 + 4 + 32514 + 8670 = 41218, past 2^31 - 1 from 2147483600.
    assert_eq!(out[1], "348 1040400 4294967295 2147483647");
}

#[test]
fn lut4_and_byte_wise_operators_on_sixteen_lane_byte_vectors() {
    let out = both(
        "lut4",
        "Vector<int8, 16> q = stack Vector<int32, 4>(0x01234567, -1, 0x7F80F00F, 0x11223344).asBytes();
         Vector<int8, 16> kv = stack Vector<int8, 16>((int8) -127, (int8) -104, (int8) -83, (int8) -65, (int8) -49, (int8) -35, (int8) -22, (int8) -10, (int8) 1, (int8) 13, (int8) 25, (int8) 38, (int8) 53, (int8) 69, (int8) 89, (int8) 113);
         System.out.println(q.lut4(kv).asWords() + \" \" + ((q >> 4) & 15).lut4(kv)[0]);
         System.out.println((q >> 4).asWords() + \" \" + (q >>> 3).asWords() + \" \" + (q << 3).asWords() + \" \" + (q ^ (int8) -1).asWords());
         Vector<uint8, 16> u = stack Vector<uint32, 4>(0xF0F08001u, 0x12345678u, 0xFFFFFFFFu, 0x80u).asBytes();
         System.out.println((u >> 4).asWords() + \" \" + (u >> 9).asWords() + \" \" + (u << 1).asWords());
         System.out.println(u.lut4(u).asWords() + \" \" + (u & 15).asWords() + \" \" + (u | u).asWords().y);",
    );
    // Lane i is kv[q[i] & 15]: bytes 67 45 23 01 pick kv[7], kv[5], kv[3], kv[1] =
    // -10, -35, -65, -104 = 0x98BFDDF6 = -1732256266; ((q >> 4) & 15) of 0x67 is 6: kv[6].
    assert_eq!(
        out[0],
        "(-1732256266, 1903260017, 1904312689, -1733443633) -22"
    );
    // Java's value per lane, narrowed: 0x67 >> 4 = 6, (byte) 0x80 >> 4 = -8 (0xF8), -1 >> 4 = -1;
    // >>> 3 of the sign-extended byte keeps the same low byte as >> 3; << 3 drops the bits
    // that leave the byte.
    assert_eq!(
        out[1],
        "(132102, -1, 133758720, 16909060) (264204, -1, 267451905, 33818120) (135800888, -117901064, -134184840, -2012178400) (-19088744, 0, -2139156496, -287454021)"
    );
    // uint8 lanes shift logically: 0xF0 >> 4 = 0x0F; a count past 7 empties every byte.
    assert_eq!(
        out[2],
        "(252643328, 16975111, 252645135, 8) (0, 0, 0, 0) (3772776450, 610839792, 4278124286, 0)"
    );
    // u indexed by its own low nibbles: 0x01 -> u[1] = 0x80, 0x80 -> u[0] = 0x01, ...
    assert_eq!(
        out[3],
        "(16843136, 4034409727, 0, 16843009) (1, 33818120, 252645135, 0) 305419896"
    );
}

#[test]
fn target_descriptor_and_device_facts_are_the_device_queries() {
    // Cajeta's `TargetDescriptor` host facts and `DeviceFacts` (E0006/E0024 before): the
    // run's device's wave size and shared memory, and 0 (unknown) for what Vulkan does not
    // report; a DeviceFacts is a value, copied by assignment.
    let out = both(
        "target-facts",
        "System.out.println((TargetDescriptor.waveWidth() == Device.waveSize()) + \" \"
             + (TargetDescriptor.ldsBytesPerBlock() == Device.sharedBytesPerBlock()) + \" \"
             + TargetDescriptor.cuCount() + \" \" + TargetDescriptor.maxWavesPerSimd());
         DeviceFacts f #= DeviceFacts.current();
         DeviceFacts g = f;
         g.sharedBytesPerBlockOptIn = 3L * f.sharedBytesPerBlock;
         System.out.println((f.sharedBytesPerBlock == Device.sharedBytesPerBlock()) + \" \"
             + (f.maxThreadsPerBlock == Device.maxThreadsPerBlock()) + \" \"
             + f.registersPerMultiprocessor + \" \" + f.multiprocessorCount + \" \"
             + f.threadsPerMultiprocessor + \" \" + f.sharedBytesPerBlockOptIn + \" \"
             + (DeviceFacts.sharedLimit(g) == 3L * f.sharedBytesPerBlock));",
    );
    assert_eq!(out, ["true true 0 0", "true true 0 0 0 0 true", "777"]);
}

#[test]
fn cajetas_acceleration_structure_constructors_check_their_counts() {
    // `heap AccelerationStructure(boxes, count)` and `(vertices, triangleCount,
    // vertexStride)` (E0008 before): the counts are checked against the array before the
    // device is asked anything, the same way in both executors.
    for (tag, body, want) in [
        (
            "accel-boxes",
            "float32[] boxes = heap float32[12];
             AccelerationStructure s = heap AccelerationStructure(boxes, 3u);",
            "AccelerationStructure: 3 boxes need 18 floats, the array has 12",
        ),
        (
            "accel-tris",
            "float32[] v = heap float32[20];
             AccelerationStructure s = heap AccelerationStructure(v, 2u, 4u);",
            "AccelerationStructure: 2 triangles of stride 4 need 23 floats, the array has 20",
        ),
    ] {
        for mode in ["interp", "native"] {
            let err = run_failing(tag, mode, body);
            assert!(err.contains(want), "{tag} --host {mode}: {err}");
        }
    }
}

/// Runs `body` as the body of `run()` with `--host mode`, which must end in a runtime error
/// (exit status 3); its stderr.
fn run_failing(tag: &str, mode: &str, body: &str) -> String {
    let out = run_source("forms", tag, mode, &program(body));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(3), "{tag} --host {mode}: {stderr}");
    stderr
}

#[test]
fn wide_vectors_compute_lane_by_lane_in_host_code() {
    let out = both(
        "wide",
        "Vector<float64, 8> a = stack Vector<float64, 8>(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
         Vector<float64, 8> b = a * 0.5 - 1.0;
         b[7] = a.dot(b);
         System.out.println(b + \" \" + b[0] + \" \" + -a[7]);
         Vector<int64, 16> w = stack Vector<int64, 16>(3L);
         w[15] = 1L << 40;
         w = w * w % 1000000007L;
         System.out.println(w);
         Vector<uint32, 16> u = stack Vector<uint32, 16>(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u, 15u);
         u = stack Vector<uint32, 16>(u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15], u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7]);
         u -= 9u;
         System.out.println(u);
         Vector<float32, 8> m = stack Vector<float32, 8>(-2.5f, 0.5f, 9.0f, -0.0f, 1.0f, 2.0f, 3.0f, 4.0f);
         System.out.println(Math.abs(m).clamp(0.75f, 3.5f) + \" \" + Math.sqrt(Math.abs(m))[2]);
         Vector<int32, 8> p = stack Vector<int32, 8>(1);
         Vector<int32, 8> q = p + (p = stack Vector<int32, 8>(5, 6, 7, 8, 9, 10, 11, 12));
         p[0] += 100;
         System.out.println(q + \" \" + p + \" \" + (p[1] = 3) + \" \" + p);",
    );
    // b = a/2 - 1; b[7] = Σ a_k·b_k in two part sums: (1·-0.5 + 2·0 + 3·0.5 + 4·1) + (5·1.5 + 6·2 + 7·2.5 + 8·3) = 5 + 61.
    assert_eq!(
        out[0],
        "(-0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 66.0) -0.5 -8.0"
    );
    // 3·3 = 9; 2^80 mod 1e9+7 computed in wrapping int64: (2^40)^2 wraps to 0.
    assert_eq!(out[1], "(9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 0)");
    // The halves swapped (the new value reads the old one), then minus 9, wrapping.
    assert_eq!(
        out[2],
        "(4294967295, 0, 1, 2, 3, 4, 5, 6, 4294967287, 4294967288, 4294967289, 4294967290, 4294967291, 4294967292, 4294967293, 4294967294)"
    );
    assert_eq!(out[3], "(2.5, 0.75, 3.5, 0.75, 1.0, 2.0, 3.0, 3.5) 3.0");
    // The left operand is read before the right one assigns (Java's order).
    assert_eq!(
        out[4],
        "(6, 7, 8, 9, 10, 11, 12, 13) (105, 6, 7, 8, 9, 10, 11, 12) 3 (105, 3, 7, 8, 9, 10, 11, 12)"
    );
}

#[test]
fn wide_vector_parameters_length_and_normalize_in_host_code() {
    let src = "package t;
import cajeta.xpu.*;
public final class P {
    static float64 mix(Vector<float64, 8> a, float64 s, Vector<float64, 8> b) {
        a[0] = 100.0;
        return a.dot(b) * s + a[7];
    }
    static int64 pick(int32 k, Vector<int64, 16> w) {
        return w[15] + (int64) k;
    }
    static int64 twice(Vector<int64, 16> w) {
        return pick(1, w * 2L) + w[3];
    }
    public static int32 run() {
        Vector<float64, 8> a = stack Vector<float64, 8>(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
        Vector<float64, 8> b = a * 0.5;
        System.out.println(mix(a, 2.0, b) + \" \" + a);
        int32 i = 1;
        System.out.println(pick(i, stack Vector<int64, 16>((int64) i++)) + \" \" + i);
        System.out.println(mix(a, 1.0, a = b) + \" \" + a);
        System.out.println(twice(stack Vector<int64, 16>(5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 20L)));
        Vector<float64, 8> p = stack Vector<float64, 8>(3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 12.0, 0.0);
        Vector<float64, 8> u = p.normalize();
        System.out.println(p.length() + \" \" + (u[0] == 3.0 / 13.0) + \" \" + (u[1] == 4.0 / 13.0) + \" \" + (u[6] == 12.0 / 13.0) + \" \" + u[7]);
        return 777;
    }
}
";
    let mut printed = Vec::new();
    for mode in ["interp", "native"] {
        let out = run_source("forms", "wide-params", mode, src);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "--host {mode}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        printed.push(stdout);
    }
    assert_eq!(printed[0], printed[1], "the executors disagree");
    let out: Vec<&str> = printed[0].lines().collect();
    // mix's copy of a has lane 0 = 100: (100·0.5 + 2·1 + 3·1.5 + 4·2) + (5·2.5 + 6·3 + 7·3.5
    // + 8·4) = 64.5 + 87 = 151.5, ·2 + a[7] = 311; the caller's a is unchanged.
    assert_eq!(out[0], "311.0 (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)");
    // The splat reads i (1) before i++; pick adds k = 1 to lane 15.
    assert_eq!(out[1], "2 2");
    // The first argument is the old a (the third assigns a = b, Java's order): 151.5 + 8.
    assert_eq!(out[2], "159.5 (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)");
    // twice passes w * 2 on: 20·2 + 1, plus w[3] = 8.
    assert_eq!(out[3], "49");
    // length: sqrt(9 + 16 + 144); normalize divides each lane by it.
    assert_eq!(out[4], "13.0 true true true 0.0");
}

#[test]
fn wide_vector_masks_and_conditionals_in_host_code() {
    let out = both(
        "wide-masks",
        "Vector<float32, 8> a = stack Vector<float32, 8>(1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f);
         Vector<float32, 8> b = stack Vector<float32, 8>(4.5f);
         Vector<boolean, 8> m = a < b;
         System.out.println(m + \" \" + m.all() + \" \" + m.any() + \" \" + (a > 0.0f).all() + \" \" + (a == 9.0f).any());
         System.out.println(m.select(a, b) + \" \" + (a >= b).select(a * 2.0f, -1.0f));
         Vector<boolean, 8> n = m & (a != 2.0f) | (a == 8.0f);
         n[4] = true;
         System.out.println(n + \" \" + n[7] + \" \" + (m ^ true));
         Vector<int32, 16> w = stack Vector<int32, 16>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
         System.out.println((w % 3 == 0).select(w, 0));
         int32 c = 0;
         Vector<int32, 8> x = stack Vector<int32, 8>(1);
         Vector<int32, 8> y = c++ > 0 ? (x = x * 5) : (x = x + 2);
         System.out.println(x + \" \" + y + \" \" + c + \" \" + (c > 0 ? x : y * 2)[3]);",
    );
    // Lanes 1..4 are below 4.5.
    assert_eq!(
        out[0],
        "(true, true, true, true, false, false, false, false) false true true false"
    );
    assert_eq!(
        out[1],
        "(1.0, 2.0, 3.0, 4.0, 4.5, 4.5, 4.5, 4.5) (-1.0, -1.0, -1.0, -1.0, 10.0, 12.0, 14.0, 16.0)"
    );
    // (m & a != 2) | a == 8, then lane 4 set; m ^ true flips every lane.
    assert_eq!(
        out[2],
        "(true, false, true, true, true, false, false, true) true (false, false, false, false, true, true, true, true)"
    );
    assert_eq!(out[3], "(0, 0, 0, 3, 0, 0, 6, 0, 0, 9, 0, 0, 12, 0, 0, 15)");
    // ?: computes only the arm taken: x = x + 2, never x * 5.
    assert_eq!(
        out[4],
        "(3, 3, 3, 3, 3, 3, 3, 3) (3, 3, 3, 3, 3, 3, 3, 3) 1 3"
    );
}
