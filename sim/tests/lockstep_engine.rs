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
use sanswitch_sim::{Checked, Dut, VEngine, VEngineWrite};

type CheckedEngine = Checked<EngineModel, VEngine>;

/// The engine model and a Verilated engine of the same parameters, in lockstep.
fn checked_with<D>(p: EngineParams, make: fn() -> D) -> Checked<EngineModel, D>
where
    D: Dut<
            In = sanswitch_model::blocks::engine::EngineIn,
            Out = sanswitch_model::blocks::engine::EngineOut,
        > + 'static,
{
    let mut c = Checked::new(EngineModel::new(p), Rc::new(make));
    c.describe = Some(Box::new(|m: &EngineModel| {
        format!("\nmodel: phase {:?}\nlast events: {:#?}", m.ctl.phase, m.ctl.trace)
    }));
    c
}

fn checked(p: EngineParams) -> CheckedEngine {
    checked_with(p, VEngine::new)
}

/// The Verilated engines' parameters: `engine` reads, `engine_write` does not (sends into
/// it go by RDMA write).
fn params(read: bool) -> EngineParams {
    EngineParams { rdma_read: read, ..EngineParams::default() }
}

fn workload(seed: u64, p: &EngineParams, sends: usize, max_size: usize) -> Workload {
    Workload {
        seed,
        connections: 3,
        sends,
        max_size,
        urgent_share: 0.05,
        rdma_read: [Some(p.rdma_read); 2],
        sends_outstanding: p.queue_depth as usize,
        recvs_outstanding: p.queue_depth as usize - 1,
        // Receives large enough that many large sends land in them zero-copy; the rest
        // fall back to the copy path.
        recv_max: 96 * 1024,
        endpoint: Config::for_engine(p),
        ..Workload::default()
    }
}

fn run_pair<D>(read: bool, make: fn() -> D, seed: u64, stall: f64, sends: usize, max: usize)
where
    D: Dut<
            In = sanswitch_model::blocks::engine::EngineIn,
            Out = sanswitch_model::blocks::engine::EngineOut,
        > + 'static,
{
    let p = params(read);
    let w = workload(seed, &p, sends, max);
    let cfg = PairConfig {
        params: p,
        stall,
        seed,
        rdma_errors: 0.01,
        nomem: 0.02,
        ..PairConfig::default()
    };
    let mut pair = EnginePair::new(cfg, [checked_with(p, make), checked_with(p, make)]);
    let s = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
    assert!(s.intact, "seed {seed}: {:?}", s.problems);
    for _ in 0..2_000 {
        pair.cycle();
    }
    for n in 0..2 {
        let l = pair.engine(n).model.leaks();
        assert!(l.is_empty(), "seed {seed}: engine {n} holds {l:#?}");
    }
    eprintln!(
        "read {read} seed {seed}: {} cycles in lockstep, RDMA requests {:?}, bytes {:?}",
        pair.cycle, pair.fabric.rdma_requests, pair.fabric.rdma_bytes
    );
    assert!(pair.fabric.rdma_bytes.iter().sum::<u64>() > 0, "seed {seed}: some bytes went by RDMA");
}

#[test]
fn engine_lockstep_copy_path() {
    let p = params(true);
    let w = workload(1, &p, 40, 6000);
    let cfg = PairConfig { params: p, stall: 0.2, seed: 1, ..PairConfig::default() };
    let mut pair = EnginePair::new(cfg, [checked(p), checked(p)]);
    let s = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
    assert!(s.intact, "{:?}", s.problems);
    eprintln!("{} cycles in lockstep, both engines", pair.cycle);
}

/// Large sends by RDMA read (both engines can read), with RDMA errors and temporary-memory
/// failures.
#[test]
fn engine_lockstep_zero_copy_read() {
    for seed in 0..3 {
        run_pair(true, VEngine::new, 10 + seed, 0.2, 16, 100_000);
    }
}

/// Large sends by RDMA write (neither engine can read), with RDMA errors and
/// temporary-memory failures.
#[test]
fn engine_lockstep_zero_copy_write() {
    for seed in 0..3 {
        run_pair(false, VEngineWrite::new, 20 + seed, 0.2, 16, 100_000);
    }
}

