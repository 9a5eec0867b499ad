//! The host interface: the register space of `sanswitch_model::regs` behind an AXI4-Lite
//! port, `Q` queue pairs' rings in host memory, and the engine's command and completion
//! streams (model: `sanswitch_model::blocks::hostif`, whose documentation gives the
//! behaviour cycle by cycle).
//!
//! # Structure
//! - [`AxiLiteRegs`] (`axil.rs`): the AXI4-Lite channels as a write strobe and a read;
//! - [`SqFetch`] (`fetch.rs`): the submission rings' fetch (one at a time) and the command
//!   FIFO;
//! - [`CqWriter`] (`cqwr.rs`): the completion rings' writes;
//! - [`QpBank`] (`qp_bank.rs`): the queue pairs, which one is fetched from, which one a
//!   completion goes to;
//! - [`QpRegs`] (`qp_regs.rs`): one queue pair's registers, the doorbell check, arm and
//!   event;
//! - [`RegDecode`] (`decode.rs`): the register space's address decoder;
//! - [`HostCounters`] (`counters.rs`, [`SatCount`] in `count.rs`): this block's counters;
//! - this file: the units joined, and the counter block's `index`.
//!
//! # Ports
//! `HostIfIn` and `HostIfOut` of the model, one signal per field with the same name and
//! width, plus `clock`. `Q` must equal the host parameters' `queue_pairs` (asserted); the
//! NIC top and the Verilog use [`QUEUE_PAIRS`].

use rust_hdl::prelude::*;
use sanswitch_model::blocks::hostif::CNT_BANK;
use sanswitch_model::host::TAG_HOST_MASK;
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

/// The queue pairs of the host interface the NIC and the Verilog are built with
/// (`sanswitch_model::regs::QUEUE_PAIRS`).
pub const QUEUE_PAIRS: usize = sanswitch_model::regs::QUEUE_PAIRS as usize;

pub mod axil;
pub mod count;
pub mod counters;
pub mod cqwr;
pub mod decode;
pub mod fetch;
pub mod qp_bank;
pub mod qp_regs;

pub use axil::AxiLiteRegs;
pub use count::SatCount;
pub use counters::HostCounters;
pub use cqwr::CqWriter;
pub use decode::RegDecode;
pub use fetch::SqFetch;
pub use qp_bank::QpBank;
pub use qp_regs::{CqState, QpRegs, QpState, SqState};

use crate::engine::records::CplRec;
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct HostIf<const Q: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awaddr: Signal<In, Bits<12>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<12>>,
    pub s_axil_rready: Signal<In, Bit>,
    pub m_axis_fetch_tready: Signal<In, Bit>,
    pub s_axis_fetch_tvalid: Signal<In, Bit>,
    pub s_axis_fetch_tdata: Signal<In, Bits<64>>,
    pub s_axis_fetch_tlast: Signal<In, Bit>,
    pub m_axis_cqwr_tready: Signal<In, Bit>,
    pub m_axis_cmd_tready: Signal<In, Bit>,
    pub s_axis_cpl_tvalid: Signal<In, Bit>,
    pub s_axis_cpl_tag: Signal<In, Bits<32>>,
    pub s_axis_cpl_bytes: Signal<In, Bits<32>>,
    pub s_axis_cpl_conn: Signal<In, Bits<16>>,
    pub s_axis_cpl_status: Signal<In, Bits<16>>,
    pub s_axis_cpl_opcode: Signal<In, Bits<8>>,
    pub s_axis_cpl_urgent: Signal<In, Bit>,
    pub s_axis_cpl_eof: Signal<In, Bit>,
    pub cnt_rd_data: Signal<In, Bits<32>>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub m_axis_fetch_tvalid: Signal<Out, Bit>,
    pub m_axis_fetch_addr: Signal<Out, Bits<64>>,
    pub m_axis_fetch_len: Signal<Out, Bits<32>>,
    pub s_axis_fetch_tready: Signal<Out, Bit>,
    pub m_axis_cqwr_tvalid: Signal<Out, Bit>,
    pub m_axis_cqwr_addr: Signal<Out, Bits<64>>,
    pub m_axis_cqwr_tdata: Signal<Out, Bits<64>>,
    pub m_axis_cqwr_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_cqwr_tlast: Signal<Out, Bit>,
    pub m_axis_cmd_tvalid: Signal<Out, Bit>,
    pub m_axis_cmd_opcode: Signal<Out, Bits<8>>,
    pub m_axis_cmd_conn: Signal<Out, Bits<16>>,
    pub m_axis_cmd_tag: Signal<Out, Bits<32>>,
    pub m_axis_cmd_addr: Signal<Out, Bits<64>>,
    pub m_axis_cmd_len: Signal<Out, Bits<32>>,
    pub m_axis_cmd_aux: Signal<Out, Bits<64>>,
    pub s_axis_cpl_tready: Signal<Out, Bit>,
    pub cnt_rd_index: Signal<Out, Bits<8>>,
    pub cq_event: Signal<Out, Bits<8>>,
    axil: AxiLiteRegs,
    fetch: SqFetch,
    cqwr: CqWriter,
    qps: QpBank<Q>,
    dec: RegDecode,
    cnts: HostCounters,
    cnt_index: DFF<Bits<8>>,
    k_bank: Param<Bits<3>>,
    k_tag_host: Param<Bits<32>>,
    fst: Signal<Local, SqState>,
    cst: Signal<Local, CqState>,
    cpl: Signal<Local, CplRec>,
}

