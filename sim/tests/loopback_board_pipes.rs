//! The board below FrontPanel's endpoints, in Verilator (`board_pipes.v`: the pipe FIFOs
//! across from FrontPanel's clock, then the bridge, two NICs of `EngineParams::board()` with
//! their memories, the SAN loopback), driven by the driver's FrontPanel transport in its
//! simulation mode (`sanswitch_driver::pipe_sim`): every request and response word crosses
//! `okBTPipeIn`'s and `okBTPipeOut`'s endpoint signals as FrontPanel presents them, in a
//! 48 MHz FrontPanel clock, with the engine clock at 125 MHz beside it.
//!
//! - The bridge's throughput through the pipes (host-memory bytes per FrontPanel cycle) for
//!   a 16 KiB memory write and read, every byte compared.
//! - The same with the host pausing inside blocks.
//!
//! The host samples `ep_ready` in the cycle after a block's last word, and no FIFO may be
//! written full or read empty (`lost`) in any of them.
//! - The driver's loopback (rings, doorbells, completions, every byte checked) through it.

use sanswitch_driver::frontpanel::{Bridge, PipeLink, board};
use sanswitch_driver::loopback::{self, LoopbackOptions};
use sanswitch_driver::pipe_sim::{BtPipes, PipeTiming};
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_model::bridge::NODE_MEM_BYTES;
use sanswitch_sim::board_pipes::{PipeBoard, pipe_figures, write_then_read};

#[test]
fn bridge_throughput_through_the_pipes() {
    let bytes = 16 << 10;
    let f = pipe_figures(bytes).unwrap_or_else(|e| panic!("{e}"));
    let per = |c: u64| bytes as f64 / c as f64;
    println!(
        "bridge through the pipes, {bytes} B: write {} FrontPanel cycles ({:.3} B/cycle, \
         {:.1} MB/s at 48 MHz), read {} ({:.3} B/cycle, {:.1} MB/s); {} engine cycles",
        f.write_ti_cycles,
        per(f.write_ti_cycles),
        per(f.write_ti_cycles) * 48.0,
        f.read_ti_cycles,
        per(f.read_ti_cycles),
        per(f.read_ti_cycles) * 48.0,
        f.eng_cycles,
    );
    // The pipes carry one 16-bit word per FrontPanel cycle: a 16 KiB write is 8,192 data
    // words and a few of protocol in 17 request blocks and one response block, a read the
    // other way round; both must run near that bound.
    for c in [f.write_ti_cycles, f.read_ti_cycles] {
        assert!((9_216..9_400).contains(&c), "{c} FrontPanel cycles for 18 blocks of 512 words");
    }
}

#[test]
fn pauses_inside_blocks_lose_nothing() {
    let timing = PipeTiming { gap: 0.3, seed: 7, ..PipeTiming::default() };
    let mut b = Bridge::new(BtPipes::new(PipeBoard::new(), timing));
    for (node, bytes) in [(0, 3 << 10), (1, 1), (0, 1500), (1, 24 << 10)] {
        write_then_read(&mut b, node, bytes).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn driver_loopback_through_the_pipes() {
    let link =
        BtPipes::new(PipeBoard::new(), PipeTiming { gap: 0.05, seed: 3, ..Default::default() });
    let ts = board(link, [0, 0], NODE_MEM_BYTES);
    let sc = SocketConfig {
        sq_log2: 3,
        cq_log2: 4,
        tx_staging: 8 << 10,
        max_send: 4 << 10,
        rx_bufs: 2,
        rx_buf_size: 4 << 10,
        wait_limit: 100_000,
        ..SocketConfig::default()
    };
    let eps = ts.map(|t| Endpoint::new(Device::open(t).expect("open"), sc.clone()).expect("ep"));
    let o = LoopbackOptions {
        connections: 2,
        bytes: 8 << 10,
        max_write: 4 << 10,
        urgent: 0.05,
        aborts: 0,
        seed: 11,
        stall_waits: 20_000,
    };
    let r = loopback::run(&eps, &o, |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.bytes >= 2 * 2 * o.bytes, "{} B", r.bytes);
    let (transactions, ti, eng) = eps[0].with_transport(|t| {
        let b = t.bridge.borrow();
        (b.transactions, b.link.now_cycles().unwrap(), b.link.ends.eng_cycles)
    });
    println!(
        "{} B both ways on {} connections through {transactions} bridge transactions over the \
         pipes: {ti} FrontPanel cycles, {eng} engine cycles",
        r.bytes, o.connections
    );
}
