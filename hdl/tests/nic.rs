//! The NIC top (host interface + engine + host-memory arbiter) in rust-hdl's own simulator
//! beside its cycle model, compared every cycle, under the host driver: two NICs over the
//! cycle-level SAN, the driver's loopback (every byte checked, both ways), one connection
//! aborted mid-stream, backpressure on every port.
//!
//! The Verilator version (`sanswitch-sim`'s `loopback_sim`) runs a million cycles; this one
//! is short and exists so that `cargo mutants`, which runs this crate's tests, sees changes
//! to the NIC's own wiring and arbiter.

use sanswitch_driver::loopback::{self, LoopbackOptions};
use sanswitch_driver::pair::pair;
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_hdl::rhsim::RhChecked;
use sanswitch_hdl::{hostif, nic, on_big_stack};
use sanswitch_model::blocks::nic::NicModel;
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::regs::HostParams;

fn run() {
    let cfg = PairConfig { stall: 0.2, seed: 3, san_latency: 8, ..PairConfig::default() };
    let (p, h) = (cfg.params, HostParams::default());
    assert_eq!(p.connections, 16, "Nic<4, _>: 4 connection address bits");
    let make = || {
        RhChecked::new(NicModel::new(p, &h), nic::Nic::<4, { hostif::QUEUE_PAIRS }>::new(&p, &h))
    };
    let sc = SocketConfig { wait_limit: 100_000, ..SocketConfig::default() };
    let eps = pair(cfg, [make(), make()])
        .map(|t| Endpoint::new(Device::open(t).expect("open"), sc.clone()).expect("endpoint"));
    let o = LoopbackOptions {
        connections: 3,
        bytes: 24 << 10,
        max_write: 6 << 10,
        urgent: 0.05,
        aborts: 1,
        seed: 3,
        ..Default::default()
    };
    let r = loopback::run(&eps, &o, |_, _| {}).unwrap_or_else(|e| panic!("{o:?}: {e}"));
    let (problems, cycles) = eps[0].with_transport(|t| {
        let p = t.pair.borrow();
        (p.problems(), p.cycle)
    });
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(r.aborted, 1);
    assert!(r.bytes > 0);
    eprintln!("{} B both ways in {cycles} cycles, every cycle compared", r.bytes);
}

#[test]
fn nic_matches_model_in_rust_hdl_simulator_under_the_driver() {
    on_big_stack("nic", run);
}