impl<const Q: usize> HostIf<Q> {
    pub fn new(p: &EngineParams, h: &HostParams) -> Self {
        h.validate().expect("valid host interface parameters");
        assert_eq!(usize::from(h.queue_pairs), Q, "the host parameters' queue pairs are Q");
        HostIf {
            axil: AxiLiteRegs::new(),
            fetch: SqFetch::new(),
            cqwr: CqWriter::new(),
            qps: QpBank::new(h.max_log2_size),
            dec: RegDecode::new(p, h),
            cnts: HostCounters::new(),
            k_bank: param(u64::from(CNT_BANK)),
            k_tag_host: param(u64::from(TAG_HOST_MASK)),
            ..Default::default()
        }
    }
}

impl<const Q: usize> Logic for HostIf<Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cnt_index);
        clock!(self, clock, axil, fetch, cqwr, qps, cnts);
        self.axil.reset.next = self.reset.val();
        self.fetch.reset.next = self.reset.val();
        self.cqwr.reset.next = self.reset.val();
        self.qps.reset.next = self.reset.val();
        self.cnts.reset.next = self.reset.val();
        self.fst.next = self.qps.fetch_state.val();
        self.cst.next = self.qps.cq_state.val();

        // The register port, its decoder, the queue pairs' registers.
        self.axil.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.axil.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.axil.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.axil.s_axil_wdata.next = self.s_axil_wdata.val();
        self.axil.s_axil_bready.next = self.s_axil_bready.val();
        self.axil.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.axil.s_axil_araddr.next = self.s_axil_araddr.val();
        self.axil.s_axil_rready.next = self.s_axil_rready.val();
        self.s_axil_awready.next = self.axil.s_axil_awready.val();
        self.s_axil_wready.next = self.axil.s_axil_wready.val();
        self.s_axil_bvalid.next = self.axil.s_axil_bvalid.val();
        self.s_axil_bresp.next = self.axil.s_axil_bresp.val();
        self.s_axil_arready.next = self.axil.s_axil_arready.val();
        self.s_axil_rvalid.next = self.axil.s_axil_rvalid.val();
        self.s_axil_rdata.next = self.axil.s_axil_rdata.val();
        self.s_axil_rresp.next = self.axil.s_axil_rresp.val();
        self.dec.rd_off.next = self.axil.rd_addr.val();
        self.dec.wr_off.next = self.axil.wr_addr.val();
        self.dec.st.next = self.qps.rd_state.val();
        self.qps.rd_qp.next = self.dec.rd_qp.val();
        self.dec.cnt_index.next = self.cnt_index.q.val();
        self.axil.rd_data.next = self.dec.rd_val.val();
        self.axil.rd_ok.next = self.dec.rd_hit.val();
        self.axil.wr_ok.next = self.dec.wr_hit.val();
        self.qps.wr.next = self.axil.wr.val() & self.dec.wr_qp.val();
        self.qps.wr_qp.next = self.dec.wr_qp_idx.val();
        self.qps.off.next = self.dec.wr_qp_off.val();
        self.qps.wdata.next = self.axil.wr_data.val();
        self.qps.took.next = self.fetch.took.val();
        self.qps.cq_done.next = self.cqwr.done.val();
        self.cq_event.next = self.qps.cq_event.val();
        if self.axil.wr.val() & self.dec.wr_cnt_index.val() {
            self.cnt_index.d.next = self.axil.wr_data.val().get_bits::<8>(0);
        }

        // The counter read port: the engine's banks, or this block's own.
        self.cnt_rd_index.next = self.cnt_index.q.val();
        self.cnts.index.next = self.cnt_index.q.val().get_bits::<5>(0);
        self.dec.cnt_val.next = self.cnt_rd_data.val();
        if self.cnt_index.q.val().get_bits::<3>(5) == self.k_bank.val() {
            self.dec.cnt_val.next = self.cnts.value.val();
        }
        self.cnts.fetched.next = self.fetch.took.val();
        self.cnts.completed.next = self.cqwr.done.val();
        self.cnts.doorbell.next = self.qps.doorbell.val();
        self.cnts.beyond.next = self.qps.beyond.val();
        self.cnts.bad_entry.next = self.fetch.bad.val();
        self.cnts.rd_bad.next = self.axil.rd_bad.val();
        self.cnts.wr_bad.next = self.axil.wr_bad.val();
        self.cnts.bad_cq_cons.next = self.qps.bad_cq_cons.val();
        self.cnts.bad_cpl_qp.next = self.cqwr.dropped.val();

        // The submission ring served into the engine's command stream.
        self.qps.fetch_busy.next = self.fetch.s_axis_fetch_tready.val() | self.fetch.req_held.val();
        self.qps.fetch_show.next = self.fetch.m_axis_fetch_tvalid.val();
        self.fetch.qp.next = self.qps.sel.val();
        self.fetch.run.next = self.fst.val().run;
        self.fetch.base.next = self.fst.val().base;
        self.fetch.mask.next = self.fst.val().mask;
        self.fetch.prod.next = self.fst.val().prod;
        self.fetch.cons.next = self.fst.val().cons;
        self.fetch.stop.next = self.qps.stop.val();
        self.fetch.m_axis_fetch_tready.next = self.m_axis_fetch_tready.val();
        self.fetch.s_axis_fetch_tvalid.next = self.s_axis_fetch_tvalid.val();
        self.fetch.s_axis_fetch_tdata.next = self.s_axis_fetch_tdata.val();
        self.fetch.m_axis_cmd_tready.next = self.m_axis_cmd_tready.val();
        self.m_axis_fetch_tvalid.next = self.fetch.m_axis_fetch_tvalid.val();
        self.m_axis_fetch_addr.next = self.fetch.m_axis_fetch_addr.val();
        self.m_axis_fetch_len.next = self.fetch.m_axis_fetch_len.val();
        self.s_axis_fetch_tready.next = self.fetch.s_axis_fetch_tready.val();
        self.m_axis_cmd_tvalid.next = self.fetch.m_axis_cmd_tvalid.val();
        self.m_axis_cmd_opcode.next = self.fetch.cmd.val().opcode;
        self.m_axis_cmd_conn.next = self.fetch.cmd.val().conn;
        self.m_axis_cmd_tag.next = self.fetch.cmd.val().tag;
        self.m_axis_cmd_addr.next = self.fetch.cmd.val().addr;
        self.m_axis_cmd_len.next = self.fetch.cmd.val().len;
        self.m_axis_cmd_aux.next = self.fetch.cmd.val().aux;

        // The engine's completions into their queue pair's completion ring, the queue pair's
        // tag bits cleared.
        self.qps.cpl_qp.next = self.s_axis_cpl_tag.val().get_bits::<3>(29);
        self.qps.cq_take.next = self.s_axis_cpl_tvalid.val()
            & self.cqwr.s_axis_cpl_tready.val()
            & !self.qps.cq_none.val();
        self.cqwr.discard.next = self.qps.cq_none.val();
        self.cpl.next.tag = self.s_axis_cpl_tag.val() & self.k_tag_host.val();
        self.cpl.next.bytes = self.s_axis_cpl_bytes.val();
        self.cpl.next.conn = self.s_axis_cpl_conn.val();
        self.cpl.next.status = self.s_axis_cpl_status.val();
        self.cpl.next.opcode = self.s_axis_cpl_opcode.val();
        self.cpl.next.urgent = self.s_axis_cpl_urgent.val();
        self.cpl.next.eof = self.s_axis_cpl_eof.val();
        self.cqwr.run.next = self.cst.val().run;
        self.cqwr.base.next = self.cst.val().base;
        self.cqwr.log2.next = self.cst.val().log2;
        self.cqwr.prod.next = self.cst.val().prod;
        self.cqwr.cons.next = self.cst.val().cons;
        self.cqwr.cpl_valid.next = self.s_axis_cpl_tvalid.val();
        self.cqwr.cpl.next = self.cpl.val();
        self.cqwr.m_axis_cqwr_tready.next = self.m_axis_cqwr_tready.val();
        self.s_axis_cpl_tready.next = self.cqwr.s_axis_cpl_tready.val();
        self.m_axis_cqwr_tvalid.next = self.cqwr.m_axis_cqwr_tvalid.val();
        self.m_axis_cqwr_addr.next = self.cqwr.m_axis_cqwr_addr.val();
        self.m_axis_cqwr_tdata.next = self.cqwr.m_axis_cqwr_tdata.val();
        self.m_axis_cqwr_tkeep.next = self.cqwr.m_axis_cqwr_tkeep.val();
        self.m_axis_cqwr_tlast.next = self.cqwr.m_axis_cqwr_tlast.val();

        if self.reset.val() {
            self.cnt_index.d.next = 0.into();
        }
    }
}
