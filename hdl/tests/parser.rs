//! The parser in rust-hdl's own simulator, against its cycle model; and its Verilog.

use sanswitch_hdl::parser::ControlParser;
use sanswitch_hdl::{BlockName, EngineParams, rhsim, verilog, yosys_validate_block};
use sanswitch_model::blocks::parser::ParserModel;
use sanswitch_model::blocks::parser_stimulus::ParserDriver;
use sanswitch_model::params::ParserParams;

fn lockstep(p: ParserParams, seed: u64, cycles: u64) {
    let mut drv = ParserDriver::new(seed, p.buf_size, p.connections, 0.3);
    drv.record = false;
    rhsim::lockstep(ControlParser::new(&p), ParserModel::new(p), drv, cycles).unwrap();
}

#[test]
fn parser_matches_model_in_rust_hdl_simulator() {
    lockstep(ParserParams::default(), 11, 3000);
}

#[test]
fn parser_small_buffer_matches_model_in_rust_hdl_simulator() {
    let p = EngineParams::small().parser;
    assert_eq!((p.connections, p.buf_size), (4, 64));
    lockstep(p, 12, 2000);
}

#[test]
fn parser_verilog_passes_yosys_validate() {
    let v = verilog(BlockName::Parser, &EngineParams::default());
    assert!(v.contains("module parser("));
    assert!(v.contains("module parser$w0("));
    assert!(!v.contains("top$"));
    yosys_validate_block(BlockName::Parser, &v).unwrap();
}
