//! The FrontPanel pipes' side of the bridge: two asynchronous FIFOs between the 48 MHz
//! FrontPanel clock (`ti_clk`) and the engine clock, with the block throttling FrontPanel's
//! block-throttled pipes ask for.
//!
//! # Ports
//! - `ti_clk` (in): okHost's clock; `eng_clk` (in): the engine's.
//! - Pipe in (`okBTPipeIn` at 0x80, `ti_clk`): `pi_write`, `pi_data` (in): a word, in the
//!   cycle of its strobe; `pi_ready` (out): room for a whole block (the host sends a block
//!   only when it is high).
//! - Pipe out (`okBTPipeOut` at 0xA0, `ti_clk`): `po_read` (in): the host reads a word in the
//!   next cycle; `po_data` (out): that word; `po_ready` (out): a whole block is waiting.
//! - `lost` (out, `ti_clk`, sticky): the host wrote a word into a full pipe-in FIFO or took
//!   one from an empty pipe-out FIFO: a word lost or made up (the error LED; a simulation
//!   checks it stays low).
//! - Engine side (`eng_clk`): `m_axis_req_*` (out, `tready` in): the words the host sent, in
//!   order; `s_axis_rsp_*` (in, `tready` out): the words for the host.
//!
//! # Timing and crossing
//! Each FIFO is rust-hdl's `AsynchronousFIFO` (Gray-free pointers passed through a
//! request/acknowledge synchronizer, so no multi-bit value is sampled mid-change), 1,024
//! words (two blocks) in block RAM, which start empty with the FPGA's configuration (no
//! reset). Fill levels seen on one side lag the other side's moves by a few cycles of both
//! clocks: `pi_ready` and `po_ready` may stay low a little longer than needed, never high too
//! early. `po_read` pops the head a cycle after it is asserted, when FrontPanel samples
//! `po_data`.
//!
//! Both flags are registered, and each side's own moves reach its fill count late, so each
//! flag allows for what it cannot see yet, and holds even when the host samples it in the
//! cycle right after a block's last word (as the driver's pipe simulation does):
//! - `pi_ready`: rust-hdl's write side counts from its write address a cycle late, and the
//!   flag is a register: the words written in the last two cycles are not in the count it
//!   was made from, so it asks for room for a block and [`ROOM_SLACK`] words.
//! - `po_ready`: the word popped at the end of this cycle (`po_read` the cycle before) and the
//!   one `po_read` asks for now are still in the read side's count: it asks for a block
//!   beyond them.

use rust_hdl::prelude::*;

use sanswitch_model::bridge::BLOCK_WORDS;

use crate::widgets::{Param, param};

/// Words each FIFO holds (log2).
pub const FIFO_LOG2: usize = 10;

/// Words written to the pipe-in FIFO that its count may not show yet when `pi_ready` is made.
pub const ROOM_SLACK: u64 = 2;

type WordFifo = AsynchronousFIFO<Bits<16>, FIFO_LOG2, { FIFO_LOG2 + 1 }, 1>;

#[derive(LogicBlock, Default)]
pub struct PipeFifos {
    pub ti_clk: Signal<In, Clock>,
    pub eng_clk: Signal<In, Clock>,
    pub pi_write: Signal<In, Bit>,
    pub pi_data: Signal<In, Bits<16>>,
    pub pi_ready: Signal<Out, Bit>,
    pub po_read: Signal<In, Bit>,
    pub po_data: Signal<Out, Bits<16>>,
    pub po_ready: Signal<Out, Bit>,
    pub m_axis_req_tvalid: Signal<Out, Bit>,
    pub m_axis_req_tdata: Signal<Out, Bits<16>>,
    pub m_axis_req_tready: Signal<In, Bit>,
    pub s_axis_rsp_tvalid: Signal<In, Bit>,
    pub s_axis_rsp_tdata: Signal<In, Bits<16>>,
    pub s_axis_rsp_tready: Signal<Out, Bit>,
    pub lost: Signal<Out, Bit>,
    req: WordFifo,
    rsp: WordFifo,
    /// `po_read` a cycle late: the word FrontPanel takes now.
    pop: DFF<Bit>,
    /// Registered block flags (`ti_clk`).
    room: DFF<Bit>,
    block: DFF<Bit>,
    /// A word written into a full FIFO or taken from an empty one (sticky).
    lost_q: DFF<Bit>,
    c_room_max: Param<Bits<{ FIFO_LOG2 + 1 }>>,
    c_block: Param<Bits<{ FIFO_LOG2 + 1 }>>,
}

impl PipeFifos {
    /// The FIFOs, their block thresholds from `BLOCK_WORDS` (`Default` leaves them zero).
    pub fn new() -> Self {
        let depth = 1u64 << FIFO_LOG2;
        let block = BLOCK_WORDS as u64;
        assert!(depth >= 2 * block, "two blocks in each FIFO");
        PipeFifos {
            c_room_max: param(depth - block - ROOM_SLACK),
            c_block: param(block),
            ..Default::default()
        }
    }
}

impl Logic for PipeFifos {
    #[hdl_gen]
    fn update(&mut self) {
        // Host to engine.
        self.req.write_clock.next = self.ti_clk.val();
        self.req.read_clock.next = self.eng_clk.val();
        self.req.write.next = self.pi_write.val();
        self.req.data_in.next = self.pi_data.val();
        self.m_axis_req_tvalid.next = !self.req.empty.val();
        self.m_axis_req_tdata.next = self.req.data_out.val();
        self.req.read.next = self.m_axis_req_tready.val() & !self.req.empty.val();
        // Engine to host.
        self.rsp.write_clock.next = self.eng_clk.val();
        self.rsp.read_clock.next = self.ti_clk.val();
        self.s_axis_rsp_tready.next = !self.rsp.full.val();
        self.rsp.write.next = self.s_axis_rsp_tvalid.val() & !self.rsp.full.val();
        self.rsp.data_in.next = self.s_axis_rsp_tdata.val();
        self.pop.clock.next = self.ti_clk.val();
        self.pop.d.next = self.po_read.val();
        self.po_data.next = self.rsp.data_out.val();
        self.rsp.read.next = self.pop.q.val() & !self.rsp.empty.val();
        self.lost_q.clock.next = self.ti_clk.val();
        self.lost_q.d.next = self.lost_q.q.val()
            | (self.pi_write.val() & self.req.full.val())
            | (self.pop.q.val() & self.rsp.empty.val());
        self.lost.next = self.lost_q.q.val();
        // Block throttling, registered in the FrontPanel clock.
        self.room.clock.next = self.ti_clk.val();
        self.block.clock.next = self.ti_clk.val();
        self.room.d.next = self.req.write_fill.val() <= self.c_room_max.val();
        self.block.d.next = self.rsp.read_fill.val()
            >= self.c_block.val()
                + bit_cast::<{ FIFO_LOG2 + 1 }, 1>(self.pop.q.val().into())
                + bit_cast::<{ FIFO_LOG2 + 1 }, 1>(self.po_read.val().into());
        self.pi_ready.next = self.room.q.val();
        self.po_ready.next = self.block.q.val();
    }
}
