//! A board node's on-chip memory: what stands for a NIC's host memory on the XEM7010. Ports
//! and timing are the cycle model's, `sanswitch_model::blocks::node_mem`, which this block
//! is checked against.
//!
//! # Ports
//! - `s_axis_rdreq_*`, `m_axis_rddata_*`, `s_axis_wr_*`: the NIC's host-memory port (its
//!   `m_axis_dmard_*`, `s_axis_dmard_*`, `m_axis_dmawr_*`), byte addressed ([`MemRd`],
//!   [`MemWr`]).
//! - `s_mem_*`, `m_mem_r*`: a word port (the bridge's `m_mem_*`, the SAN loopback's).
//! - `cnt_oob` (out): accesses outside the memory, wrapping.
//! - `reset` (in): synchronous (the memory's contents stay).
//!
//! # Structure
//! Eight byte lanes of block RAM (`Ram<Bits<8>>`, one read and one write port each, the read
//! a cycle late), addressed together, each lane's write enabled by its mask bit. Each port
//! serves one user a cycle, round robin when both ask; a carry left by a write burst takes
//! the write port first.

use rust_hdl::prelude::*;

use super::{MemRd, MemWr};
use crate::widgets::{Param, Ram, param};

#[derive(LogicBlock, Default)]
pub struct NodeMem {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_rdreq_tvalid: Signal<In, Bit>,
    pub s_axis_rdreq_addr: Signal<In, Bits<64>>,
    pub s_axis_rdreq_len: Signal<In, Bits<32>>,
    pub m_axis_rddata_tready: Signal<In, Bit>,
    pub s_axis_wr_tvalid: Signal<In, Bit>,
    pub s_axis_wr_addr: Signal<In, Bits<64>>,
    pub s_axis_wr_tdata: Signal<In, Bits<64>>,
    pub s_axis_wr_tkeep: Signal<In, Bits<8>>,
    pub s_axis_wr_tlast: Signal<In, Bit>,
    pub s_mem_valid: Signal<In, Bit>,
    pub s_mem_write: Signal<In, Bit>,
    pub s_mem_index: Signal<In, Bits<16>>,
    pub s_mem_wdata: Signal<In, Bits<64>>,
    pub s_mem_wmask: Signal<In, Bits<8>>,
    pub s_axis_rdreq_tready: Signal<Out, Bit>,
    pub m_axis_rddata_tvalid: Signal<Out, Bit>,
    pub m_axis_rddata_tdata: Signal<Out, Bits<64>>,
    pub m_axis_rddata_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_rddata_tlast: Signal<Out, Bit>,
    pub s_axis_wr_tready: Signal<Out, Bit>,
    pub s_mem_ready: Signal<Out, Bit>,
    pub m_mem_rvalid: Signal<Out, Bit>,
    pub m_mem_rdata: Signal<Out, Bits<64>>,
    pub cnt_oob: Signal<Out, Bits<16>>,
    rd: MemRd,
    wr: MemWr,
    lanes: Vec<Ram<Bits<8>>>,
    b_rvalid: DFF<Bit>,
    rd_last_b: DFF<Bit>,
    wr_last_b: DFF<Bit>,
    oob: DFF<Bits<16>>,
    /// The grants of this cycle.
    b_read: Signal<Local, Bit>,
    b_write: Signal<Local, Bit>,
    g_dma_read: Signal<Local, Bit>,
    g_b_read: Signal<Local, Bit>,
    g_beat: Signal<Local, Bit>,
    g_b_write: Signal<Local, Bit>,
    ram_out: Signal<Local, Bits<64>>,
    we: Signal<Local, Bit>,
    waddr: Signal<Local, Bits<16>>,
    wdata: Signal<Local, Bits<64>>,
    wmask: Signal<Local, Bits<8>>,
    /// Lane k's bit position in the word and its mask bit.
    k_shift: Vec<Param<Bits<64>>>,
    /// The write data shifted down to lane k.
    lane_wd: Vec<Signal<Local, Bits<64>>>,
    k_bit: Vec<Param<Bits<8>>>,
}

impl NodeMem {
    /// A memory of `words` 64-bit words (a power of two, at most 32768).
    pub fn new(words: usize) -> Self {
        NodeMem {
            rd: MemRd::new(words),
            wr: MemWr::new(words),
            lanes: (0..8).map(|_| Ram::new(words, true)).collect(),
            k_shift: (0..8).map(|k| param(8 * k)).collect(),
            lane_wd: (0..8).map(|_| Default::default()).collect(),
            k_bit: (0..8).map(|k| param(1 << k)).collect(),
            ..Default::default()
        }
    }
}

