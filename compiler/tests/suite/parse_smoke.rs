//! The parser accepts the SPEC §1 program.
#[test]
fn parses_spec_example() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/img_rmw.cajeta"
    ))
    .unwrap();
    let ast = cajetac::syntax::parse_file(0, &src).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(ast.classes.len(), 1);
    assert_eq!(ast.classes[0].members.len(), 3);
}
