//! The engine: the parser and the pool manager joined by receive admission, the controller,
//! the message builder and delivery, with the receive-buffer RAM (model:
//! `sanswitch_model::blocks::engine`, whose documentation draws the data flow).
//!
//! # Ports
//! The ports are `sanswitch_model::blocks::engine::{EngineIn, EngineOut}`, one signal per
//! field with the same name and width (`sim/build.rs` checks the generated Verilog against
//! that table), plus `clock`.
//!
//! # Structure
//! This file only joins the units, each a block of its own with its ports and timing in its
//! file's documentation: [`RxAdmit`] (`rx_admit.rs`), the parser
//! ([`crate::parser::ControlParser`]), the pool manager ([`crate::pool::PoolManager`]),
//! [`Controller`] (`controller/`), [`Builder`] (`builder.rs`), [`Delivery`] (`delivery.rs`),
//! [`RxBuffers`] (`rx_buffers.rs`: the receive-buffer RAM), and the command and completion
//! FIFOs.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::engine::cnt_block;
use sanswitch_model::params::EngineParams;

pub mod builder;
pub mod controller;
pub mod delivery;
pub mod records;
pub mod rx_admit;
pub mod rx_buffers;

pub use builder::Builder;
pub use controller::Controller;
pub use delivery::Delivery;
pub use rx_admit::RxAdmit;
pub use rx_buffers::RxBuffers;

use crate::parser::ControlParser;
use crate::pool::PoolManager;
use crate::sequencer::Sequencer;
use crate::widgets::{Fifo, LutFifo, Param, param};
use records::{CmdRec, CplRec, HdrRec, PoolResp, SeqRsp, XferRec};

