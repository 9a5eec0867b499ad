//! The limits of what the model can run, each hit at its boundary (accepted) and one past it
//! (refused, with the key named): buffer ids, the fabric's clock, the bytes a run holds at
//! once, and the fault generator's seed doing what it says.

use std::collections::BTreeSet;

use sanswitch_model::endpoint::{Action, Config, Endpoint, MAX_BUFS, Role};
use sanswitch_model::fabric::{Fabric, FabricConfig, MAX_LATENCY_NS, MAX_TIME_NS, MAX_TRANSFER_NS};
use sanswitch_model::workload::{MAX_IN_FLIGHT, MAX_SEND, Workload, run};

/// The one problem `validate` finds, which must name `key`.
fn refused(w: &Workload, key: &str) -> String {
    let p = w.validate();
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains(&format!("`{key}`")), "{key} not named: {}", p[0]);
    p[0].clone()
}

fn accepted(w: &Workload) {
    assert_eq!(w.validate(), Vec::<String>::new());
}

#[test]
fn buffer_ids_number_at_most_65536_buffers() {
    assert_eq!(MAX_BUFS, 65_536);
    for (send_bufs, recv_bufs, ok) in
        [(2, 65_534, true), (3, 65_534, false), (65_532, 4, true), (65_533, 4, false)]
    {
        let cfg = Config { send_bufs, recv_bufs, ..Config::default() };
        assert_eq!(cfg.validate().is_ok(), ok, "{send_bufs} + {recv_bufs}: {:?}", cfg.validate());
        let w = Workload { endpoint: cfg, ..Workload::default() };
        if ok {
            accepted(&w);
        } else {
            let p = refused(&w, "endpoint.send_bufs");
            assert!(p.contains("`endpoint.recv_bufs`") && p.contains("65536"), "{p}");
        }
    }
    // At the limit every buffer has its own id: receive ids run up to 65535 and none repeats.
    let cfg = Config { send_bufs: 2, recv_bufs: 65_534, ..Config::default() };
    let mut ep = Endpoint::new(Role::Acceptor, cfg);
    let mut out = Vec::new();
    ep.start(&mut out);
    let posted: BTreeSet<u16> = out
        .iter()
        .filter_map(|a| match a {
            Action::PostRecv { buf } => Some(*buf),
            _ => None,
        })
        .collect();
    assert_eq!(posted.len(), 65_534);
    assert_eq!(posted.first(), Some(&2));
    assert_eq!(posted.last(), Some(&u16::MAX));
    assert_eq!(ep.posted(), 65_534);
}

#[test]
fn a_run_at_the_buffer_limit_is_intact() {
    let mut w = Workload { sends: 6, connections: 1, max_size: 64 * 1024, ..Workload::default() };
    w.endpoint.send_bufs = 2;
    w.endpoint.recv_bufs = 65_534;
    accepted(&w);
    let s = run(&w, &mut |_, _| {});
    assert!(s.intact, "{:#?}", s.problems);
}

#[test]
fn latency_fits_the_clock() {
    assert_eq!(MAX_LATENCY_NS, 1 << 61);
    let mut w = Workload::default();
    w.fabric.latency_ns = MAX_LATENCY_NS;
    accepted(&w);
    w.fabric.latency_ns = MAX_LATENCY_NS + 1;
    refused(&w, "fabric.latency_ns");
    w.fabric.latency_ns = u64::MAX;
    refused(&w, "fabric.latency_ns");
}

#[test]
fn link_rate_fits_the_clock() {
    // The longest transfer is the larger of buf_size and rdma_segment: 64 KiB by default, so
    // the slowest link is 2^19 bits in 2^62 ns, 2^-43 Gbit/s.
    let slowest = 2f64.powi(-43);
    assert_eq!(FabricConfig::min_link_gbps(65_536), slowest);
    let cfg = FabricConfig { link_gbps: slowest, ..FabricConfig::default() };
    assert_eq!(cfg.transfer_ns(65_536), Some(MAX_TRANSFER_NS));
    assert_eq!(cfg.transfer_ns(65_537), None);
    let mut w = Workload::default();
    w.fabric.link_gbps = slowest;
    accepted(&w);
    w.fabric.link_gbps = f64::from_bits(slowest.to_bits() - 1);
    let p = refused(&w, "fabric.link_gbps");
    assert!(p.contains("1.1368683772161603e-13"), "{p}");
    // A larger segment makes the slowest link faster; a smaller one, slower.
    w.endpoint.rdma_segment = 65_536 * 2;
    w.fabric.link_gbps = slowest;
    refused(&w, "fabric.link_gbps");
    w.fabric.link_gbps = slowest * 2.0;
    accepted(&w);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        w.fabric.link_gbps = bad;
        refused(&w, "fabric.link_gbps");
    }
}

