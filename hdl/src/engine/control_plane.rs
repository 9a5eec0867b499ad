//! The engine's control plane: the [`Controller`] with the two blocks it drives, the pool
//! manager ([`PoolManager`]: buffers, sequence numbers, credits) and the sequencer
//! ([`Sequencer`]: registrations and RDMA). The controller's handshakes with them are
//! records here and the blocks' one-signal-per-field ports inside.
//!
//! # Ports
//! - The controller's event, job and admission ports, as [`Controller`] documents them
//!   (same names).
//! - The sequencer's SAN side, as [`Sequencer`] documents it (same names): `m_axis_rq_*`
//!   (RDMA requests out) and `s_axis_rs_*` (their responses), `s_axis_ac_*` (the peer's
//!   requests to check) and `m_axis_ck_*` (the verdicts); `fault_nomem` (in): the
//!   sequencer's temporary-memory failure input.
//! - `cnt_rd_index` (in) / `pool_cnt_data`, `seq_cnt_data` (out): the two blocks' counter
//!   banks, read combinationally (the engine registers the choice).
//! - `reset` (in): synchronous, all three.
//!
//! # Timing
//! The blocks' own; nothing here adds a register.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use super::Controller;
use super::records::{CmdRec, CplRec, DlvJob, HdrRec, PoolResp, SentRec, SeqRsp, TxJob, XferRec};
use crate::pool::PoolManager;
use crate::sequencer::Sequencer;

/// The control plane; `A` is the pool manager's state-RAM address width.
#[derive(LogicBlock, Default)]
pub struct ControlPlane<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ovr_valid: Signal<In, Bit>,
    pub ovr_conn: Signal<In, Bits<8>>,
    pub down_valid: Signal<In, Bit>,
    pub down_conn: Signal<In, Bits<8>>,
    pub down_can_push: Signal<In, Bit>,
    pub hdr_valid: Signal<In, Bit>,
    pub hdr: Signal<In, HdrRec>,
    pub sent_valid: Signal<In, Bit>,
    pub sent: Signal<In, SentRec>,
    pub dlv_valid: Signal<In, Bit>,
    pub dlv: Signal<In, DlvJob>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd: Signal<In, CmdRec>,
    pub cpl_can_push: Signal<In, Bit>,
    pub job_can_push: Signal<In, Bit>,
    pub dj_can_push: Signal<In, Bit>,
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
    pub fault_nomem: Signal<In, Bit>,
    pub cnt_rd_index: Signal<In, Bits<5>>,
    pub take_down: Signal<Out, Bit>,
    pub down_push: Signal<Out, Bit>,
    pub take_ovr: Signal<Out, Bit>,
    pub take_hdr: Signal<Out, Bit>,
    pub take_sent: Signal<Out, Bit>,
    pub take_dlv: Signal<Out, Bit>,
    pub take_cmd: Signal<Out, Bit>,
    pub cpl_push: Signal<Out, Bit>,
    pub cpl: Signal<Out, CplRec>,
    pub job_push: Signal<Out, Bit>,
    pub job: Signal<Out, TxJob>,
    pub dj_push: Signal<Out, Bit>,
    pub dj: Signal<Out, DlvJob>,
    pub adm_valid: Signal<Out, Bit>,
    pub adm_conn: Signal<Out, Bits<8>>,
    pub adm_post: Signal<Out, Bit>,
    pub adm_open: Signal<Out, Bit>,
    pub adm_buf: Signal<Out, Bits<8>>,
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
    pub pool_cnt_data: Signal<Out, Bits<32>>,
    pub seq_cnt_data: Signal<Out, Bits<32>>,
    ctl: Controller,
    pool: PoolManager<A>,
    seq: Sequencer,
    resp_rec: Signal<Local, PoolResp>,
    rsp_rec: Signal<Local, SeqRsp>,
    xfer_rec: Signal<Local, XferRec>,
}

impl<const A: usize> ControlPlane<A> {
    pub fn new(p: &EngineParams) -> Self {
        ControlPlane {
            ctl: Controller::new(p),
            pool: PoolManager::<A>::new(&p.pool()),
            seq: Sequencer::new(&p.sequencer()),
            ..Default::default()
        }
    }
}

