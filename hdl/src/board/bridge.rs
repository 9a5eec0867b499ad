//! The FrontPanel bridge's core, in the engine clock: request words in, response words out,
//! the two nodes' register ports and memories driven on the host's behalf. The protocol is
//! `sanswitch_model::bridge` (one definition, in `docs/BOARD.md`); ports and timing are the
//! cycle model's, `sanswitch_model::blocks::bridge`, which this block is checked against.
//!
//! # Ports
//! - `s_axis_req_*` (in, `tready` out): request words, 16 bits.
//! - `m_axis_rsp_*` (out, `tready` in): response words (the [`RspOut`] register).
//! - `m_axil_*[k]` (two-element arrays, element `k` for node `k`): node 0's and node 1's register
//!   ports, AXI4-Lite masters: one access at a time, only the request's node sees a `valid`
//!   or `ready`; an offset beyond the register space is answered `SLVERR` here, without a bus
//!   access.
//! - `m_mem_*` (out, `m_mem_ready` in): a 64-bit word of node `m_mem_node`'s memory, read
//!   or written (`m_mem_wmask`: the bytes written); `s_mem_rvalid`/`s_mem_rdata` (in): a
//!   read's word, a cycle or more later (one read in flight).
//! - `errors` (out): headers answered with `ERROR` since reset; `busy` (out): inside a
//!   request.
//! - `reset` (in): synchronous.
//!
//! # Timing
//! One state per step of a request ([`BridgeState`]): a word taken per cycle in the states
//! that take words; a response word put per cycle when the output register is free. Response
//! words are queued (up to three) in `e0..e2` and sent by [`BridgeState::Emit`].
//!
//! # Structure
//! The state register and the response queue are here; the steps are in three parts, each
//! active in its own states and proposing the next: [`ReqIntake`] (a request's header and
//! arguments, and the answers that need no access), [`RegAccess`] (the AXI4-Lite masters)
//! and [`MemSteps`] (a memory request word by word). Their response words are ORed (each
//! drives zeros while it queues none).

use rust_hdl::prelude::*;

use sanswitch_model::blocks::bridge::MAX_MEM_BYTES;

use super::{MemSteps, RegAccess, ReqIntake, RspOut};

/// The steps of a request, as `sanswitch_model::blocks::bridge::St` numbers them.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum BridgeState {
    Hdr,
    RwLo,
    RwHi,
    AxW,
    AxB,
    AxAr,
    AxR,
    AddrLo,
    AddrHi,
    Len,
    WData,
    MemW,
    MemR,
    MemWait,
    Words,
    Emit,
    Pad,
}

/// What one of the bridge's parts proposes in a cycle: the next step (`set_st`,
/// `next_st`), and response words to queue for `Emit` (`q_load`, `q0..q2`, `q_n`). All zero
/// while a part proposes nothing, so the bridge ORs the parts' words.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Step {
    pub set_st: Bit,
    pub next_st: BridgeState,
    pub q_load: Bit,
    pub q0: Bits<16>,
    pub q1: Bits<16>,
    pub q2: Bits<16>,
    pub q_n: Bits<2>,
}

