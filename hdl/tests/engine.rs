//! The engine in rust-hdl's own simulator, against its cycle model, inside the closed loop
//! that gives it real traffic: two engines (each the model and the rust-hdl block in
//! lockstep, compared every cycle) over the cycle-level SAN run a seeded workload with
//! random backpressure, malformed messages, refused commands, made-up and failed RDMA
//! requests and failed registrations; the workload's checker then proves every byte
//! delivered once and in order and every command completed once.
//!
//! The Verilator lockstep (`sanswitch-sim`'s `lockstep_engine`, over a million cycles) is
//! the long check; this one is short (rust-hdl simulates the engine at a few hundred cycles
//! per second) and lives in the HDL crate so that `cargo mutants`, which runs this crate's
//! tests, sees every change to the engine's blocks. Its sends are small and its zero-copy
//! threshold low, so the short run still takes both zero-copy paths.

use sanswitch_hdl::engine::Engine;
use sanswitch_hdl::on_big_stack;
use sanswitch_hdl::rhsim::RhChecked;
use sanswitch_model::blocks::engine::EngineModel;
use sanswitch_model::endpoint::Config;
use sanswitch_model::engine_pair::{EnginePair, PairConfig};
use sanswitch_model::params::EngineParams;
use sanswitch_model::workload::{Workload, run_on};

type Checked = RhChecked<EngineModel, Engine<4>>;

fn params(read: bool) -> EngineParams {
    let p = EngineParams { rdma_read: read, rdma_threshold: 1024, ..EngineParams::default() };
    assert_eq!(p.connections, 16, "Engine<4>: 4 connection address bits");
    p
}

fn checked(p: EngineParams) -> Checked {
    let mut c = RhChecked::new(EngineModel::new(p), Engine::<4>::new(&p));
    c.describe = Some(|m: &EngineModel| {
        format!("\nmodel: phase {:?}\nlast events: {:#?}", m.ctl.phase, m.ctl.trace)
    });
    c
}

/// `sends` sends of up to `max_size` bytes over `connections` connections, then a reset of
/// both engines in the middle of whatever is left, then a second workload on the same pair.
fn run(read: bool, seed: u64, connections: usize, sends: usize, max_size: usize) {
    let p = params(read);
    let cfg = PairConfig {
        params: p,
        stall: 0.2,
        seed,
        san_latency: 4,
        dma_latency: 4,
        malformed: 0.002,
        junk_cmds: 0.001,
        junk_rdma: 0.002,
        rdma_errors: 0.02,
        nomem: 0.01,
        ..PairConfig::default()
    };
    let mut pair = EnginePair::new(cfg, [checked(p), checked(p)]);
    for round in 0..2 {
        let w = Workload {
            seed: seed * 10 + round,
            connections,
            sends,
            max_size,
            urgent_share: 0.1,
            rdma_read: [Some(read); 2],
            sends_outstanding: p.queue_depth as usize,
            recvs_outstanding: p.queue_depth as usize - 1,
            recv_max: 4 * max_size,
            endpoint: Config::for_engine(&p),
            ..Workload::default()
        };
        let s = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(s.intact, "read {read} seed {seed} round {round}: {:?}", s.problems);
        pair.reset();
    }
    // No commands made up while draining: one taken in the last cycle would still be queued.
    pair.quiet(500);
    for n in 0..2 {
        let l = pair.engine(n).model.leaks();
        assert!(l.is_empty(), "seed {seed}: engine {n} holds {l:#?}");
    }
    let checked = pair.engine(0).cycles.get();
    eprintln!(
        "read {read} seed {seed}: {checked} cycles in lockstep, {} malformed messages, {} \
         refused commands, {} teardowns, RDMA requests {:?}, bytes {:?}",
        pair.malformed_injected,
        pair.junk_injected,
        pair.downs,
        pair.fabric.rdma_requests,
        pair.fabric.rdma_bytes
    );
    assert!(pair.fabric.rdma_bytes.iter().sum::<u64>() > 0, "some bytes went by RDMA");
}

#[test]
fn engine_matches_model_in_rust_hdl_simulator_read_mode() {
    on_big_stack("read mode", || run(true, 1, 3, 24, 4000));
}

#[test]
fn engine_matches_model_in_rust_hdl_simulator_write_mode() {
    on_big_stack("write mode", || run(false, 2, 3, 24, 4000));
}
