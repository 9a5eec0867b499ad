//! The external tools the checks of the generated Verilog run: Yosys and Verilator.
//!
//! A test that needs one calls [`require`] (or [`require_yosys`], [`require_verilator`]):
//! when the tool is missing the test **fails**, saying which tool and how to install it,
//! rather than passing without checking anything. (`sanswitch generate` and `bench` may still
//! report a missing Yosys as skipped: a user without it gets the Verilog anyway.)

use std::process::Command;

/// A tool the tests run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool {
    /// The command, looked up on `PATH`.
    pub command: &'static str,
    /// The argument that prints its version.
    pub version_arg: &'static str,
    /// The Debian package that installs it.
    pub package: &'static str,
}

pub const YOSYS: Tool = Tool { command: "yosys", version_arg: "-V", package: "yosys" };
pub const VERILATOR: Tool =
    Tool { command: "verilator", version_arg: "--version", package: "verilator" };

/// What a test says when `tool` cannot be started (`why`: the error).
pub fn missing_message(tool: &Tool, why: &str) -> String {
    format!(
        "{} not found on PATH: install it (apt-get install {}) — this test needs it ({why})",
        tool.command, tool.package
    )
}

/// What a test says when `tool` starts but fails to print its version.
fn broken_message(tool: &Tool, status: std::process::ExitStatus) -> String {
    format!(
        "{0} on PATH does not work (`{0} {1}` exited with {status}): reinstall it (apt-get \
         install --reinstall {2}) — this test needs it",
        tool.command, tool.version_arg, tool.package
    )
}

/// The tool's version line, or why it cannot be run (see [`missing_message`]).
pub fn check(tool: &Tool) -> Result<String, String> {
    match Command::new(tool.command).arg(tool.version_arg).output() {
        Ok(o) if o.status.success() => {
            Ok(String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or_default().to_string())
        }
        Ok(o) => Err(broken_message(tool, o.status)),
        Err(e) => Err(missing_message(tool, &e.to_string())),
    }
}

/// The tool's version line.
///
/// # Panics
/// With [`missing_message`] when the tool cannot be run.
pub fn require(tool: &Tool) -> String {
    check(tool).unwrap_or_else(|e| panic!("{e}"))
}

/// [`require`] Yosys.
pub fn require_yosys() -> String {
    require(&YOSYS)
}

/// [`require`] Verilator.
pub fn require_verilator() -> String {
    require(&VERILATOR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_is_named_with_its_package() {
        let t = Tool { command: "sanswitch-no-such-tool", version_arg: "-V", package: "no-such" };
        let e = check(&t).unwrap_err();
        assert!(
            e.starts_with(
                "sanswitch-no-such-tool not found on PATH: install it (apt-get install no-such)"
            ),
            "{e}"
        );
        assert!(e.contains("this test needs it"), "{e}");
        let p = std::panic::catch_unwind(|| require(&t)).unwrap_err();
        assert_eq!(p.downcast_ref::<String>(), Some(&e));
    }

    #[test]
    fn a_tool_that_fails_is_reported_too() {
        // `false` exists everywhere and exits 1.
        let t = Tool { command: "false", version_arg: "--version", package: "coreutils" };
        let e = check(&t).unwrap_err();
        assert!(e.starts_with("false on PATH does not work (`false --version` exited"), "{e}");
        assert!(e.contains("this test needs it"), "{e}");
    }
}
