//! `sanswitch generate`: the Verilog of every block, written beside the Verilator lint
//! waivers, then checked the way a user's flow would see it (Verilator `-Wall` lint and
//! rust-hdl's Yosys validation of each file as read back), measured with Yosys's
//! `synth_xilinx` when Yosys is installed, and summed up in `report.json` and `report.md`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use sanswitch_hdl::synth::{SynthStats, remove_synth_inputs, synth_xilinx, yosys_available};
use sanswitch_hdl::{BlockName, EngineParams, VERILATOR_WAIVERS, verilog, yosys_validate_block};
use sanswitch_model::params::{ParserParams, PoolParams, SequencerParams};
use serde::Serialize;

use crate::cli::GenerateArgs;
use crate::error::Error;

/// The rust-hdl release the blocks are written against (pinned in the workspace).
pub const RUST_HDL_VERSION: &str = "0.46.0";

/// Everything `generate` found, as written to `report.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Every file linted clean and no Yosys validation failed.
    pub ok: bool,
    pub generated_by: String,
    pub params: ReportParams,
    pub tools: Tools,
    pub blocks: Vec<BlockReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReportParams {
    pub parser: ParserParams,
    pub pool: PoolParams,
    pub sequencer: SequencerParams,
}

/// Tool versions, as the tools print them; `null` when a tool is not installed.
#[derive(Clone, Debug, Serialize)]
pub struct Tools {
    pub verilator: Option<String>,
    pub yosys: Option<String>,
    pub rust_hdl: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct BlockReport {
    pub name: String,
    /// The Verilog file, relative to the output directory.
    pub file: String,
    pub lines: usize,
    pub lint: Lint,
    pub yosys_validate: Validate,
    /// Area and depth from `synth_xilinx -family xc7`; `null` when not run or failed (see
    /// `synth_note`).
    pub synth: Option<Area>,
    /// Why `synth` is null: skipped (and why) or the failure.
    pub synth_note: Option<String>,
}

/// `verilator --lint-only -Wall verilator.vlt <block>.v --top-module <block>`.
#[derive(Clone, Debug, Serialize)]
pub struct Lint {
    pub ok: bool,
    pub command: String,
    /// What Verilator printed (warnings, errors), one line each; empty when clean.
    pub messages: Vec<String>,
}

/// rust-hdl's `yosys_validate` on the file as read back.
#[derive(Clone, Debug, Serialize)]
pub struct Validate {
    /// `null` when it could not run (Yosys not installed).
    pub ok: Option<bool>,
    pub message: Option<String>,
}

/// The figures of [`SynthStats`] the report keeps.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Area {
    pub luts: u64,
    pub ffs: u64,
    pub carry4: u64,
    pub muxf: u64,
    pub lutram: u64,
    /// `luts` plus the LUTs the LUT-RAM cells occupy (Vivado's "Slice LUTs").
    pub lut_sites: u64,
    /// In RAMB36 units.
    pub bram: f64,
    pub dsp: u64,
    pub lut_levels: u32,
    pub logic_levels: u32,
    /// The cells of the deepest LUT path, from its start.
    pub deepest_path: Vec<String>,
}

