//! The driver's loopback on the board's Verilog: every register access, doorbell, ring
//! entry, completion and data byte of the two NICs goes through the FrontPanel bridge's
//! protocol into the Verilated board core (`board_core.v`: the bridge, two NICs of
//! `EngineParams::board()` with their 64 KiB on-chip memories, the on-chip SAN loopback
//! carrying their messages and RDMA), as the pipe FIFOs hand the words over. Checks the
//! composition no block test sees: the bridge's word port reaching the node it names, the
//! NICs' host memory, the loopback between the NICs; every byte checked by the loopback.
//! (Below the pipe FIFOs: the FIFOs and `okHost`'s endpoint signals are not in this run.)

use std::collections::VecDeque;

use sanswitch_driver::frontpanel::{PipeLink, board};
use sanswitch_driver::loopback::{self, LoopbackOptions};
use sanswitch_driver::{Device, Endpoint, Error, SocketConfig};
use sanswitch_model::blocks::board_core::BoardCoreIn;
use sanswitch_model::bridge::NODE_MEM_BYTES;
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{Rtl, VBoardCore};

/// The pipes as the board core sees them: request words offered as it takes them, response
/// words taken every cycle.
struct CoreLink {
    dut: Rtl<VBoardCore>,
    req: VecDeque<u16>,
    rsp: VecDeque<u16>,
    cycles: u64,
    /// The most cycles a read may wait for its words.
    patience: u64,
}

impl CoreLink {
    fn step(&mut self) {
        let i = BoardCoreIn {
            s_axis_req_tvalid: !self.req.is_empty(),
            s_axis_req_tdata: self.req.front().copied().unwrap_or(0),
            m_axis_rsp_tready: true,
            ..Default::default()
        };
        let o = self.dut.outputs(&i);
        if i.s_axis_req_tvalid && o.s_axis_req_tready {
            self.req.pop_front();
        }
        if o.m_axis_rsp_tvalid {
            self.rsp.push_back(o.m_axis_rsp_tdata);
        }
        assert_eq!(o.errors, 0, "the bridge answered ERROR");
        assert!(!o.oob, "a memory access outside a memory");
        self.dut.clock(&i);
        self.cycles += 1;
    }
}

impl PipeLink for CoreLink {
    fn write_blocks(&mut self, words: &[u16]) -> Result<(), Error> {
        self.req.extend(words);
        Ok(())
    }

    fn read_blocks(&mut self, n: usize) -> Result<Vec<u16>, Error> {
        let until = self.cycles + self.patience;
        while self.rsp.len() < n {
            if self.cycles >= until {
                return Err(Error::Protocol(format!(
                    "{} of {n} response words after {} cycles",
                    self.rsp.len(),
                    self.patience
                )));
            }
            self.step();
        }
        Ok(self.rsp.drain(..n).collect())
    }

    fn wait(&mut self) {
        for _ in 0..64 {
            self.step();
        }
    }

    fn now_cycles(&self) -> Option<u64> {
        Some(self.cycles)
    }
}

#[test]
fn driver_loopback_through_the_board_core_verilog() {
    let link = CoreLink {
        dut: Rtl::new(VBoardCore::new()),
        req: VecDeque::new(),
        rsp: VecDeque::new(),
        cycles: 0,
        patience: 2_000_000,
    };
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
        bytes: 24 << 10,
        max_write: 4 << 10,
        urgent: 0.05,
        aborts: 0,
        seed: 5,
        stall_waits: 20_000,
    };
    let r = loopback::run(&eps, &o, |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.bytes >= 2 * 2 * o.bytes, "{} B", r.bytes);
    let (transactions, torn, cycles) = eps[0].with_transport(|t| {
        let b = t.bridge.borrow();
        (b.transactions, b.torn_reads, b.link.cycles)
    });
    println!(
        "{} B both ways on {} connections through {transactions} bridge transactions in \
         {cycles} engine cycles ({torn} DMA reads read again: torn by the NICs' writes)",
        r.bytes, o.connections
    );
}
