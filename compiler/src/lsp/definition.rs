//! Go to definition: locals, methods, fields and classes of the document, and the stdlib's
//! classes and members in the copy of the prelude on disk (`stdlib_index::stdlib_folder`).

use super::analysis::Analysis;
use super::lookup::{resolve, Target};
use super::positions::LineIndex;
use super::stdlib_index::stdlib_file_path;
use crate::driver::STDLIB_FILES;
use crate::syntax::ast::Member;
use lsp_types::{GotoDefinitionResponse, Location, Url};

/// Where the name at byte `offset` is declared.
pub fn definition(a: &Analysis, offset: usize) -> Option<GotoDefinitionResponse> {
    let here =
        |start: u32, end: u32| Location::new(a.uri.clone(), a.range(start as usize, end as usize));
    let locations = match resolve(a, offset)? {
        Target::Local { func, id } => {
            let span = a.module.as_ref()?.function(func.id).local(id).span;
            vec![here(span.start, span.end)]
        }
        Target::Method(_, m) => vec![here(m.name.span.start, m.name.span.end)],
        Target::Class(c) => vec![here(c.name.span.start, c.name.span.end)],
        Target::Field(c, i) => match &c.members[i] {
            Member::Field(f) => vec![here(f.name.span.start, f.name.span.end)],
            _ => return None,
        },
        Target::StdClass(classes) => classes
            .iter()
            .filter_map(|c| stdlib_location(c.file, c.name_range))
            .collect(),
        Target::StdMember(members) => members
            .iter()
            .filter_map(|(c, m)| stdlib_location(c.file, m.name_range))
            .collect(),
        Target::Expr(_) => return None,
    };
    match locations.len() {
        0 => None,
        1 => locations
            .into_iter()
            .next()
            .map(GotoDefinitionResponse::Scalar),
        _ => Some(GotoDefinitionResponse::Array(locations)),
    }
}

/// Bytes `range` of stdlib file `file`, in its copy on disk.
pub fn stdlib_location(file: usize, (start, end): (usize, usize)) -> Option<Location> {
    let (_, text) = STDLIB_FILES.get(file)?;
    let uri = Url::from_file_path(stdlib_file_path(file)?).ok()?;
    Some(Location::new(
        uri,
        LineIndex::new(text).range(text, start, end),
    ))
}
