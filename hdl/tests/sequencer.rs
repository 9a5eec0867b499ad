//! The sequencer in rust-hdl's own simulator, against its cycle model; its Verilog (Yosys
//! validation, Verilator lint with the project's waivers); and its mapping onto the 7 series
//! within the budgets (needs Yosys and Verilator: without them these tests fail, saying how
//! to install them).

use std::process::Command;

use sanswitch_hdl::sequencer::Sequencer;
use sanswitch_hdl::synth::synth_xilinx;
use sanswitch_hdl::tools::{require_verilator, require_yosys};
use sanswitch_hdl::{
    BlockName, EngineParams, VERILATOR_WAIVERS, rhsim, verilog, yosys_validate_block,
};
use sanswitch_model::blocks::sequencer::SequencerModel;
use sanswitch_model::blocks::sequencer_stimulus::SeqDriver;
use sanswitch_model::params::SequencerParams;

/// Small segments and a short SAN latency, so that a few thousand cycles see transfers
/// finish, fail and abort.
fn short() -> SequencerParams {
    SequencerParams { segment: 64, san_latency: 3, ..SequencerParams::default() }
}

fn lockstep(p: SequencerParams, d: SeqDriver, cycles: u64) -> SeqDriver {
    rhsim::lockstep(Sequencer::new(&p), SequencerModel::new(p), d, cycles).unwrap()
}

fn busy_driver(seed: u64, p: SequencerParams) -> SeqDriver {
    let mut d = SeqDriver::new(seed, p);
    d.cmd_rate = 0.4;
    d.chk_rate = 0.4;
    d.big_rate = 0.0;
    d.abort_rate = 0.03;
    d.san.cfg.error_rate = 0.05;
    d.san.cfg.dup_rate = 0.05;
    d.san.cfg.stale_rate = 0.02;
    d.reset_rate = 0.002;
    d
}

#[test]
fn sequencer_matches_model_in_rust_hdl_simulator() {
    let p = short();
    let d = lockstep(p, busy_driver(21, p), 2500);
    let s = &d.stats;
    eprintln!("{s:?}");
    assert!(s.completions.iter().sum::<u64>() > 10, "{s:?}");
    assert!(s.checks[0] > 0 && s.checks[1] > 0, "{s:?}");
}

#[test]
fn sequencer_small_tables_match_model_in_rust_hdl_simulator() {
    let p = SequencerParams {
        connections: 3,
        reg_entries: 4,
        ops: 2,
        segment: 8,
        window: 2,
        san_latency: 2,
    };
    let d = lockstep(p, busy_driver(22, p), 2000);
    assert!(d.stats.responses[1] > 0, "the table filled up: {:?}", d.stats);
}

#[test]
fn sequencer_verilog_passes_yosys_validate_and_verilator_lint() {
    require_verilator();
    let v = verilog(BlockName::Sequencer, &EngineParams::default());
    assert!(v.contains("module sequencer("));
    assert!(!v.contains("top$"));
    yosys_validate_block(BlockName::Sequencer, &v).unwrap();
    let dir = std::env::temp_dir().join(format!("sanswitch-seq-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (vf, vlt) = (dir.join("sequencer.v"), dir.join("verilator.vlt"));
    std::fs::write(&vf, &v).unwrap();
    std::fs::write(&vlt, VERILATOR_WAIVERS).unwrap();
    let o = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", "sequencer"])
        .arg(&vlt)
        .arg(&vf)
        .output()
        .expect("run verilator");
    assert!(o.status.success(), "verilator -Wall:\n{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sequencer_maps_within_budget() {
    require_yosys();
    let v = verilog(BlockName::Sequencer, &EngineParams::default());
    let dir = std::env::temp_dir().join(format!("sanswitch-seq-synth-{}", std::process::id()));
    let s = synth_xilinx(&dir, "sequencer", &v).unwrap();
    eprintln!(
        "sequencer: {} LUTs, {} FFs, {} LUT RAM cells, {} BRAM, {} CARRY4, {} LUT levels \
         ({} logic levels)\ndeepest path: {:#?}",
        s.luts, s.ffs, s.lutram, s.bram, s.carry4, s.lut_levels, s.logic_levels, s.deepest_path
    );
    assert!(s.luts > 300 && s.ffs > 500, "implausible: {s:?}");
    assert!(s.luts < 3_000, "sequencer too large: {} LUTs", s.luts);
    assert!(s.lut_levels <= 8, "sequencer too deep: {} LUT levels", s.lut_levels);
    let _ = std::fs::remove_dir_all(dir);
}

/// Area by parameters (slow; run by hand with `--ignored --nocapture`).
#[test]
#[ignore]
fn sequencer_area_by_parameters() {
    require_yosys();
    let d = SequencerParams::default();
    for (name, p) in [
        ("default", d),
        ("ops 1", SequencerParams { ops: 1, ..d }),
        ("ops 8", SequencerParams { ops: 8, ..d }),
        ("reg_entries 32", SequencerParams { reg_entries: 32, ..d }),
        ("window 16", SequencerParams { window: 16, ..d }),
    ] {
        let e = EngineParams { sequencer: p, ..EngineParams::default() };
        let v = verilog(BlockName::Sequencer, &e);
        let dir = std::env::temp_dir().join(format!("sanswitch-seq-area-{}", std::process::id()));
        let s = synth_xilinx(&dir, "sequencer", &v).unwrap();
        eprintln!(
            "{name:>16}: {:>5} LUTs {:>5} FFs {:>3} LUTRAM {:>2} LUT levels",
            s.luts, s.ffs, s.lutram, s.lut_levels
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Area of each unit synthesized alone, its ports left as ports (slow; run by hand with
/// `--ignored --nocapture`): where the sequencer's LUTs go.
#[test]
#[ignore]
fn sequencer_area_by_unit() {
    use rust_hdl::prelude::{Block, generate_verilog};
    use sanswitch_hdl::sequencer::{
        AccessChecker, CmdUnit, CplBuilder, Issuer, OpTable, RegTable, RespMatcher,
    };
    require_yosys();
    let p = SequencerParams::default();
    fn area(name: &str, mut b: impl Block) {
        b.connect_all();
        let v = generate_verilog(&b);
        if let Ok(d) = std::env::var("SANSWITCH_UNIT_VERILOG") {
            std::fs::write(format!("{d}/{name}.v"), &v).unwrap();
        }
        let dir =
            std::env::temp_dir().join(format!("sanswitch-unit-{name}-{}", std::process::id()));
        let s = synth_xilinx(&dir, "top", &v).unwrap();
        eprintln!(
            "{name:>14}: {:>5} LUTs {:>5} FFs {:>3} LUTRAM {:>3} CARRY4 {:>2} LUT levels",
            s.luts, s.ffs, s.lutram, s.carry4, s.lut_levels
        );
        let _ = std::fs::remove_dir_all(dir);
    }
    let ops = p.ops as usize;
    area("command", CmdUnit::new(&p));
    area("reg_table", RegTable::new(p.reg_entries as usize));
    area("op_table", OpTable::new(ops));
    area("op_slot", sanswitch_hdl::sequencer::OpSlot::default());
    area("issue", Issuer::new(ops, p.segment, p.window as u32));
    area("response", RespMatcher::new(ops, p.window as usize));
    area("completion", CplBuilder::new(ops));
    area("checks", AccessChecker::new(p.reg_entries as u32));
    for n in [1, 4, 14] {
        area(&format!("counters_{n}"), sanswitch_hdl::widgets::CounterBank::new(n));
    }
}
