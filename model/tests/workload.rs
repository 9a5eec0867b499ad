//! Seeded random workloads over the fabric model: both directions, sizes 0 to 1 MiB, both RDMA
//! read capabilities, urgent data mixed in, sequence numbers starting near the wrap, credits
//! running out, and injected faults. Every byte must arrive exactly once, in order, with its
//! urgent mark, and every request must complete exactly once with an allowed status
//! (`workload::run` checks both and lists what went wrong).

use sanswitch_model::fabric::AbortAt;
use sanswitch_model::workload::{Summary, Workload, run};

fn assert_intact(w: &Workload) -> Summary {
    let s = run(w, &mut |_, _| {});
    assert!(s.intact, "seed {}: {:#?}", w.seed, s.problems);
    s
}

#[test]
fn random_workload_mixed_capabilities() {
    for seed in 1..=4 {
        let s = assert_intact(&Workload { seed, sends: 60, ..Workload::default() });
        assert!(s.directions.iter().any(|d| d.sender.sends_read > 0));
        assert!(s.directions.iter().any(|d| d.sender.sends_write > 0));
        assert!(s.directions.iter().all(|d| d.bytes_received > 0));
    }
}

#[test]
fn random_workload_every_capability_pairing() {
    for (seed, caps) in [(11, [true, true]), (12, [false, false]), (13, [true, false])] {
        let w = Workload {
            seed,
            sends: 40,
            rdma_read: [Some(caps[0]), Some(caps[1])],
            ..Workload::default()
        };
        assert_intact(&w);
    }
}

#[test]
fn random_workload_credits_run_out() {
    let mut w = Workload { seed: 21, sends: 80, urgent_share: 0.2, ..Workload::default() };
    w.endpoint.recv_bufs = 4;
    w.endpoint.send_bufs = 2;
    let s = assert_intact(&w);
    let stalls: u64 = s.directions.iter().map(|d| d.sender.credit_stalls).sum();
    assert!(stalls > 0, "credits never ran out");
    assert!(s.directions.iter().any(|d| d.urgent_bytes_received > 0));
}

#[test]
fn random_workload_small_buffers_and_segments() {
    let mut w = Workload { seed: 31, sends: 60, ..Workload::default() };
    w.endpoint.buf_size = 256;
    w.endpoint.rdma_threshold = 1024;
    w.endpoint.rdma_segment = 4096;
    w.fabric.reg_capacity = 2;
    assert_intact(&w);
}

#[test]
fn random_workload_registration_failures_give_wsaenobufs() {
    let mut w = Workload { seed: 41, sends: 60, ..Workload::default() };
    w.fabric.faults.reg_fail_rate = 0.2;
    w.fabric.faults.nomem_rate = 0.1;
    let s = assert_intact(&w);
    assert!(s.completions.get("WSAENOBUFS").copied().unwrap_or(0) > 0);
    let fallbacks: u64 = s.directions.iter().map(|d| d.sender.sends_fallback).sum();
    assert!(fallbacks > 0, "no receiver-side failure fell back to copy");
}

#[test]
fn random_workload_rdma_errors_fall_back_to_copy() {
    let mut w = Workload { seed: 51, sends: 60, ..Workload::default() };
    w.fabric.faults.rdma_error_rate = 0.1;
    let s = assert_intact(&w);
    assert!(s.fabric.injected_rdma_errors > 0);
    assert_eq!(s.completions.keys().filter(|k| *k != "ok").count(), 0, "{:?}", s.completions);
}

#[test]
fn random_workload_with_an_abort_midway() {
    for (seed, node) in [(61, 0), (62, 1)] {
        let mut w = Workload { seed, sends: 60, ..Workload::default() };
        w.fabric.faults.abort = Some(AbortAt { conn: 0, node, after_messages: 90 });
        let s = assert_intact(&w);
        assert!(s.completions.contains_key("WSAECONNRESET"), "{:?}", s.completions);
    }
}
