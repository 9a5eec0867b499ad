//! Two engine cycle models over the cycle-level SAN run the same workloads as the sans-IO
//! endpoint pair and must give the same outcome: every byte once and in order, every request
//! completed once, with the statuses the endpoints give.

use sanswitch_model::endpoint::Config;
use sanswitch_model::engine_pair::{EnginePair, PairConfig, abort_bound_cycles};
use sanswitch_model::params::EngineParams;
use sanswitch_model::workload::{Workload, run, run_on};

fn workload(seed: u64, p: &EngineParams, sends: usize, max_size: usize) -> Workload {
    Workload {
        seed,
        connections: 2,
        sends,
        max_size,
        urgent_share: 0.05,
        sends_outstanding: p.queue_depth as usize,
        recvs_outstanding: p.queue_depth as usize - 1,
        recv_max: 4096,
        endpoint: Config {
            // The sans-IO reference sends everything by copy; the engines offer sends above
            // their 16 KiB threshold zero-copy, and with receives of at most 4 KiB each one
            // falls back to SendByCopy: the same bytes and statuses either way.
            rdma_threshold: u32::MAX,
            ..Config::for_engine(p)
        },
        ..Workload::default()
    }
}

/// Once the workload is done and the wire is quiet, neither engine holds anything: no
/// request, no job, no open pool of a closed connection (buffers and credits returned).
fn no_leaks(pair: &mut EnginePair<sanswitch_model::blocks::engine::EngineModel>, seed: u64) {
    let l = pair.leaks_when_quiet(2_000);
    assert!(l.is_empty(), "seed {seed}: the engines hold {l:#?}");
}

fn differential(seed: u64, stall: f64, sends: usize, max_size: usize) {
    let p = EngineParams::default();
    let w = workload(seed, &p, sends, max_size);
    let reference = run(&w, &mut |_, _| {});
    assert!(reference.intact, "sans-IO: {:?}", reference.problems);
    let mut pair =
        EnginePair::models(PairConfig { params: p, stall, seed, ..PairConfig::default() });
    let got = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
    assert!(got.intact, "seed {seed}: engines: {:?}", got.problems);
    no_leaks(&mut pair, seed);
    for (a, b) in got.directions.iter().zip(&reference.directions) {
        assert_eq!(a.send_statuses, b.send_statuses, "seed {seed}: send statuses");
        assert_eq!(a.bytes_received, b.bytes_received, "seed {seed}");
        assert_eq!(a.urgent_bytes_received, b.urgent_bytes_received, "seed {seed}");
    }
    eprintln!(
        "seed {seed}: {} cycles, {} SAN beats",
        pair.cycle,
        pair.san_beats[0] + pair.san_beats[1]
    );
}

#[test]
fn copy_path_small_sends() {
    differential(1, 0.0, 20, 3000);
}

/// Every connection the engine has, each opened as the workload starts: node 0's CONNECTs go
/// out while node 1 is still opening the later connections (the pair holds each CONNECT until
/// the peer's OPEN completed, as an application connects to a listening socket).
#[test]
fn copy_path_all_sixteen_connections() {
    let p = EngineParams::default();
    for seed in 0..4 {
        let mut w = workload(400 + seed, &p, 3, 30_000);
        w.connections = p.connections as usize;
        let reference = run(&w, &mut |_, _| {});
        assert!(reference.intact, "sans-IO: {:?}", reference.problems);
        let cfg = PairConfig { params: p, stall: 0.1, seed, ..PairConfig::default() };
        let mut pair = EnginePair::models(cfg);
        let got = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(got.intact, "seed {seed}: {:?}", got.problems);
        no_leaks(&mut pair, seed);
        assert_eq!(got.directions.len(), 32);
        for (a, b) in got.directions.iter().zip(&reference.directions) {
            assert_eq!(a.send_statuses, b.send_statuses, "seed {seed}");
            assert_eq!(a.bytes_received, b.bytes_received, "seed {seed}");
        }
    }
}

#[test]
fn copy_path_many_seeds_with_backpressure() {
    for seed in 0..24 {
        differential(100 + seed, 0.25, 30, 20_000);
    }
}

#[test]
fn copy_path_sends_up_to_a_mebibyte() {
    for seed in 0..2 {
        differential(200 + seed, 0.1, 12, 1 << 20);
    }
}

