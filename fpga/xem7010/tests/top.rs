//! The XEM7010 top as `sanswitch generate --board xem7010` writes it: the committed XDC is
//! the one the top gives, the top lints in Verilator with FrontPanel's cores and the Xilinx
//! primitives as black boxes, and the endpoints, clock and pins are where the docs say.

use sanswitch_model::bridge::{PIPE_IN, PIPE_OUT};
use sanswitch_model::params::EngineParams;
use sanswitch_xem7010::clock::DIVIDE_125;
use sanswitch_xem7010::top_files;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `constraints/xem7010.xdc` is what the top's pins and timing give (rust-hdl's XDC
/// generation plus the top's clock groups), byte for byte.
#[test]
fn committed_constraints_are_the_tops() {
    let (_, xdc) = top_files(&EngineParams::board(), DIVIDE_125);
    let path = root().join("constraints/xem7010.xdc");
    let committed = std::fs::read_to_string(&path).expect("constraints/xem7010.xdc");
    assert!(
        committed == xdc,
        "{} differs from the top's constraints: run `sanswitch generate --board xem7010 --out \
         DIR --no-synth` and copy DIR/top.xdc there",
        path.display()
    );
    // What the board needs from it: the oscillator, the host interface's clock, the LEDs,
    // and the two clocks declared asynchronous.
    for want in [
        "create_clock -name SystemClk -period 5 [get_ports { clock_p }]",
        "create_clock -name okHostClk -period 20.83",
        "set_property PACKAGE_PIN K4 [get_ports { clock_p }]",
        "set_property PACKAGE_PIN N13 [get_ports { led[0] }]",
        "-group [get_clocks -include_generated_clocks SystemClk]",
    ] {
        assert!(xdc.contains(want), "missing: {want}");
    }
}

/// The top lints clean with the project's waivers (`hdl/verilator.vlt`).
#[test]
fn top_lints_in_verilator() {
    sanswitch_hdl::tools::require_verilator();
    let (v, _) = top_files(&EngineParams::board(), DIVIDE_125);
    let dir = std::env::temp_dir().join(format!("sanswitch-top-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (file, vlt) = (dir.join("top.v"), dir.join("verilator.vlt"));
    std::fs::write(&file, &v).unwrap();
    std::fs::write(&vlt, sanswitch_hdl::VERILATOR_WAIVERS).unwrap();
    let out = std::process::Command::new("verilator")
        .args(["--lint-only", "-Wall"])
        .arg(&vlt)
        .arg(&file)
        .args(["--top-module", "top"])
        .output()
        .expect("run verilator");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The pipes at the bridge protocol's endpoints, the engine clock's divider, the FrontPanel
/// cores as black boxes the Vivado flow replaces.
#[test]
fn endpoints_clock_and_black_boxes() {
    let (v, _) = top_files(&EngineParams::board(), DIVIDE_125);
    assert!(v.contains("okBTPipeIn mod(") && v.contains(&format!(".ep_addr(8'h{PIPE_IN:x}))")));
    assert!(v.contains(&format!(".ep_addr(8'h{PIPE_OUT:x}))")));
    assert!(v.contains(".CLKOUT0_DIVIDE_F(8.000)"));
    let (v100, _) = top_files(&EngineParams::board(), 10);
    assert!(v100.contains(".CLKOUT0_DIVIDE_F(10.000)"));
    let filtered = rust_hdl::prelude::filter_blackbox_directives(&v);
    for core in
        ["module okHost(", "module okBTPipeIn(", "module okBTPipeOut(", "module MMCME2_BASE("]
    {
        assert!(v.contains(core), "{core}");
        assert!(!filtered.contains(core), "{core} left for Vivado");
    }
    // The board's logic is all there: two NICs, two memories, the bridge, the loopback.
    for m in [
        "module top$board$core$bridge(",
        "module top$board$core$san(",
        "module top$board$core$nodes$0$nic(",
        "module top$board$core$nodes$1$mem(",
    ] {
        assert!(v.contains(m), "{m}");
    }
}
