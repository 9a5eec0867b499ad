//! The parser maps onto the 7 series within its budgets (needs yosys; skipped without it).

use sanswitch_hdl::synth::{synth_xilinx, yosys_available};
use sanswitch_hdl::{BlockName, EngineParams, verilog};

#[test]
fn parser_maps_within_budget() {
    if !yosys_available() {
        eprintln!("yosys not installed: skipped");
        return;
    }
    let v = verilog(BlockName::Parser, &EngineParams::default());
    let dir = std::env::temp_dir().join(format!("sanswitch-synth-{}", std::process::id()));
    let s = synth_xilinx(&dir, "parser", &v).unwrap();
    eprintln!("{s:#?}");
    assert!(s.luts > 200 && s.ffs > 500, "implausible: {s:?}");
    assert!(s.luts < 2_000, "parser too large: {} LUTs", s.luts);
    assert!(s.lut_levels <= 8, "parser too deep: {} LUT levels", s.lut_levels);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn pool_maps_within_budget() {
    if !yosys_available() {
        eprintln!("yosys not installed: skipped");
        return;
    }
    let v = verilog(BlockName::Pool, &EngineParams::default());
    let dir = std::env::temp_dir().join(format!("sanswitch-synth-pool-{}", std::process::id()));
    let s = synth_xilinx(&dir, "pool", &v).unwrap();
    eprintln!("{s:#?}");
    assert!(s.luts > 100, "implausible: {s:?}");
    assert!(s.luts < 2_000, "pool manager too large: {} LUTs", s.luts);
    assert!(s.lut_levels <= 8, "pool manager too deep: {} LUT levels", s.lut_levels);
    let _ = std::fs::remove_dir_all(dir);
}
