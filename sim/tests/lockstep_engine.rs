//! The Verilated engine against its cycle model, cycle by cycle, inside the closed loop that
//! gives it real traffic: two engines (each a model and its Verilog in lockstep) over the
//! cycle-level SAN run seeded workloads, with random backpressure on every host and SAN port;
//! the workload's checker then proves every byte delivered once and in order and every
//! request completed once.

use std::rc::Rc;

use sanswitch_model::blocks::engine::EngineModel;
use sanswitch_model::endpoint::Config;
use sanswitch_model::engine_pair::{EnginePair, PairConfig};
use sanswitch_model::params::EngineParams;
use sanswitch_model::workload::{Workload, run_on};
use sanswitch_sim::{Checked, VEngine};

type CheckedEngine = Checked<EngineModel, VEngine>;

fn checked(p: EngineParams) -> CheckedEngine {
    let mut c = Checked::new(EngineModel::new(p), Rc::new(VEngine::new));
    c.describe = Some(Box::new(|m: &EngineModel| {
        format!("\nmodel: phase {:?}\nlast events: {:#?}", m.ctl.phase, m.ctl.trace)
    }));
    c
}

fn workload(seed: u64, p: &EngineParams, sends: usize, max_size: usize) -> Workload {
    Workload {
        seed,
        connections: 3,
        sends,
        max_size,
        urgent_share: 0.05,
        sends_outstanding: p.queue_depth as usize,
        recvs_outstanding: p.queue_depth as usize - 1,
        recv_max: 4096,
        endpoint: Config {
            send_bufs: p.send_bufs as u16,
            recv_bufs: p.recv_bufs as u16,
            buf_size: p.buf_size,
            rdma_threshold: u32::MAX,
            ..Config::default()
        },
        ..Workload::default()
    }
}

fn run(seed: u64, stall: f64, sends: usize, max_size: usize) -> u64 {
    let p = EngineParams::default();
    let w = workload(seed, &p, sends, max_size);
    let cfg = PairConfig { params: p, stall, seed, ..PairConfig::default() };
    let mut pair = EnginePair::new(cfg, [checked(p), checked(p)]);
    let s = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
    assert!(s.intact, "seed {seed}: {:?}", s.problems);
    pair.cycle
}

#[test]
fn engine_lockstep_copy_path() {
    let cycles = run(1, 0.2, 40, 6000);
    eprintln!("{cycles} cycles in lockstep, both engines");
}

/// The CI run: over a million cycles of both engines in lockstep, workload after workload
/// on the same pair with a reset between them (mid-traffic state swept away), random
/// backpressure on every port, malformed messages on the SAN (each resets its connection,
/// and the teardown resets the peer's), commands the engines must refuse, sends up to
/// 64 KiB.
#[test]
fn engine_lockstep_one_million_cycles() {
    let p = EngineParams::default();
    let cfg = PairConfig {
        params: p,
        stall: 0.2,
        seed: 2026,
        malformed: 0.003,
        junk_cmds: 0.0005,
        ..PairConfig::default()
    };
    let mut pair = EnginePair::new(cfg, [checked(p), checked(p)]);
    let mut round = 0;
    let mut resets = 0;
    while pair.cycle < 1_000_000 {
        let mut w = workload(5000 + round, &p, 60, 64 * 1024);
        w.connections = 4;
        let s = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(s.intact, "round {round}: {:?}", s.problems);
        // Reset in the middle of whatever is left (teardowns, credit updates in flight).
        pair.reset();
        resets += 1;
        round += 1;
    }
    let [a, b] = [pair.engine(0), pair.engine(1)];
    eprintln!(
        "{} cycles in lockstep, {round} workloads, {resets} resets, {} malformed messages,          {} refused commands, {} teardowns",
        a.cycles.max(b.cycles),
        pair.malformed_injected,
        pair.junk_injected,
        pair.downs
    );
    assert!(pair.malformed_injected > 10 && pair.junk_injected > 100 && pair.downs > 10);
}

/// The engine model with one deliberate bug: a completion's byte count one too many on every
/// 50th completion.
struct Buggy {
    m: EngineModel,
    cpls: u64,
}

impl sanswitch_model::ports::CycleModel for Buggy {
    type In = sanswitch_model::blocks::engine::EngineIn;
    type Out = sanswitch_model::blocks::engine::EngineOut;
    fn outputs(&self, i: &Self::In) -> Self::Out {
        let mut o = self.m.outputs(i);
        if o.m_axis_cpl_tvalid && self.cpls % 50 == 49 {
            o.m_axis_cpl_bytes += 1;
        }
        o
    }
    fn clock(&mut self, i: &Self::In) {
        if self.m.outputs(i).m_axis_cpl_tvalid && i.m_axis_cpl_tready {
            self.cpls += 1;
        }
        self.m.clock(i);
    }
}

#[test]
fn engine_lockstep_catches_a_wrong_byte_count() {
    let p = EngineParams::default();
    let w = workload(3, &p, 40, 6000);
    let cfg = PairConfig { params: p, seed: 3, ..PairConfig::default() };
    let bad = || Checked::new(Buggy { m: EngineModel::new(p), cpls: 0 }, Rc::new(VEngine::new));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut pair = EnginePair::new(cfg, [bad(), bad()]);
        run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {})
    }));
    let msg = match r {
        Ok(_) => panic!("the bug went unnoticed"),
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
    };
    assert!(msg.contains("lockstep mismatch at cycle"), "{msg}");
    assert!(msg.contains("m_axis_cpl_bytes"), "{msg}");
    assert!(msg.contains(".vcd"), "a VCD is written: {msg}");
}
