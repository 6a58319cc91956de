fn main() {
    lalrpop::Processor::new()
        .process_current_dir()
        .expect("lalrpop grammar failed to build");
}
