//! Generates the parser from `src/syntax/grammar.lalrpop`.
fn main() {
    if let Err(e) = lalrpop::process_src() {
        eprintln!("lalrpop failed: {e}");
        std::process::exit(1);
    }
}
