//! The Verilated sequencer against its cycle model, cycle by cycle, driven by random
//! commands and checks and by the SAN port model with faults; and the bench's figures,
//! measured on the Verilog and cross-checked with the model.

use sanswitch_model::blocks::sequencer::{
    SeqCounters, SequencerIn, SequencerModel, SequencerOut, cnt, fault,
};
use sanswitch_model::blocks::sequencer_stimulus::{DriverStats, SeqDriver};
use sanswitch_model::params::SequencerParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{LockstepOptions, Stimulus, VSequencer, lockstep, sequencer_bench};

fn run(mut d: SeqDriver, cycles: u64) -> (DriverStats, SeqCounters) {
    let p = SequencerParams::default();
    let mut model = SequencerModel::new(p);
    // Resets at random, but not in the million-cycle run: it counts with the block's
    // counters, which a reset clears.
    let reset_rate = if cycles < 1_000_000 { 1e-4 } else { 0.0 };
    let opts = LockstepOptions::with_resets(cycles, reset_rate, cycles);
    if let Err(m) = lockstep(&mut model, &VSequencer::new, &mut d, &opts) {
        panic!("{m}");
    }
    eprintln!("{:#?}\nSAN {:#?}", d.stats, d.san.stats);
    (d.stats, model.cnt.clone())
}

/// The CI run: a million cycles with random backpressure on every output and on the SAN
/// port, transfers in both modes at 0, 1, segment − 1, segment, segment + 1 bytes and 1 MiB
/// on 16 connections at once, registrations filling the table, bad descriptors and command
/// codes, aborts, SAN error responses, duplicated and stray responses, and remote-access
/// checks of every verdict.
#[test]
fn sequencer_lockstep_one_million_cycles() {
    let (s, o) = run(SeqDriver::new(2028, SequencerParams::default()), 1_000_000);
    // 1 MiB transfers in both modes, and at least one to the end without a fault (most
    // meet one of the SAN's injected errors: at 0.4% per response, 256 responses each).
    assert!(s.big_started.iter().all(|n| *n >= 1), "1 MiB in both modes: {s:?}");
    assert!(s.big_transfers >= 1, "a 1 MiB transfer without a fault: {s:?}");
    assert!(s.boundary_ok.iter().all(|n| *n > 0), "boundary sizes: {s:?}");
    assert!(s.completions_read > 200 && s.completions_write > 200, "{s:?}");
    assert!(s.completions[fault::ABORTED as usize] > 0, "{s:?}");
    assert!(s.completions[1..=6].iter().sum::<u64>() > 0, "RDMA errors: {s:?}");
    for (k, n) in s.responses[..=6].iter().enumerate() {
        assert!(*n > 0, "response status {k} never seen: {s:?}");
    }
    for (k, n) in s.checks[..=4].iter().enumerate() {
        assert!(*n > 0, "check verdict {k} never seen: {s:?}");
    }
    assert!(o.get(cnt::STALE) > 0 && o.get(cnt::DUP) > 0 && o.get(cnt::RDMA_ERR) > 0, "{o:?}");
}

/// Everything always ready, no faults: the block at full speed.
#[test]
fn sequencer_lockstep_full_speed() {
    let mut d = SeqDriver::new(7, SequencerParams::default());
    d.ready_rate = 1.0;
    d.cmd_rate = 1.0;
    d.chk_rate = 1.0;
    d.san.cfg.ready_rate = 1.0;
    d.san.cfg.error_rate = 0.0;
    d.san.cfg.dup_rate = 0.0;
    d.san.cfg.stale_rate = 0.0;
    let (s, _) = run(d, 200_000);
    assert!(s.completions[0] > 100, "{s:?}");
}

