//! Diagnostics goldens: each file under `tests/diagnostics/` names the code it must produce
//! (`// expect: E0004`); the rendered output matches `NAME.stderr`, carries that code and a
//! `file:line:col` position, and nothing panics.

use cajeta_tests::{check_golden, files, frontend};
use cajetac::diagnostics::{render_human, render_json};

#[test]
fn every_error_class_has_a_code_span_and_golden() {
    let cases = files("diagnostics", "cajeta");
    assert!(
        cases.len() >= 12,
        "need at least 12 error classes, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut codes = std::collections::BTreeSet::new();
    for path in &cases {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect: "))
            .unwrap_or_else(|| panic!("{} lacks `// expect: E….`", path.display()))
            .trim()
            .to_string();
        let (map, result) = frontend(path);
        let diags = match result {
            Ok(_) => {
                failures.push(format!(
                    "{}: compiled without errors, expected {expect}",
                    path.display()
                ));
                continue;
            }
            Err(d) => d,
        };
        if diags[0].code.as_str() != expect {
            failures.push(format!(
                "{}: first error is {}, expected {expect}",
                path.display(),
                diags[0].code
            ));
        }
        codes.insert(expect.clone());
        let rendered = render_human(&map, &diags);
        let name = path
            .strip_prefix(cajeta_tests::tests_dir())
            .unwrap()
            .display()
            .to_string();
        if !rendered.contains(&format!("error[{expect}]")) {
            failures.push(format!(
                "{}: rendering lacks error[{expect}]:\n{rendered}",
                path.display()
            ));
        }
        let (line, col) = map.line_col(diags[0].primary);
        if line == 0 || !rendered.contains(&format!("{name}:{line}:{col}")) {
            failures.push(format!(
                "{}: rendering lacks the position {name}:{line}:{col}:\n{rendered}",
                path.display()
            ));
        }
        // One JSON record per diagnostic and line, saying what the text says.
        let records: Vec<serde_json::Value> = render_json(&map, &diags)
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON record per line"))
            .collect();
        assert_eq!(records.len(), diags.len());
        assert_eq!(records[0]["schema"], "cajetac-diagnostics/1");
        assert_eq!(records[0]["code"], expect.as_str());
        let primary = &records[0]["labels"][0];
        assert_eq!(primary["primary"], true);
        assert_eq!(
            (
                primary["line_start"].as_u64(),
                primary["column_start"].as_u64()
            ),
            (Some(line as u64), Some(col as u64))
        );
        let text: String = records
            .iter()
            .map(|r| r["rendered"].as_str().unwrap())
            .collect();
        assert_eq!(text, rendered);
        if let Err(e) = check_golden(&path.with_extension("stderr"), &rendered) {
            failures.push(e);
        }
    }
    assert!(
        codes.len() >= 12,
        "only {} distinct codes covered",
        codes.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn several_errors_are_reported_in_one_run() {
    let dir = std::env::temp_dir().join(format!("cajeta-multi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("multi.cajeta");
    std::fs::write(
        &path,
        "public final class M {\n    public static int32 run() {\n        int32 a = nope;\n        uint32 b = a;\n        boolean c = 1;\n        return 0;\n    }\n}\n",
    )
    .unwrap();
    let (_, result) = frontend(&path);
    let diags = result.expect_err("three errors");
    let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, vec!["E0006", "E0009", "E0008"], "{diags:#?}");
}

#[test]
fn docs_list_every_code() {
    let doc = std::fs::read_to_string(cajeta_tests::tests_dir().join("../docs/diagnostics.md"))
        .expect("docs/diagnostics.md");
    for code in cajetac::diagnostics::Code::ALL {
        assert!(
            doc.contains(&format!("| {} |", code.as_str())),
            "docs/diagnostics.md lacks {code}"
        );
    }
}

/// docs/language.md's sentence on annotations names every one the checker accepts, and the
/// annotation code it gives for the others.
#[test]
fn docs_list_every_annotation() {
    let doc = std::fs::read_to_string(cajeta_tests::tests_dir().join("../docs/language.md"))
        .expect("docs/language.md");
    let start = doc.find("- A file is").expect("the bullet on files");
    let end = start + 2 + doc[start + 2..].find("\n- ").expect("the next bullet");
    let bullet = &doc[start..end];
    for name in cajetac::sema::METHOD_ANNOTATION_NAMES {
        assert!(
            bullet.contains(&format!("`@{name}")),
            "docs/language.md's bullet on annotations lacks @{name}:\n{bullet}"
        );
    }
    assert!(bullet.contains("E0025"), "{bullet}");
}
