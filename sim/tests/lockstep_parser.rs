//! The Verilated parser against its cycle model, cycle by cycle.

use sanswitch_model::blocks::parser::{ParserIn, ParserModel, ParserOut};
use sanswitch_model::blocks::stimulus::ParserDriver;
use sanswitch_model::params::ParserParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{LockstepOptions, Stimulus, VParser, lockstep};

fn driver(seed: u64, p: &ParserParams, valid: f64, ready: f64, bad: f64) -> ParserDriver {
    let mut d = ParserDriver::new(seed, p.buf_size, p.connections, bad);
    d.record = false;
    d.valid_rate = valid;
    d.ready_rate = ready;
    d
}

fn run(p: ParserParams, seed: u64, cycles: u64, valid: f64, ready: f64, bad: f64) -> ParserModel {
    let mut model = ParserModel::new(p);
    let mut stim = driver(seed, &p, valid, ready, bad);
    let opts = LockstepOptions { cycles, ..LockstepOptions::default() };
    if let Err(m) = lockstep(&mut model, &VParser::new, &mut stim, &opts) {
        panic!("{m}");
    }
    model
}

/// The CI run: a million cycles, random backpressure on every port, every message kind at
/// the boundary lengths, a third of the messages malformed or truncated.
#[test]
fn parser_lockstep_one_million_cycles() {
    let m = run(ParserParams::default(), 2026, 1_000_000, 0.85, 0.7, 0.33);
    assert!(m.good() > 5_000, "{:?}", m.counters);
    for (k, c) in m.error_counters().iter().enumerate() {
        assert!(*c > 50, "error kind {k} seen only {c} times: {:?}", m.counters);
    }
}

#[test]
fn parser_lockstep_full_speed() {
    run(ParserParams::default(), 7, 200_000, 1.0, 1.0, 0.2);
}

#[test]
fn parser_lockstep_heavy_stalls() {
    run(ParserParams::default(), 8, 200_000, 0.5, 0.2, 0.5);
}

#[test]
fn parser_lockstep_mostly_malformed() {
    run(ParserParams::default(), 9, 200_000, 0.9, 0.9, 0.9);
}

/// A model with one deliberate bug: it reports BadField as ReservedBits.
struct BuggyParser(ParserModel);

impl CycleModel for BuggyParser {
    type In = ParserIn;
    type Out = ParserOut;
    fn outputs(&self, i: &ParserIn) -> ParserOut {
        let mut o = self.0.outputs(i);
        if o.m_axis_hdr_error == 8 {
            o.m_axis_hdr_error = 4;
        }
        o
    }
    fn clock(&mut self, i: &ParserIn) {
        self.0.clock(i)
    }
}

#[test]
fn lockstep_reports_a_real_difference_at_the_right_cycle() {
    let p = ParserParams::default();
    // Where the bug first shows, found by running both models in plain Rust.
    let expected = {
        let mut good = ParserModel::new(p);
        let mut bad = BuggyParser(ParserModel::new(p));
        let mut stim = driver(5, &p, 0.9, 0.8, 0.4);
        let reset = ParserIn { reset: true, ..ParserIn::default() };
        good.clock(&reset);
        bad.clock(&reset);
        let mut cycle = 0u64;
        loop {
            let i = stim.next();
            let (a, b) = (good.outputs(&i), bad.outputs(&i));
            if a != b {
                break cycle;
            }
            good.clock(&i);
            bad.clock(&i);
            stim.observe(&i, &a);
            cycle += 1;
        }
    };
    let dir = std::env::temp_dir().join(format!("sanswitch-mismatch-test-{}", std::process::id()));
    let opts = LockstepOptions { cycles: 1_000_000, vcd_window: 50, vcd_dir: Some(dir.clone()) };
    let mut model = BuggyParser(ParserModel::new(p));
    let mut stim = driver(5, &p, 0.9, 0.8, 0.4);
    let m = lockstep(&mut model, &VParser::new, &mut stim, &opts).expect_err("the bug is caught");
    assert_eq!(m.cycle, expected);
    assert_eq!(m.port, "m_axis_hdr_error");
    assert_eq!((m.verilog, m.model), (8, 4));
    let vcd = m.vcd.clone().expect("a VCD was written");
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(text.contains("$enddefinitions") && text.contains("m_axis_hdr_error"));
    let msg = m.to_string();
    assert!(
        msg.contains(&format!("cycle {expected}")) && msg.contains("m_axis_hdr_error"),
        "{msg}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
