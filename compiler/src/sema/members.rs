//! The help of an unknown-method error (E0022): which methods the class does have, so that a
//! reader who guessed a name (`Files.readImageRgba`) sees the real ones without opening the
//! stdlib. The lists come from the checker's symbols: when the driver pruned the stdlib, an
//! unknown method makes it check again with the whole prelude, so the list is complete.

use super::body::FnCtx;
use crate::diagnostics::similar::edit_distance;
use crate::diagnostics::Diagnostic;

/// A class with at most this many methods has them all listed; a larger one its closest.
const LIST_ALL: usize = 16;
/// How many of the closest methods a large class lists.
const CLOSEST: usize = 6;

impl FnCtx<'_, '_> {
    /// Every method name of `class` (stdlib intrinsics and user methods), sorted.
    pub(super) fn method_names(&self, class: &str) -> Vec<String> {
        let class = super::names::canonical_class(class);
        let mut names: Vec<String> = self
            .syms
            .intrinsics
            .get(class)
            .into_iter()
            .flat_map(|m| m.keys())
            .chain(
                self.syms
                    .user_methods
                    .get(class)
                    .into_iter()
                    .flat_map(|m| m.keys()),
            )
            .filter(|n| !n.starts_with('$'))
            .cloned()
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// `d` with a "did you mean" help for a close name and a note listing the methods of
    /// `class` (all of them, or the closest few for a large class).
    pub(super) fn with_known_methods(&self, d: Diagnostic, class: &str, wrong: &str) -> Diagnostic {
        let names = self.method_names(class);
        with_methods(d, class, &names, wrong)
    }
}

/// The distance used to rank method names against a wrong one: the edit distance, ignoring
/// case (so `readImageRgba` is next to `readImageRGBA`).
fn distance(a: &str, b: &str) -> usize {
    edit_distance(&a.to_lowercase(), &b.to_lowercase())
}

/// [`FnCtx::with_known_methods`] on a list of names.
pub(super) fn with_methods(
    mut d: Diagnostic,
    class: &str,
    names: &[String],
    wrong: &str,
) -> Diagnostic {
    if names.is_empty() {
        return d;
    }
    let mut ranked: Vec<(usize, &String)> = names.iter().map(|n| (distance(n, wrong), n)).collect();
    ranked.sort();
    let (best, best_name) = ranked[0];
    let lower = wrong.to_lowercase();
    let near = best <= (wrong.len() / 3).max(1)
        || (lower.len() > 3 && best_name.to_lowercase().starts_with(&lower));
    if near {
        d = d.with_note(format!("help: did you mean `{best_name}`?"));
    }
    let list: Vec<&str> = if names.len() <= LIST_ALL {
        names.iter().map(String::as_str).collect()
    } else {
        ranked
            .iter()
            .take(CLOSEST)
            .map(|(_, n)| n.as_str())
            .collect()
    };
    let what = if names.len() <= LIST_ALL {
        format!("`{class}` has these methods")
    } else {
        format!("`{class}` has {} methods; the closest", names.len())
    };
    d.with_note(format!("{what}: {}", list.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{Code, Span};

    fn notes(names: &[&str], wrong: &str) -> Vec<String> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let d = Diagnostic::error(Code::UnknownMethod, Span::default(), "x");
        with_methods(d, "C", &names, wrong).notes
    }

    #[test]
    fn a_close_name_is_suggested_and_a_small_class_listed_whole() {
        let n = notes(
            &["readImage", "readImageRGBA", "writeImage"],
            "readImageRgba",
        );
        assert_eq!(n[0], "help: did you mean `readImageRGBA`?");
        assert_eq!(
            n[1],
            "`C` has these methods: readImage, readImageRGBA, writeImage"
        );
    }

    #[test]
    fn a_far_name_gets_no_suggestion_and_a_large_class_its_closest() {
        let many: Vec<String> = (0..20).map(|i| format!("method{i:02}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let n = notes(&many, "method7");
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(
            n[1].starts_with("`C` has 20 methods; the closest: method07"),
            "{n:?}"
        );
        assert_eq!(notes(&["load", "store"], "frobnicate").len(), 1);
        assert!(notes(&[], "x").is_empty());
    }
}
