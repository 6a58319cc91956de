//! The host programs `host_speed` times, each in Cajeta and in C.

/// Name, Cajeta declarations beside class `P` (PODs), Cajeta body of `run()` (returns the
/// result as `int64`), C body of `main` (prints the result). `N` is the loop count (10M), `M` the outer count of the nested loops (3000);
/// a second pass multiplies both by 10 for native code and gcc only, where the fixed cost of
/// starting (and compiling) no longer hides the loop (programs without `N` or `M` are not
/// repeated). The C versions do what the Cajeta ones do, operation for operation: the same
/// float operations in the same order (`gcc -O2 -ffp-contract=off`: nothing is contracted
/// into FMA), the same libm functions for `Math`, and strings that are copied on every `+`,
/// as Cajeta's (and Java's) immutable ones, or built once where Cajeta builds a chain of
/// `+` in one string.
pub const PROGRAMS: [(&str, &str, &str, &str); 14] = [
    ("empty", "", "return 0;", "printf(\"%lld\\n\", 0LL); return 0;"),
    (
        "int loop (10M: acc = acc * 31 + (i ^ (i >> 3)))",
        "",
        "int32 acc = 0;
        for (int32 i = 0; i < N; i++) {
            acc = acc * 31 + (i ^ (i >> 3));
        }
        return acc;",
        // Signed overflow is undefined in C: the same wrapping arithmetic in uint32_t.
        "uint32_t acc = 0;
        for (int32_t i = 0; i < N; i++) {
            acc = acc * 31u + (uint32_t) (i ^ (i >> 3));
        }
        printf(\"%lld\\n\", (long long) (int32_t) acc); return 0;",
    ),
    (
        "float loop (10M: y = y * k + c; s += y / (1 + (i & 1023)))",
        "",
        "float64 s = 0.0;
        float64 y = 1.0;
        for (int32 i = 0; i < N; i++) {
            y = y * 0.9999999 + 0.5e-7;
            s = s + y / (1.0 + (float64) (i & 1023));
        }
        return (int64) (s * 1000.0);",
        "double s = 0.0, y = 1.0;
        for (int32_t i = 0; i < N; i++) {
            y = y * 0.9999999 + 0.5e-7;
            s = s + y / (1.0 + (double) (i & 1023));
        }
        printf(\"%lld\\n\", (long long) (s * 1000.0)); return 0;",
    ),
    (
        "nested loops (3000 x 3000: acc += ((a * b) ^ (a + b)) & 255)",
        "",
        "int64 acc = 0;
        for (int32 a = 0; a < M; a++) {
            for (int32 b = 0; b < 3000; b++) {
                acc = acc + (int64) (((a * b) ^ (a + b)) & 255);
            }
        }
        return acc;",
        "int64_t acc = 0;
        for (int32_t a = 0; a < M; a++) {
            for (int32_t b = 0; b < 3000; b++) {
                acc = acc + (int64_t) (((a * b) ^ (a + b)) & 255);
            }
        }
        printf(\"%lld\\n\", (long long) acc); return 0;",
    ),
    (
        "array sweep (10M float32: fill, 5 passes of a[i] = a[i] * 0.5 + 1 summed)",
        "",
        "int32 n = N;
        float32[] a = heap float32[n];
        for (int32 i = 0; i < a.length; i++) {
            a[i] = (float32) (i & 1023);
        }
        float64 s = 0.0;
        for (int32 r = 0; r < 5; r++) {
            for (int32 i = 0; i < a.length; i++) {
                a[i] = a[i] * 0.5f + 1.0f;
                s = s + (float64) a[i];
            }
        }
        return (int64) s;",
        "int32_t n = N;
        float *a = calloc(n, sizeof(float));
        for (int32_t i = 0; i < n; i++) {
            a[i] = (float) (i & 1023);
        }
        double s = 0.0;
        for (int32_t r = 0; r < 5; r++) {
            for (int32_t i = 0; i < n; i++) {
                a[i] = a[i] * 0.5f + 1.0f;
                s = s + (double) a[i];
            }
        }
        printf(\"%lld\\n\", (long long) s); return 0;",
    ),
    (
        "blur-style check (1000 x M image: 3x3 box filter, then every texel recomputed and compared)",
        "",
        "int32 w = 1000;
        int32 h = M;
        float32[] img = heap float32[w * h];
        float32[] out = heap float32[w * h];
        for (int32 i = 0; i < img.length; i++) {
            img[i] = (float32) ((i * 7) & 255) / 255.0f;
        }
        for (int32 y = 1; y < h - 1; y++) {
            for (int32 x = 1; x < w - 1; x++) {
                float32 acc = 0.0f;
                for (int32 dy = -1; dy <= 1; dy++) {
                    for (int32 dx = -1; dx <= 1; dx++) {
                        acc += img[(y + dy) * w + x + dx];
                    }
                }
                out[y * w + x] = acc / 9.0f;
            }
        }
        int64 bad = 0L;
        for (int32 y = 1; y < h - 1; y++) {
            for (int32 x = 1; x < w - 1; x++) {
                float32 acc = 0.0f;
                for (int32 dy = -1; dy <= 1; dy++) {
                    for (int32 dx = -1; dx <= 1; dx++) {
                        acc += img[(y + dy) * w + x + dx];
                    }
                }
                if (Math.abs(out[y * w + x] - acc / 9.0f) > 1.0e-6f) {
                    bad++;
                }
            }
        }
        return bad * 1000000L + (int64) (out[w + 1] * 1000.0f);",
        "int32_t w = 1000;
        int32_t h = M;
        float *img = calloc((size_t) w * h, sizeof(float));
        float *out = calloc((size_t) w * h, sizeof(float));
        for (int32_t i = 0; i < w * h; i++) {
            img[i] = (float) ((i * 7) & 255) / 255.0f;
        }
        for (int32_t y = 1; y < h - 1; y++) {
            for (int32_t x = 1; x < w - 1; x++) {
                float acc = 0.0f;
                for (int32_t dy = -1; dy <= 1; dy++) {
                    for (int32_t dx = -1; dx <= 1; dx++) {
                        acc += img[(y + dy) * w + x + dx];
                    }
                }
                out[y * w + x] = acc / 9.0f;
            }
        }
        long long bad = 0;
        for (int32_t y = 1; y < h - 1; y++) {
            for (int32_t x = 1; x < w - 1; x++) {
                float acc = 0.0f;
                for (int32_t dy = -1; dy <= 1; dy++) {
                    for (int32_t dx = -1; dx <= 1; dx++) {
                        acc += img[(y + dy) * w + x + dx];
                    }
                }
                if (fabsf(out[y * w + x] - acc / 9.0f) > 1.0e-6f) {
                    bad++;
                }
            }
        }
        printf(\"%lld\\n\", bad * 1000000LL + (long long) (out[w + 1] * 1000.0f)); return 0;",
    ),
    (
        "string building (20000 appends: s = s + (i % 10), printed)",
        "",
        "String s = \"\";
        for (int32 i = 0; i < 20000; i++) {
            s = s + (i % 10);
        }
        System.out.println(s);
        return 0L;",
        "char *s = calloc(1, 1);
        size_t n = 0;
        for (int32_t i = 0; i < 20000; i++) {
            char d[16];
            int k = snprintf(d, sizeof d, \"%d\", i % 10);
            char *t = malloc(n + (size_t) k + 1);
            memcpy(t, s, n);
            memcpy(t + n, d, (size_t) k + 1);
            free(s);
            s = t;
            n += (size_t) k;
        }
        puts(s);
        printf(\"%lld\\n\", 0LL); return 0;",
    ),
    (
        "vector loop (10M: acc = acc * 0.999f + p * d, Vector<float32,4>)",
        "",
        "Vector<float32,4> acc = stack Vector<float32,4>(0.0f);
        Vector<float32,4> p = stack Vector<float32,4>(1.0f, 2.0f, 3.0f, 4.0f);
        Vector<float32,4> d = stack Vector<float32,4>(0.5f, -0.25f, 0.125f, 1.0f);
        for (int32 i = 0; i < N; i++) {
            d.x = (float32) (i & 1023) * 0.0001f;
            acc = acc * 0.999f + p * d;
        }
        return (int64) (acc.dot(p) * 1000.0f);",
        "float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        float p[4] = {1.0f, 2.0f, 3.0f, 4.0f};
        float d[4] = {0.5f, -0.25f, 0.125f, 1.0f};
        for (int32_t i = 0; i < N; i++) {
            d[0] = (float) (i & 1023) * 0.0001f;
            for (int k = 0; k < 4; k++) {
                acc[k] = acc[k] * 0.999f + p[k] * d[k];
            }
        }
        float dot = ((acc[0] * p[0] + acc[1] * p[1]) + acc[2] * p[2]) + acc[3] * p[3];
        printf(\"%lld\\n\", (long long) (dot * 1000.0f)); return 0;",
    ),
    (
        "POD particle update (10M: two Vector<float32,3> fields and a scalar, field by field)",
        "public final class Particle {
    Vector<float32,3> pos;
    Vector<float32,3> vel;
    float32 drag;
}
",
        "Particle b = stack Particle(stack Vector<float32,3>(0.0f, 1.0f, 0.0f),
            stack Vector<float32,3>(0.5f, 2.0f, -1.0f), 0.999f);
        Vector<float32,3> g = stack Vector<float32,3>(0.0001f, -0.001f, 0.0002f);
        for (int32 i = 0; i < N; i++) {
            b.vel = b.vel * b.drag + g;
            b.pos = b.pos + b.vel * 0.01f;
            if (b.pos.y < 0.0f) {
                b.pos.y = -b.pos.y;
                b.vel.y = -b.vel.y;
            }
        }
        return (int64) ((b.pos.x + b.pos.y + b.pos.z) * 1000.0f);",
        "struct { float pos[3]; float vel[3]; float drag; } b =
            {{0.0f, 1.0f, 0.0f}, {0.5f, 2.0f, -1.0f}, 0.999f};
        float g[3] = {0.0001f, -0.001f, 0.0002f};
        for (int32_t i = 0; i < N; i++) {
            for (int k = 0; k < 3; k++) {
                b.vel[k] = b.vel[k] * b.drag + g[k];
            }
            for (int k = 0; k < 3; k++) {
                b.pos[k] = b.pos[k] + b.vel[k] * 0.01f;
            }
            if (b.pos[1] < 0.0f) {
                b.pos[1] = -b.pos[1];
                b.vel[1] = -b.vel[1];
            }
        }
        printf(\"%lld\\n\", (long long) (((b.pos[0] + b.pos[1]) + b.pos[2]) * 1000.0f)); return 0;",
    ),
    (
        "POD array update (10M element updates: heap Particle[1000], fields in place)",
        "public final class Particle {
    Vector<float32,3> pos;
    Vector<float32,3> vel;
    float32 drag;
}
",
        "Particle[] ps = heap Particle[1000];
        for (int32 i = 0; i < 1000; i++) {
            ps[i] = stack Particle(stack Vector<float32,3>((float32) i * 0.001f, 1.0f, 0.0f),
                stack Vector<float32,3>(0.5f, 2.0f, -1.0f), 0.999f);
        }
        Vector<float32,3> g = stack Vector<float32,3>(0.0001f, -0.001f, 0.0002f);
        for (int32 r = 0; r < N; r += 1000) {
            for (int32 i = 0; i < 1000; i++) {
                ps[i].vel = ps[i].vel * ps[i].drag + g;
                ps[i].pos = ps[i].pos + ps[i].vel * 0.01f;
            }
        }
        float32 s = 0.0f;
        for (int32 i = 0; i < 1000; i++) {
            s = s + ps[i].pos.y;
        }
        return (int64) (s * 10.0f);",
        "struct P { float pos[3]; float vel[3]; float drag; };
        struct P *ps = malloc(1000 * sizeof(struct P));
        for (int32_t i = 0; i < 1000; i++) {
            struct P p = {{(float) i * 0.001f, 1.0f, 0.0f}, {0.5f, 2.0f, -1.0f}, 0.999f};
            ps[i] = p;
        }
        float g[3] = {0.0001f, -0.001f, 0.0002f};
        for (int32_t r = 0; r < N; r += 1000) {
            for (int32_t i = 0; i < 1000; i++) {
                for (int k = 0; k < 3; k++) {
                    ps[i].vel[k] = ps[i].vel[k] * ps[i].drag + g[k];
                }
                for (int k = 0; k < 3; k++) {
                    ps[i].pos[k] = ps[i].pos[k] + ps[i].vel[k] * 0.01f;
                }
            }
        }
        float s = 0.0f;
        for (int32_t i = 0; i < 1000; i++) {
            s = s + ps[i].pos[1];
        }
        printf(\"%lld\\n\", (long long) (s * 10.0f)); return 0;",
    ),
    (
        "vector array (10M: acc = acc * 0.999f + vs[i] over heap Vector<float32,4>[1000])",
        "",
        "Vector<float32,4>[] vs = heap Vector<float32,4>[1000];
        for (int32 i = 0; i < 1000; i++) {
            vs[i] = stack Vector<float32,4>((float32) i, 1.0f, -0.5f, 0.25f) * 0.001f;
        }
        Vector<float32,4> acc = stack Vector<float32,4>(0.0f);
        for (int32 r = 0; r < N; r += 1000) {
            for (int32 i = 0; i < 1000; i++) {
                acc = acc * 0.999f + vs[i];
            }
        }
        return (int64) (acc.dot(stack Vector<float32,4>(1.0f)) * 1000.0f);",
        "float (*vs)[4] = malloc(1000 * sizeof *vs);
        for (int32_t i = 0; i < 1000; i++) {
            float v[4] = {(float) i, 1.0f, -0.5f, 0.25f};
            for (int k = 0; k < 4; k++) {
                vs[i][k] = v[k] * 0.001f;
            }
        }
        float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int32_t r = 0; r < N; r += 1000) {
            for (int32_t i = 0; i < 1000; i++) {
                for (int k = 0; k < 4; k++) {
                    acc[k] = acc[k] * 0.999f + vs[i][k];
                }
            }
        }
        float dot = ((acc[0] * 1.0f + acc[1] * 1.0f) + acc[2] * 1.0f) + acc[3] * 1.0f;
        printf(\"%lld\\n\", (long long) (dot * 1000.0f)); return 0;",
    ),
    (
        "matrix x vector (10M: v = m * v + bias, Matrix<float32,4,4>)",
        "",
        "Matrix<float32,4,4> m = stack Matrix<float32,4,4>(0.9f, 0.1f, 0.0f, 0.0f,
            -0.1f, 0.9f, 0.0f, 0.0f, 0.0f, 0.0f, 0.95f, 0.05f, 0.01f, 0.02f, -0.05f, 0.95f);
        Vector<float32,4> v = stack Vector<float32,4>(1.0f, 2.0f, 3.0f, 4.0f);
        Vector<float32,4> bias = stack Vector<float32,4>(0.1f, -0.2f, 0.3f, 0.05f);
        for (int32 i = 0; i < N; i++) {
            v = m * v + bias;
        }
        return (int64) (v.dot(v) * 1000.0f);",
        // Column-major, each row summed column by column as the interpreter does.
        "float m[16] = {0.9f, 0.1f, 0.0f, 0.0f, -0.1f, 0.9f, 0.0f, 0.0f,
            0.0f, 0.0f, 0.95f, 0.05f, 0.01f, 0.02f, -0.05f, 0.95f};
        float v[4] = {1.0f, 2.0f, 3.0f, 4.0f};
        float bias[4] = {0.1f, -0.2f, 0.3f, 0.05f};
        for (int32_t i = 0; i < N; i++) {
            float r[4];
            for (int row = 0; row < 4; row++) {
                float acc = m[row] * v[0];
                acc = acc + m[4 + row] * v[1];
                acc = acc + m[8 + row] * v[2];
                acc = acc + m[12 + row] * v[3];
                r[row] = acc + bias[row];
            }
            memcpy(v, r, sizeof v);
        }
        float dot = ((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]) + v[3] * v[3];
        printf(\"%lld\\n\", (long long) (dot * 1000.0f)); return 0;",
    ),
    (
        "strings and Math.sin (2M: s = \"item-\" + i + \":\" + (i * 3); n += s.length(); acc += Math.sin(i * 0.001), float64)",
        "",
        "int32 n = N;
        int64 total = 0;
        float64 acc = 0.0;
        for (int32 i = 0; i < n / 5; i++) {
            String s = \"item-\" + i + \":\" + (i * 3);
            total = total + s.length();
            acc = acc + Math.sin((float64) i * 0.001);
        }
        return total * 1000000L + (int64) (acc * 1000.0);",
        // One new string per iteration, as the Cajeta program builds (its pieces appended
        // in place), and the same libm `sin`.
        "int32_t n = N;
        long long total = 0;
        double acc = 0.0;
        for (int32_t i = 0; i < n / 5; i++) {
            char *s = malloc(32);
            int k = snprintf(s, 32, \"item-%d:%d\", i, i * 3);
            total += (long long) strlen(s);
            free(s);
            (void) k;
            acc = acc + sin((double) i * 0.001);
        }
        printf(\"%lld\\n\", total * 1000000LL + (long long) (acc * 1000.0)); return 0;",
    ),
    (
        "float64 Math (10M: acc += sin(x) * cos(x) + exp(-x) + log(1 + x) + pow(x, 0.3) + atan2(x, 2))",
        "",
        "int32 n = N;
        float64 acc = 0.0;
        for (int32 i = 0; i < n; i++) {
            float64 x = (float64) (i & 4095) * 0.00025;
            acc = acc + Math.sin(x) * Math.cos(x) + Math.exp(-x) + Math.log(1.0 + x) + Math.pow(x, 0.3) + Math.atan2(x, 2.0);
        }
        return (int64) (acc * 1000.0);",
        "int32_t n = N;
        double acc = 0.0;
        for (int32_t i = 0; i < n; i++) {
            double x = (double) (i & 4095) * 0.00025;
            acc = acc + sin(x) * cos(x) + exp(-x) + log(1.0 + x) + pow(x, 0.3) + atan2(x, 2.0);
        }
        printf(\"%lld\\n\", (long long) (acc * 1000.0)); return 0;",
    ),
];
