//! Where `cajetac`'s errors, warnings and notes go, and the exit statuses they give: text or
//! (`--error-format json`) one JSON record per line on stderr (docs/cli.md, "JSON
//! diagnostics").

use cajetac::diagnostics::json::{Kind, Level, Record};
use cajetac::diagnostics::{Diagnostic, SourceMap};
use cajetac::host::interp::HostError;

use super::ErrorFormat;

/// The process exit status (`std::process::ExitCode` cannot be read back as a number, which
/// the C `main` below returns).
#[derive(Clone, Copy)]
pub struct ExitCode(pub u8);

impl ExitCode {
    pub const SUCCESS: ExitCode = ExitCode(0);

    pub fn from(code: u8) -> ExitCode {
        ExitCode(code)
    }
}

/// Exit status for compile errors.
pub const EXIT_COMPILE: u8 = 1;
/// Exit status for usage errors (bad flags, unreadable files).
pub const EXIT_USAGE: u8 = 2;
/// Exit status for failures while running host code or talking to the device.
pub const EXIT_RUNTIME: u8 = 3;

/// The exit status of a failure of this kind.
pub fn exit_status(kind: Kind) -> ExitCode {
    ExitCode::from(match kind {
        Kind::Compile => EXIT_COMPILE,
        Kind::Usage | Kind::Io => EXIT_USAGE,
        Kind::Runtime => EXIT_RUNTIME,
    })
}

/// Where the command's errors, warnings and notes go: stderr, as text or (`--error-format
/// json`) one JSON record per line (docs/cli.md, "JSON diagnostics"). What the program prints
/// stays on stdout. Every message goes through here, so both formats say the same.
#[derive(Clone, Copy)]
pub struct Report(pub ErrorFormat);

impl Report {
    pub fn emit(self, record: &Record) {
        match self.0 {
            ErrorFormat::Human => eprint!("{}", record.rendered),
            ErrorFormat::Json => eprintln!("{}", record.to_json()),
        }
    }

    /// Prints an error without a source position; returns the exit status of its kind.
    pub fn fail(self, kind: Kind, message: impl std::fmt::Display) -> ExitCode {
        self.emit(&Record::plain(kind, Level::Error, message.to_string()));
        exit_status(kind)
    }

    pub fn usage(self, message: impl std::fmt::Display) -> ExitCode {
        self.fail(Kind::Usage, message)
    }

    pub fn io(self, message: impl std::fmt::Display) -> ExitCode {
        self.fail(Kind::Io, message)
    }

    /// A warning or note; the command goes on.
    pub fn say(self, kind: Kind, level: Level, message: impl Into<String>) {
        self.emit(&Record::plain(kind, level, message));
    }

    /// Compile diagnostics (exit status 1); the text format closes with a count.
    pub fn compile(self, sources: &SourceMap, diags: &[Diagnostic]) -> ExitCode {
        for d in diags {
            self.emit(&Record::compile(sources, d));
        }
        if self.0 == ErrorFormat::Human {
            let n = diags.len();
            eprintln!(
                "error: could not compile: {n} error{}",
                if n == 1 { "" } else { "s" }
            );
        }
        exit_status(Kind::Compile)
    }

    /// The checker's warnings about a program that compiled; the command goes on.
    pub fn warnings(self, sources: &SourceMap, warnings: &[Diagnostic]) {
        for d in warnings {
            self.emit(&Record::compile(sources, d));
        }
    }

    /// A runtime error of host code (exit status 3).
    pub fn runtime(self, sources: &SourceMap, error: &HostError) -> ExitCode {
        self.emit(&error.record(sources));
        exit_status(Kind::Runtime)
    }
}

/// Whether a command line asks for `--error-format json` (before any `--`), read without clap
/// for a command line that clap refuses.
pub fn asks_for_json(args: &[std::ffi::OsString]) -> bool {
    let mut it = args.iter().skip(1).take_while(|a| *a != "--");
    while let Some(a) = it.next() {
        if a == "--error-format=json"
            || (a == "--error-format" && it.next().is_some_and(|v| v == "json"))
        {
            return true;
        }
    }
    false
}

/// A clap error as a usage record: its first line the message, clap's whole text rendered.
pub fn clap_record(e: &clap::Error) -> Record {
    let rendered = e.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    let message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    Record {
        rendered,
        ..Record::plain(Kind::Usage, Level::Error, message)
    }
}
