//! The blocks' Verilog as an FPGA flow takes it: the parser, the pool and the host
//! interface map onto the 7 series within their budgets (Yosys), and every block lints clean at both parameter sets
//! (Verilator). Without the tool these tests fail, saying how to install it.

use std::process::Command;

use sanswitch_hdl::synth::{BlockArea, synth_xilinx, synth_xilinx_by_block};
use sanswitch_hdl::tools::{require_verilator, require_yosys};
use sanswitch_hdl::{BlockName, EngineParams, VERILATOR_WAIVERS, verilog};

/// Block `name` at the default parameters through Yosys's `synth_xilinx`, its figures
/// printed and checked: at least `min` LUTs and flip-flops (else the flow lost logic),
/// under `max_luts`, at most `max_levels` LUT levels.
fn maps_within(name: BlockName, min: (u64, u64), max_luts: u64, max_levels: u32) {
    require_yosys();
    let top = name.name();
    let v = verilog(name, &EngineParams::default());
    let dir = std::env::temp_dir().join(format!("sanswitch-synth-{top}-{}", std::process::id()));
    let s = synth_xilinx(&dir, top, &v).unwrap();
    eprintln!("{s:#?}");
    assert!(s.luts >= min.0 && s.ffs >= min.1, "{top} implausible: {s:?}");
    assert!(s.luts < max_luts, "{top} too large: {} LUTs (< {max_luts})", s.luts);
    assert!(s.lut_levels <= max_levels, "{top} too deep: {} LUT levels", s.lut_levels);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn parser_maps_within_budget() {
    maps_within(BlockName::Parser, (200, 500), 2_000, 8);
}

#[test]
fn pool_maps_within_budget() {
    maps_within(BlockName::Pool, (100, 0), 2_000, 8);
}

/// The host interface (4 queue pairs): its deepest path was the submission ring's fetch
/// count, computed after the queue-pair multiplexer from the ring's size (16 LUT levels);
/// with the mask kept per queue pair and the count's compares side by side it is 12 or 13
/// (ABC's mapping moves it by one). The bound keeps the old structure from coming back.
#[test]
fn hostif_maps_within_budget() {
    maps_within(BlockName::HostIf, (1_000, 1_000), 4_000, 13);
}

/// The area by block: a kept block's own logic is its own, a plain register (rust-hdl's
/// `DFF` module: `d`, `q`, `clock`) is merged into the block that owns it, and the top's
/// total with its sub-blocks adds them up.
#[test]
fn area_by_block_keeps_blocks_and_merges_registers() {
    require_yosys();
    let v = "\
module top(clock, x, y, z, q);
    input wire clock;
    input wire [7:0] x;
    input wire [7:0] y;
    input wire [7:0] z;
    output wire [7:0] q;
    wire [7:0] s;
    top$mix mix(.x(x), .y(y), .z(z), .s(s));
    top$r r(.d(s), .q(q), .clock(clock));
endmodule
module top$mix(x, y, z, s);
    input wire [7:0] x;
    input wire [7:0] y;
    input wire [7:0] z;
    output reg [7:0] s;
    wire [7:0] t;
    top$mix$xy xy(.x(x), .y(y), .t(t));
    always @(*) s = t ^ z;
endmodule
module top$mix$xy(x, y, t);
    input wire [7:0] x;
    input wire [7:0] y;
    output reg [7:0] t;
    always @(*) t = x ^ y;
endmodule
module top$r(d,q,clock);
    input wire [7:0] d;
    output reg [7:0] q;
    input wire clock;
    always @(posedge clock) begin
       q <= d;
    end
endmodule
";
    let dir = std::env::temp_dir().join(format!("sanswitch-blocks-{}", std::process::id()));
    let b = synth_xilinx_by_block(&dir, "top", v, None).unwrap();
    eprintln!("{b:#?}");
    let find = |b: &[BlockArea], m: &str| {
        b.iter().find(|a| a.module == m).unwrap_or_else(|| panic!("{m}: {b:?}")).clone()
    };
    // Every block kept: two inputs a bit in each, a LUT2 a bit in each block.
    assert_eq!((find(&b, "top$mix$xy").luts, find(&b, "top$mix").luts), (8, 8));
    assert_eq!(find(&b, "top$mix").luts_with_subblocks, 16);
    // The register went into the top; nothing else is there.
    assert_eq!((find(&b, "top").luts, find(&b, "top").ffs), (0, 8));
    assert_eq!(find(&b, "top").luts_with_subblocks, 16);
    assert!(b.iter().all(|a| a.module != "top$r"), "{b:?}");
    // Kept to depth 1: `top$mix$xy` is flattened into `top$mix`, three inputs a bit, one
    // LUT3 a bit.
    let b = synth_xilinx_by_block(&dir, "top", v, Some(1)).unwrap();
    assert_eq!((find(&b, "top$mix").luts, find(&b, "top$mix").luts_with_subblocks), (8, 8));
    assert!(b.iter().all(|a| a.module != "top$mix$xy"), "{b:?}");
    assert_eq!((find(&b, "top").luts, find(&b, "top").ffs), (0, 8));
    let _ = std::fs::remove_dir_all(dir);
}

/// Every block's Verilog lints clean under Verilator's `-Wall` with the project's waivers, at
/// the default parameters and at the co-simulation's second set.
#[test]
fn every_block_lints_clean_at_both_parameter_sets() {
    require_verilator();
    let dir = std::env::temp_dir().join(format!("sanswitch-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vlt = dir.join("verilator.vlt");
    std::fs::write(&vlt, VERILATOR_WAIVERS).unwrap();
    for (set, params) in [("default", EngineParams::default()), ("small", EngineParams::small())] {
        for block in BlockName::ALL {
            // The file keeps the block's name: the waivers name their files.
            let f = dir.join(format!("{}.v", block.name()));
            std::fs::write(&f, verilog(block, &params)).unwrap();
            let o = Command::new("verilator")
                .args(["--lint-only", "-Wall", "--top-module", block.name()])
                .arg(&vlt)
                .arg(&f)
                .output()
                .expect("run verilator");
            assert!(
                o.status.success(),
                "{} at the {set} parameters: verilator -Wall:\n{}",
                block.name(),
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Run one test of this binary in a child process whose `PATH` is empty; its stderr.
fn run_without_path(test: &str) -> String {
    let out = Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env("PATH", "")
        .output()
        .expect("run this test binary again");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{test} passed without its tool:\n{stderr}");
    stderr
}

/// Without Yosys or Verilator, the tests that need them fail and say how to install them.
#[test]
fn tests_fail_and_say_so_when_a_tool_is_missing() {
    let e = run_without_path("parser_maps_within_budget");
    assert!(
        e.contains(
            "yosys not found on PATH: install it (apt-get install yosys) — this test needs it"
        ),
        "{e}"
    );
    let e = run_without_path("every_block_lints_clean_at_both_parameter_sets");
    assert!(
        e.contains(
            "verilator not found on PATH: install it (apt-get install verilator) — this test \
             needs it"
        ),
        "{e}"
    );
}
