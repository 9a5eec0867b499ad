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

#[test]
fn streams_both_ways_through_the_bridge_protocol() {
    let cfg = PairConfig { stall: 0.1, seed: 9, ..PairConfig::default() };
    let h = HostParams::default();
    let p = cfg.params;
    let pair = NicPair::new(cfg, [NicModel::new(p, &h), NicModel::new(p, &h)]);
    let mem = 256 << 10;
    let ts = exec_board(pair, mem);
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
    println!("{} B through {transactions} bridge transactions", r.bytes);
    assert!(transactions > 1000);
}