/// The engine; `A` is the pool manager's state-RAM address width.
#[derive(LogicBlock, Default)]
pub struct Engine<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_cmd_tvalid: Signal<In, Bit>,
    pub s_axis_cmd_opcode: Signal<In, Bits<8>>,
    pub s_axis_cmd_conn: Signal<In, Bits<16>>,
    pub s_axis_cmd_tag: Signal<In, Bits<32>>,
    pub s_axis_cmd_addr: Signal<In, Bits<64>>,
    pub s_axis_cmd_len: Signal<In, Bits<32>>,
    pub s_axis_cmd_aux: Signal<In, Bits<64>>,
    pub m_axis_cpl_tready: Signal<In, Bit>,
    pub m_axis_dmard_tready: Signal<In, Bit>,
    pub s_axis_dmard_tvalid: Signal<In, Bit>,
    pub s_axis_dmard_tdata: Signal<In, Bits<64>>,
    pub s_axis_dmard_tkeep: Signal<In, Bits<8>>,
    pub s_axis_dmard_tlast: Signal<In, Bit>,
    pub m_axis_dmawr_tready: Signal<In, Bit>,
    pub m_axis_tx_tready: Signal<In, Bit>,
    pub s_axis_rx_tvalid: Signal<In, Bit>,
    pub s_axis_rx_tdata: Signal<In, Bits<64>>,
    pub s_axis_rx_tkeep: Signal<In, Bits<8>>,
    pub s_axis_rx_tlast: Signal<In, Bit>,
    pub s_axis_rx_tuser: Signal<In, Bits<8>>,
    pub s_axis_down_tvalid: Signal<In, Bit>,
    pub s_axis_down_conn: Signal<In, Bits<8>>,
    pub m_axis_down_tready: Signal<In, Bit>,
    pub m_axis_rq_tready: Signal<In, Bit>,
    pub s_axis_rs_tvalid: Signal<In, Bit>,
    pub s_axis_rs_tag: Signal<In, Bits<16>>,
    pub s_axis_rs_status: Signal<In, Bits<3>>,
    pub s_axis_ac_tvalid: Signal<In, Bit>,
    pub s_axis_ac_conn: Signal<In, Bits<8>>,
    pub s_axis_ac_key: Signal<In, Bits<32>>,
    pub s_axis_ac_write: Signal<In, Bit>,
    pub s_axis_ac_addr: Signal<In, Bits<64>>,
    pub s_axis_ac_len: Signal<In, Bits<32>>,
    pub m_axis_ck_tready: Signal<In, Bit>,
    pub cnt_rd_index: Signal<In, Bits<8>>,
    pub fault_nomem: Signal<In, Bit>,

    pub s_axis_cmd_tready: Signal<Out, Bit>,
    pub m_axis_cpl_tvalid: Signal<Out, Bit>,
    pub m_axis_cpl_tag: Signal<Out, Bits<32>>,
    pub m_axis_cpl_bytes: Signal<Out, Bits<32>>,
    pub m_axis_cpl_conn: Signal<Out, Bits<16>>,
    pub m_axis_cpl_status: Signal<Out, Bits<16>>,
    pub m_axis_cpl_opcode: Signal<Out, Bits<8>>,
    pub m_axis_cpl_urgent: Signal<Out, Bit>,
    pub m_axis_cpl_eof: Signal<Out, Bit>,
    pub m_axis_dmard_tvalid: Signal<Out, Bit>,
    pub m_axis_dmard_addr: Signal<Out, Bits<64>>,
    pub m_axis_dmard_len: Signal<Out, Bits<32>>,
    pub s_axis_dmard_tready: Signal<Out, Bit>,
    pub m_axis_dmawr_tvalid: Signal<Out, Bit>,
    pub m_axis_dmawr_addr: Signal<Out, Bits<64>>,
    pub m_axis_dmawr_tdata: Signal<Out, Bits<64>>,
    pub m_axis_dmawr_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_dmawr_tlast: Signal<Out, Bit>,
    pub m_axis_tx_tvalid: Signal<Out, Bit>,
    pub m_axis_tx_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tx_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tx_tlast: Signal<Out, Bit>,
    pub m_axis_tx_tuser: Signal<Out, Bits<8>>,
    pub s_axis_rx_tready: Signal<Out, Bit>,
    pub s_axis_down_tready: Signal<Out, Bit>,
    pub m_axis_down_tvalid: Signal<Out, Bit>,
    pub m_axis_down_conn: Signal<Out, Bits<8>>,
    pub m_axis_rq_tvalid: Signal<Out, Bit>,
    pub m_axis_rq_tag: Signal<Out, Bits<16>>,
    pub m_axis_rq_write: Signal<Out, Bit>,
    pub m_axis_rq_conn: Signal<Out, Bits<8>>,
    pub m_axis_rq_raddr: Signal<Out, Bits<64>>,
    pub m_axis_rq_rkey: Signal<Out, Bits<32>>,
    pub m_axis_rq_laddr: Signal<Out, Bits<64>>,
    pub m_axis_rq_lkey: Signal<Out, Bits<32>>,
    pub m_axis_rq_len: Signal<Out, Bits<32>>,
    pub s_axis_rs_tready: Signal<Out, Bit>,
    pub s_axis_ac_tready: Signal<Out, Bit>,
    pub m_axis_ck_tvalid: Signal<Out, Bit>,
    pub m_axis_ck_grant: Signal<Out, Bit>,
    pub m_axis_ck_reason: Signal<Out, Bits<3>>,
    pub cnt_rd_data: Signal<Out, Bits<32>>,

    cmdq: LutFifo<CmdRec>,
    cplq: LutFifo<CplRec>,
    down_in: Fifo<Bits<8>>,
    down_out: Fifo<Bits<8>>,
    admit: RxAdmit,
    parser: ControlParser,
    pool: PoolManager<A>,
    seq: Sequencer,
    ctl: Controller,
    builder: Builder,
    delivery: Delivery,
    rxbuf: RxBuffers,
    /// The block the counter read port named the cycle before.
    cnt_sel: DFF<Bits<3>>,
    cnt_idx: Signal<Local, Bits<5>>,
    k_cnt_parser: Param<Bits<3>>,
    k_cnt_pool: Param<Bits<3>>,
    k_cnt_seq: Param<Bits<3>>,
    cmd_rec: Signal<Local, CmdRec>,
    hdr_rec: Signal<Local, HdrRec>,
    resp_rec: Signal<Local, PoolResp>,
    cpl_head: Signal<Local, CplRec>,
    k_no_cpl: Param<CplRec>,
    rsp_rec: Signal<Local, SeqRsp>,
    xfer_rec: Signal<Local, XferRec>,
}

impl<const A: usize> Engine<A> {
    pub fn new(p: &EngineParams) -> Self {
        p.validate().expect("valid engine parameters");
        Engine {
            cmdq: LutFifo::new(sanswitch_model::blocks::engine::CMD_FIFO),
            cplq: LutFifo::new(sanswitch_model::blocks::engine::CPL_FIFO),
            down_in: Fifo::new(2),
            down_out: Fifo::new(2),
            admit: RxAdmit::new(p),
            parser: ControlParser::new(&p.parser()),
            pool: PoolManager::<A>::new(&p.pool()),
            seq: Sequencer::new(&p.sequencer()),
            ctl: Controller::new(p),
            builder: Builder::default(),
            delivery: Delivery::new(p),
            rxbuf: RxBuffers::new(p),
            k_cnt_parser: param(cnt_block::PARSER as u64),
            k_cnt_pool: param(cnt_block::POOL as u64),
            k_cnt_seq: param(cnt_block::SEQUENCER as u64),
            ..Default::default()
        }
    }
}

