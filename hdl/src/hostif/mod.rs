//! The host interface: the register space of `sanswitch_model::regs` behind an AXI4-Lite
//! port, one queue pair's rings in host memory, and the engine's command and completion
//! streams (model: `sanswitch_model::blocks::hostif`, whose documentation gives the
//! behaviour cycle by cycle).
//!
//! # Structure
//! - [`AxiLiteRegs`] (`axil.rs`): the AXI4-Lite channels as a write strobe and a read;
//! - [`SqFetch`] (`fetch.rs`): the submission ring's fetch and the command FIFO;
//! - [`CqWriter`] (`cqwr.rs`): the completion ring's writes;
//! - [`QpRegs`] (`qp_regs.rs`): the queue pair's registers, the doorbell check, arm and
//!   event;
//! - [`RegDecode`] (`decode.rs`): the register space's address decoder;
//! - [`HostCounters`] (`counters.rs`, [`SatCount`] in `count.rs`): this block's counters;
//! - this file: the units joined, and the counter block's `index`.
//!
//! # Ports
//! `HostIfIn` and `HostIfOut` of the model, one signal per field with the same name and
//! width, plus `clock`.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::hostif::CNT_BANK;
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

pub mod axil;
pub mod count;
pub mod counters;
pub mod cqwr;
pub mod decode;
pub mod fetch;
pub mod qp_regs;

pub use axil::AxiLiteRegs;
pub use count::SatCount;
pub use counters::HostCounters;
pub use cqwr::CqWriter;
pub use decode::RegDecode;
pub use fetch::SqFetch;
pub use qp_regs::{QpRegs, QpState};

use crate::engine::records::CplRec;
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct HostIf {
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
    pub cq_event: Signal<Out, Bit>,
    axil: AxiLiteRegs,
    fetch: SqFetch,
    cqwr: CqWriter,
    qp: QpRegs,
    dec: RegDecode,
    cnts: HostCounters,
    cnt_index: DFF<Bits<8>>,
    k_bank: Param<Bits<3>>,
    st: Signal<Local, QpState>,
    cpl: Signal<Local, CplRec>,
}

impl HostIf {
    pub fn new(p: &EngineParams, h: &HostParams) -> Self {
        h.validate().expect("valid host interface parameters");
        assert_eq!(h.queue_pairs, 1, "the host interface has one queue pair");
        HostIf {
            axil: AxiLiteRegs::new(),
            fetch: SqFetch::new(),
            cqwr: CqWriter::new(),
            qp: QpRegs::new(h.max_log2_size),
            dec: RegDecode::new(p, h),
            cnts: HostCounters::new(),
            k_bank: param(u64::from(CNT_BANK)),
            ..Default::default()
        }
    }
}

impl Logic for HostIf {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cnt_index);
        clock!(self, clock, axil, fetch, cqwr, qp, cnts);
        self.axil.reset.next = self.reset.val();
        self.fetch.reset.next = self.reset.val();
        self.cqwr.reset.next = self.reset.val();
        self.qp.reset.next = self.reset.val();
        self.cnts.reset.next = self.reset.val();
        self.st.next = self.qp.state.val();

        // The register port, its decoder, the queue pair's registers.
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
        self.dec.st.next = self.st.val();
        self.dec.cnt_index.next = self.cnt_index.q.val();
        self.axil.rd_data.next = self.dec.rd_val.val();
        self.axil.rd_ok.next = self.dec.rd_hit.val();
        self.axil.wr_ok.next = self.dec.wr_hit.val();
        self.qp.wr.next = self.axil.wr.val() & self.dec.wr_qp.val();
        self.qp.off.next = self.dec.wr_qp_off.val();
        self.qp.wdata.next = self.axil.wr_data.val();
        self.qp.took.next = self.fetch.took.val();
        self.qp.done.next = self.cqwr.done.val();
        self.cq_event.next = self.qp.cq_event.val();
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
        self.cnts.doorbell.next = self.qp.doorbell.val();
        self.cnts.beyond.next = self.qp.beyond.val();
        self.cnts.bad_entry.next = self.fetch.bad.val();
        self.cnts.rd_bad.next = self.axil.rd_bad.val();
        self.cnts.wr_bad.next = self.axil.wr_bad.val();
        self.cnts.bad_cq_cons.next = self.qp.bad_cq_cons.val();

        // The submission ring into the engine's command stream.
        self.fetch.run.next = self.st.val().sq_en & !self.st.val().sq_err;
        self.fetch.base.next = self.st.val().sq_base;
        self.fetch.log2.next = self.st.val().sq_log2;
        self.fetch.prod.next = self.st.val().sq_prod;
        self.fetch.cons.next = self.st.val().sq_cons;
        self.fetch.stop.next = self.qp.stop.val();
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

        // The engine's completions into the completion ring.
        self.cpl.next.tag = self.s_axis_cpl_tag.val();
        self.cpl.next.bytes = self.s_axis_cpl_bytes.val();
        self.cpl.next.conn = self.s_axis_cpl_conn.val();
        self.cpl.next.status = self.s_axis_cpl_status.val();
        self.cpl.next.opcode = self.s_axis_cpl_opcode.val();
        self.cpl.next.urgent = self.s_axis_cpl_urgent.val();
        self.cpl.next.eof = self.s_axis_cpl_eof.val();
        self.cqwr.run.next = self.st.val().cq_en;
        self.cqwr.base.next = self.st.val().cq_base;
        self.cqwr.log2.next = self.st.val().cq_log2;
        self.cqwr.prod.next = self.st.val().cq_prod;
        self.cqwr.cons.next = self.st.val().cq_cons;
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
