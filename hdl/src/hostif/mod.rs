//! The host interface: the register space of `sanswitch_model::regs` behind an AXI4-Lite
//! port, one queue pair's rings in host memory, and the engine's command and completion
//! streams (model: `sanswitch_model::blocks::hostif`, whose documentation gives the
//! behaviour cycle by cycle).
//!
//! # Structure
//! - [`AxiLiteRegs`] (`axil.rs`): the AXI4-Lite channels as a write strobe and a read;
//! - [`SqFetch`] (`fetch.rs`): the submission ring's fetch and the command FIFO;
//! - [`CqWriter`] (`cqwr.rs`): the completion ring's writes;
//! - [`SatCount`] (`count.rs`): this block's counters (`hostif::cnt`);
//! - this file: the register file (ring registers, the counter index, this block's
//!   counters) and its address decoder.
//!
//! # Ports
//! `HostIfIn` and `HostIfOut` of the model, one signal per field with the same name and
//! width, plus `clock`.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::hostif::{CNT_BANK, cnt};
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::{self, BlockType, HostParams, qp};

pub mod axil;
pub mod count;
pub mod cqwr;
pub mod fetch;

pub use axil::AxiLiteRegs;
pub use count::SatCount;
pub use cqwr::CqWriter;
pub use fetch::SqFetch;

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
    sq_base: DFF<Bits<64>>,
    sq_log2: DFF<Bits<4>>,
    sq_prod: DFF<Bits<16>>,
    sq_cons: DFF<Bits<16>>,
    sq_en: DFF<Bit>,
    sq_err: DFF<Bit>,
    cq_base: DFF<Bits<64>>,
    cq_log2: DFF<Bits<4>>,
    cq_prod: DFF<Bits<16>>,
    cq_cons: DFF<Bits<16>>,
    cq_en: DFF<Bit>,
    cq_arm: DFF<Bit>,
    cnt_index: DFF<Bits<8>>,
    ev_reg: DFF<Bit>,
    /// The register map: every readable offset and its value (ID values and the chain's
    /// headers are constants).
    k_off: Vec<Param<Bits<12>>>,
    k_val: Vec<Param<Bits<32>>>,
    k_cnt_index: Param<Bits<12>>,
    k_cnt_data: Param<Bits<12>>,
    k_sq_base_lo: Param<Bits<12>>,
    k_sq_base_hi: Param<Bits<12>>,
    k_sq_log2_size: Param<Bits<12>>,
    k_sq_prod: Param<Bits<12>>,
    k_sq_cons: Param<Bits<12>>,
    k_sq_ctrl: Param<Bits<12>>,
    k_cq_base_lo: Param<Bits<12>>,
    k_cq_base_hi: Param<Bits<12>>,
    k_cq_log2_size: Param<Bits<12>>,
    k_cq_prod: Param<Bits<12>>,
    k_cq_cons: Param<Bits<12>>,
    k_cq_ctrl: Param<Bits<12>>,
    k_ctrl_en: Param<Bits<32>>,
    k_ctrl_arm: Param<Bits<32>>,
    k_ctrl_err: Param<Bits<32>>,
    k_qp: Param<Bits<12>>,
    k_qp_end: Param<Bits<12>>,
    k_bank: Param<Bits<3>>,
    k_max_log2: Param<Bits<4>>,
    k_one: Param<Bits<16>>,
    wr_off: Signal<Local, Bits<12>>,
    rd_off: Signal<Local, Bits<12>>,
    qp_rd: Signal<Local, Bits<12>>,
    qp_wr: Signal<Local, Bits<12>>,
    wdata: Signal<Local, Bits<32>>,
    wlog2: Signal<Local, Bits<4>>,
    cnt_val: Signal<Local, Bits<32>>,
    rd_val: Signal<Local, Bits<32>>,
    rd_hit: Signal<Local, Bit>,
    wr_hit: Signal<Local, Bit>,
    sq_size: Signal<Local, Bits<16>>,
    cq_size: Signal<Local, Bits<16>>,
    sq_cons_next: Signal<Local, Bits<16>>,
    cq_prod_next: Signal<Local, Bits<16>>,
    cpl: Signal<Local, CplRec>,
    sq_ctrl_v: Signal<Local, Bits<32>>,
    sq_err_v: Signal<Local, Bits<32>>,
    cq_ctrl_v: Signal<Local, Bits<32>>,
    cq_arm_v: Signal<Local, Bits<32>>,
    /// This block's counters (`hostif::cnt`, in that order).
    c_fetched: SatCount,
    c_completed: SatCount,
    c_doorbells: SatCount,
    c_beyond: SatCount,
    c_bad_entry: SatCount,
    c_bad_register: SatCount,
    c_bad_cq_cons: SatCount,
    k_cnt_idx: Vec<Param<Bits<5>>>,
}

