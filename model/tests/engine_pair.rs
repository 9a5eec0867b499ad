//! Two engine cycle models over the cycle-level SAN run the same workloads as the sans-IO
//! endpoint pair and must give the same outcome: every byte once and in order, every request
//! completed once, with the statuses the endpoints give.

use sanswitch_model::endpoint::Config;
use sanswitch_model::engine_pair::{EnginePair, PairConfig};
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
            send_bufs: p.send_bufs as u16,
            recv_bufs: p.recv_bufs as u16,
            buf_size: p.buf_size,
            // Copy path only: the zero-copy paths join with the sequencer.
            rdma_threshold: u32::MAX,
            ..Config::default()
        },
        ..Workload::default()
    }
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

#[test]
#[ignore]
fn debug_dump() {
    let p = EngineParams::default();
    let w = workload(1, &p, 20, 3000);
    let mut pair = EnginePair::models(PairConfig { params: p, seed: 1, ..PairConfig::default() });
    let got = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
    eprintln!("{:?}", got.problems);
    for n in 0..2 {
        let e = pair.engine(n);
        eprintln!("node {n}: phase {:?} work {:?}", e.ctl.phase, e.ctl.work);
        for c in 0..2 {
            let s = &e.ctl.conns[c];
            eprintln!(
                "  conn {c}: st {:?} sq {} sent {} rq {} held {} off {} dlv {} txin {} shut {} fin {}/{}",
                s.st,
                s.sq.len(),
                s.sent,
                s.rq.len(),
                s.held.len(),
                s.held_off,
                s.dlv_busy,
                s.tx_inflight,
                s.shut,
                s.fin_sent,
                s.fin_rcvd
            );
            eprintln!("  pool {:?} credits {}", e.pool.ram[c], e.pool.ram[c].credits());
        }
        eprintln!("  admit {:?}", &e.admit.avail[..2]);
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
        let mut pair = EnginePair::models(cfg);
        let got = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(got.intact, "seed {seed}: {:?}", got.problems);
        eprintln!(
            "seed {seed}: {} malformed, {} junk, {} downs, {} cycles, {:?}",
            pair.malformed_injected, pair.junk_injected, pair.downs, pair.cycle, got.completions
        );
        assert!(pair.malformed_injected > 0 && pair.junk_injected > 0);
        assert!(pair.downs > 0, "a malformed message resets its connection");
        let reset: u64 = got.completions.get("WSAECONNRESET").copied().unwrap_or(0);
        assert!(reset > 0, "seed {seed}: {:?}", got.completions);
    }
}