impl Logic for NodeMem {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, b_rvalid, rd_last_b, wr_last_b, oob);
        self.rd.clock.next = self.clock.val();
        self.rd.reset.next = self.reset.val();
        self.wr.clock.next = self.clock.val();
        self.wr.reset.next = self.reset.val();
        self.rd.s_axis_rdreq_tvalid.next = self.s_axis_rdreq_tvalid.val();
        self.rd.s_axis_rdreq_addr.next = self.s_axis_rdreq_addr.val();
        self.rd.s_axis_rdreq_len.next = self.s_axis_rdreq_len.val();
        self.rd.m_axis_rddata_tready.next = self.m_axis_rddata_tready.val();
        self.s_axis_rdreq_tready.next = self.rd.s_axis_rdreq_tready.val();
        self.m_axis_rddata_tvalid.next = self.rd.m_axis_rddata_tvalid.val();
        self.m_axis_rddata_tdata.next = self.rd.m_axis_rddata_tdata.val();
        self.m_axis_rddata_tkeep.next = self.rd.m_axis_rddata_tkeep.val();
        self.m_axis_rddata_tlast.next = self.rd.m_axis_rddata_tlast.val();
        self.wr.s_axis_wr_addr.next = self.s_axis_wr_addr.val();
        self.wr.s_axis_wr_tdata.next = self.s_axis_wr_tdata.val();
        self.wr.s_axis_wr_tkeep.next = self.s_axis_wr_tkeep.val();
        self.wr.s_axis_wr_tlast.next = self.s_axis_wr_tlast.val();
        // The read port: round robin between the read side and the word port.
        self.b_read.next = self.s_mem_valid.val() & !self.s_mem_write.val();
        self.g_dma_read.next = self.rd.wants.val();
        self.g_b_read.next = self.b_read.val();
        if self.rd.wants.val() & self.b_read.val() {
            self.g_dma_read.next = self.rd_last_b.q.val();
            self.g_b_read.next = !self.rd_last_b.q.val();
        }
        self.rd.grant.next = self.g_dma_read.val();
        // The write port: a carry first, else round robin between beats and the word port.
        self.b_write.next = self.s_mem_valid.val() & self.s_mem_write.val();
        self.g_beat.next = false;
        self.g_b_write.next = false;
        if !self.wr.flush.val() {
            self.g_beat.next = self.s_axis_wr_tvalid.val();
            self.g_b_write.next = self.b_write.val();
            if self.s_axis_wr_tvalid.val() & self.b_write.val() {
                self.g_beat.next = self.wr_last_b.q.val();
                self.g_b_write.next = !self.wr_last_b.q.val();
            }
        }
        self.wr.take.next = self.g_beat.val();
        self.s_axis_wr_tready.next = self.g_beat.val();
        self.s_mem_ready.next = self.g_b_read.val() | self.g_b_write.val();
        // The lanes.
        self.we.next = self.wr.we.val();
        self.waddr.next = self.wr.waddr.val();
        self.wdata.next = self.wr.wdata.val();
        self.wmask.next = self.wr.wmask.val();
        if self.g_b_write.val() {
            self.we.next = true;
            self.waddr.next = self.s_mem_index.val();
            self.wdata.next = self.s_mem_wdata.val();
            self.wmask.next = self.s_mem_wmask.val();
        }
        for k in 0..8 {
            self.lanes[k].write_clock.next = self.clock.val();
            self.lanes[k].read_address.next = self.s_mem_index.val();
            if self.g_dma_read.val() {
                self.lanes[k].read_address.next = self.rd.addr.val();
            }
            self.lanes[k].write_address.next = self.waddr.val();
            self.lane_wd[k].next = self.wdata.val() >> self.k_shift[k].val();
            self.lanes[k].write_data.next = self.lane_wd[k].val().get_bits::<8>(0);
            // Nothing is written in a reset cycle (as the model: a reset is all its cycle does).
            self.lanes[k].write_enable.next =
                self.we.val() & (self.wmask.val() & self.k_bit[k].val()).any() & !self.reset.val();
        }
        // The word read: the lanes side by side.
        self.ram_out.next = bit_cast::<64, 8>(self.lanes[0].read_data.val())
            | (bit_cast::<64, 8>(self.lanes[1].read_data.val()) << 8)
            | (bit_cast::<64, 8>(self.lanes[2].read_data.val()) << 16)
            | (bit_cast::<64, 8>(self.lanes[3].read_data.val()) << 24)
            | (bit_cast::<64, 8>(self.lanes[4].read_data.val()) << 32)
            | (bit_cast::<64, 8>(self.lanes[5].read_data.val()) << 40)
            | (bit_cast::<64, 8>(self.lanes[6].read_data.val()) << 48)
            | (bit_cast::<64, 8>(self.lanes[7].read_data.val()) << 56);
        self.rd.ram_data.next = self.ram_out.val();
        self.b_rvalid.d.next = self.g_b_read.val();
        self.m_mem_rvalid.next = self.b_rvalid.q.val();
        self.m_mem_rdata.next = 0.into();
        if self.b_rvalid.q.val() {
            self.m_mem_rdata.next = self.ram_out.val();
        }
        if self.g_dma_read.val() | self.g_b_read.val() {
            self.rd_last_b.d.next = self.g_b_read.val();
        }
        if self.g_beat.val() {
            self.wr_last_b.d.next = false;
        }
        if self.g_b_write.val() {
            self.wr_last_b.d.next = true;
        }
        self.oob.d.next = self.oob.q.val()
            + bit_cast::<16, 1>(self.rd.oob.val().into())
            + bit_cast::<16, 1>(self.wr.oob.val().into());
        self.cnt_oob.next = self.oob.q.val();
        if self.reset.val() {
            self.b_rvalid.d.next = false;
            self.rd_last_b.d.next = false;
            self.wr_last_b.d.next = false;
            self.oob.d.next = 0.into();
        }
    }
}