#[test]
fn malformed_messages_and_junk_commands() {
    let p = EngineParams::default();
    for seed in 0..8 {
        let w = workload(300 + seed, &p, 40, 20_000);
        let cfg = PairConfig {
            params: p,
            stall: 0.1,
            seed,
            malformed: 0.01,
            junk_cmds: 0.001,
            ..PairConfig::default()
        };
        let mut pair = EnginePair::models(cfg.clone());
        let got = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(got.intact, "seed {seed}: {:?}", got.problems);
        eprintln!(
            "seed {seed}: {} malformed, {} junk, {} downs, {} cycles, {:?}; worst abort {}",
            pair.malformed_injected,
            pair.junk_injected,
            pair.downs,
            pair.cycle,
            got.completions,
            pair.worst_abort_cycles
        );
        assert!(pair.malformed_injected > 0 && pair.junk_injected > 0);
        assert!(pair.downs > 0, "a malformed message resets its connection");
        let bound = abort_bound_cycles(&cfg);
        assert!(pair.worst_abort_cycles <= bound, "seed {seed}: bound {bound}");
        let reset: u64 = got.completions.get("WSAECONNRESET").copied().unwrap_or(0);
        assert!(reset > 0, "seed {seed}: {:?}", got.completions);
    }
}

/// The workload's injected abort, mid-traffic: the aborted connection may stop short (the
/// checker accepts a prefix and the abort's statuses), the other one must match the sans-IO
/// pair exactly.
#[test]
fn abort_mid_traffic() {
    use sanswitch_model::fabric::AbortAt;
    let p = EngineParams::default();
    for seed in 0..8u64 {
        let mut w = workload(400 + seed, &p, 30, 20_000);
        let abort = AbortAt { conn: 0, node: (seed % 2) as usize, after_messages: 5 + 7 * seed };
        w.fabric.faults.abort = Some(abort);
        let reference = run(&w, &mut |_, _| {});
        assert!(reference.intact, "sans-IO: {:?}", reference.problems);
        let cfg =
            PairConfig { params: p, stall: 0.1, seed, abort: Some(abort), ..Default::default() };
        let mut pair = EnginePair::models(cfg.clone());
        let got = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(got.intact, "seed {seed}: {:?}", got.problems);
        no_leaks(&mut pair, seed);
        use sanswitch_model::workload::Backend;
        assert!(pair.aborted(0, abort.node), "seed {seed}: the abort fired");
        assert!(!pair.aborted(1, 0) && !pair.aborted(1, 1), "seed {seed}: conn 1 untouched");
        for (a, b) in got.directions.iter().zip(&reference.directions).filter(|(a, _)| a.conn == 1)
        {
            assert_eq!(a.send_statuses, b.send_statuses, "seed {seed}: conn 1 send statuses");
            assert_eq!(a.bytes_received, b.bytes_received, "seed {seed}: conn 1 bytes");
        }
        let aborted: u64 = got.completions.get("WSA_OPERATION_ABORTED").copied().unwrap_or(0)
            + got.completions.get("WSAECONNRESET").copied().unwrap_or(0);
        eprintln!(
            "seed {seed}: abort {abort:?}: {:?}; worst abort {} cycles",
            got.completions, pair.worst_abort_cycles
        );
        assert!(aborted > 0, "seed {seed}: outstanding requests fail with the abort");
        let bound = abort_bound_cycles(&cfg);
        assert!(
            pair.worst_abort_cycles > 0 && pair.worst_abort_cycles <= bound,
            "seed {seed}: an abort took {} cycles to complete everything (bound {bound})",
            pair.worst_abort_cycles
        );
    }
}

/// Every connection opened at once over a one-cycle SAN: the Hellos arrive back to back, each
/// answered with a HelloAck while the builder still reports the previous ones sent. (The
/// controller once took the headers before the builder's reports and waited for the
/// builder's job FIFO while the builder waited for room to report: a deadlock.)
#[test]
fn sixteen_connections_open_at_once_over_a_short_san() {
    use sanswitch_model::workload::Backend;
    for san_latency in [1, 2, 3, 5, 8] {
        let cfg = PairConfig { san_latency, ..PairConfig::default() };
        let mut pair = EnginePair::models(cfg);
        for _ in 0..16 {
            pair.connect([Config::default(), Config::default()]);
        }
        while pair.step() {}
        assert!(pair.problems().is_empty(), "latency {san_latency}: {:?}", pair.problems());
        assert!(!pair.busy(), "latency {san_latency}: every connection is up");
    }
}

/// The leak check sees work in progress: mid-send, the engine holds a queued send and a
/// message in the builder.
#[test]
fn leak_check_sees_a_send_in_flight() {
    use sanswitch_model::endpoint::Event;
    use sanswitch_model::workload::Backend;
    let mut pair = EnginePair::models(PairConfig::default());
    pair.connect([Config::default(), Config::default()]);
    while pair.step() {}
    for _ in 0..100 {
        pair.cycle();
    }
    assert!(pair.engine(0).leaks().is_empty(), "{:?}", pair.engine(0).leaks());
    pair.app(0, 0, Event::AppSend { req: 1, data: vec![7; 5000], urgent: false });
    for _ in 0..40 {
        pair.cycle();
    }
    let l = pair.engine(0).leaks();
    assert!(l.iter().any(|s| s.contains("connection 0") && s.contains("queued")), "{l:?}");
}
