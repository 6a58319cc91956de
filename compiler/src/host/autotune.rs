//! Cajeta's `Autotune` store: tuned `int32` values by (device name, key), kept in one text
//! file that later runs read. Both host executors use this one store (native code hands
//! the `Autotune` operations to the interpreter), so they behave identically.
//!
//! The file is `autotune.txt` in `$CAJETA_AUTOTUNE_DIR` if set, else in
//! `$XDG_CACHE_HOME/cajeta/autotune`, else `~/.cache/cajeta/autotune`. Each line is
//! `device<TAB>key<TAB>value`, with `\`, tab and newline in names escaped as `\\`, `\t` and
//! `\n`. It is read at the first operation of a run and rewritten whole after each
//! `remember` through a temporary file renamed over it, so a reader never sees half a
//! file. A file that cannot be read or parsed counts as empty, and one that cannot be
//! written keeps the value for the run only, each with a warning on stderr: tuned values
//! are a cache, and losing them must not stop a program.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// The file name inside the store's folder.
const FILE_NAME: &str = "autotune.txt";

/// One run's view of the store.
#[derive(Debug, Default)]
pub struct AutotuneStore {
    /// The values, once the file was read (`None` before the first operation).
    values: Option<BTreeMap<(String, String), i32>>,
    /// The keys claimed so far in this run (`claimOnce`), by device.
    claimed: HashSet<(String, String)>,
}

/// The store's folder from the environment, as the module documentation says; `None`
/// when no variable names one.
pub fn store_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("CAJETA_AUTOTUNE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(cache) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(cache).join("cajeta").join("autotune"));
    }
    var("HOME").map(|home| {
        PathBuf::from(home)
            .join(".cache")
            .join("cajeta")
            .join("autotune")
    })
}

impl AutotuneStore {
    /// The value stored for `device` and `key`.
    pub fn recall(&mut self, device: &str, key: &str) -> Option<i32> {
        let values = self.loaded();
        values.get(&(device.to_string(), key.to_string())).copied()
    }

    /// Stores `value` for `device` and `key` and writes the file. Entries other runs
    /// wrote since this one read the file are kept (the file is read again first). A file
    /// that cannot be written leaves the value for this run only, with a warning on stderr.
    pub fn remember(&mut self, device: &str, key: &str, value: i32) {
        let entry = (device.to_string(), key.to_string());
        self.loaded().insert(entry.clone(), value);
        let Some(dir) = store_dir() else {
            eprintln!(
                "warning: no folder for the autotune store (set CAJETA_AUTOTUNE_DIR or HOME); \
                 `{key}` is kept for this run only"
            );
            return;
        };
        let mut on_disk = read_store(&dir);
        on_disk.insert(entry, value);
        if let Err(e) = write_store(&dir, &on_disk) {
            eprintln!(
                "warning: cannot write the autotune store in {} ({e}); `{key}` is kept for \
                 this run only",
                dir.display()
            );
        }
        // Keep what other runs added, with this run's values over them.
        if let Some(mine) = self.values.take() {
            on_disk.extend(mine);
        }
        self.values = Some(on_disk);
    }

    /// True the first time this run claims `key` for `device`.
    pub fn claim_once(&mut self, device: &str, key: &str) -> bool {
        self.claimed.insert((device.to_string(), key.to_string()))
    }

    fn loaded(&mut self) -> &mut BTreeMap<(String, String), i32> {
        self.values
            .get_or_insert_with(|| store_dir().map(|d| read_store(&d)).unwrap_or_default())
    }
}

/// The entries of the store in `dir`: empty when there is no file yet, and empty with a
/// warning on stderr when it cannot be read or a line does not parse.
fn read_store(dir: &Path) -> BTreeMap<(String, String), i32> {
    let path = dir.join(FILE_NAME);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return BTreeMap::new(),
        Err(e) => {
            eprintln!(
                "warning: the autotune store {} cannot be read ({e}); it counts as empty",
                path.display()
            );
            return BTreeMap::new();
        }
    };
    match parse_store(&text) {
        Ok(values) => values,
        Err(line) => {
            eprintln!(
                "warning: the autotune store {} is corrupt at line {line}; it counts as empty",
                path.display()
            );
            BTreeMap::new()
        }
    }
}

/// The entries of a store's text, or the number of the first line that is not an entry.
fn parse_store(text: &str) -> Result<BTreeMap<(String, String), i32>, usize> {
    let mut values = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let parts: Vec<&str> = line.split('\t').collect();
        let [device, key, value] = parts.as_slice() else {
            return Err(i + 1);
        };
        let (Some(device), Some(key), Ok(value)) =
            (unescape(device), unescape(key), value.parse::<i32>())
        else {
            return Err(i + 1);
        };
        values.insert((device, key), value);
    }
    Ok(values)
}

/// Writes the entries to `dir`'s file through a temporary file renamed over it.
fn write_store(dir: &Path, values: &BTreeMap<(String, String), i32>) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut text = String::new();
    for ((device, key), value) in values {
        text.push_str(&format!("{}\t{}\t{value}\n", escape(device), escape(key)));
    }
    let temp = dir.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, dir.join(FILE_NAME)).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// The inverse of [`escape`]; `None` for an unknown or unfinished escape.
fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{escape, parse_store, unescape};

    #[test]
    fn names_with_tabs_newlines_and_backslashes_survive_the_file() {
        for s in ["plain", "a\tb", "line\nbreak", "back\\slash", "\\t", ""] {
            assert_eq!(unescape(&escape(s)).as_deref(), Some(s));
        }
        let text = format!("{}\t{}\t-7\n", escape("dev\\1"), escape("k\tv"));
        let values = parse_store(&text).expect("parses");
        assert_eq!(
            values.get(&("dev\\1".to_string(), "k\tv".to_string())),
            Some(&-7)
        );
    }

    #[test]
    fn a_malformed_line_is_reported_by_number() {
        assert_eq!(parse_store("d\tk\t1\nd\tk\n").err(), Some(2));
        assert_eq!(parse_store("d\tk\tnot a number\n").err(), Some(1));
        assert_eq!(parse_store("d\tk\t99999999999\n").err(), Some(1));
        assert_eq!(parse_store("d\\x\tk\t1\n").err(), Some(1));
        assert!(parse_store("\n").expect("empty").is_empty());
    }
}