#[test]
fn time_limit_fits_the_clock() {
    assert_eq!(MAX_TIME_NS, 1 << 62);
    let mut w = Workload { time_limit_ns: MAX_TIME_NS, ..Workload::default() };
    accepted(&w);
    w.time_limit_ns = MAX_TIME_NS + 1;
    refused(&w, "time_limit_ns");
    w.time_limit_ns = 1;
    accepted(&w);
    w.time_limit_ns = 0;
    refused(&w, "time_limit_ns");
}

#[test]
fn times_past_the_clock_saturate_instead_of_wrapping() {
    // Unvalidated: a latency that would wrap. Hello is scheduled at the end of time, not near 0.
    for latency_ns in [u64::MAX - 10, u64::MAX] {
        let mut f = Fabric::new(FabricConfig { latency_ns, ..FabricConfig::default() });
        f.connect(
            Endpoint::new(Role::Initiator, Config::default()),
            Endpoint::new(Role::Acceptor, Config::default()),
        );
        assert_eq!(f.next_time(), Some(u64::MAX), "latency {latency_ns}");
    }
    // A link too slow for the clock: the same.
    let mut f = Fabric::new(FabricConfig { link_gbps: 1e-300, ..FabricConfig::default() });
    f.connect(
        Endpoint::new(Role::Initiator, Config::default()),
        Endpoint::new(Role::Acceptor, Config::default()),
    );
    assert_eq!(f.next_time(), Some(u64::MAX));
}

#[test]
fn a_run_at_the_latency_limit_keeps_time() {
    // Accepted, and it runs: the first message arrives after 2^61 ns, past the time limit.
    let mut w =
        Workload { sends: 2, connections: 1, time_limit_ns: MAX_TIME_NS, ..Default::default() };
    w.fabric.latency_ns = MAX_LATENCY_NS;
    accepted(&w);
    let s = run(&w, &mut |_, _| {});
    assert!(s.sim_time_ns >= MAX_LATENCY_NS, "{}", s.sim_time_ns);
    assert!(s.problems.iter().any(|p| p.contains("time limit")), "{:?}", s.problems);
}

#[test]
fn bytes_in_flight_are_bounded() {
    assert_eq!(MAX_IN_FLIGHT, 1 << 32);
    // connections x 2 x sends_outstanding x max_size = 2^32 exactly.
    let mut w =
        Workload { connections: 4, sends_outstanding: 4, max_size: 1 << 27, ..Workload::default() };
    accepted(&w);
    w.max_size += 1;
    let p = refused(&w, "max_size");
    assert!(p.contains("`connections`") && p.contains("`sends_outstanding`"), "{p}");
    w.max_size -= 1;
    w.connections = 5;
    refused(&w, "connections");
    // Products past u64 are refused too, not wrapped.
    w.connections = usize::MAX;
    refused(&w, "connections");
}

#[test]
fn largest_send_is_bounded() {
    assert_eq!(MAX_SEND, 1 << 30);
    let mut w = Workload {
        connections: 1,
        sends_outstanding: 2,
        max_size: MAX_SEND,
        ..Workload::default()
    };
    accepted(&w);
    w.sends_outstanding = 1;
    w.max_size = MAX_SEND + 1;
    refused(&w, "max_size");
}

#[test]
fn memory_does_not_grow_with_the_plan() {
    // A million sends of up to 1 MiB each way: about 90 GiB planned in each direction. The
    // plan is replayed, never held, so such a run starts at once with little memory. (Only
    // its first steps run here: a short time limit ends it.)
    let w =
        Workload { connections: 1, sends: 1_000_000, time_limit_ns: 10_000, ..Workload::default() };
    accepted(&w);
    let s = run(&w, &mut |_, _| {});
    assert_eq!(s.directions.len(), 2);
    assert!(s.directions.iter().all(|d| d.bytes_offered > 50 << 30));
    assert!(s.problems.iter().any(|p| p.contains("time limit")), "{:?}", s.problems);
}

#[test]
fn the_fault_seed_draws_other_faults() {
    let mut w = Workload { seed: 41, sends: 40, ..Workload::default() };
    w.fabric.faults.reg_fail_rate = 0.2;
    w.fabric.faults.nomem_rate = 0.1;
    w.fabric.faults.rdma_error_rate = 0.1;
    let base = run(&w, &mut |_, _| {});
    assert!(base.intact, "{:#?}", base.problems);
    let mut other = Vec::new();
    for seed in 1..=3 {
        w.fabric.faults.seed = seed;
        let s = run(&w, &mut |_, _| {});
        assert!(s.intact, "fault seed {seed}: {:#?}", s.problems);
        // The workload is the same: the same bytes offered.
        let offered = |s: &sanswitch_model::workload::Summary| {
            s.directions.iter().map(|d| d.bytes_offered).collect::<Vec<_>>()
        };
        assert_eq!(offered(&s), offered(&base));
        other.push(s.fabric != base.fabric);
        // And the same fault seed gives the same run.
        assert_eq!(run(&w, &mut |_, _| {}), s);
    }
    assert!(other.iter().all(|d| *d), "a fault seed changed nothing: {other:?}");
}
