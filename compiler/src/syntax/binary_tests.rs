//! Tests of the binary operators' trees (`binary::climb`): the precedence and associativity
//! of every level, and the spans the grammar's per-level tiers gave each node.

use super::ast::{BinOp, Expr, ExprKind, Member, Stmt, UnOp};

/// The expression of the statement `e;` in `class A { void m() { e; } }`, and that source.
fn parse(e: &str) -> (Expr, String) {
    let file = format!("class A {{ void m() {{ {e}; }} }}");
    let parsed = super::parse_file(0, &file).unwrap_or_else(|d| panic!("{e}: {d:?}"));
    let Member::Method(m) = &parsed.classes[0].members[0] else {
        panic!("no method");
    };
    match &m.body.as_ref().expect("a body").stmts[0] {
        Stmt::Expr(x) => (x.clone(), file),
        s => panic!("{e}: not an expression statement: {s:?}"),
    }
}

fn symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::UShr => ">>>",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::BitAnd => "&",
        BinOp::BitXor => "^",
        BinOp::BitOr => "|",
        BinOp::And => "&&",
        BinOp::Or => "||",
    }
}

/// The tree with every binary node in parentheses (`(a+(b*c))`).
fn shape(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Binary(op, a, b) => format!("({}{}{})", shape(a), symbol(*op), shape(b)),
        ExprKind::Name(n) => n.clone(),
        ExprKind::Unary(UnOp::Neg, x) => format!("-{}", shape(x)),
        ExprKind::Unary(UnOp::Not, x) => format!("!{}", shape(x)),
        ExprKind::Conditional(c, a, b) => format!("({}?{}:{})", shape(c), shape(a), shape(b)),
        k => format!("{k:?}"),
    }
}

fn tree(e: &str) -> String {
    shape(&parse(e).0)
}

/// The source text of every binary node's span, outermost first, left before right.
fn spans(e: &str) -> Vec<String> {
    fn walk(e: &Expr, src: &str, out: &mut Vec<String>) {
        if let ExprKind::Binary(_, a, b) = &e.kind {
            out.push(src[e.span.start as usize..e.span.end as usize].to_string());
            walk(a, src, out);
            walk(b, src, out);
        }
    }
    let (x, src) = parse(e);
    let mut out = Vec::new();
    walk(&x, &src, &mut out);
    out
}

#[test]
fn each_level_binds_tighter_than_the_one_above() {
    // From `||`, the loosest, to `*`, the tightest.
    assert_eq!(
        tree("a || b && c | d ^ e & f == g < h << i + j * k"),
        "(a||(b&&(c|(d^(e&(f==(g<(h<<(i+(j*k))))))))))"
    );
    // The tightest first: every operator takes what is on its left whole.
    assert_eq!(
        tree("a * b + c << d < e == f & g ^ h | i && j || k"),
        "((((((((((a*b)+c)<<d)<e)==f)&g)^h)|i)&&j)||k)"
    );
}

#[test]
fn operators_of_one_level_associate_to_the_left() {
    assert_eq!(tree("a - b - c"), "((a-b)-c)");
    assert_eq!(tree("a / b % c * d"), "(((a/b)%c)*d)");
    assert_eq!(tree("a == b != c"), "((a==b)!=c)");
    assert_eq!(tree("a >> b << c >>> d"), "(((a>>b)<<c)>>>d)");
    assert_eq!(tree("a <= b >= c"), "((a<=b)>=c)");
    assert_eq!(tree("a - b * c - d / e"), "((a-(b*c))-(d/e))");
    assert_eq!(tree("a || b || c && d"), "((a||b)||(c&&d))");
}

#[test]
fn unary_parentheses_and_conditionals_around_binary_operators() {
    assert_eq!(tree("-a * b"), "(-a*b)");
    assert_eq!(tree("!a && b"), "(!a&&b)");
    assert_eq!(tree("a - -b"), "(a--b)");
    assert_eq!(tree("(a + b) * c"), "((a+b)*c)");
    assert_eq!(tree("a || b ? c + d : e * f"), "((a||b)?(c+d):(e*f))");
    let (assign, _) = parse("x = a + b * c");
    let ExprKind::Assign(None, _, value) = &assign.kind else {
        panic!("not an assignment: {:?}", assign.kind);
    };
    assert_eq!(shape(value), "(a+(b*c))");
}

#[test]
fn a_node_spans_its_operands() {
    assert_eq!(spans("a + b * c"), ["a + b * c", "b * c"]);
    assert_eq!(spans("a * b + c"), ["a * b + c", "a * b"]);
    // A parenthesized expression's span takes in its parentheses.
    assert_eq!(spans("(a + b) * c"), ["(a + b) * c", "(a + b)"]);
    assert_eq!(
        spans("a * (b + c) - d"),
        ["a * (b + c) - d", "a * (b + c)", "(b + c)"]
    );
}
