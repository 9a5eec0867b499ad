//! End to end through the driver on the `Model` transport: two NIC cycle models (host
//! interface + engine) over the cycle-level SAN, random streams both ways on several
//! connections through the socket API (writes of 0 to 1 MiB, urgent data, shutdown, abort),
//! every byte checked where it arrives, and no host memory touched outside what the drivers
//! allocated.

use sanswitch_driver::loopback::{self, LoopbackOptions, LoopbackReport};
use sanswitch_driver::pair::{PairTransport, model_pair};
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_model::blocks::nic::NicModel;
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::regs::HostParams;

type Ep = Endpoint<PairTransport<NicModel>>;

fn endpoints(cfg: PairConfig) -> [Ep; 2] {
    let sc = SocketConfig {
        tx_staging: 2 << 20,
        max_send: 1 << 20,
        wait_limit: 100_000,
        ..SocketConfig::default()
    };
    model_pair(cfg, &HostParams::default()).map(|t| {
        let dev = Device::open(t).expect("open");
        Endpoint::new(dev, sc.clone()).expect("endpoint")
    })
}

fn run(cfg: PairConfig, o: &LoopbackOptions) -> LoopbackReport {
    let eps = endpoints(cfg);
    let r = loopback::run(&eps, o, |_, _| {}).unwrap_or_else(|e| panic!("{o:?}: {e}"));
    let problems = eps[0].with_transport(|t| t.pair.borrow().problems());
    assert!(problems.is_empty(), "{problems:?}");
    println!(
        "{o:?}\n  {} B in {:?} cycles ({:.2} B/cycle), {:.2} commands per doorbell, {:.2} \
         completions per poll",
        r.bytes,
        r.cycles,
        r.bytes_per_cycle().unwrap_or(0.0),
        r.commands_per_doorbell(),
        r.completions_per_poll()
    );
    r
}

#[test]
fn streams_both_ways_on_several_connections() {
    let o = LoopbackOptions { connections: 4, bytes: 3 << 20, urgent: 0.05, ..Default::default() };
    let r = run(PairConfig::default(), &o);
    assert_eq!(r.bytes, 2 * 4 * (3 << 20), "every byte, both ways");
    assert!(r.urgent_bytes > 0, "some urgent data went");
}

#[test]
fn streams_with_backpressure_and_a_peer_without_rdma_read() {
    let mut cfg = PairConfig { stall: 0.2, seed: 7, ..PairConfig::default() };
    cfg.params = cfg.params.without_rdma_read();
    let o = LoopbackOptions { connections: 3, bytes: 1 << 20, seed: 7, ..Default::default() };
    let r = run(cfg, &o);
    assert_eq!(r.bytes, 2 * 3 * (1 << 20));
}

#[test]
fn small_writes_only() {
    let o = LoopbackOptions {
        connections: 2,
        bytes: 50_000,
        max_write: 512,
        seed: 3,
        ..Default::default()
    };
    let r = run(PairConfig::default(), &o);
    assert_eq!(r.bytes, 2 * 2 * 50_000);
}

#[test]
fn aborted_connections_deliver_a_prefix_and_the_others_everything() {
    let o = LoopbackOptions {
        connections: 4,
        bytes: 1 << 20,
        aborts: 2,
        seed: 5,
        ..Default::default()
    };
    let r = run(PairConfig::default(), &o);
    assert_eq!(r.aborted, 2);
    assert!(r.bytes >= 2 * 2 * (1 << 20), "the two connections not aborted deliver everything");
}

/// Every queue pair of each NIC gets an endpoint of its own (a thread's, in an application);
/// connections are spread over them. A completion routed to the wrong queue pair would reach
/// an endpoint that never submitted its tag, which the driver reports as a protocol error.
#[test]
fn every_queue_pair_carries_its_own_connections() {
    let host = HostParams::default();
    let nq = usize::from(host.queue_pairs);
    assert!(nq > 1);
    let [t0, t1] = model_pair(PairConfig { stall: 0.1, seed: 11, ..PairConfig::default() }, &host);
    let node = |t: PairTransport<NicModel>| -> Vec<Ep> {
        (0..nq)
            .map(|q| {
                let t = t.share();
                let sc = SocketConfig {
                    queue_pair: q,
                    tx_staging: 1 << 20,
                    wait_limit: 100_000,
                    ..SocketConfig::default()
                };
                Endpoint::new(Device::open(t).expect("open"), sc).expect("endpoint")
            })
            .collect()
    };
    let nodes = [node(t0), node(t1)];
    let o = LoopbackOptions {
        connections: 2 * nq as u16,
        bytes: 256 << 10,
        max_write: 64 << 10,
        urgent: 0.05,
        aborts: 1,
        seed: 11,
        stall_waits: 20_000,
    };
    let r = loopback::run_queue_pairs([&nodes[0], &nodes[1]], &o, |_, _| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.aborted, 1);
    assert!(r.bytes > (2 * nq as u64 * 2 - 2) * o.bytes, "{} B delivered", r.bytes);
    for (n, eps) in nodes.iter().enumerate() {
        for (q, e) in eps.iter().enumerate() {
            let s = e.stats();
            assert!(s.bytes_sent > 0 && s.completions > 0, "node {n} queue pair {q}: {s:?}");
        }
    }
    let problems = nodes[0][0].with_transport(|t| t.pair.borrow().problems());
    assert!(problems.is_empty(), "{problems:?}");
}
