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
//! - Engine side (`eng_clk`): `m_axis_req_*` (out, `tready` in): the words the host sent, in
//!   order; `s_axis_rsp_*` (in, `tready` out): the words for the host.
//!
//! # Timing and crossing
//! Each FIFO is rust-hdl's `AsynchronousFIFO` (Gray-free pointers passed through a
//! request/acknowledge synchronizer, so no multi-bit value is sampled mid-change), 1,024
//! words (two blocks) in block RAM. Fill levels seen on one side lag the other side's
//! moves by a few cycles of both clocks: `pi_ready` and `po_ready` may stay low a little
//! longer than needed, never high too early. `po_read` pops the head a cycle after it is
//! asserted, when FrontPanel samples `po_data`.

use rust_hdl::prelude::*;

use sanswitch_model::bridge::BLOCK_WORDS;

/// Words each FIFO holds (log2).
pub const FIFO_LOG2: usize = 10;

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
    req: WordFifo,
    rsp: WordFifo,
    /// `po_read` a cycle late: the word FrontPanel takes now.
    pop: DFF<Bit>,
    /// Registered block flags (`ti_clk`).
    room: DFF<Bit>,
    block: DFF<Bit>,
    c_room_max: Param<Bits<{ FIFO_LOG2 + 1 }>>,
    c_block: Param<Bits<{ FIFO_LOG2 + 1 }>>,
}

/// A parameter (rust-hdl writes it as a `localparam`).
type Param<T> = sanswitch_hdl::widgets::Param<T>;

impl PipeFifos {
    pub fn new() -> Self {
        let depth = 1u64 << FIFO_LOG2;
        let block = BLOCK_WORDS as u64;
        assert!(depth >= 2 * block, "two blocks in each FIFO");
        PipeFifos {
            c_room_max: sanswitch_hdl::widgets::param(depth - block),
            c_block: sanswitch_hdl::widgets::param(block),
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
        // Block throttling, registered in the FrontPanel clock.
        self.room.clock.next = self.ti_clk.val();
        self.block.clock.next = self.ti_clk.val();
        self.room.d.next = self.req.write_fill.val() <= self.c_room_max.val();
        self.block.d.next = self.rsp.read_fill.val() >= self.c_block.val();
        self.pi_ready.next = self.room.q.val();
        self.po_ready.next = self.block.q.val();
    }
}
