//! Syntax: source text → [`ast::SourceFile`]. The lexer is logos, the grammar lalrpop.

pub mod ast;
mod binary;
#[cfg(test)]
mod binary_tests;
mod java_hints;
pub mod lexer;
pub mod nesting;
mod parse;
pub mod switch;
#[cfg(test)]
mod switch_tests;

#[allow(clippy::all, missing_docs, unused_parens, unused_imports)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/syntax/grammar.rs"));
}

pub use parse::{parse_file, parse_file_parts};
