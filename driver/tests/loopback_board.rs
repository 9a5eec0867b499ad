//! The driver's loopback through the FrontPanel bridge's protocol: every register access,
//! doorbell, ring entry, completion and data byte of two NIC cycle models goes as bridge
//! requests and responses in 1 KiB blocks (`sanswitch_model::bridge`, executed by its
//! reference behaviour), DMA memory allocated from each node's on-chip memory as on the
//! XEM7010 board. No bridge HDL and no USB timing yet (issue 11): this shows that the driver
//! works through the protocol, every byte checked.

use sanswitch_driver::frontpanel::exec_board;
use sanswitch_driver::loopback::{self, LoopbackOptions};
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_model::blocks::nic::NicModel;
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::nic_pair::NicPair;
use sanswitch_model::regs::HostParams;

/// Runs the loopback through the bridge with `half_round_trip` device cycles each way per
/// transaction; bytes delivered, transactions, cycles.
fn run(half_round_trip: u64) -> (u64, u64, u64) {
    let cfg = PairConfig { stall: 0.1, seed: 9, ..PairConfig::default() };
    let h = HostParams::default();
    let p = cfg.params;
    let pair = NicPair::new(cfg, [NicModel::new(p, &h), NicModel::new(p, &h)]);
    let mem = 256 << 10;
    let ts = exec_board(pair, mem);
    ts[0].bridge.borrow_mut().link.half_round_trip = half_round_trip;
    let sc = SocketConfig {
        sq_log2: 4,
        cq_log2: 5,
        tx_staging: 32 << 10,
        max_send: 16 << 10,
        rx_bufs: 2,
        rx_buf_size: 8 << 10,
        wait_limit: 100_000,
        ..SocketConfig::default()
    };
    let eps = ts.map(|t| Endpoint::new(Device::open(t).expect("open"), sc.clone()).expect("ep"));
    let o = LoopbackOptions {
        connections: 3,
        bytes: 200 << 10,
        max_write: 16 << 10,
        urgent: 0.05,
        aborts: 1,
        seed: 9,
        stall_waits: 20_000,
    };
    let r = loopback::run(&eps, &o, |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.aborted, 1);
    assert!(r.bytes >= 2 * 2 * o.bytes, "{} B", r.bytes);
    let (transactions, problems) = eps[0].with_transport(|t| {
        (t.bridge.borrow().transactions, t.bridge.borrow().link.model.pair.problems())
    });
    assert!(problems.is_empty(), "{problems:?}");
    let cycles = r.cycles.expect("the model counts cycles");
    println!(
        "half round trip {half_round_trip} cycles: {} B through {transactions} bridge \
         transactions in {cycles} cycles ({:.1} B per transaction)",
        r.bytes,
        r.bytes as f64 / transactions as f64
    );
    (r.bytes, transactions, cycles)
}

#[test]
fn streams_both_ways_through_the_bridge_protocol() {
    let (_, transactions, _) = run(0);
    assert!(transactions > 1000);
}

/// With a round trip per transaction, the driver's polls find more each time: fewer
/// transactions for the same bytes.
#[test]
fn a_slower_link_carries_more_per_transaction() {
    let (b0, t0, _) = run(0);
    let (b1, t1, _) = run(200);
    assert!(b1 as f64 / t1 as f64 > 2.0 * b0 as f64 / t0 as f64, "{t0} vs {t1} transactions");
}