#[derive(LogicBlock, Default)]
pub struct Bridge {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_req_tvalid: Signal<In, Bit>,
    pub s_axis_req_tdata: Signal<In, Bits<16>>,
    pub m_axis_rsp_tready: Signal<In, Bit>,
    pub m_axil_awready: [Signal<In, Bit>; 2],
    pub m_axil_wready: [Signal<In, Bit>; 2],
    pub m_axil_bvalid: [Signal<In, Bit>; 2],
    pub m_axil_bresp: [Signal<In, Bits<2>>; 2],
    pub m_axil_arready: [Signal<In, Bit>; 2],
    pub m_axil_rvalid: [Signal<In, Bit>; 2],
    pub m_axil_rdata: [Signal<In, Bits<32>>; 2],
    pub m_axil_rresp: [Signal<In, Bits<2>>; 2],
    pub m_mem_ready: Signal<In, Bit>,
    pub s_mem_rvalid: Signal<In, Bit>,
    pub s_mem_rdata: Signal<In, Bits<64>>,
    pub s_axis_req_tready: Signal<Out, Bit>,
    pub m_axis_rsp_tvalid: Signal<Out, Bit>,
    pub m_axis_rsp_tdata: Signal<Out, Bits<16>>,
    pub m_axil_awvalid: [Signal<Out, Bit>; 2],
    pub m_axil_awaddr: [Signal<Out, Bits<12>>; 2],
    pub m_axil_wvalid: [Signal<Out, Bit>; 2],
    pub m_axil_wdata: [Signal<Out, Bits<32>>; 2],
    pub m_axil_bready: [Signal<Out, Bit>; 2],
    pub m_axil_arvalid: [Signal<Out, Bit>; 2],
    pub m_axil_araddr: [Signal<Out, Bits<12>>; 2],
    pub m_axil_rready: [Signal<Out, Bit>; 2],
    pub m_mem_valid: Signal<Out, Bit>,
    pub m_mem_node: Signal<Out, Bit>,
    pub m_mem_write: Signal<Out, Bit>,
    pub m_mem_index: Signal<Out, Bits<16>>,
    pub m_mem_wdata: Signal<Out, Bits<64>>,
    pub m_mem_wmask: Signal<Out, Bits<8>>,
    pub errors: Signal<Out, Bits<16>>,
    pub busy: Signal<Out, Bit>,
    rsp: RspOut,
    intake: ReqIntake,
    regs: RegAccess,
    mem: MemSteps,
    st: DFF<BridgeState>,
    after: DFF<BridgeState>,
    e0: DFF<Bits<16>>,
    e1: DFF<Bits<16>>,
    e2: DFF<Bits<16>>,
    emit_n: DFF<Bits<2>>,
    take: Signal<Local, Bit>,
    /// Queue response words for `Emit` (`q0` first), then go to `q_after`.
    q_load: Signal<Local, Bit>,
}

impl Bridge {
    /// A bridge in front of two memories of `mem_bytes` each (a multiple of 8, at most
    /// `MAX_MEM_BYTES`), as the model's `BridgeModel::new`.
    pub fn new(mem_bytes: u32) -> Self {
        assert!(mem_bytes % 8 == 0 && (8..=MAX_MEM_BYTES).contains(&mem_bytes));
        Bridge {
            rsp: RspOut::new(),
            intake: ReqIntake::new(mem_bytes),
            regs: RegAccess::new(),
            mem: MemSteps::new(),
            ..Default::default()
        }
    }
}