impl Area {
    /// The area figures the report shows, named as its table's columns: the one list the
    /// Markdown table and the summary line both print.
    pub fn columns(&self) -> [(&'static str, String); 8] {
        [
            ("LUTs", self.luts.to_string()),
            ("LUT RAM cells", self.lutram.to_string()),
            ("LUT sites", self.lut_sites.to_string()),
            ("FFs", self.ffs.to_string()),
            ("CARRY4", self.carry4.to_string()),
            ("BRAM (36k)", self.bram.to_string()),
            ("LUT levels", self.lut_levels.to_string()),
            ("logic levels", self.logic_levels.to_string()),
        ]
    }
}

impl From<SynthStats> for Area {
    fn from(s: SynthStats) -> Self {
        Area {
            luts: s.luts,
            ffs: s.ffs,
            carry4: s.carry4,
            muxf: s.muxf,
            lutram: s.lutram,
            lut_sites: s.lut_sites,
            bram: s.bram,
            dsp: s.dsp,
            lut_levels: s.lut_levels,
            logic_levels: s.logic_levels,
            deepest_path: s.deepest_path,
        }
    }
}

pub fn run(args: &GenerateArgs) -> Result<ExitCode, Error> {
    if let Some(board) = args.board {
        return crate::generate_board::run(args, board);
    }
    let params = params_from(args)?;
    let jobs = args
        .jobs
        .map(usize::from)
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let report = generate(&args.out, &params, !args.no_synth, jobs)?;
    let summary = summary(&args.out, &report);
    if let Err(e) = std::io::stdout().lock().write_all(summary.as_bytes()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(Error::Output(e));
        }
    }
    Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The engine parameters from the flags (defaults for the rest), validated. Each flag
/// applies to every block that has the parameter (`--connections` to all three).
pub fn params_from(args: &GenerateArgs) -> Result<EngineParams, Error> {
    fn narrow<T: TryFrom<u32>>(v: u32, key: &str, flag: &str) -> Result<T, Error> {
        T::try_from(v)
            .map_err(|_| Error::InvalidParams(format!("{key} ({flag}) is out of range, got {v}")))
    }
    let mut p = EngineParams::default();
    if let Some(n) = args.connections {
        p = p.with_connections(narrow(n, "connections", "--connections")?);
    }
    // The engine is built from its own parameters: each flag sets them as well.
    if let Some(b) = args.buf_size {
        p.parser.buf_size = b;
        p.engine.buf_size = b;
    }
    if let Some(n) = args.send_bufs {
        p.pool.send_bufs = narrow(n, "send_bufs", "--send-bufs")?;
        p.engine.send_bufs = p.pool.send_bufs;
    }
    if let Some(n) = args.recv_bufs {
        p.pool.recv_bufs = narrow(n, "recv_bufs", "--recv-bufs")?;
        p.engine.recv_bufs = p.pool.recv_bufs;
    }
    if let Some(n) = args.reg_entries {
        p.sequencer.reg_entries = narrow(n, "reg_entries", "--reg-entries")?;
        p.engine.reg_entries = p.sequencer.reg_entries;
    }
    if let Some(n) = args.ops {
        p.sequencer.ops = narrow(n, "ops", "--ops")?;
        p.engine.rdma_ops = p.sequencer.ops;
    }
    if let Some(n) = args.segment {
        p.sequencer.segment = n;
        p.engine.rdma_segment = n;
    }
    if let Some(n) = args.window {
        p.sequencer.window = narrow(n, "window", "--window")?;
        p.engine.rdma_window = p.sequencer.window;
    }
    p.validate().map_err(|e| {
        // The model names the block and the field; add the flag and the value given.
        let fields: [(&str, &str, u64); 8] = [
            ("connections", "--connections", p.parser.connections as u64),
            ("buf_size", "--buf-size", p.parser.buf_size as u64),
            ("send_bufs", "--send-bufs", p.pool.send_bufs as u64),
            ("recv_bufs", "--recv-bufs", p.pool.recv_bufs as u64),
            ("reg_entries", "--reg-entries", p.sequencer.reg_entries as u64),
            ("ops", "--ops", p.sequencer.ops as u64),
            ("segment", "--segment", p.sequencer.segment as u64),
            ("window", "--window", p.sequencer.window as u64),
        ];
        let field = e.split_once(": ").map_or(e.as_str(), |(_, f)| f);
        Error::InvalidParams(match fields.iter().find(|(k, _, _)| field.starts_with(k)) {
            Some((_, flag, v)) => format!("{e} ({flag}, got {v})"),
            None => e,
        })
    })?;
    Ok(p)
}

/// Write, check and measure every block in `dir`; write the reports there. The blocks are
/// written and checked one after another, then synthesized `jobs` at a time (Yosys is one
/// thread per run, and the engine and the NIC take most of the time).
pub fn generate(
    dir: &Path,
    params: &EngineParams,
    synth: bool,
    jobs: usize,
) -> Result<Report, Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::File {
        what: "create",
        path: dir.to_owned(),
        source,
    })?;
    let vlt = dir.join("verilator.vlt");
    write(&vlt, VERILATOR_WAIVERS)?;
    let yosys = yosys_available();
    let tools = Tools {
        verilator: version("verilator", "--version"),
        yosys: if yosys { version("yosys", "-V") } else { None },
        rust_hdl: RUST_HDL_VERSION.into(),
    };

    let mut blocks = Vec::new();
    let mut texts = Vec::new();
    for block in BlockName::ALL {
        let name = block.name();
        let file = dir.join(format!("{name}.v"));
        write(&file, &verilog(block, params))?;
        // Every check sees the file as written, not the string it came from.
        let text = std::fs::read_to_string(&file).map_err(|source| Error::File {
            what: "read back",
            path: file.clone(),
            source,
        })?;
        let lint = lint(&vlt, &file, name);
        let yosys_validate = if yosys {
            match yosys_validate_block(block, &text) {
                Ok(()) => Validate { ok: Some(true), message: None },
                Err(e) => Validate { ok: Some(false), message: Some(e) },
            }
        } else {
            Validate { ok: None, message: Some("skipped: yosys not installed".into()) }
        };
        let skipped = if !synth {
            Some("skipped: --no-synth")
        } else if !yosys {
            Some("skipped: yosys not installed")
        } else {
            None
        };
        blocks.push(BlockReport {
            name: name.into(),
            file: format!("{name}.v"),
            lines: text.lines().count(),
            lint,
            yosys_validate,
            synth: None,
            synth_note: skipped.map(String::from),
        });
        texts.push(text);
    }
    if synth && yosys {
        let work = dir.join("synth");
        let areas = synth_all(&work, &blocks, &texts, jobs);
        for (b, r) in blocks.iter_mut().zip(areas) {
            match r {
                Ok(s) => b.synth = Some(Area::from(s)),
                Err(e) => b.synth_note = Some(format!("failed: {e}")),
            }
        }
    }
    let ok = blocks.iter().all(|b| b.lint.ok && b.yosys_validate.ok != Some(false));
    let report = Report {
        ok,
        generated_by: format!("sanswitch {}", env!("CARGO_PKG_VERSION")),
        params: ReportParams {
            parser: params.parser,
            pool: params.pool,
            sequencer: params.sequencer,
        },
        tools,
        blocks,
    };
    let mut json = serde_json::to_string_pretty(&report)?;
    json.push('\n');
    write(&dir.join("report.json"), &json)?;
    write(&dir.join("report.md"), &markdown(&report))?;
    Ok(report)
}