/// Outputs mostly stalled, many faults, many aborts, and resets at random.
#[test]
fn sequencer_lockstep_heavy_stalls_and_faults() {
    let mut d = SeqDriver::new(8, SequencerParams::default());
    d.ready_rate = 0.15;
    d.cmd_rate = 0.5;
    d.abort_rate = 0.05;
    d.bad_rate = 0.4;
    d.san.cfg.ready_rate = 0.3;
    d.san.cfg.error_rate = 0.05;
    d.san.cfg.dup_rate = 0.05;
    d.san.cfg.stale_rate = 0.02;
    d.reset_rate = 0.0001;
    let (s, _) = run(d, 200_000);
    assert!(s.completions.iter().sum::<u64>() > 100, "{s:?}");
    assert!(s.resets > 5, "{s:?}");
}

/// A model with one deliberate bug: a successful completion reports one byte too many.
struct Buggy(SequencerModel);

impl CycleModel for Buggy {
    type In = SequencerIn;
    type Out = SequencerOut;
    fn outputs(&self, i: &SequencerIn) -> SequencerOut {
        let mut o = self.0.outputs(i);
        if o.m_axis_cpl_tvalid && o.m_axis_cpl_status == 0 && o.m_axis_cpl_bytes > 0 {
            o.m_axis_cpl_bytes += 1;
        }
        o
    }
    fn clock(&mut self, i: &SequencerIn) {
        self.0.clock(i)
    }
}

#[test]
fn lockstep_names_the_cycle_and_port_of_a_sequencer_difference() {
    let p = SequencerParams::default();
    let expected = {
        let mut good = SequencerModel::new(p);
        let mut bad = Buggy(SequencerModel::new(p));
        let mut d = SeqDriver::new(5, p);
        let reset = SequencerIn { reset: true, ..SequencerIn::default() };
        good.clock(&reset);
        bad.clock(&reset);
        let mut cycle = 0u64;
        loop {
            let i = d.next();
            let (a, b) = (good.outputs(&i), bad.outputs(&i));
            if a != b {
                break cycle;
            }
            good.clock(&i);
            bad.clock(&i);
            Stimulus::observe(&mut d, &i, &a);
            cycle += 1;
        }
    };
    let dir = std::env::temp_dir().join(format!("sanswitch-seq-mismatch-{}", std::process::id()));
    let opts = LockstepOptions {
        cycles: 1_000_000,
        vcd_window: 50,
        vcd_dir: Some(dir.clone()),
        ..LockstepOptions::default()
    };
    let mut model = Buggy(SequencerModel::new(p));
    let mut d = SeqDriver::new(5, p);
    let m = lockstep(&mut model, &VSequencer::new, &mut d, &opts).expect_err("the bug is caught");
    assert_eq!((m.cycle, m.port), (expected, "m_axis_cpl_bytes"));
    assert_eq!(m.model, m.verilog + 1);
    let vcd = std::fs::read_to_string(m.vcd.clone().expect("a VCD")).unwrap();
    assert!(vcd.contains("m_axis_cpl_bytes"));
    let _ = std::fs::remove_dir_all(dir);
}

/// The bench's figures, on the Verilog, equal to the model's, within the budgets.
#[test]
fn sequencer_bench_figures_meet_the_budgets() {
    let f = sequencer_bench().unwrap();
    eprintln!("{f:#?}");
    assert!(f.read_beats_per_cycle >= 0.95, "{f:?}");
    assert!(f.write_beats_per_cycle >= 0.95, "{f:?}");
    assert!(f.adv_to_read_cycles <= 8, "{f:?}");
    assert!(f.start_to_read_cycles < f.adv_to_read_cycles, "{f:?}");
    assert!(f.issue_requests_per_cycle > 0.0 && f.issue_requests_per_cycle <= 0.5, "{f:?}");
    assert!(f.san_beats_per_cycle > 0.99 && f.san_beats_per_cycle <= 1.0, "{f:?}");
    assert_eq!(f.issue_requests, (1 << 20) / 4096, "{f:?}");
    assert!(f.done_to_complete_cycles <= 8, "{f:?}");
}
