//! `GLSL.std.450` `Determinant` and `MatrixInverse` on the CPU target: bodies of their
//! placeholders for square `float32`/`float64` matrices of 2 to 4 columns (the LLVM value
//! `[c x <r x lane>]`, column-major). The determinant is the cofactor expansion along the
//! first row, each minor computed once; the inverse is the adjugate over the determinant,
//! as the GLSL specification defines it (no pivoting: a singular matrix gives infinities or
//! NaNs, as on a GPU).

use std::collections::HashMap;
use std::fmt::Write;

use rspirv::spirv::GlslStd450Op as GLOp;

/// The body of `Determinant` (`n` 33) or `MatrixInverse` (34) returning `ret` on `params`,
/// or `None` for other instructions and types.
pub(super) fn determinant_or_inverse(n: u32, ret: &str, params: &[&str]) -> Option<String> {
    let [ty] = params else {
        return None;
    };
    let (cols, column) = ty.strip_prefix('[')?.strip_suffix(']')?.split_once(" x ")?;
    let size: usize = cols.parse().ok()?;
    let (rows, lane) = column
        .strip_prefix('<')?
        .strip_suffix('>')?
        .split_once(" x ")?;
    if rows.parse::<usize>().ok()? != size
        || !(2..=4).contains(&size)
        || !matches!(lane, "float" | "double")
    {
        return None;
    }
    let inverse = match GLOp::from_u32(n)? {
        GLOp::Determinant if ret == lane => false,
        GLOp::MatrixInverse if ret == *ty => true,
        _ => return None,
    };
    let mut m = Minors {
        lane,
        body: String::new(),
        done: HashMap::new(),
        next: 0,
    };
    // `%e<r><c>`: the element of row r, column c.
    for c in 0..size {
        let _ = writeln!(m.body, "  %c{c} = extractvalue {ty} %a0, {c}");
        for r in 0..size {
            let _ = writeln!(
                m.body,
                "  %e{r}{c} = extractelement {column} %c{c}, i32 {r}"
            );
        }
    }
    let all: Vec<usize> = (0..size).collect();
    let det = m.det(&all, &all);
    if !inverse {
        let _ = writeln!(m.body, "  ret {lane} {det}");
        return Some(m.body);
    }
    // inverse[r][c] = (-1)^(r+c) · minor(without row c, column r) / det.
    let mut matrix = "poison".to_string();
    for c in 0..size {
        let mut col = "poison".to_string();
        for r in 0..size {
            let keep_rows: Vec<usize> = all.iter().copied().filter(|&i| i != c).collect();
            let keep_cols: Vec<usize> = all.iter().copied().filter(|&j| j != r).collect();
            let minor = m.det(&keep_rows, &keep_cols);
            let cofactor = if (r + c) % 2 == 1 {
                let t = m.tmp();
                let _ = writeln!(m.body, "  {t} = fneg {lane} {minor}");
                t
            } else {
                minor
            };
            let (q, v) = (m.tmp(), m.tmp());
            let _ = writeln!(m.body, "  {q} = fdiv {lane} {cofactor}, {det}");
            let _ = writeln!(
                m.body,
                "  {v} = insertelement {column} {col}, {lane} {q}, i32 {r}"
            );
            col = v;
        }
        let t = m.tmp();
        let _ = writeln!(
            m.body,
            "  {t} = insertvalue {ty} {matrix}, {column} {col}, {c}"
        );
        matrix = t;
    }
    let _ = writeln!(m.body, "  ret {ty} {matrix}");
    Some(m.body)
}

/// The determinants of the sub-matrices already emitted.
struct Minors<'a> {
    lane: &'a str,
    body: String,
    /// (rows, columns) kept → the value of that sub-matrix's determinant.
    done: HashMap<(Vec<usize>, Vec<usize>), String>,
    next: u32,
}

impl Minors<'_> {
    fn tmp(&mut self) -> String {
        self.next += 1;
        format!("%d{}", self.next)
    }

    /// The determinant of the sub-matrix of `rows` and `cols`: expanded along its first row.
    fn det(&mut self, rows: &[usize], cols: &[usize]) -> String {
        if let [r] = rows {
            return format!("%e{r}{}", cols[0]);
        }
        let key = (rows.to_vec(), cols.to_vec());
        if let Some(v) = self.done.get(&key) {
            return v.clone();
        }
        let lane = self.lane;
        let mut acc: Option<String> = None;
        for (k, &c) in cols.iter().enumerate() {
            let rest: Vec<usize> = cols.iter().copied().filter(|&j| j != c).collect();
            let minor = self.det(&rows[1..], &rest);
            let t = self.tmp();
            let _ = writeln!(self.body, "  {t} = fmul {lane} %e{}{c}, {minor}", rows[0]);
            acc = Some(match acc {
                None => t,
                Some(a) => {
                    let s = self.tmp();
                    let op = if k % 2 == 1 { "fsub" } else { "fadd" };
                    let _ = writeln!(self.body, "  {s} = {op} {lane} {a}, {t}");
                    s
                }
            });
        }
        let v = acc.unwrap_or_default();
        self.done.insert(key, v.clone());
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_2x2_determinant_is_ad_minus_bc() {
        let body = determinant_or_inverse(33, "float", &["[2 x <2 x float>]"]).unwrap();
        assert!(body.contains("fmul float %e00, %e11"), "{body}");
        assert!(body.contains("fmul float %e01, %e10"), "{body}");
        assert!(body.contains("fsub float"), "{body}");
        assert!(body.trim_end().ends_with("ret float %d3"), "{body}");
    }

    #[test]
    fn an_inverse_returns_the_matrix_and_other_shapes_are_left() {
        let body =
            determinant_or_inverse(34, "[3 x <3 x double>]", &["[3 x <3 x double>]"]).unwrap();
        assert!(body.contains("ret [3 x <3 x double>]"), "{body}");
        assert_eq!(body.matches("fdiv double").count(), 9, "{body}");
        assert!(determinant_or_inverse(33, "float", &["[3 x <2 x float>]"]).is_none());
        assert!(determinant_or_inverse(40, "float", &["[2 x <2 x float>]"]).is_none());
    }
}