/// `synth_xilinx` of every block (`texts[i]` the Verilog of `blocks[i]`) in `work`, `jobs`
/// at a time, the largest first so that the longest run starts at once; the results in
/// the blocks' order.
fn synth_all(
    work: &Path,
    blocks: &[BlockReport],
    texts: &[String],
    jobs: usize,
) -> Vec<Result<SynthStats, String>> {
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Each worker takes the next block (largest first) until none is left and gives back
    // what it synthesized, by block index.
    let mut done: Vec<(usize, Result<SynthStats, String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs.clamp(1, blocks.len().max(1)))
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    while let Some(&i) =
                        order.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        let name = &blocks[i].name;
                        mine.push((i, synth_xilinx(work, name, &texts[i])));
                        remove_synth_inputs(work, name);
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a synthesis worker panicked")).collect()
    });
    done.sort_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, r)| r).collect()
}

pub(crate) fn write(path: &Path, contents: &str) -> Result<(), Error> {
    std::fs::write(path, contents).map_err(|source| Error::File {
        what: "write",
        path: path.to_owned(),
        source,
    })
}

/// The first line a tool prints for its version flag, or `None` if it does not run.
pub(crate) fn version(tool: &str, flag: &str) -> Option<String> {
    let out = Command::new(tool).arg(flag).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_owned)
}

