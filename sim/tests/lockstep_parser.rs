//! The Verilated parser against its cycle model, cycle by cycle, with resets at random
//! cycles and registers starting from random values; a broken model and a broken Verilog
//! (a register left out of the reset) must both be caught.

use std::rc::Rc;

use sanswitch_hdl::cosim::cosim_block;
use sanswitch_model::blocks::parser::{ParserIn, ParserModel, ParserOut};
use sanswitch_model::blocks::parser_stimulus::ParserDriver;
use sanswitch_model::params::ParserParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::wire::ParseError;
use sanswitch_sim::{
    Dut, LockstepOptions, StartValues, Stimulus, VParser, VParserNoReset, assert_lockstep_catches,
    lockstep,
};

fn driver(seed: u64, p: &ParserParams, valid: f64, ready: f64, bad: f64) -> ParserDriver {
    let mut d = ParserDriver::new(seed, p.buf_size, p.connections, bad);
    d.record = false;
    d.valid_rate = valid;
    d.ready_rate = ready;
    d
}

/// The driver, counting the header records delivered over the whole run by error code (the
/// block's own counters restart at every reset).
struct Counted {
    d: ParserDriver,
    records: [u64; 16],
}

impl Stimulus<ParserIn, ParserOut> for Counted {
    fn next(&mut self) -> ParserIn {
        self.d.next()
    }
    fn observe(&mut self, i: &ParserIn, o: &ParserOut) {
        if !i.reset && o.m_axis_hdr_tvalid && i.m_axis_hdr_tready {
            self.records[o.m_axis_hdr_error as usize & 15] += 1;
        }
        self.d.observe(i, o)
    }
    fn reset(&mut self) {
        self.d.reset()
    }
}

/// A lockstep run with resets at random (`reset_rate` per cycle); the records delivered.
fn run<D: Dut<In = ParserIn, Out = ParserOut>>(
    make_dut: &dyn Fn() -> D,
    p: ParserParams,
    seed: u64,
    opts: &LockstepOptions,
    (valid, ready, bad): (f64, f64, f64),
) -> [u64; 16] {
    let mut model = ParserModel::new(p);
    let mut stim = Counted { d: driver(seed, &p, valid, ready, bad), records: [0; 16] };
    match lockstep(&mut model, make_dut, &mut stim, opts) {
        Ok(r) => assert!(
            opts.reset_rate == 0.0 || r.resets > 0,
            "no reset in {} cycles at rate {}",
            r.cycles,
            opts.reset_rate
        ),
        Err(m) => panic!("{m}"),
    }
    stim.records
}

/// The CI run: a million cycles, random backpressure on every port, every message kind at
/// the boundary lengths, a third of the messages malformed or truncated, ~200 resets at
/// random cycles.
#[test]
fn parser_lockstep_one_million_cycles() {
    let opts = LockstepOptions::with_resets(1_000_000, 2e-4, 2026);
    let r = run(&VParser::new, ParserParams::default(), 2026, &opts, (0.85, 0.7, 0.33));
    assert!(r[0] > 5_000, "good records: {r:?}");
    for k in 1..=ParseError::COUNT {
        assert!(r[k] > 50, "error code {k} seen only {} times: {r:?}", r[k]);
    }
}

#[test]
fn parser_lockstep_full_speed() {
    let opts = LockstepOptions::with_resets(200_000, 1e-4, 7);
    run(&VParser::new, ParserParams::default(), 7, &opts, (1.0, 1.0, 0.2));
}

#[test]
fn parser_lockstep_heavy_stalls() {
    let opts = LockstepOptions::with_resets(200_000, 5e-4, 8);
    run(&VParser::new, ParserParams::default(), 8, &opts, (0.5, 0.2, 0.5));
}

#[test]
fn parser_lockstep_mostly_malformed() {
    let opts = LockstepOptions::with_resets(200_000, 1e-3, 9);
    run(&VParser::new, ParserParams::default(), 9, &opts, (0.9, 0.9, 0.9));
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

/// Value changes of the 1-bit signal `name` (the first one declared) in a VCD.
fn vcd_changes(vcd: &str, name: &str) -> Vec<char> {
    let id = vcd
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 6 && f[0] == "$var" && f[2] == "1" && f[4] == name)
                .then(|| f[3].to_string())
        })
        .unwrap_or_else(|| panic!("{name} not in the VCD"));
    let body = &vcd[vcd.find("$enddefinitions").expect("a VCD")..];
    body.lines()
        .filter(|l| l.len() == id.len() + 1 && l[1..] == id)
        .filter_map(|l| l.chars().next())
        .collect()
}