impl HostIf {
    pub fn new(p: &EngineParams, h: &HostParams) -> Self {
        h.validate().expect("valid host interface parameters");
        assert_eq!(h.queue_pairs, 1, "the host interface has one queue pair");
        let layout = regs::layout(h);
        let mut map: Vec<(u32, u32)> = Vec::new();
        for (k, (base, def)) in layout.iter().enumerate() {
            map.push((base + regs::HDR_TYPE, def.kind as u32));
            map.push((base + regs::HDR_VERSION, def.version));
            map.push((base + regs::HDR_NEXT, layout.get(k + 1).map_or(0, |n| n.0)));
            if def.kind == BlockType::Id {
                map.extend(regs::id_values(p, h));
            }
        }
        let qp_base = layout[2].0;
        HostIf {
            fetch: SqFetch::new(),
            cqwr: CqWriter::new(),
            axil: AxiLiteRegs::new(),
            k_off: map.iter().map(|m| param(u64::from(m.0))).collect(),
            k_val: map.iter().map(|m| param(u64::from(m.1))).collect(),
            k_cnt_index: param(u64::from(layout[1].0 + regs::cnt::INDEX)),
            k_cnt_data: param(u64::from(layout[1].0 + regs::cnt::DATA)),
            k_sq_base_lo: param(u64::from(qp::SQ_BASE_LO)),
            k_sq_base_hi: param(u64::from(qp::SQ_BASE_HI)),
            k_sq_log2_size: param(u64::from(qp::SQ_LOG2_SIZE)),
            k_sq_prod: param(u64::from(qp::SQ_PROD)),
            k_sq_cons: param(u64::from(qp::SQ_CONS)),
            k_sq_ctrl: param(u64::from(qp::SQ_CTRL)),
            k_cq_base_lo: param(u64::from(qp::CQ_BASE_LO)),
            k_cq_base_hi: param(u64::from(qp::CQ_BASE_HI)),
            k_cq_log2_size: param(u64::from(qp::CQ_LOG2_SIZE)),
            k_cq_prod: param(u64::from(qp::CQ_PROD)),
            k_cq_cons: param(u64::from(qp::CQ_CONS)),
            k_cq_ctrl: param(u64::from(qp::CQ_CTRL)),
            k_ctrl_en: param(u64::from(qp::CTRL_ENABLE)),
            k_ctrl_arm: param(u64::from(qp::CTRL_ARM)),
            k_ctrl_err: param(u64::from(qp::CTRL_ERR_DOORBELL)),
            k_qp: param(u64::from(qp_base)),
            k_qp_end: param(u64::from(qp_base + regs::QUEUE_PAIR_BLOCK.bytes)),
            k_bank: param(u64::from(CNT_BANK)),
            k_max_log2: param(u64::from(h.max_log2_size)),
            k_one: param(1),
            k_cnt_idx: (0..cnt::COUNT).map(|i| param(i as u64)).collect(),
            ..Default::default()
        }
    }
}

