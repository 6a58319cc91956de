//! "Did you mean …" suggestions: the known name closest to a misspelt one.

/// Levenshtein distance between `a` and `b` (in chars).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `name` within two edits (one for names of up to four chars,
/// where two edits make almost anything similar), ignoring case; `None` when none is.
pub fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let limit = if name.chars().count() <= 4 { 1 } else { 2 };
    let lower = name.to_lowercase();
    candidates
        .into_iter()
        // Lengths further apart than the limit cannot be within it; skip the quadratic cost.
        .filter(|c| c.len().abs_diff(name.len()) <= limit && *c != name)
        .map(|c| (edit_distance(&c.to_lowercase(), &lower), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_finds_a_misspelling_and_nothing_far() {
        let known = ["KernelBuffer", "Vector", "Matrix"];
        assert_eq!(closest("KernelBufer", known), Some("KernelBuffer"));
        assert_eq!(closest("vector", known), Some("Vector"));
        assert_eq!(closest("Particle", known), None);
        assert_eq!(edit_distance("saxy", "saxpy"), 1);
    }
}
