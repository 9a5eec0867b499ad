//! The Verilated host interface against its cycle model, cycle by cycle: a host programming
//! and abusing the rings and registers, host memory answering fetches, an engine taking
//! commands and offering completions, random backpressure and resets.

use sanswitch_model::blocks::hostif::{HostIf, HostIfIn, HostIfOut, cnt};
use sanswitch_model::blocks::hostif_stimulus::HostIfDriver;
use sanswitch_model::params::EngineParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::regs::HostParams;
use sanswitch_sim::{LockstepOptions, VHostIf, lockstep};

fn model() -> HostIf {
    HostIf::new(&EngineParams::default(), &HostParams::default())
}

fn run(seed: u64, cycles: u64, rate: f64, reset_rate: f64) -> HostIf {
    let mut m = model();
    let mut stim = HostIfDriver::new(seed, &HostParams::default());
    stim.rate = rate;
    let opts = LockstepOptions::with_resets(cycles, reset_rate, seed);
    if let Err(e) = lockstep(&mut m, &VHostIf::new, &mut stim, &opts) {
        panic!("{e}");
    }
    // Doorbells at the ring's end in the edge the fetch moves the consumer pointer.
    eprintln!("doorbells at a moving ring end: {}", stim.edge_doorbells);
    assert!(stim.edge_doorbells > cycles / 20_000, "{}", stim.edge_doorbells);
    m
}

/// The CI run: a million cycles; every counted event happens, many times.
#[test]
fn hostif_lockstep_one_million_cycles() {
    let m = run(2026, 1_000_000, 0.7, 0.0);
    for (k, name) in cnt::NAMES.iter().enumerate() {
        let c = m.count(k);
        eprintln!("{name}: {c}");
        assert!(c > 20, "{name} counted only {c} times");
    }
}

#[test]
fn hostif_lockstep_full_speed_with_resets() {
    run(7, 200_000, 1.0, 2e-4);
}

#[test]
fn hostif_lockstep_heavy_backpressure_with_resets() {
    run(8, 200_000, 0.2, 2e-4);
}

/// A model with one deliberate bug: the phase bit of every completion entry inverted.
struct WrongPhase(HostIf);

impl CycleModel for WrongPhase {
    type In = HostIfIn;
    type Out = HostIfOut;
    fn outputs(&self, i: &HostIfIn) -> HostIfOut {
        let mut o = self.0.outputs(i);
        if o.m_axis_cqwr_tvalid && o.m_axis_cqwr_tlast {
            o.m_axis_cqwr_tdata ^= 1 << 63;
        }
        o
    }
    fn clock(&mut self, i: &HostIfIn) {
        self.0.clock(i)
    }
}

#[test]
fn lockstep_catches_a_wrong_phase_bit() {
    let dir = std::env::temp_dir().join(format!("sanswitch-hostif-bug-{}", std::process::id()));
    let opts = LockstepOptions {
        vcd_window: 100,
        vcd_dir: Some(dir.clone()),
        ..LockstepOptions::with_resets(100_000, 0.0, 3)
    };
    let m = sanswitch_sim::assert_lockstep_catches(
        &|| WrongPhase(model()),
        std::rc::Rc::new(model),
        &VHostIf::new,
        &|| HostIfDriver::new(3, &HostParams::default()),
        &opts,
    );
    assert_eq!(m.port, "m_axis_cqwr_tdata");
    assert_eq!(m.model ^ m.verilog, 1 << 63);
    let _ = std::fs::remove_dir_all(dir);
}

/// A model with one deliberate bug: the queue pair's number lost from every command's tag.
struct NoQueuePair(HostIf);

impl CycleModel for NoQueuePair {
    type In = HostIfIn;
    type Out = HostIfOut;
    fn outputs(&self, i: &HostIfIn) -> HostIfOut {
        let mut o = self.0.outputs(i);
        o.m_axis_cmd_tag &= sanswitch_model::host::TAG_HOST_MASK;
        o
    }
    fn clock(&mut self, i: &HostIfIn) {
        self.0.clock(i)
    }
}

/// Commands from queue pairs other than 0 reach the engine within the first 100,000 cycles,
/// and the lockstep names the tag.
#[test]
fn lockstep_catches_a_lost_queue_pair_number() {
    let dir = std::env::temp_dir().join(format!("sanswitch-hostif-qp-{}", std::process::id()));
    let opts = LockstepOptions {
        vcd_window: 100,
        vcd_dir: Some(dir.clone()),
        ..LockstepOptions::with_resets(100_000, 0.0, 4)
    };
    let m = sanswitch_sim::assert_lockstep_catches(
        &|| NoQueuePair(model()),
        std::rc::Rc::new(model),
        &VHostIf::new,
        &|| HostIfDriver::new(4, &HostParams::default()),
        &opts,
    );
    assert_eq!(m.port, "m_axis_cmd_tag");
    assert_ne!(m.verilog >> sanswitch_model::host::TAG_QP_SHIFT, 0);
    let _ = std::fs::remove_dir_all(dir);
}
