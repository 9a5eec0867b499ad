//! End to end through the driver on the `Sim` transport: two Verilated NIC tops (host
//! interface + engine + host-memory arbiter, `nic.v`) over the cycle-level SAN, the same
//! loopback as the `Model` transport's test (`driver/tests/loopback_model.rs`), every byte
//! checked. The second test runs each NIC as its cycle model and its Verilog in lockstep
//! (`Checked`): every output of every cycle compared, with backpressure on every port.

use std::rc::Rc;

use sanswitch_driver::loopback::{self, LoopbackOptions, LoopbackReport};
use sanswitch_driver::pair::{PairTransport, pair};
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_model::blocks::nic::{NicIn, NicModel, NicOut};
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::regs::HostParams;
use sanswitch_sim::{Checked, Rtl, VNic};

fn run<N: CycleModel<In = NicIn, Out = NicOut>>(
    ts: [PairTransport<N>; 2],
    o: &LoopbackOptions,
) -> (LoopbackReport, u64) {
    let sc = SocketConfig {
        tx_staging: 2 << 20,
        max_send: 1 << 20,
        wait_limit: 100_000,
        ..SocketConfig::default()
    };
    let eps = ts.map(|t| Endpoint::new(Device::open(t).expect("open"), sc.clone()).expect("ep"));
    let r = loopback::run(&eps, o, |_, _| {}).unwrap_or_else(|e| panic!("{o:?}: {e}"));
    let (problems, cycles) = eps[0].with_transport(|t| {
        let p = t.pair.borrow();
        (p.problems(), p.cycle)
    });
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
    (r, cycles)
}

#[test]
fn streams_through_two_verilated_nics() {
    let ts = pair(PairConfig::default(), [Rtl::new(VNic::new()), Rtl::new(VNic::new())]);
    let o = LoopbackOptions { connections: 4, bytes: 3 << 20, urgent: 0.05, ..Default::default() };
    let (r, _) = run(ts, &o);
    assert_eq!(r.bytes, 2 * 4 * (3 << 20), "every byte, both ways");
    assert!(r.urgent_bytes > 0);
}

#[test]
fn nic_model_and_verilog_in_lockstep_under_the_driver() {
    let cfg = PairConfig { stall: 0.2, seed: 3, ..PairConfig::default() };
    let p = cfg.params;
    let h = HostParams::default();
    let nic = || Checked::new(NicModel::new(p, &h), Rc::new(VNic::new));
    let o = LoopbackOptions {
        connections: 3,
        bytes: 2 << 20,
        aborts: 1,
        seed: 3,
        ..Default::default()
    };
    let (r, cycles) = run(pair(cfg, [nic(), nic()]), &o);
    assert_eq!(r.aborted, 1);
    assert!(cycles >= 1_000_000, "a million cycles compared at least ({cycles})");
}

/// Every queue pair of each NIC has an endpoint of its own, each NIC its model and its
/// Verilog in lockstep: the fetch's round robin and the completions' routing home are
/// compared every cycle under real traffic.
#[test]
fn every_queue_pair_in_lockstep_under_the_driver() {
    let cfg = PairConfig { stall: 0.1, seed: 5, ..PairConfig::default() };
    let p = cfg.params;
    let h = HostParams::default();
    let nq = usize::from(h.queue_pairs);
    let nic = || Checked::new(NicModel::new(p, &h), Rc::new(VNic::new));
    let node = |t: PairTransport<Checked<NicModel, VNic>>| -> Vec<Endpoint<_>> {
        (0..nq)
            .map(|q| {
                let sc =
                    SocketConfig { queue_pair: q, wait_limit: 100_000, ..SocketConfig::default() };
                Endpoint::new(Device::open(t.share()).expect("open"), sc).expect("endpoint")
            })
            .collect()
    };
    let [t0, t1] = pair(cfg, [nic(), nic()]);
    let nodes = [node(t0), node(t1)];
    let o = LoopbackOptions {
        connections: 2 * nq as u16,
        bytes: 256 << 10,
        max_write: 32 << 10,
        urgent: 0.05,
        seed: 5,
        stall_waits: 20_000,
        ..Default::default()
    };
    let r = loopback::run_queue_pairs([&nodes[0], &nodes[1]], &o, |_, _| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.bytes, 2 * 2 * nq as u64 * o.bytes, "every byte, both ways");
    for eps in &nodes {
        for (q, e) in eps.iter().enumerate() {
            assert!(e.stats().completions > 0, "queue pair {q} was used");
        }
    }
    let problems = nodes[0][0].with_transport(|t| t.pair.borrow().problems());
    assert!(problems.is_empty(), "{problems:?}");
}
