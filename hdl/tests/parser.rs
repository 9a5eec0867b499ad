//! The parser in rust-hdl's own simulator, against its cycle model; and its Verilog.

use sanswitch_hdl::parser::ControlParser;
use sanswitch_hdl::{BlockName, EngineParams, rhsim, verilog, yosys_validate_block};
use sanswitch_model::blocks::parser::ParserModel;
use sanswitch_model::blocks::parser_stimulus::ParserDriver;
use sanswitch_model::params::ParserParams;

fn lockstep(p: ParserParams, seed: u64, cycles: u64) {
    let mut drv = ParserDriver::new(seed, p.buf_size, p.connections, 0.3);
    drv.record = false;
    rhsim::lockstep_with_resets(ControlParser::new(&p), ParserModel::new(p), drv, cycles, 500)
        .unwrap();
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
    assert!(v.contains("module parser$words("));
    assert!(!v.contains("top$"));
    yosys_validate_block(BlockName::Parser, &v).unwrap();
}

/// A model that ignores every reset after the first: only resets mid-run can tell.
struct ForgetsResets(ParserModel, bool);

impl sanswitch_model::ports::CycleModel for ForgetsResets {
    type In = sanswitch_model::blocks::parser::ParserIn;
    type Out = sanswitch_model::blocks::parser::ParserOut;
    fn outputs(&self, i: &Self::In) -> Self::Out {
        self.0.outputs(i)
    }
    fn clock(&mut self, i: &Self::In) {
        if i.reset && self.1 {
            return;
        }
        self.1 |= i.reset;
        self.0.clock(i)
    }
}

#[test]
fn the_rust_hdl_driver_resets_mid_run() {
    let p = ParserParams::default();
    let drv = || {
        let mut d = ParserDriver::new(13, p.buf_size, p.connections, 0.3);
        d.record = false;
        d
    };
    let model = || ForgetsResets(ParserModel::new(p), false);
    rhsim::lockstep(ControlParser::new(&p), model(), drv(), 3000).unwrap();
    let e = rhsim::lockstep_with_resets(ControlParser::new(&p), model(), drv(), 3000, 300)
        .map(|_| ())
        .unwrap_err();
    assert!(e.contains("cycle"), "{e}");
}
