//! Library classes written in the language itself (`stdlib/cajeta/source/`), unlike the
//! intrinsic declarations of the stdlib prelude: each is compiled as part of a program that
//! names it, as if the program had declared it, unless the program declares a class of that
//! name itself.

use super::stdlib_scan::words;

/// One library source class.
struct LibrarySource {
    /// The class name.
    class: &'static str,
    /// Another word that brings the class in: a method whose result is the class
    /// (`k.manifest()` makes a `KernelManifest` a program need not name).
    made_by: Option<&'static str>,
    /// Its file name under `stdlib/`.
    file: &'static str,
    /// Its source.
    text: &'static str,
}

/// Every library source class.
const LIBRARY_SOURCES: &[LibrarySource] = &[
    LibrarySource {
        class: "DeviceFacts",
        made_by: None,
        file: "cajeta/source/device_facts.cajeta",
        text: include_str!("../../../stdlib/cajeta/source/device_facts.cajeta"),
    },
    LibrarySource {
        class: "KernelManifest",
        made_by: Some("manifest"),
        file: "cajeta/source/kernel_manifest.cajeta",
        text: include_str!("../../../stdlib/cajeta/source/kernel_manifest.cajeta"),
    },
];

/// The (file name, source) of the library classes `files` name and do not declare.
pub fn needed(files: &[(String, String)]) -> Vec<(String, &'static str)> {
    LIBRARY_SOURCES
        .iter()
        .filter(|source| {
            let class = source.class;
            // A text without the name anywhere cannot have it as a word: the substring
            // search is far cheaper than walking every word (this walk and the one below
            // were 5% of a small program's `check`), and most programs name no library class.
            let has_word = |word: &str| {
                files
                    .iter()
                    .any(|(_, t)| t.contains(word) && words(t).any(|w| w == word))
            };
            let named = has_word(class) || source.made_by.is_some_and(has_word);
            // Only a program that names it can declare it (and this too walks every word).
            let declared = || {
                files.iter().any(|(_, t)| {
                    let mut ws = words(t);
                    let mut after_class = false;
                    ws.any(|w| {
                        let hit = after_class && w == class;
                        after_class = w == "class";
                        hit
                    })
                })
            };
            named && !declared()
        })
        .map(|source| (format!("<stdlib>/{}", source.file), source.text))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::needed;

    fn file(text: &str) -> Vec<(String, String)> {
        vec![("p.cajeta".to_string(), text.to_string())]
    }

    #[test]
    fn a_library_class_comes_with_the_programs_that_name_it() {
        let uses = file(
            "class P { static int32 run() { DeviceFacts d = DeviceFacts.current(); return 0; } }",
        );
        assert_eq!(needed(&uses).len(), 1);
        // Not for a program that does not name it (a longer word does not count) ...
        assert!(needed(&file("class P { int32 MyDeviceFactsX; }")).is_empty());
        // ... nor for one that declares a class of that name itself.
        let own = file("public final class DeviceFacts { int32 x; } class P { DeviceFacts d; }");
        assert!(needed(&own).is_empty());
        // A method making the class brings it in without the class's name.
        let made = file("class P { static void run() { show(k.manifest()); } }");
        assert_eq!(needed(&made).len(), 1);
    }
}
