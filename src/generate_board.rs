//! `sanswitch generate --board xem7010`: the XEM7010 top's Verilog, XDC and Vivado script,
//! the top linted in Verilator (FrontPanel's cores and the Xilinx primitives as black boxes)
//! and synthesized with Yosys's `synth_xilinx`, whose area is compared with the part
//! (`report.json`, `report.md`).
//!
//! Exit status: 0 when the top lints clean and (when synthesized) fits its budget, 1 when it
//! does not lint (or Yosys fails on it), 2 on bad input, 3 when it lints but is over its
//! budget in the part.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use sanswitch_hdl::VERILATOR_WAIVERS;
use sanswitch_hdl::synth::{remove_synth_inputs, synth_xilinx, yosys_available};
use sanswitch_model::params::EngineParams;
use sanswitch_xem7010::top::part;
use serde::Serialize;

use crate::cli::{BoardName, GenerateArgs};
use crate::error::Error;
use crate::generate::{Area, Lint, Tools, lint, version, write};

/// The Vivado script, as committed (`fpga/xem7010/build.tcl`).
pub const BUILD_TCL: &str = include_str!("../fpga/xem7010/build.tcl");

/// What `generate --board` found, as written to `report.json`.
#[derive(Clone, Debug, Serialize)]
pub struct BoardReport {
    /// The top lints clean and, when synthesized, fits its budget.
    pub ok: bool,
    pub board: String,
    pub part: String,
    pub engine_mhz: u32,
    /// Each NIC's engine parameters.
    pub nic: EngineParams,
    pub generated_by: String,
    pub tools: Tools,
    /// The files written, relative to the output directory.
    pub files: Vec<String>,
    pub lint: Lint,
    /// `synth_xilinx` of the whole top; `null` when not run (see `synth_note`).
    pub synth: Option<Area>,
    pub fit: Option<Fit>,
    pub synth_note: Option<String>,
}

/// The top's area as a share of the part, against its budget.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    pub luts_pct: f64,
    pub ffs_pct: f64,
    pub bram36_pct: f64,
    pub dsp_pct: f64,
    pub budget_luts_pct: f64,
    pub budget_bram36: f64,
    /// At most the budget's LUT share and BRAM36.
    pub fits: bool,
}

impl Fit {
    pub fn of(a: &Area) -> Fit {
        let pct = |n: f64, of: f64| (1000.0 * n / of).round() / 10.0;
        // The part's LUTs hold logic and distributed RAM alike: its share is of LUT sites.
        let luts_pct = pct(a.lut_sites as f64, part::LUTS as f64);
        Fit {
            luts_pct,
            ffs_pct: pct(a.ffs as f64, part::FFS as f64),
            bram36_pct: pct(a.bram, part::BRAM36),
            dsp_pct: pct(a.dsp as f64, part::DSP as f64),
            budget_luts_pct: part::BUDGET_LUT_PCT,
            budget_bram36: part::BUDGET_BRAM36,
            fits: 100.0 * a.lut_sites as f64 <= part::BUDGET_LUT_PCT * part::LUTS as f64
                && a.bram <= part::BUDGET_BRAM36,
        }
    }
}

pub fn run(args: &GenerateArgs, board: BoardName) -> Result<ExitCode, Error> {
    let BoardName::Xem7010 = board;
    let report = generate(&args.out, args.engine_mhz, !args.no_synth)?;
    let text = summary(&args.out, &report);
    if let Err(e) = std::io::stdout().lock().write_all(text.as_bytes()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(Error::Output(e));
        }
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else if report.lint.ok && !synth_failed(&report.synth_note) {
        ExitCode::from(OVER_BUDGET)
    } else {
        ExitCode::from(1)
    })
}

/// The exit status of a top that lints but does not fit its budget.
pub const OVER_BUDGET: u8 = 3;

/// Writes the XEM7010 top's files into `dir` and checks them.
pub fn generate(dir: &Path, engine_mhz: u32, synth: bool) -> Result<BoardReport, Error> {
    let divide = 1000 / engine_mhz;
    let bb = dir.join("blackbox");
    for d in [dir, bb.as_path()] {
        std::fs::create_dir_all(d).map_err(|source| Error::File {
            what: "create",
            path: d.to_owned(),
            source,
        })?;
    }
    let nic = EngineParams::board();
    let (verilog, xdc) = sanswitch_xem7010::top_files(&nic, divide);
    let vlt = dir.join("verilator.vlt");
    write(&vlt, VERILATOR_WAIVERS)?;
    // Vivado gets the real cores: the black-box stubs go (as the board crate's own flow does).
    write(&dir.join("top.v"), &rust_hdl::prelude::filter_blackbox_directives(&verilog))?;
    write(&bb.join("top.v"), &verilog)?;
    write(&dir.join("top.xdc"), &xdc)?;
    write(&dir.join("build.tcl"), BUILD_TCL)?;
    let lint = lint(&vlt, &bb.join("top.v"), "top");
    let yosys = yosys_available();
    let tools = Tools {
        verilator: version("verilator", "--version"),
        yosys: if yosys { version("yosys", "-V") } else { None },
        rust_hdl: crate::generate::RUST_HDL_VERSION.into(),
    };
    let (area, synth_note) = if !synth {
        (None, Some("skipped: --no-synth".to_string()))
    } else if !yosys {
        (None, Some("skipped: yosys not installed".to_string()))
    } else {
        let work = dir.join("synth");
        let r = synth_xilinx(&work, "top", &verilog);
        remove_synth_inputs(&work, "top");
        match r {
            Ok(s) => (Some(Area::from(s)), None),
            Err(e) => (None, Some(format!("failed: {e}"))),
        }
    };
    let fit = area.as_ref().map(Fit::of);
    let ok = lint.ok && fit.as_ref().is_none_or(|f| f.fits) && !synth_failed(&synth_note);
    let files = ["top.v", "blackbox/top.v", "top.xdc", "build.tcl", "verilator.vlt"];
    let report = BoardReport {
        ok,
        board: "xem7010".into(),
        part: part::NAME.into(),
        engine_mhz,
        nic,
        generated_by: format!("sanswitch {}", env!("CARGO_PKG_VERSION")),
        tools,
        files: files.iter().map(|f| f.to_string()).collect(),
        lint,
        synth: area,
        fit,
        synth_note,
    };
    let mut json = serde_json::to_string_pretty(&report)?;
    json.push('\n');
    write(&dir.join("report.json"), &json)?;
    write(&dir.join("report.md"), &markdown(&report))?;
    Ok(report)
}

