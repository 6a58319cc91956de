//! `cajetac build FILE… [-o DIR]` and `cajetac check FILE…`, and nothing else, read without
//! clap: building clap's command description costs about 6% of a small kernel's whole
//! compile (8% of a small `check`). Anything else (other flags, `--help`, a value that
//! starts with `-`, an empty one, `-o` twice) returns `None` and goes to clap; a test checks
//! this gives what clap gives.

use std::ffi::OsString;
use std::path::PathBuf;

use super::{BackendArg, Command, ErrorFormat, PrecisionFlags};

/// The command of `args` when it is one of the plain forms above.
pub(super) fn quick_command(args: &[OsString]) -> Option<Command> {
    let (sub, rest) = args.get(1..)?.split_first()?;
    let build = if sub == "build" {
        true
    } else if sub == "check" {
        false
    } else {
        return None;
    };
    let (mut files, mut out) = (Vec::new(), None);
    let mut it = rest.iter();
    let plain = |a: &OsString| !a.is_empty() && !a.as_encoded_bytes().starts_with(b"-");
    while let Some(a) = it.next() {
        if build && (a == "-o" || a == "--out-dir") {
            let v = it.next().filter(|v| plain(v) && out.is_none())?;
            out = Some(PathBuf::from(v));
        } else if plain(a) {
            files.push(PathBuf::from(a));
        } else {
            return None;
        }
    }
    if files.is_empty() {
        return None;
    }
    if !build {
        return Some(Command::Check {
            files,
            error_format: ErrorFormat::Human,
        });
    }
    Some(Command::Build {
        files,
        out: out.unwrap_or_else(|| PathBuf::from(".")),
        emit: vec!["spirv".to_string(), "reflect".to_string()],
        target_env: None,
        backend: BackendArg::Rspirv,
        kernel: None,
        error_format: ErrorFormat::Human,
        device_profile: None,
        precision: PrecisionFlags::default(),
        checked: false,
    })
}

#[cfg(test)]
mod tests {
    use super::super::Cli;
    use super::*;
    use clap::Parser as _;

    fn args(line: &str) -> Vec<OsString> {
        line.split(' ').map(Into::into).collect()
    }

    /// The quick reading gives what clap gives, and leaves everything else to clap.
    #[test]
    fn quick_commands_agree_with_clap() {
        let same = [
            "cajetac build a.cajeta",
            "cajetac build a.cajeta -o out",
            "cajetac build -o out a.cajeta b.cajeta",
            "cajetac build a.cajeta --out-dir out b.cajeta",
            "cajetac check a.cajeta",
            "cajetac check a.cajeta b.cajeta",
        ];
        for line in same {
            let args = args(line);
            let quick = quick_command(&args).expect(line);
            let clap = Cli::try_parse_from(&args).expect(line).command;
            assert_eq!(format!("{quick:?}"), format!("{clap:?}"), "{line}");
        }
        let to_clap = [
            "cajetac build",
            "cajetac build a.cajeta -o",
            "cajetac build a.cajeta -o a -o b",
            "cajetac build a.cajeta --emit spvasm",
            "cajetac build a.cajeta --help",
            "cajetac build -- a.cajeta",
            "cajetac build a.cajeta -oout",
            "cajetac check",
            "cajetac check a.cajeta -o out",
            "cajetac check a.cajeta --error-format json",
            "cajetac check --help",
            "cajetac run a.cajeta",
            "cajetac --version",
            "cajetac",
        ];
        for line in to_clap {
            assert!(quick_command(&args(line)).is_none(), "{line}");
        }
        for sub in ["build", "check"] {
            let empty: Vec<OsString> = vec!["cajetac".into(), sub.into(), "".into()];
            assert!(
                quick_command(&empty).is_none(),
                "{sub} with an empty argument"
            );
        }
    }
}