/// The CI run: over a million cycles of both engines in lockstep, workload after workload
/// on the same pair with a reset between them (mid-traffic state swept away), random
/// backpressure on every port, malformed messages on the SAN (each resets its connection,
/// and the teardown resets the peer's), commands the engines must refuse, RDMA requests
/// nobody made (the sequencer inside each engine denies them at its check port), stale
/// RDMA responses (dropped) and failed ones, failed registrations, sends up to 64 KiB: the larger by RDMA read in
/// the first part, by RDMA write in the second (the engine without RDMA read).
#[test]
fn engine_lockstep_one_million_cycles() {
    let mut total = 0;
    for (read, cycles) in [(true, 600_000), (false, 400_000)] {
        total += if read {
            million_part(read, VEngine::new, cycles)
        } else {
            million_part(read, VEngineWrite::new, cycles)
        };
    }
    eprintln!("{total} cycles in lockstep in all");
    assert!(total >= 1_000_000);
}

fn million_part<D>(read: bool, make: fn() -> D, cycles: u64) -> u64
where
    D: Dut<
            In = sanswitch_model::blocks::engine::EngineIn,
            Out = sanswitch_model::blocks::engine::EngineOut,
        > + 'static,
{
    let p = params(read);
    let cfg = PairConfig {
        params: p,
        stall: 0.2,
        seed: 2026,
        malformed: 0.003,
        junk_cmds: 0.0005,
        junk_rdma: 0.002,
        rdma_errors: 0.01,
        nomem: 0.01,
        ..PairConfig::default()
    };
    let mut pair = EnginePair::new(cfg.clone(), [checked_with(p, make), checked_with(p, make)]);
    let mut round = 0;
    let mut resets = 0;
    while pair.cycle < cycles {
        // Alternate few busy connections with every connection the engine has.
        let mut w = workload(5000 + round, &p, 60, 64 * 1024);
        w.connections = if round % 2 == 0 { 4 } else { p.connections as usize };
        if round % 2 == 1 {
            w.sends = 8;
        }
        let s = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(s.intact, "read {read} round {round}: {:?}", s.problems);
        // Reset in the middle of whatever is left (teardowns, credit updates in flight).
        pair.reset();
        resets += 1;
        round += 1;
    }
    let [a, b] = [pair.engine(0), pair.engine(1)];
    eprintln!(
        "read {read}: {} cycles in lockstep, {round} workloads, {resets} resets, {} malformed \
         messages, {} refused commands, {} teardowns, {} made-up RDMA requests ({} denied), \
         RDMA requests {:?}, bytes {:?}",
        a.cycles.max(b.cycles),
        pair.malformed_injected,
        pair.junk_injected,
        pair.downs,
        pair.fabric.rdma_junk,
        pair.fabric.rdma_denied,
        pair.fabric.rdma_requests,
        pair.fabric.rdma_bytes
    );
    assert!(pair.malformed_injected > 5 && pair.junk_injected > 50 && pair.downs > 5);
    assert!(pair.fabric.rdma_bytes.iter().sum::<u64>() > 0, "some bytes went by RDMA");
    // Every made-up request was checked and denied, except those a reset swept away.
    assert!(
        pair.fabric.rdma_junk > 500 && pair.fabric.rdma_denied > pair.fabric.rdma_junk * 9 / 10
    );
    // Every teardown completed what was outstanding within the stated bound.
    let bound = sanswitch_model::engine_pair::abort_bound_cycles(&cfg);
    eprintln!(
        "worst abort: {} cycles (bound {bound}): {}",
        pair.worst_abort_cycles, pair.worst_abort
    );
    assert!(pair.worst_abort_cycles > 0 && pair.worst_abort_cycles <= bound);
    pair.cycle
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
    let p = params(true);
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

/// A CONNECT to a connection the peer never opened is refused, in bounded time: the peer's
/// engine takes the Hello for a free connection, tears the connection down on the SAN, and
/// the connector's CONNECT completes with `WSAECONNREFUSED`. Model and Verilog in lockstep,
/// driven port by port.
#[test]
fn connect_to_a_connection_nobody_opened_is_refused() {
    use sanswitch_model::blocks::engine::{EngineIn, EngineOut};
    use sanswitch_model::host::Opcode;
    use sanswitch_model::ports::CycleModel;
    use sanswitch_model::status::WsaError;

    let p = params(true);
    let (mut a, mut b) = (checked(p), checked(p));
    let reset = EngineIn { reset: true, ..EngineIn::default() };
    for e in [&mut a, &mut b] {
        e.outputs(&reset);
        e.clock(&reset);
    }
    // One cycle of `e` with input `i` (every ready high); returns its outputs.
    let step = |e: &mut CheckedEngine, i: EngineIn| -> EngineOut {
        let i = EngineIn {
            m_axis_cpl_tready: true,
            m_axis_dmard_tready: true,
            m_axis_dmawr_tready: true,
            m_axis_tx_tready: true,
            m_axis_down_tready: true,
            ..i
        };
        let o = e.outputs(&i);
        e.clock(&i);
        o
    };
    let conn = 5u8;
    let mut cmds = vec![(Opcode::Connect, 2u32), (Opcode::Open, 1u32)];
    let mut hello = Vec::new();
    let mut cpls = Vec::new();
    let mut downs = Vec::new();
    // Engine a: OPEN then CONNECT; collect the Hello it sends.
    for _ in 0..200 {
        let mut i = EngineIn::default();
        if let Some(&(op, tag)) = cmds.last() {
            i.s_axis_cmd_tvalid = true;
            i.s_axis_cmd_opcode = op as u8;
            i.s_axis_cmd_conn = conn as u16;
            i.s_axis_cmd_tag = tag;
        }
        let o = step(&mut a, i);
        if i.s_axis_cmd_tvalid && o.s_axis_cmd_tready {
            cmds.pop();
        }
        if o.m_axis_tx_tvalid {
            assert_eq!(o.m_axis_tx_tuser, conn);
            hello.push((o.m_axis_tx_tdata, o.m_axis_tx_tkeep, o.m_axis_tx_tlast));
        }
        if o.m_axis_cpl_tvalid {
            cpls.push((o.m_axis_cpl_tag, o.m_axis_cpl_status));
        }
    }
    assert!(cmds.is_empty(), "both commands taken");
    assert_eq!(cpls, vec![(1, 0)], "OPEN completes, CONNECT waits");
    assert!(hello.last().is_some_and(|h| h.2), "a whole Hello was sent: {hello:?}");
    // Engine b never opened connection 5: it takes the Hello and tears the connection down.
    // (Idle first, so its sweep after reset is over and the count is the refusal's.)
    for _ in 0..64 {
        step(&mut b, EngineIn::default());
    }
    let mut k = 0;
    let mut took = 0;
    for cycle in 0..200 {
        let mut i = EngineIn::default();
        if let Some(&(d, keep, last)) = hello.get(k) {
            i.s_axis_rx_tvalid = true;
            i.s_axis_rx_tdata = d;
            i.s_axis_rx_tkeep = keep;
            i.s_axis_rx_tlast = last;
            i.s_axis_rx_tuser = conn;
        }
        let o = step(&mut b, i);
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready {
            k += 1;
            took = cycle;
        }
        if o.m_axis_down_tvalid {
            downs.push((cycle, o.m_axis_down_conn));
        }
        assert!(!o.m_axis_tx_tvalid && !o.m_axis_cpl_tvalid, "b answers nothing else");
    }
    assert_eq!(k, hello.len(), "the Hello was taken");
    assert_eq!(downs.len(), 1, "{downs:?}");
    assert_eq!(downs[0].1, conn);
    let refuse = downs[0].0 - took;
    assert!(refuse <= 16, "down {refuse} cycles after the Hello's last beat");
    // The down reaches a: its CONNECT completes WSAECONNREFUSED.
    let mut done = None;
    for cycle in 0..100 {
        let i = EngineIn {
            s_axis_down_tvalid: cycle == 0,
            s_axis_down_conn: conn,
            ..EngineIn::default()
        };
        let o = step(&mut a, i);
        if o.m_axis_cpl_tvalid {
            assert!(done.is_none(), "one completion");
            done = Some((cycle, o.m_axis_cpl_tag, o.m_axis_cpl_status));
        }
        // (It may tear its own end down too, as every reset does; b ignores that, its end
        // being free.)
        assert!(!o.m_axis_tx_tvalid, "a sends no message");
    }
    let (cycle, tag, status) = done.expect("the CONNECT completes");
    assert_eq!((tag, status), (2, WsaError::ConnRefused.code() as u16));
    assert!(cycle <= 16, "CONNECT refused {cycle} cycles after the down");
    eprintln!("refused: down {refuse} cycles after the Hello, CONNECT completes {cycle} later");
}