/// Lint one file with the waivers, as a user would.
pub(crate) fn lint(vlt: &Path, file: &Path, top: &str) -> Lint {
    let mut cmd = Command::new("verilator");
    cmd.args(["--lint-only", "-Wall"]).arg(vlt).arg(file).args(["--top-module", top]);
    let command = format!(
        "verilator --lint-only -Wall {} {} --top-module {top}",
        vlt.display(),
        file.display()
    );
    match cmd.output() {
        Err(e) => Lint { ok: false, command, messages: vec![format!("cannot run verilator: {e}")] },
        Ok(out) => {
            let messages = [&out.stderr, &out.stdout]
                .iter()
                .flat_map(|b| {
                    String::from_utf8_lossy(b).lines().map(str::to_owned).collect::<Vec<_>>()
                })
                .filter(|l| !l.trim().is_empty())
                .collect();
            Lint { ok: out.status.success(), command, messages }
        }
    }
}

fn yes_no(ok: bool) -> &'static str {
    if ok { "ok" } else { "FAILED" }
}

fn validate_cell(v: &Validate) -> &'static str {
    match v.ok {
        Some(ok) => yes_no(ok),
        None => "skipped",
    }
}

/// `report.md`: the table, then per block its deepest path and any messages.
pub fn markdown(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# sanswitch generate report\n");
    let (p, q, s) = (&r.params.parser, &r.params.pool, &r.params.sequencer);
    let _ = writeln!(
        o,
        "Parameters: `connections` {} (every block); parser `buf_size` {} B; pool `send_bufs` \
         {}, `recv_bufs` {}; sequencer `reg_entries` {}, `ops` {}, `segment` {} B, `window` \
         {}. Generated by {}.\n",
        p.connections,
        p.buf_size,
        q.send_bufs,
        q.recv_bufs,
        s.reg_entries,
        s.ops,
        s.segment,
        s.window,
        r.generated_by
    );
    let _ = writeln!(
        o,
        "Tools: {}; {}; rust-hdl {}.\n",
        r.tools.verilator.as_deref().unwrap_or("verilator not found"),
        r.tools.yosys.as_deref().unwrap_or("yosys not found"),
        r.tools.rust_hdl
    );
    let _ = writeln!(
        o,
        "Lint: `verilator --lint-only -Wall verilator.vlt <block>.v --top-module <block>`. \
         Validate: rust-hdl's `yosys_validate` (hierarchy, processes, no latches, no implicit \
         or undriven nets). Area and depth: Yosys `synth_xilinx -flatten -family xc7`; LUT \
         levels are the most LUTs on a path between registers or ports, logic levels also \
         count CARRY4 and MUXF7/8. LUT sites are the logic LUTs, the inverters left as \
         `INV` cells (a LUT1 each) and the LUTs the LUT-RAM cells occupy (a RAM32M four), as \
         Vivado's \"Slice LUTs\" counts them.\n"
    );
    let area_names = Area::default().columns().map(|(name, _)| name);
    let _ = writeln!(
        o,
        "| block | file | lines | lint | yosys validate | {} |",
        area_names.join(" | ")
    );
    let _ = writeln!(o, "|---|---|---:|---|---|{}", "---:|".repeat(area_names.len()));
    for b in &r.blocks {
        let area = match &b.synth {
            Some(a) => a.columns().map(|(_, v)| v).join(" | "),
            None => vec!["-"; area_names.len()].join(" | "),
        };
        let _ = writeln!(
            o,
            "| {} | `{}` | {} | {} | {} | {} |",
            b.name,
            b.file,
            b.lines,
            yes_no(b.lint.ok),
            validate_cell(&b.yosys_validate),
            area
        );
    }
    let _ = writeln!(o, "\nOverall: {}.", if r.ok { "ok" } else { "FAILED" });
    for b in &r.blocks {
        let _ = writeln!(o, "\n## {}\n", b.name);
        match (&b.synth, &b.synth_note) {
            (Some(a), _) => {
                let _ = writeln!(
                    o,
                    "Deepest LUT path ({} LUTs, {} logic levels):\n",
                    a.lut_levels, a.logic_levels
                );
                for c in &a.deepest_path {
                    let _ = writeln!(o, "- `{c}`");
                }
            }
            (None, Some(n)) => {
                let _ = writeln!(o, "Synthesis {n}");
            }
            (None, None) => {}
        }
        if b.lint.messages.is_empty() {
            let _ = writeln!(o, "\nLint: clean.");
        } else {
            let _ = writeln!(o, "\nLint messages:\n\n```");
            for m in &b.lint.messages {
                let _ = writeln!(o, "{m}");
            }
            let _ = writeln!(o, "```");
        }
        if let Some(m) = &b.yosys_validate.message {
            let _ = writeln!(o, "\nYosys validate: {m}");
        }
    }
    o
}