impl<const A: usize> Logic for ControlPlane<A> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ctl, pool, seq);
        self.ctl.reset.next = self.reset.val();
        self.pool.reset.next = self.reset.val();
        self.seq.reset.next = self.reset.val();
        // The controller's ports.
        self.ctl.ovr_valid.next = self.ovr_valid.val();
        self.ctl.ovr_conn.next = self.ovr_conn.val();
        self.ctl.down_valid.next = self.down_valid.val();
        self.ctl.down_conn.next = self.down_conn.val();
        self.ctl.down_can_push.next = self.down_can_push.val();
        self.ctl.hdr_valid.next = self.hdr_valid.val();
        self.ctl.hdr.next = self.hdr.val();
        self.ctl.sent_valid.next = self.sent_valid.val();
        self.ctl.sent.next = self.sent.val();
        self.ctl.dlv_valid.next = self.dlv_valid.val();
        self.ctl.dlv.next = self.dlv.val();
        self.ctl.cmd_valid.next = self.cmd_valid.val();
        self.ctl.cmd.next = self.cmd.val();
        self.ctl.cpl_can_push.next = self.cpl_can_push.val();
        self.ctl.job_can_push.next = self.job_can_push.val();
        self.ctl.dj_can_push.next = self.dj_can_push.val();
        self.take_down.next = self.ctl.take_down.val();
        self.down_push.next = self.ctl.down_push.val();
        self.take_ovr.next = self.ctl.take_ovr.val();
        self.take_hdr.next = self.ctl.take_hdr.val();
        self.take_sent.next = self.ctl.take_sent.val();
        self.take_dlv.next = self.ctl.take_dlv.val();
        self.take_cmd.next = self.ctl.take_cmd.val();
        self.cpl_push.next = self.ctl.cpl_push.val();
        self.cpl.next = self.ctl.cpl.val();
        self.job_push.next = self.ctl.job_push.val();
        self.job.next = self.ctl.job.val();
        self.dj_push.next = self.ctl.dj_push.val();
        self.dj.next = self.ctl.dj.val();
        self.adm_valid.next = self.ctl.adm_valid.val();
        self.adm_conn.next = self.ctl.adm_conn.val();
        self.adm_post.next = self.ctl.adm_post.val();
        self.adm_open.next = self.ctl.adm_open.val();
        self.adm_buf.next = self.ctl.adm_buf.val();

        // The pool manager: requests and answers.
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

        // The sequencer: the controller's commands and their answers, its completion
        // requests (an event); its SAN side is this block's.
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
        self.seq.s_axis_rs_tvalid.next = self.s_axis_rs_tvalid.val();
        self.seq.s_axis_rs_tag.next = self.s_axis_rs_tag.val();
        self.seq.s_axis_rs_status.next = self.s_axis_rs_status.val();
        self.seq.s_axis_ac_tvalid.next = self.s_axis_ac_tvalid.val();
        self.seq.s_axis_ac_conn.next = self.s_axis_ac_conn.val();
        self.seq.s_axis_ac_key.next = self.s_axis_ac_key.val();
        self.seq.s_axis_ac_write.next = self.s_axis_ac_write.val();
        self.seq.s_axis_ac_addr.next = self.s_axis_ac_addr.val();
        self.seq.s_axis_ac_len.next = self.s_axis_ac_len.val();
        self.seq.m_axis_ck_tready.next = self.m_axis_ck_tready.val();
        self.m_axis_rq_tvalid.next = self.seq.m_axis_rq_tvalid.val();
        self.m_axis_rq_tag.next = self.seq.m_axis_rq_tag.val();
        self.m_axis_rq_write.next = self.seq.m_axis_rq_write.val();
        self.m_axis_rq_conn.next = self.seq.m_axis_rq_conn.val();
        self.m_axis_rq_raddr.next = self.seq.m_axis_rq_raddr.val();
        self.m_axis_rq_rkey.next = self.seq.m_axis_rq_rkey.val();
        self.m_axis_rq_laddr.next = self.seq.m_axis_rq_laddr.val();
        self.m_axis_rq_lkey.next = self.seq.m_axis_rq_lkey.val();
        self.m_axis_rq_len.next = self.seq.m_axis_rq_len.val();
        self.s_axis_rs_tready.next = self.seq.s_axis_rs_tready.val();
        self.s_axis_ac_tready.next = self.seq.s_axis_ac_tready.val();
        self.m_axis_ck_tvalid.next = self.seq.m_axis_ck_tvalid.val();
        self.m_axis_ck_grant.next = self.seq.m_axis_ck_grant.val();
        self.m_axis_ck_reason.next = self.seq.m_axis_ck_reason.val();

        // The counter banks.
        self.pool.cnt_rd_index.next = self.cnt_rd_index.val();
        self.seq.cnt_rd_index.next = self.cnt_rd_index.val();
        self.pool_cnt_data.next = self.pool.cnt_rd_data.val();
        self.seq_cnt_data.next = self.seq.cnt_rd_data.val();
    }
}