fn synth_failed(note: &Option<String>) -> bool {
    note.as_deref().is_some_and(|n| n.starts_with("failed"))
}

/// The fit, one line.
fn fit_line(a: &Area, f: &Fit) -> String {
    format!(
        "{} LUTs and {} LUT-RAM cells: {} LUT sites ({}% of {}), {} FFs ({}%), {} BRAM36 ({}%), {} DSP ({}%); budget {}% of the \
         LUTs and {} BRAM36: {}",
        a.luts,
        a.lutram,
        a.lut_sites,
        f.luts_pct,
        part::LUTS,
        a.ffs,
        f.ffs_pct,
        a.bram,
        f.bram36_pct,
        a.dsp,
        f.dsp_pct,
        f.budget_luts_pct,
        f.budget_bram36,
        if f.fits { "fits" } else { "DOES NOT FIT" }
    )
}

pub fn markdown(r: &BoardReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# sanswitch generate --board {}\n", r.board);
    let _ = writeln!(
        o,
        "Part `{}`, engine clock {} MHz; each NIC: {} connections, {} registrations, {} \
         transfers. Generated by {}.\n",
        r.part, r.engine_mhz, r.nic.connections, r.nic.reg_entries, r.nic.rdma_ops, r.generated_by
    );
    let _ = writeln!(o, "Files: {}.\n", r.files.join(", "));
    let _ =
        writeln!(o, "Lint (`{}`): {}.\n", r.lint.command, if r.lint.ok { "ok" } else { "FAILED" });
    match (&r.synth, &r.fit) {
        (Some(a), Some(f)) => {
            let _ = writeln!(o, "Yosys `synth_xilinx`: {}.\n", fit_line(a, f));
            let _ = writeln!(
                o,
                "Depth: {} LUT levels ({} logic levels).",
                a.lut_levels, a.logic_levels
            );
        }
        _ => {
            let _ = writeln!(o, "Synthesis: {}.", r.synth_note.as_deref().unwrap_or("not run"));
        }
    }
    for m in &r.lint.messages {
        let _ = writeln!(o, "\n    {m}");
    }
    o
}

pub fn summary(dir: &Path, r: &BoardReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "wrote {} in {} (XEM7010 top, {} MHz engine clock, NICs of {} connections)",
        r.files.join(", "),
        dir.display(),
        r.engine_mhz,
        r.nic.connections
    );
    let _ = writeln!(o, "top: lint {}", if r.lint.ok { "ok" } else { "FAILED" });
    match (&r.synth, &r.fit) {
        (Some(a), Some(f)) => {
            let _ = writeln!(o, "top: {}", fit_line(a, f));
        }
        _ => {
            let _ = writeln!(o, "top: synthesis {}", r.synth_note.as_deref().unwrap_or("not run"));
        }
    }
    let _ = writeln!(
        o,
        "report: {}, {}; build with Vivado: cd {} && vivado -mode batch -source build.tcl \
         -tclargs <FrontPanel HDL directory>",
        dir.join("report.json").display(),
        dir.join("report.md").display(),
        dir.display()
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(luts: u64, lut_sites: u64, bram: f64) -> Area {
        Area {
            luts,
            ffs: 0,
            carry4: 0,
            muxf: 0,
            lutram: (lut_sites - luts) / 4,
            lut_sites,
            bram,
            dsp: 0,
            lut_levels: 0,
            logic_levels: 0,
            deepest_path: vec![],
        }
    }

    /// The part's LUTs hold logic and LUT RAM alike: the fit is of LUT sites, at the budget's
    /// share exactly and one past it.
    #[test]
    fn the_fit_counts_lut_sites_at_the_budget_and_one_past_it() {
        let at = part::LUTS * part::BUDGET_LUT_PCT as u64 / 100;
        let f = Fit::of(&area(at - 400, at, 1.0));
        assert!(f.fits && f.luts_pct == part::BUDGET_LUT_PCT, "{f:?}");
        let f = Fit::of(&area(at - 400, at + 1, 1.0));
        assert!(!f.fits, "one LUT site past the budget: {f:?}");
        // Logic LUTs alone under the budget do not make a top fit whose RAM takes it over.
        assert!(!Fit::of(&area(at / 2, at + 400, 1.0)).fits);
        assert!(!Fit::of(&area(100, 500, part::BUDGET_BRAM36 + 0.5)).fits);
    }
}