/// The short summary printed on stdout.
pub fn summary(dir: &Path, r: &Report) -> String {
    let mut o = String::new();
    let files: Vec<String> = r.blocks.iter().map(|b| b.file.clone()).collect();
    let _ = writeln!(
        o,
        "wrote {} and verilator.vlt in {} ({} connections, {} B buffers, {} + {} pool \
         buffers, {} registrations, {} transfers)",
        files.join(", "),
        dir.display(),
        r.params.parser.connections,
        r.params.parser.buf_size,
        r.params.pool.send_bufs,
        r.params.pool.recv_bufs,
        r.params.sequencer.reg_entries,
        r.params.sequencer.ops,
    );
    for b in &r.blocks {
        let mut line = format!(
            "{}: {} lines, lint {}, yosys validate {}",
            b.name,
            b.lines,
            yes_no(b.lint.ok),
            validate_cell(&b.yosys_validate)
        );
        match (&b.synth, &b.synth_note) {
            (Some(a), _) => {
                let figures: Vec<String> =
                    a.columns().iter().map(|(name, v)| format!("{v} {name}")).collect();
                let _ = write!(line, "; {}", figures.join(", "));
            }
            (None, Some(n)) => {
                let _ = write!(line, "; synthesis {n}");
            }
            (None, None) => {}
        }
        let _ = writeln!(o, "{line}");
        if !b.lint.ok {
            for m in b.lint.messages.iter().take(20) {
                let _ = writeln!(o, "    {m}");
            }
        }
        if b.yosys_validate.ok == Some(false) {
            if let Some(m) = &b.yosys_validate.message {
                let _ = writeln!(o, "    {m}");
            }
        }
    }
    let report: PathBuf = dir.join("report.json");
    let _ = writeln!(
        o,
        "report: {}, {}; {}",
        report.display(),
        dir.join("report.md").display(),
        if r.ok { "all ok" } else { "FAILED" }
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(connections: Option<u32>, buf_size: Option<u32>) -> GenerateArgs {
        GenerateArgs {
            out: PathBuf::from("unused"),
            buf_size,
            connections,
            send_bufs: None,
            recv_bufs: None,
            reg_entries: None,
            ops: None,
            segment: None,
            window: None,
            no_synth: true,
            jobs: None,
            board: None,
            engine_mhz: 125,
        }
    }

    fn block(name: &str, synth: Option<Area>) -> BlockReport {
        BlockReport {
            name: name.into(),
            file: format!("{name}.v"),
            lines: 1,
            lint: Lint { ok: true, command: String::new(), messages: vec![] },
            yosys_validate: Validate { ok: Some(true), message: None },
            synth_note: synth.is_none().then(|| "skipped: --no-synth".into()),
            synth,
        }
    }

    #[test]
    fn the_table_and_the_summary_show_each_area_figure_under_its_name() {
        let p = EngineParams::default();
        let area = Area {
            luts: 11,
            lutram: 22,
            lut_sites: 33,
            ffs: 44,
            carry4: 55,
            bram: 6.5,
            lut_levels: 7,
            logic_levels: 8,
            ..Area::default()
        };
        let r = Report {
            ok: true,
            generated_by: "test".into(),
            params: ReportParams { parser: p.parser, pool: p.pool, sequencer: p.sequencer },
            tools: Tools { verilator: None, yosys: None, rust_hdl: RUST_HDL_VERSION.into() },
            blocks: vec![block("engine", Some(area)), block("parser", None)],
        };
        let md = markdown(&r);
        let rows: Vec<Vec<&str>> = md
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
            .collect();
        assert_eq!(rows.len(), 4, "{md}");
        assert!(rows.iter().all(|r| r.len() == rows[0].len()), "{md}");
        let cell =
            |row: usize, col: &str| rows[row][rows[0].iter().position(|h| *h == col).unwrap()];
        for (col, want) in [
            ("LUTs", "11"),
            ("LUT RAM cells", "22"),
            ("LUT sites", "33"),
            ("FFs", "44"),
            ("CARRY4", "55"),
            ("BRAM (36k)", "6.5"),
            ("LUT levels", "7"),
            ("logic levels", "8"),
        ] {
            assert_eq!(cell(2, col), want, "{col}");
            assert_eq!(cell(3, col), "-", "{col}");
        }
        let text = summary(Path::new("out"), &r);
        assert!(
            text.contains(
                "engine: 1 lines, lint ok, yosys validate ok; 11 LUTs, 22 LUT RAM cells, 33 LUT \
                 sites, 44 FFs, 55 CARRY4, 6.5 BRAM (36k), 7 LUT levels, 8 logic levels"
            ),
            "{text}"
        );
        assert!(
            text.contains("parser: 1 lines, lint ok, yosys validate ok; synthesis skipped"),
            "{text}"
        );
    }

    #[test]
    fn params_are_validated() {
        assert_eq!(params_from(&args(None, None)).unwrap(), EngineParams::default());
        let p = params_from(&args(Some(4), Some(1024))).unwrap();
        assert_eq!(p.parser, ParserParams { connections: 4, buf_size: 1024 });
        for (c, b, flag) in [
            (Some(0), None, "--connections"),
            (Some(257), None, "--connections"),
            (Some(70_000), None, "--connections"),
            (None, Some(63), "--buf-size"),
            (None, Some(65_537), "--buf-size"),
        ] {
            let e = params_from(&args(c, b)).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            assert!(e.to_string().contains(flag), "{e}");
        }
    }

    #[test]
    fn every_parameter_reaches_every_block_that_has_it() {
        let p = params_from(&GenerateArgs {
            send_bufs: Some(4),
            recv_bufs: Some(16),
            reg_entries: Some(8),
            ops: Some(2),
            segment: Some(64),
            window: Some(2),
            ..args(Some(64), Some(256))
        })
        .unwrap();
        assert_eq!(
            (p.parser.connections, p.pool.connections, p.sequencer.connections),
            (64, 64, 64)
        );
        assert_eq!((p.pool.send_bufs, p.pool.recv_bufs), (4, 16));
        assert_eq!((p.sequencer.reg_entries, p.sequencer.ops), (8, 2));
        assert_eq!((p.sequencer.segment, p.sequencer.window), (64, 2));
        // Each limit at its boundary and one past it, the flag named.
        for (a, flag, ok) in [
            (GenerateArgs { send_bufs: Some(16), ..args(None, None) }, "--send-bufs", true),
            (GenerateArgs { send_bufs: Some(17), ..args(None, None) }, "--send-bufs", false),
            (GenerateArgs { recv_bufs: Some(4), ..args(None, None) }, "--recv-bufs", true),
            (GenerateArgs { recv_bufs: Some(3), ..args(None, None) }, "--recv-bufs", false),
            (GenerateArgs { reg_entries: Some(32), ..args(None, None) }, "--reg-entries", true),
            (GenerateArgs { reg_entries: Some(64), ..args(None, None) }, "--reg-entries", false),
            (GenerateArgs { ops: Some(16), ..args(None, None) }, "--ops", true),
            (GenerateArgs { ops: Some(17), ..args(None, None) }, "--ops", false),
            (GenerateArgs { segment: Some(8), ..args(None, None) }, "--segment", true),
            (GenerateArgs { segment: Some(7), ..args(None, None) }, "--segment", false),
            (GenerateArgs { window: Some(16), ..args(None, None) }, "--window", true),
            (GenerateArgs { window: Some(32), ..args(None, None) }, "--window", false),
            (GenerateArgs { ops: Some(70_000), ..args(None, None) }, "--ops", false),
        ] {
            match params_from(&a) {
                Ok(_) => assert!(ok, "{flag} accepted past its limit"),
                Err(e) => {
                    assert!(!ok, "{flag} refused at its boundary: {e}");
                    assert!(e.to_string().contains(flag), "{e}");
                }
            }
        }
    }
}