impl Logic for Bridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, st, after, e0, e1, e2, emit_n);
        self.rsp.clock.next = self.clock.val();
        self.rsp.reset.next = self.reset.val();
        self.intake.clock.next = self.clock.val();
        self.intake.reset.next = self.reset.val();
        self.regs.clock.next = self.clock.val();
        self.regs.reset.next = self.reset.val();
        self.mem.clock.next = self.clock.val();
        self.mem.reset.next = self.reset.val();
        self.rsp.m_axis_rsp_tready.next = self.m_axis_rsp_tready.val();
        self.m_axis_rsp_tvalid.next = self.rsp.m_axis_rsp_tvalid.val();
        self.m_axis_rsp_tdata.next = self.rsp.m_axis_rsp_tdata.val();
        self.s_axis_req_tready.next = self.intake.tready.val();
        self.take.next = self.s_axis_req_tvalid.val() & self.intake.tready.val();
        // The request's intake.
        self.intake.st.next = self.st.q.val();
        self.intake.take.next = self.take.val();
        self.intake.d.next = self.s_axis_req_tdata.val();
        self.intake.k.next = self.mem.k.val();
        // The register ports.
        self.regs.st.next = self.st.q.val();
        self.regs.take.next = self.take.val();
        self.regs.node.next = self.intake.node.val();
        self.regs.reg_addr.next = self.intake.reg_addr.val();
        self.regs.value.next = self.intake.value.val();
        self.regs.node_bit.next = self.intake.node_bit.val();
        for k in 0..2 {
            self.regs.m_axil_awready[k].next = self.m_axil_awready[k].val();
            self.regs.m_axil_wready[k].next = self.m_axil_wready[k].val();
            self.regs.m_axil_bvalid[k].next = self.m_axil_bvalid[k].val();
            self.regs.m_axil_bresp[k].next = self.m_axil_bresp[k].val();
            self.regs.m_axil_arready[k].next = self.m_axil_arready[k].val();
            self.regs.m_axil_rvalid[k].next = self.m_axil_rvalid[k].val();
            self.regs.m_axil_rdata[k].next = self.m_axil_rdata[k].val();
            self.regs.m_axil_rresp[k].next = self.m_axil_rresp[k].val();
            self.m_axil_awvalid[k].next = self.regs.m_axil_awvalid[k].val();
            self.m_axil_awaddr[k].next = self.regs.m_axil_awaddr[k].val();
            self.m_axil_wvalid[k].next = self.regs.m_axil_wvalid[k].val();
            self.m_axil_wdata[k].next = self.regs.m_axil_wdata[k].val();
            self.m_axil_bready[k].next = self.regs.m_axil_bready[k].val();
            self.m_axil_arvalid[k].next = self.regs.m_axil_arvalid[k].val();
            self.m_axil_araddr[k].next = self.regs.m_axil_araddr[k].val();
            self.m_axil_rready[k].next = self.regs.m_axil_rready[k].val();
        }
        // The memory port.
        self.mem.st.next = self.st.q.val();
        self.mem.take.next = self.take.val();
        self.mem.d.next = self.s_axis_req_tdata.val();
        self.mem.ok.next = self.intake.ok.val();
        self.mem.last.next = self.intake.last.val();
        self.mem.node_bit.next = self.intake.node_bit.val();
        self.mem.mem_st.next = self.intake.mem_st.val();
        self.mem.m_mem_ready.next = self.m_mem_ready.val();
        self.mem.s_mem_rvalid.next = self.s_mem_rvalid.val();
        self.mem.s_mem_rdata.next = self.s_mem_rdata.val();
        self.mem.can_put.next = self.rsp.can_put.val();
        self.m_mem_valid.next = self.mem.m_mem_valid.val();
        self.m_mem_write.next = self.mem.m_mem_write.val();
        self.m_mem_node.next = self.intake.node.val();
        self.m_mem_index.next = self.intake.index.val();
        self.m_mem_wdata.next = self.mem.m_mem_wdata.val();
        self.m_mem_wmask.next = self.intake.mask.val();
        self.errors.next = self.intake.errors.val();
        self.busy.next = self.st.q.val() != BridgeState::Hdr;
        // The next step (at most one part proposes one), the response words, the queue.
        if self.intake.step.val().set_st {
            self.st.d.next = self.intake.step.val().next_st;
        }
        if self.regs.step.val().set_st {
            self.st.d.next = self.regs.step.val().next_st;
        }
        if self.mem.step.val().set_st {
            self.st.d.next = self.mem.step.val().next_st;
        }
        self.rsp.put.next = self.mem.put.val();
        self.rsp.word.next = self.mem.word.val();
        if (self.st.q.val() == BridgeState::Emit) & self.rsp.can_put.val() {
            self.rsp.put.next = true;
            self.rsp.word.next = self.e0.q.val();
            self.e0.d.next = self.e1.q.val();
            self.e1.d.next = self.e2.q.val();
            self.e2.d.next = 0.into();
            self.emit_n.d.next = self.emit_n.q.val() - 1;
            if self.emit_n.q.val() == 1 {
                self.st.d.next = self.after.q.val();
            }
        }
        // A flush pads the response block with NOPs.
        if self.st.q.val() == BridgeState::Pad {
            if self.rsp.at_block_start.val() {
                self.st.d.next = BridgeState::Hdr;
            } else if self.rsp.can_put.val() {
                self.rsp.put.next = true;
            }
        }
        self.q_load.next = self.intake.step.val().q_load
            | self.regs.step.val().q_load
            | self.mem.step.val().q_load;
        if self.q_load.val() {
            self.e0.d.next =
                self.intake.step.val().q0 | self.regs.step.val().q0 | self.mem.step.val().q0;
            self.e1.d.next =
                self.intake.step.val().q1 | self.regs.step.val().q1 | self.mem.step.val().q1;
            self.e2.d.next =
                self.intake.step.val().q2 | self.regs.step.val().q2 | self.mem.step.val().q2;
            self.emit_n.d.next =
                self.intake.step.val().q_n | self.regs.step.val().q_n | self.mem.step.val().q_n;
            self.after.d.next = self.intake.q_after.val();
            self.st.d.next = BridgeState::Emit;
        }
        if self.reset.val() {
            self.st.d.next = BridgeState::Hdr;
            self.after.d.next = BridgeState::Hdr;
            self.e0.d.next = 0.into();
            self.e1.d.next = 0.into();
            self.e2.d.next = 0.into();
            self.emit_n.d.next = 0.into();
        }
    }
}
