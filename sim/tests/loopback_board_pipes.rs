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
use sanswitch_driver::pipe_sim::{BtPipes, PipeDrive, PipeEndpoints, PipeSense, PipeTiming};
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_model::blocks::board_pipes::BoardPipesIn;
use sanswitch_model::bridge::{NODE_MEM_BYTES, Request, Response};
use sanswitch_sim::{Dut, StartValues, VBoardPipes};

/// FrontPanel's clock on USB 2.0 boards (48 MHz) and the engine's (125 MHz), in picoseconds.
const TI_PS: u64 = 20_833;
const ENG_PS: u64 = 8_000;

/// The Verilated board with both clocks: each FrontPanel cycle lets every engine edge that
/// falls inside it pass, then the FrontPanel edge.
struct Board {
    dut: VBoardPipes,
    /// The time of the last FrontPanel edge, and of the next engine edge.
    now_ps: u64,
    next_eng_ps: u64,
    eng_cycles: u64,
}

impl Board {
    fn new() -> Self {
        // The pipe FIFOs have no reset: they start empty with the FPGA's configuration, so
        // the registers start at zero here; the engine clock's reset clears the rest.
        let mut dut = VBoardPipes::with_start(StartValues::Zero);
        dut.reset_cycle();
        Board { dut, now_ps: 0, next_eng_ps: ENG_PS, eng_cycles: 0 }
    }
}

impl PipeEndpoints for Board {
    fn ti_cycle(&mut self, d: &PipeDrive) -> PipeSense {
        let mut i = BoardPipesIn {
            reset: false,
            ti_clk: false,
            pi_write: d.pi_write,
            pi_data: d.pi_data,
            po_read: d.po_read,
        };
        self.dut.set(&i);
        let edge = self.now_ps + TI_PS;
        while self.next_eng_ps < edge {
            self.dut.tick();
            self.next_eng_ps += ENG_PS;
            self.eng_cycles += 1;
        }
        let o = self.dut.get();
        assert_eq!(o.errors, 0, "the bridge answered ERROR");
        assert!(!o.oob, "a memory access outside a memory");
        assert!(!o.lost, "a pipe FIFO written full or read empty");
        i.ti_clk = true;
        self.dut.set(&i);
        i.ti_clk = false;
        self.dut.set(&i);
        self.now_ps = edge;
        PipeSense { pi_ready: o.pi_ready, po_ready: o.po_ready, po_data: o.po_data }
    }
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|k| (k as u8).wrapping_mul(73).wrapping_add(seed) ^ (k >> 8) as u8).collect()
}

/// Writes `bytes` to node `node`'s memory and reads them back, one request each; the
/// FrontPanel cycles of each transaction (first block's wait for `ep_ready` to the last
/// response word taken).
fn write_then_read(b: &mut Bridge<BtPipes<Board>>, node: usize, bytes: usize) -> (u64, u64) {
    let data = pattern(bytes, node as u8 + 1);
    // Node 1's range starts inside a word.
    let addr = 8 + 5 * node as u32;
    let t0 = b.link.ti_cycles;
    let r = b.transact(&[Request::MemWrite { node, addr, data: data.clone() }]).unwrap();
    assert!(matches!(r[..], [Response::MemWrite { status: 0, .. }]), "{r:?}");
    let t1 = b.link.ti_cycles;
    let r = b.transact(&[Request::MemRead { node, addr, len: bytes as u32 }]).unwrap();
    let t2 = b.link.ti_cycles;
    let [Response::MemRead { status: 0, ref words, .. }] = r[..] else { panic!("{r:?}") };
    let got: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).skip(addr as usize % 8).collect();
    assert_eq!(&got[..bytes], &data[..], "node {node}: what was read is not what was written");
    (t1 - t0, t2 - t1)
}

#[test]
fn bridge_throughput_through_the_pipes() {
    let link = BtPipes::new(Board::new(), PipeTiming::default());
    let mut b = Bridge::new(link);
    let bytes = 16 << 10;
    let (w, r) = write_then_read(&mut b, 0, bytes);
    let (w1, r1) = write_then_read(&mut b, 1, bytes);
    let per = |c: u64| bytes as f64 / c as f64;
    println!(
        "bridge through the pipes, {bytes} B: write {w} FrontPanel cycles ({:.3} B/cycle, \
         {:.1} MB/s at 48 MHz), read {r} ({:.3} B/cycle, {:.1} MB/s); node 1: {w1}, {r1}; \
         {} engine cycles; pipe words in {}, out {}",
        per(w),
        per(w) * 48.0,
        per(r),
        per(r) * 48.0,
        b.link.ends.eng_cycles,
        b.link.words[0],
        b.link.words[1],
    );
    // The pipes carry one 16-bit word per FrontPanel cycle: a 16 KiB write is 8,192 data
    // words and a few of protocol, a read the same back; both must run near that bound
    // (the throttling costs a few cycles a block, the bridge a round trip per transaction).
    for c in [w, r, w1, r1] {
        assert!(per(c) > 1.6 && per(c) <= 2.0, "{:.3} B per FrontPanel cycle", per(c));
    }
}

#[test]
fn pauses_inside_blocks_lose_nothing() {
    let timing = PipeTiming { gap: 0.3, seed: 7, ..PipeTiming::default() };
    let mut b = Bridge::new(BtPipes::new(Board::new(), timing));
    for (node, bytes) in [(0, 3 << 10), (1, 1), (0, 1500), (1, 24 << 10)] {
        write_then_read(&mut b, node, bytes);
    }
}

#[test]
fn driver_loopback_through_the_pipes() {
    let link = BtPipes::new(Board::new(), PipeTiming { gap: 0.05, seed: 3, ..Default::default() });
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