#[test]
fn lockstep_catches_a_broken_parser_model_at_the_right_cycle() {
    let p = ParserParams::default();
    let dir = std::env::temp_dir().join(format!("sanswitch-mismatch-test-{}", std::process::id()));
    let opts = LockstepOptions {
        vcd_window: 300,
        vcd_dir: Some(dir.clone()),
        ..LockstepOptions::with_resets(1_000_000, 5e-3, 5)
    };
    let m = assert_lockstep_catches(
        &|| BuggyParser(ParserModel::new(p)),
        Rc::new(move || ParserModel::new(p)),
        &VParser::new,
        &|| driver(5, &p, 0.9, 0.8, 0.4),
        &opts,
    );
    assert_eq!((m.port, m.verilog, m.model), ("m_axis_hdr_error", 8, 4));
    // The replay applied the harness's resets: the last one is in the VCD's window.
    let last = *m.resets.last().expect("resets before the bug shows");
    assert!(m.cycle - last < opts.vcd_window, "{m}");
    let vcd = std::fs::read_to_string(m.vcd.as_ref().unwrap()).unwrap();
    assert!(vcd_changes(&vcd, "reset").contains(&'1'), "no reset in the VCD: {m}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The parser with `beat_p1` left out of its reset (`VParserNoReset`, built from
/// `sanswitch_hdl::parser::beat::drop_beat_p1_reset`) against the correct model. The
/// register's power-up value sets the byte count of the first message after the reset, so
/// its header record shows it.
#[test]
fn a_register_left_out_of_the_reset_is_caught() {
    let p = cosim_block("parser_noreset").params.parser;
    assert_eq!(p, ParserParams::default());
    let check = |make: &dyn Fn() -> VParserNoReset, opts: &LockstepOptions| {
        let mut model = ParserModel::new(p);
        let mut stim = Counted { d: driver(3, &p, 0.9, 0.9, 0.3), records: [0; 16] };
        lockstep(&mut model, make, &mut stim, opts)
            .map(|_| ())
            .map_err(|m| (m, stim.records.iter().sum::<u64>()))
    };
    let quiet = LockstepOptions { cycles: 100_000, vcd_dir: None, ..LockstepOptions::default() };

    // Registers at zero (what `--x-initial fast` gave) and no reset mid-run: the flaw hides.
    check(&|| VParserNoReset::with_start(StartValues::Zero), &quiet)
        .unwrap_or_else(|(m, _)| panic!("the flaw showed from zero start values: {m}"));

    // From random start values it shows on the first header record, whatever the seed.
    for seed in 1..=8 {
        let (m, records) = check(&|| VParserNoReset::new_seeded(seed), &quiet)
            .expect_err("a register left out of the reset went unnoticed");
        eprintln!("seed {seed}: {m}");
        assert_eq!(records, 0, "seed {seed}: caught only after a good record: {m}");
        assert!(m.cycle < 2_000, "seed {seed}: {m}");
        assert_eq!(m.start, StartValues::Random(seed));
        assert!(m.to_string().contains(&format!("SANSWITCH_X_SEED={seed}")), "{m}");
        // The correct parser from the same start values passes.
        let mut model = ParserModel::new(p);
        let mut stim = driver(3, &p, 0.9, 0.9, 0.3);
        let opts = LockstepOptions { cycles: m.cycle + 1_000, ..quiet.clone() };
        if let Err(m) = lockstep(&mut model, &|| VParser::new_seeded(seed), &mut stim, &opts) {
            panic!("the correct parser fails from seed {seed}: {m}");
        }
    }

    // Resets mid-run catch it too, even from zero start values: a reset in the middle of a
    // message leaves `beat_p1` where it was.
    let resets =
        LockstepOptions { vcd_dir: None, ..LockstepOptions::with_resets(100_000, 1e-3, 3) };
    let (m, _) = check(&|| VParserNoReset::with_start(StartValues::Zero), &resets)
        .expect_err("a reset in mid-message went unnoticed");
    assert!(!m.resets.is_empty(), "{m}");
}

/// The seed decides the start values: the outputs before the first reset show them.
#[test]
fn start_values_follow_the_seed() {
    let before_reset = |s: StartValues| VParser::with_start(s).get();
    let a = before_reset(StartValues::Random(11));
    assert_eq!(a, before_reset(StartValues::Random(11)));
    assert_ne!(a, before_reset(StartValues::Random(12)));
    assert_eq!(before_reset(StartValues::Zero), before_reset(StartValues::Zero));
    assert_eq!(VParser::new_seeded(11).start_values(), StartValues::Random(11));
}