impl<const A: usize> Logic for Engine<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cnt_sel);
        clock!(
            self, clock, cmdq, cplq, down_in, down_out, admit, parser, pool, seq, ctl, builder,
            delivery, rxbuf
        );
        self.rxbuf.reset.next = self.reset.val();
        self.cmdq.reset.next = self.reset.val();
        self.cplq.reset.next = self.reset.val();
        self.down_in.reset.next = self.reset.val();
        self.down_out.reset.next = self.reset.val();
        // SAN connection events in, teardowns out.
        self.down_in.push.next = self.s_axis_down_tvalid.val() & self.down_in.can_push.val();
        self.down_in.push_data.next = self.s_axis_down_conn.val();
        self.down_in.pop.next = self.ctl.take_down.val();
        self.s_axis_down_tready.next = self.down_in.can_push.val();
        self.ctl.down_valid.next = self.down_in.valid.val();
        self.ctl.down_conn.next = self.down_in.head.val();
        self.down_out.push.next = self.ctl.down_push.val();
        self.down_out.push_data.next = self.ctl.adm_conn.val();
        self.down_out.pop.next = self.m_axis_down_tready.val() & self.down_out.valid.val();
        self.ctl.down_can_push.next = self.down_out.can_push.val();
        self.m_axis_down_tvalid.next = self.down_out.valid.val();
        self.m_axis_down_conn.next = self.down_out.head.val();
        self.admit.reset.next = self.reset.val();
        self.parser.reset.next = self.reset.val();
        self.pool.reset.next = self.reset.val();
        self.ctl.reset.next = self.reset.val();
        self.builder.reset.next = self.reset.val();
        self.delivery.reset.next = self.reset.val();
        self.seq.reset.next = self.reset.val();

        // The sequencer: the controller's commands and their answers, its completion
        // requests; its RDMA requests and responses, and the peer's access checks, are the
        // SAN port's.
        self.seq.s_axis_cmd_tvalid.next = self.ctl.seq_valid.val();
        self.seq.s_axis_cmd_op.next = self.ctl.seq_cmd.val().op;
        self.seq.s_axis_cmd_conn.next = self.ctl.seq_cmd.val().conn;
        self.seq.s_axis_cmd_access.next = self.ctl.seq_cmd.val().access;
        self.seq.s_axis_cmd_nomem.next = self.fault_nomem.val();
        self.seq.s_axis_cmd_xfer.next = self.ctl.seq_cmd.val().xfer;
        self.seq.s_axis_cmd_addr.next = self.ctl.seq_cmd.val().addr;
        self.seq.s_axis_cmd_key.next = self.ctl.seq_cmd.val().key;
        self.seq.s_axis_cmd_len.next = self.ctl.seq_cmd.val().len;
        self.seq.s_axis_cmd_lkey.next = self.ctl.seq_cmd.val().lkey;
        self.ctl.seq_ready.next = self.seq.s_axis_cmd_tready.val();
        self.seq.m_axis_rsp_tready.next = self.ctl.take_rsp.val();
        self.ctl.rsp_valid.next = self.seq.m_axis_rsp_tvalid.val();
        self.rsp_rec.next.status = self.seq.m_axis_rsp_status.val();
        self.rsp_rec.next.key = self.seq.m_axis_rsp_key.val();
        self.ctl.rsp.next = self.rsp_rec.val();
        self.seq.m_axis_cpl_tready.next = self.ctl.take_xfer.val();
        self.ctl.xfer_valid.next = self.seq.m_axis_cpl_tvalid.val();
        self.xfer_rec.next.conn = self.seq.m_axis_cpl_conn.val();
        self.xfer_rec.next.xfer = self.seq.m_axis_cpl_xfer.val();
        self.xfer_rec.next.bytes = self.seq.m_axis_cpl_bytes.val();
        self.xfer_rec.next.write = self.seq.m_axis_cpl_write.val();
        self.xfer_rec.next.status = self.seq.m_axis_cpl_status.val();
        self.ctl.xfer.next = self.xfer_rec.val();
        self.seq.m_axis_rq_tready.next = self.m_axis_rq_tready.val();
        self.m_axis_rq_tvalid.next = self.seq.m_axis_rq_tvalid.val();
        self.m_axis_rq_tag.next = self.seq.m_axis_rq_tag.val();
        self.m_axis_rq_write.next = self.seq.m_axis_rq_write.val();
        self.m_axis_rq_conn.next = self.seq.m_axis_rq_conn.val();
        self.m_axis_rq_raddr.next = self.seq.m_axis_rq_raddr.val();
        self.m_axis_rq_rkey.next = self.seq.m_axis_rq_rkey.val();
        self.m_axis_rq_laddr.next = self.seq.m_axis_rq_laddr.val();
        self.m_axis_rq_lkey.next = self.seq.m_axis_rq_lkey.val();
        self.m_axis_rq_len.next = self.seq.m_axis_rq_len.val();
        self.seq.s_axis_rs_tvalid.next = self.s_axis_rs_tvalid.val();
        self.seq.s_axis_rs_tag.next = self.s_axis_rs_tag.val();
        self.seq.s_axis_rs_status.next = self.s_axis_rs_status.val();
        self.s_axis_rs_tready.next = self.seq.s_axis_rs_tready.val();
        self.seq.s_axis_ac_tvalid.next = self.s_axis_ac_tvalid.val();
        self.seq.s_axis_ac_conn.next = self.s_axis_ac_conn.val();
        self.seq.s_axis_ac_key.next = self.s_axis_ac_key.val();
        self.seq.s_axis_ac_write.next = self.s_axis_ac_write.val();
        self.seq.s_axis_ac_addr.next = self.s_axis_ac_addr.val();
        self.seq.s_axis_ac_len.next = self.s_axis_ac_len.val();
        self.s_axis_ac_tready.next = self.seq.s_axis_ac_tready.val();
        self.seq.m_axis_ck_tready.next = self.m_axis_ck_tready.val();
        self.m_axis_ck_tvalid.next = self.seq.m_axis_ck_tvalid.val();
        self.m_axis_ck_grant.next = self.seq.m_axis_ck_grant.val();
        self.m_axis_ck_reason.next = self.seq.m_axis_ck_reason.val();

        // Commands in, completions out.
        self.cmd_rec.next.opcode = self.s_axis_cmd_opcode.val();
        self.cmd_rec.next.conn = self.s_axis_cmd_conn.val();
        self.cmd_rec.next.tag = self.s_axis_cmd_tag.val();
        self.cmd_rec.next.addr = self.s_axis_cmd_addr.val();
        self.cmd_rec.next.len = self.s_axis_cmd_len.val();
        self.cmd_rec.next.aux = self.s_axis_cmd_aux.val();
        self.cmdq.push.next = self.s_axis_cmd_tvalid.val() & self.cmdq.can_push.val();
        self.cmdq.push_data.next = self.cmd_rec.val();
        self.cmdq.pop.next = self.ctl.take_cmd.val();
        self.s_axis_cmd_tready.next = self.cmdq.can_push.val();
        self.cplq.push.next = self.ctl.cpl_push.val();
        self.cplq.push_data.next = self.ctl.cpl.val();
        self.cplq.pop.next = self.m_axis_cpl_tready.val() & self.cplq.valid.val();
        // The port shows zero while empty, as the model's does (the LUT-RAM FIFO's head is
        // the RAM word at its read pointer).
        self.cpl_head.next = self.k_no_cpl.val();
        if self.cplq.valid.val() {
            self.cpl_head.next = self.cplq.head.val();
        }
        self.m_axis_cpl_tvalid.next = self.cplq.valid.val();
        self.m_axis_cpl_tag.next = self.cpl_head.val().tag;
        self.m_axis_cpl_bytes.next = self.cpl_head.val().bytes;
        self.m_axis_cpl_conn.next = self.cpl_head.val().conn;
        self.m_axis_cpl_status.next = self.cpl_head.val().status;
        self.m_axis_cpl_opcode.next = self.cpl_head.val().opcode;
        self.m_axis_cpl_urgent.next = self.cpl_head.val().urgent;
        self.m_axis_cpl_eof.next = self.cpl_head.val().eof;

        // Receive: admission, parser, receive-buffer RAM.
        self.admit.rx_valid.next = self.s_axis_rx_tvalid.val();
        self.admit.rx_data.next = self.s_axis_rx_tdata.val();
        self.admit.rx_keep.next = self.s_axis_rx_tkeep.val();
        self.admit.rx_last.next = self.s_axis_rx_tlast.val();
        self.admit.rx_conn.next = self.s_axis_rx_tuser.val();
        self.s_axis_rx_tready.next = self.admit.rx_ready.val();
        self.admit.out_ready.next = self.parser.s_axis_rx_tready.val();
        self.admit.ovr_pop.next = self.ctl.take_ovr.val();
        self.admit.op_valid.next = self.ctl.adm_valid.val();
        self.admit.op_conn.next = self.ctl.adm_conn.val();
        self.admit.op_post.next = self.ctl.adm_post.val();
        self.admit.op_buf.next = self.ctl.adm_buf.val();
        self.admit.op_open.next = self.ctl.adm_open.val();
        self.parser.s_axis_rx_tvalid.next = self.admit.out_valid.val();
        self.parser.s_axis_rx_tdata.next = self.admit.out_data.val();
        self.parser.s_axis_rx_tkeep.next = self.admit.out_keep.val();
        self.parser.s_axis_rx_tlast.next = self.admit.out_last.val();
        self.parser.s_axis_rx_tuser.next = self.admit.out_user.val();
        self.parser.m_axis_hdr_tready.next = self.ctl.take_hdr.val();
        self.parser.m_axis_pay_tready.next = true;
        // The counter read port: every bank reads the index, the block is registered.
        self.cnt_idx.next = self.cnt_rd_index.val().get_bits::<5>(0);
        self.parser.cnt_rd_index.next = self.cnt_idx.val();
        self.pool.cnt_rd_index.next = self.cnt_idx.val();
        self.seq.cnt_rd_index.next = self.cnt_idx.val();
        self.cnt_sel.d.next = self.cnt_rd_index.val().get_bits::<3>(5);
        if self.reset.val() {
            self.cnt_sel.d.next = 0.into();
        }
        self.cnt_rd_data.next = 0.into();
        if self.cnt_sel.q.val() == self.k_cnt_parser.val() {
            self.cnt_rd_data.next = self.parser.cnt_rd_data.val();
        }
        if self.cnt_sel.q.val() == self.k_cnt_pool.val() {
            self.cnt_rd_data.next = self.pool.cnt_rd_data.val();
        }
        if self.cnt_sel.q.val() == self.k_cnt_seq.val() {
            self.cnt_rd_data.next = self.seq.cnt_rd_data.val();
        }
        self.rxbuf.s_axis_pay_tvalid.next = self.parser.m_axis_pay_tvalid.val();
        self.rxbuf.s_axis_pay_tdata.next = self.parser.m_axis_pay_tdata.val();
        self.rxbuf.s_axis_pay_tlast.next = self.parser.m_axis_pay_tlast.val();
        self.rxbuf.s_axis_pay_tuser.next = self.parser.m_axis_pay_tuser.val();
        self.hdr_rec.next.tuser = self.parser.m_axis_hdr_tuser.val();
        self.hdr_rec.next.error = self.parser.m_axis_hdr_error.val();
        self.hdr_rec.next.mid = self.parser.m_axis_hdr_mid.val();
        self.hdr_rec.next.flags = self.parser.m_axis_hdr_flags.val();
        self.hdr_rec.next.bufs = self.parser.m_axis_hdr_bufs.val();
        self.hdr_rec.next.len = self.parser.m_axis_hdr_len.val();
        self.hdr_rec.next.mseq = self.parser.m_axis_hdr_mseq.val();
        self.hdr_rec.next.ack = self.parser.m_axis_hdr_mseq_ack.val();
        self.hdr_rec.next.ext = self.parser.m_axis_hdr_ext.val();
        self.hdr_rec.next.daddr = self.parser.m_axis_hdr_desc_addr.val();
        self.hdr_rec.next.dkey = self.parser.m_axis_hdr_desc_key.val();
        self.hdr_rec.next.dlen = self.parser.m_axis_hdr_desc_len.val();

        // The controller and the pool manager.
        self.ctl.ovr_valid.next = self.admit.ovr_valid.val();
        self.ctl.ovr_conn.next = self.admit.ovr_conn.val();
        self.ctl.hdr_valid.next = self.parser.m_axis_hdr_tvalid.val();
        self.ctl.hdr.next = self.hdr_rec.val();
        self.ctl.sent_valid.next = self.builder.sent_valid.val();
        self.ctl.sent.next = self.builder.sent.val();
        self.ctl.dlv_valid.next = self.delivery.done_valid.val();
        self.ctl.dlv.next = self.delivery.done.val();
        self.ctl.cmd_valid.next = self.cmdq.valid.val();
        self.ctl.cmd.next = self.cmdq.head.val();
        self.ctl.cpl_can_push.next = self.cplq.can_push.val();
        self.ctl.job_can_push.next = self.builder.job_can_push.val();
        self.ctl.dj_can_push.next = self.delivery.job_can_push.val();
        self.pool.s_axis_req_tvalid.next = self.ctl.pool_valid.val();
        self.pool.s_axis_req_op.next = self.ctl.pool_req.val().op;
        self.pool.s_axis_req_conn.next = self.ctl.pool_req.val().conn;
        self.pool.s_axis_req_class.next = self.ctl.pool_req.val().class;
        self.pool.s_axis_req_buf.next = self.ctl.pool_req.val().buf;
        self.pool.s_axis_req_a.next = self.ctl.pool_req.val().a;
        self.pool.s_axis_req_b.next = self.ctl.pool_req.val().b;
        self.pool.s_axis_req_c.next = self.ctl.pool_req.val().c;
        self.pool.s_axis_req_bufs.next = self.ctl.pool_req.val().bufs;
        self.pool.m_axis_resp_tready.next = true;
        self.ctl.pool_ready.next = self.pool.s_axis_req_tready.val();
        self.ctl.resp_valid.next = self.pool.m_axis_resp_tvalid.val();
        self.resp_rec.next.status = self.pool.m_axis_resp_status.val();
        self.resp_rec.next.buf = self.pool.m_axis_resp_buf.val();
        self.resp_rec.next.mseq = self.pool.m_axis_resp_mseq.val();
        self.resp_rec.next.ack = self.pool.m_axis_resp_ack.val();
        self.resp_rec.next.bufs = self.pool.m_axis_resp_bufs.val();
        self.resp_rec.next.update_due = self.pool.m_axis_resp_update_due.val();
        self.ctl.resp.next = self.resp_rec.val();

        // Sending: the builder, its host memory reads.
        self.builder.job_push.next = self.ctl.job_push.val();
        self.builder.job.next = self.ctl.job.val();
        self.builder.sent_pop.next = self.ctl.take_sent.val();
        self.builder.tx_ready.next = self.m_axis_tx_tready.val();
        self.builder.rd_ready.next = self.m_axis_dmard_tready.val();
        self.builder.rdd_valid.next = self.s_axis_dmard_tvalid.val();
        self.builder.rdd_data.next = self.s_axis_dmard_tdata.val();
        self.builder.rdd_keep.next = self.s_axis_dmard_tkeep.val();
        self.builder.rdd_last.next = self.s_axis_dmard_tlast.val();
        self.m_axis_tx_tvalid.next = self.builder.tx_valid.val();
        self.m_axis_tx_tdata.next = self.builder.tx_data.val();
        self.m_axis_tx_tkeep.next = self.builder.tx_keep.val();
        self.m_axis_tx_tlast.next = self.builder.tx_last.val();
        self.m_axis_tx_tuser.next = self.builder.tx_conn.val();
        self.m_axis_dmard_tvalid.next = self.builder.rd_valid.val();
        self.m_axis_dmard_addr.next = self.builder.rd_addr.val();
        self.m_axis_dmard_len.next = self.builder.rd_len.val();
        self.s_axis_dmard_tready.next = self.builder.rdd_ready.val();

        // Delivery: the receive-buffer RAM into host memory.
        self.delivery.job_push.next = self.ctl.dj_push.val();
        self.delivery.job.next = self.ctl.dj.val();
        self.delivery.done_pop.next = self.ctl.take_dlv.val();
        self.rxbuf.rd_addr.next = self.delivery.ram_addr.val();
        self.delivery.ram_data.next = self.rxbuf.rd_data.val();
        self.delivery.wr_ready.next = self.m_axis_dmawr_tready.val();
        self.m_axis_dmawr_tvalid.next = self.delivery.wr_valid.val();
        self.m_axis_dmawr_addr.next = self.delivery.wr_addr.val();
        self.m_axis_dmawr_tdata.next = self.delivery.wr_data.val();
        self.m_axis_dmawr_tkeep.next = self.delivery.wr_keep.val();
        self.m_axis_dmawr_tlast.next = self.delivery.wr_last.val();
    }
}