impl Logic for HostIf {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, sq_base, sq_log2, sq_prod, sq_cons, sq_en, sq_err, cq_base, cq_log2,
            cq_prod, cq_cons, cq_en, cq_arm, cnt_index, ev_reg
        );
        clock!(
            self,
            clock,
            axil,
            fetch,
            cqwr,
            c_fetched,
            c_completed,
            c_doorbells,
            c_beyond,
            c_bad_entry,
            c_bad_register,
            c_bad_cq_cons
        );
        self.axil.reset.next = self.reset.val();
        self.fetch.reset.next = self.reset.val();
        self.cqwr.reset.next = self.reset.val();
        self.c_fetched.reset.next = self.reset.val();
        self.c_completed.reset.next = self.reset.val();
        self.c_doorbells.reset.next = self.reset.val();
        self.c_beyond.reset.next = self.reset.val();
        self.c_bad_entry.reset.next = self.reset.val();
        self.c_bad_register.reset.next = self.reset.val();
        self.c_bad_cq_cons.reset.next = self.reset.val();

        // The register port.
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
        self.wr_off.next = self.axil.wr_addr.val();
        self.rd_off.next = self.axil.rd_addr.val();
        self.wdata.next = self.axil.wr_data.val();

        // The counter read port, and this block's own bank.
        self.cnt_rd_index.next = self.cnt_index.q.val();
        self.cnt_val.next = self.cnt_rd_data.val();
        if self.cnt_index.q.val().get_bits::<3>(5) == self.k_bank.val() {
            self.cnt_val.next = 0.into();
            if self.cnt_index.q.val().get_bits::<5>(0) == self.k_cnt_idx[0].val() {
                self.cnt_val.next = self.c_fetched.value.val();
            }
            if self.cnt_index.q.val().get_bits::<5>(0) == self.k_cnt_idx[1].val() {
                self.cnt_val.next = self.c_completed.value.val();
            }
            if self.cnt_index.q.val().get_bits::<5>(0) == self.k_cnt_idx[2].val() {
                self.cnt_val.next = self.c_doorbells.value.val();
            }
            if self.cnt_index.q.val().get_bits::<5>(0) == self.k_cnt_idx[3].val() {
                self.cnt_val.next = self.c_beyond.value.val();
            }
            if self.cnt_index.q.val().get_bits::<5>(0) == self.k_cnt_idx[4].val() {
                self.cnt_val.next = self.c_bad_entry.value.val();
            }
            if self.cnt_index.q.val().get_bits::<5>(0) == self.k_cnt_idx[5].val() {
                self.cnt_val.next = self.c_bad_register.value.val();
            }
            if self.cnt_index.q.val().get_bits::<5>(0) == self.k_cnt_idx[6].val() {
                self.cnt_val.next = self.c_bad_cq_cons.value.val();
            }
        }

        // Reads: the constants, the counter block, the queue pair.
        self.sq_ctrl_v.next = 0.into();
        if self.sq_en.q.val() {
            self.sq_ctrl_v.next = self.k_ctrl_en.val();
        }
        self.sq_err_v.next = 0.into();
        if self.sq_err.q.val() {
            self.sq_err_v.next = self.k_ctrl_err.val();
        }
        self.cq_ctrl_v.next = 0.into();
        if self.cq_en.q.val() {
            self.cq_ctrl_v.next = self.k_ctrl_en.val();
        }
        self.cq_arm_v.next = 0.into();
        if self.cq_arm.q.val() {
            self.cq_arm_v.next = self.k_ctrl_arm.val();
        }
        self.rd_hit.next = false;
        self.rd_val.next = 0.into();
        for i in 0..self.k_off.len() {
            if self.rd_off.val() == self.k_off[i].val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.k_val[i].val();
            }
        }
        if self.rd_off.val() == self.k_cnt_index.val() {
            self.rd_hit.next = true;
            self.rd_val.next = bit_cast::<32, 8>(self.cnt_index.q.val());
        }
        if self.rd_off.val() == self.k_cnt_data.val() {
            self.rd_hit.next = true;
            self.rd_val.next = self.cnt_val.val();
        }
        self.qp_rd.next = self.rd_off.val() - self.k_qp.val();
        if (self.rd_off.val() >= self.k_qp.val()) & (self.rd_off.val() < self.k_qp_end.val()) {
            if self.qp_rd.val() == self.k_sq_base_lo.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.sq_base.q.val().get_bits::<32>(0);
            }
            if self.qp_rd.val() == self.k_sq_base_hi.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.sq_base.q.val().get_bits::<32>(32);
            }
            if self.qp_rd.val() == self.k_sq_log2_size.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 4>(self.sq_log2.q.val());
            }
            if self.qp_rd.val() == self.k_sq_prod.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 16>(self.sq_prod.q.val());
            }
            if self.qp_rd.val() == self.k_sq_cons.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 16>(self.sq_cons.q.val());
            }
            if self.qp_rd.val() == self.k_sq_ctrl.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.sq_ctrl_v.val() | self.sq_err_v.val();
            }
            if self.qp_rd.val() == self.k_cq_base_lo.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.cq_base.q.val().get_bits::<32>(0);
            }
            if self.qp_rd.val() == self.k_cq_base_hi.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.cq_base.q.val().get_bits::<32>(32);
            }
            if self.qp_rd.val() == self.k_cq_log2_size.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 4>(self.cq_log2.q.val());
            }
            if self.qp_rd.val() == self.k_cq_prod.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 16>(self.cq_prod.q.val());
            }
            if self.qp_rd.val() == self.k_cq_cons.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 16>(self.cq_cons.q.val());
            }
            if self.qp_rd.val() == self.k_cq_ctrl.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.cq_ctrl_v.val() | self.cq_arm_v.val();
            }
        }
        self.axil.rd_data.next = self.rd_val.val();
        self.axil.rd_ok.next = self.rd_hit.val();

        // The rings.
        self.sq_size.next = self.k_one.val() << bit_cast::<16, 4>(self.sq_log2.q.val());
        self.cq_size.next = self.k_one.val() << bit_cast::<16, 4>(self.cq_log2.q.val());
        self.fetch.run.next = self.sq_en.q.val() & !self.sq_err.q.val();
        self.fetch.base.next = self.sq_base.q.val();
        self.fetch.log2.next = self.sq_log2.q.val();
        self.fetch.prod.next = self.sq_prod.q.val();
        self.fetch.cons.next = self.sq_cons.q.val();
        self.fetch.stop.next = false;
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
        self.sq_cons_next.next = self.sq_cons.q.val();
        if self.fetch.took.val() {
            self.sq_cons_next.next = self.sq_cons.q.val() + 1;
        }
        self.sq_cons.d.next = self.sq_cons_next.val();

        self.cpl.next.tag = self.s_axis_cpl_tag.val();
        self.cpl.next.bytes = self.s_axis_cpl_bytes.val();
        self.cpl.next.conn = self.s_axis_cpl_conn.val();
        self.cpl.next.status = self.s_axis_cpl_status.val();
        self.cpl.next.opcode = self.s_axis_cpl_opcode.val();
        self.cpl.next.urgent = self.s_axis_cpl_urgent.val();
        self.cpl.next.eof = self.s_axis_cpl_eof.val();
        self.cqwr.run.next = self.cq_en.q.val();
        self.cqwr.base.next = self.cq_base.q.val();
        self.cqwr.log2.next = self.cq_log2.q.val();
        self.cqwr.prod.next = self.cq_prod.q.val();
        self.cqwr.cons.next = self.cq_cons.q.val();
        self.cqwr.cpl_valid.next = self.s_axis_cpl_tvalid.val();
        self.cqwr.cpl.next = self.cpl.val();
        self.cqwr.m_axis_cqwr_tready.next = self.m_axis_cqwr_tready.val();
        self.s_axis_cpl_tready.next = self.cqwr.s_axis_cpl_tready.val();
        self.m_axis_cqwr_tvalid.next = self.cqwr.m_axis_cqwr_tvalid.val();
        self.m_axis_cqwr_addr.next = self.cqwr.m_axis_cqwr_addr.val();
        self.m_axis_cqwr_tdata.next = self.cqwr.m_axis_cqwr_tdata.val();
        self.m_axis_cqwr_tkeep.next = self.cqwr.m_axis_cqwr_tkeep.val();
        self.m_axis_cqwr_tlast.next = self.cqwr.m_axis_cqwr_tlast.val();
        self.cq_prod_next.next = self.cq_prod.q.val();
        self.ev_reg.d.next = false;
        if self.cqwr.done.val() {
            self.cq_prod_next.next = self.cq_prod.q.val() + 1;
            if self.cq_arm.q.val() {
                self.cq_arm.d.next = false;
                self.ev_reg.d.next = true;
            }
        }
        self.cq_prod.d.next = self.cq_prod_next.val();
        self.cq_event.next = self.ev_reg.q.val();

        // Counted events (a bad read's answer and a bad write can land at the same edge).
        self.c_fetched.inc.next = 0.into();
        if self.fetch.took.val() {
            self.c_fetched.inc.next = 1.into();
        }
        self.c_completed.inc.next = 0.into();
        if self.cqwr.done.val() {
            self.c_completed.inc.next = 1.into();
        }
        self.c_bad_entry.inc.next = 0.into();
        if self.fetch.bad.val() {
            self.c_bad_entry.inc.next = 1.into();
        }
        self.c_bad_register.inc.next = 0.into();
        if self.axil.rd_bad.val() | self.axil.wr_bad.val() {
            self.c_bad_register.inc.next = 1.into();
        }
        if self.axil.rd_bad.val() & self.axil.wr_bad.val() {
            self.c_bad_register.inc.next = 2.into();
        }
        self.c_doorbells.inc.next = 0.into();
        self.c_beyond.inc.next = 0.into();
        self.c_bad_cq_cons.inc.next = 0.into();

        // Writes, last: they win over this edge's pointer moves.
        self.wr_hit.next = false;
        for i in 0..self.k_off.len() {
            if self.wr_off.val() == self.k_off[i].val() {
                self.wr_hit.next = true;
            }
        }
        if (self.wr_off.val() == self.k_cnt_index.val())
            | (self.wr_off.val() == self.k_cnt_data.val())
        {
            self.wr_hit.next = true;
        }
        self.qp_wr.next = self.wr_off.val() - self.k_qp.val();
        if (self.wr_off.val() >= self.k_qp.val())
            & (self.wr_off.val() < self.k_qp_end.val())
            & (self.qp_wr.val() >= self.k_sq_base_lo.val())
            & (self.qp_wr.val() <= self.k_cq_ctrl.val())
        {
            self.wr_hit.next = true;
        }
        self.axil.wr_ok.next = self.wr_hit.val();
        self.wlog2.next = self.wdata.val().get_bits::<4>(0);
        if self.wdata.val() > bit_cast::<32, 4>(self.k_max_log2.val()) {
            self.wlog2.next = self.k_max_log2.val();
        }
        if self.wdata.val() == 0 {
            self.wlog2.next = 1.into();
        }
        if self.axil.wr.val() & self.wr_hit.val() {
            if self.wr_off.val() == self.k_cnt_index.val() {
                self.cnt_index.d.next = self.wdata.val().get_bits::<8>(0);
            }
            if (self.qp_wr.val() == self.k_sq_base_lo.val()) & !self.sq_en.q.val() {
                self.sq_base.d.next = bit_cast::<64, 32>(self.wdata.val())
                    | (bit_cast::<64, 32>(self.sq_base.q.val().get_bits::<32>(32)) << 32);
            }
            if (self.qp_wr.val() == self.k_sq_base_hi.val()) & !self.sq_en.q.val() {
                self.sq_base.d.next = bit_cast::<64, 32>(self.sq_base.q.val().get_bits::<32>(0))
                    | (bit_cast::<64, 32>(self.wdata.val()) << 32);
            }
            if (self.qp_wr.val() == self.k_sq_log2_size.val()) & !self.sq_en.q.val() {
                self.sq_log2.d.next = self.wlog2.val();
            }
            if (self.qp_wr.val() == self.k_sq_prod.val())
                & self.sq_en.q.val()
                & !self.sq_err.q.val()
            {
                self.c_doorbells.inc.next = 1.into();
                if (self.wdata.val().get_bits::<16>(0) - self.sq_cons_next.val())
                    > self.sq_size.val()
                {
                    self.sq_err.d.next = true;
                    self.c_beyond.inc.next = 1.into();
                } else {
                    self.sq_prod.d.next = self.wdata.val().get_bits::<16>(0);
                }
            }
            if self.qp_wr.val() == self.k_sq_ctrl.val() {
                self.sq_en.d.next = self.wdata.val().get_bit(0);
                if !self.wdata.val().get_bit(0) {
                    self.fetch.stop.next = true;
                    self.sq_prod.d.next = 0.into();
                    self.sq_cons.d.next = 0.into();
                    self.sq_err.d.next = false;
                }
            }
            if (self.qp_wr.val() == self.k_cq_base_lo.val()) & !self.cq_en.q.val() {
                self.cq_base.d.next = bit_cast::<64, 32>(self.wdata.val())
                    | (bit_cast::<64, 32>(self.cq_base.q.val().get_bits::<32>(32)) << 32);
            }
            if (self.qp_wr.val() == self.k_cq_base_hi.val()) & !self.cq_en.q.val() {
                self.cq_base.d.next = bit_cast::<64, 32>(self.cq_base.q.val().get_bits::<32>(0))
                    | (bit_cast::<64, 32>(self.wdata.val()) << 32);
            }
            if (self.qp_wr.val() == self.k_cq_log2_size.val()) & !self.cq_en.q.val() {
                self.cq_log2.d.next = self.wlog2.val();
            }
            if (self.qp_wr.val() == self.k_cq_cons.val()) & self.cq_en.q.val() {
                if (self.cq_prod_next.val() - self.wdata.val().get_bits::<16>(0))
                    > self.cq_size.val()
                {
                    self.c_bad_cq_cons.inc.next = 1.into();
                } else {
                    self.cq_cons.d.next = self.wdata.val().get_bits::<16>(0);
                }
            }
            if self.qp_wr.val() == self.k_cq_ctrl.val() {
                self.cq_en.d.next = self.wdata.val().get_bit(0);
                self.cq_arm.d.next = self.wdata.val().get_bit(1);
                if !self.wdata.val().get_bit(0) {
                    self.cq_prod.d.next = 0.into();
                    self.cq_cons.d.next = 0.into();
                }
            }
        }

        if self.reset.val() {
            self.sq_base.d.next = 0.into();
            self.sq_log2.d.next = 0.into();
            self.sq_prod.d.next = 0.into();
            self.sq_cons.d.next = 0.into();
            self.sq_en.d.next = false;
            self.sq_err.d.next = false;
            self.cq_base.d.next = 0.into();
            self.cq_log2.d.next = 0.into();
            self.cq_prod.d.next = 0.into();
            self.cq_cons.d.next = 0.into();
            self.cq_en.d.next = false;
            self.cq_arm.d.next = false;
            self.cnt_index.d.next = 0.into();
            self.ev_reg.d.next = false;
        }
    }
}
