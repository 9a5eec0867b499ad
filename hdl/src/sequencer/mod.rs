//! The RDMA read/write sequencer: registration table, op table, RDMA requests, completion
//! requests and remote-access checks.
//!
//! # Ports
//! The ports are `sanswitch_model::blocks::sequencer::{SequencerIn, SequencerOut}`, one
//! signal per field with the same name and width (`sim/build.rs` checks the generated
//! Verilog against that table), plus `clock`. The model's module documentation describes
//! them; `docs/HARDWARE.md` ("RDMA read/write sequencer") gives the protocol.
//!
//! # Structure
//! This file only joins the units, each a block of its own with its ports and timing in its
//! file's documentation:
//! - [`CmdUnit`] (`command.rs`): commands in, responses out, three cycles per command;
//! - [`RegTable`] (`reg_table.rs`): the registration table (tags in flip-flops, words in RAM);
//! - [`OpTable`] (`op_table.rs`): one [`OpEntry`] per transfer, three read ports and the
//!   masks the other units pick from;
//! - [`Issuer`] (`issue.rs`): picks an op (round robin) one cycle, issues its request the
//!   next, so at most one request leaves every two cycles;
//! - [`RespMatcher`] (`response.rs`): responses registered, matched the next cycle (stale,
//!   duplicate, good);
//! - [`CplBuilder`] (`completion.rs`): the lowest op that is done leaves as a completion,
//!   passed through in the cycle after its last response while nothing is held;
//! - [`AccessChecker`] (`checks.rs`): the peer's RDMA operations checked against its own copy
//!   of the table's words.
//!
//! Counters: each unit keeps its lane ([`cnt::LANES`]) in a `CounterBank`; `cnt_rd_index`
//! goes to every lane (less the lane's first index) and `cnt_rd_data` takes the lane named
//! the cycle before. Every output comes from a register (or a multiplexer of registers)
//! except `m_axis_cpl_*`, logic on the op table's registers; none depends on an input in the
//! same cycle: `s_axis_ac_tready`, `s_axis_cmd_tready` and `s_axis_rs_tready` depend on
//! registers only.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::sequencer::{MAX_OPS, cnt};
use sanswitch_model::params::SequencerParams;

mod checks;
mod command;
mod completion;
mod issue;
mod op_slot;
mod op_table;
mod records;
mod reg_table;
mod response;
pub use checks::{AccessChecker, ChkRec};
pub use command::CmdUnit;
pub use completion::CplBuilder;
pub use issue::Issuer;
pub use op_slot::OpSlot;
pub use op_table::OpTable;
pub use records::{
    AdvRec, CkRec, CmdRec, CplRec, OpDone, OpEntry, OpReq, RegRec, RegTag, RqRec, RspRec,
};
pub use reg_table::RegTable;
pub use response::RespMatcher;

use crate::widgets::counter_bank::IDX;
use crate::widgets::{Param, param};

/// The sequencer (see the module documentation).
#[derive(LogicBlock, Default)]
pub struct Sequencer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_cmd_tvalid: Signal<In, Bit>,
    pub s_axis_cmd_op: Signal<In, Bits<3>>,
    pub s_axis_cmd_conn: Signal<In, Bits<8>>,
    pub s_axis_cmd_access: Signal<In, Bits<2>>,
    pub s_axis_cmd_nomem: Signal<In, Bit>,
    pub s_axis_cmd_xfer: Signal<In, Bits<32>>,
    pub s_axis_cmd_addr: Signal<In, Bits<64>>,
    pub s_axis_cmd_key: Signal<In, Bits<32>>,
    pub s_axis_cmd_len: Signal<In, Bits<32>>,
    pub s_axis_cmd_lkey: Signal<In, Bits<32>>,
    pub m_axis_rsp_tready: Signal<In, Bit>,
    pub m_axis_cpl_tready: Signal<In, Bit>,
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
    pub cnt_rd_index: Signal<In, Bits<IDX>>,

    pub s_axis_cmd_tready: Signal<Out, Bit>,
    pub m_axis_rsp_tvalid: Signal<Out, Bit>,
    pub m_axis_rsp_op: Signal<Out, Bits<3>>,
    pub m_axis_rsp_conn: Signal<Out, Bits<8>>,
    pub m_axis_rsp_status: Signal<Out, Bits<3>>,
    pub m_axis_rsp_key: Signal<Out, Bits<32>>,
    pub m_axis_rsp_len: Signal<Out, Bits<32>>,
    pub m_axis_cpl_tvalid: Signal<Out, Bit>,
    pub m_axis_cpl_conn: Signal<Out, Bits<8>>,
    pub m_axis_cpl_xfer: Signal<Out, Bits<32>>,
    pub m_axis_cpl_bytes: Signal<Out, Bits<32>>,
    pub m_axis_cpl_write: Signal<Out, Bit>,
    pub m_axis_cpl_status: Signal<Out, Bits<3>>,
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

    cmd_unit: CmdUnit,
    regs: RegTable,
    ops: OpTable,
    issue: Issuer,
    resp: RespMatcher,
    cpl: CplBuilder,
    chk: AccessChecker,
    /// The counter index named the cycle before (selects the lane read).
    cnt_sel: DFF<Bits<IDX>>,
    /// First counter index of lanes 1, 2, 3, and one past the last.
    k_lane1: Param<Bits<IDX>>,
    k_lane2: Param<Bits<IDX>>,
    k_lane3: Param<Bits<IDX>>,
    k_lanes_end: Param<Bits<IDX>>,
    cmd_in: Signal<Local, CmdRec>,
}

impl Sequencer {
    pub fn new(p: &SequencerParams) -> Self {
        p.validate().expect("valid sequencer parameters");
        assert!(p.ops as usize <= MAX_OPS);
        let ops = p.ops as usize;
        Sequencer {
            cmd_unit: CmdUnit::new(p),
            regs: RegTable::new(p.reg_entries as usize),
            ops: OpTable::new(ops),
            issue: Issuer::new(ops, p.segment, p.window as u32),
            resp: RespMatcher::new(ops, p.window as usize),
            cpl: CplBuilder::new(ops),
            chk: AccessChecker::new(p.reg_entries as u32),
            k_lane1: param(cnt::LANES[1].0 as u64),
            k_lane2: param(cnt::LANES[2].0 as u64),
            k_lane3: param(cnt::LANES[3].0 as u64),
            k_lanes_end: param(cnt::COUNT as u64),
            ..Default::default()
        }
    }
}

impl Logic for Sequencer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cnt_sel);
        clock!(self, clock, cmd_unit, regs, ops, issue, resp, cpl, chk);
        self.cmd_unit.reset.next = self.reset.val();
        self.regs.reset.next = self.reset.val();
        self.ops.reset.next = self.reset.val();
        self.issue.reset.next = self.reset.val();
        self.resp.reset.next = self.reset.val();
        self.cpl.reset.next = self.reset.val();
        self.chk.reset.next = self.reset.val();

        // Commands and responses.
        self.cmd_in.next.op = self.s_axis_cmd_op.val();
        self.cmd_in.next.conn = self.s_axis_cmd_conn.val();
        self.cmd_in.next.access = self.s_axis_cmd_access.val();
        self.cmd_in.next.nomem = self.s_axis_cmd_nomem.val();
        self.cmd_in.next.xfer = self.s_axis_cmd_xfer.val();
        self.cmd_in.next.addr = self.s_axis_cmd_addr.val();
        self.cmd_in.next.key = self.s_axis_cmd_key.val();
        self.cmd_in.next.len = self.s_axis_cmd_len.val();
        self.cmd_in.next.lkey = self.s_axis_cmd_lkey.val();
        self.cmd_unit.cmd_valid.next = self.s_axis_cmd_tvalid.val();
        self.cmd_unit.cmd.next = self.cmd_in.val();
        self.cmd_unit.rsp_ready.next = self.m_axis_rsp_tready.val();
        self.cmd_unit.tag.next = self.regs.tag.val();
        self.cmd_unit.rec.next = self.regs.rec.val();
        self.cmd_unit.free_reg.next = self.regs.free_any.val();
        self.cmd_unit.free_rslot.next = self.regs.free_slot.val();
        self.cmd_unit.new_key.next = self.regs.new_key.val();
        self.cmd_unit.free_mask.next = self.ops.free_mask.val();
        self.cmd_unit.key_busy.next = self.ops.key_busy.val();

        // The registration table: written by commands, read by commands and checks.
        self.regs.index.next = self.cmd_unit.index.val();
        self.regs.tag_index.next = self.cmd_unit.tag_index.val();
        self.regs.ck_index.next = self.chk.idx.val();
        self.regs.reg_en.next = self.cmd_unit.reg_en.val();
        self.regs.dereg_en.next = self.cmd_unit.dereg_en.val();
        self.regs.abort_en.next = self.cmd_unit.abort_en.val();
        self.regs.slot.next = self.cmd_unit.slot.val();
        self.regs.w_conn.next = self.cmd_unit.held.val().conn;
        self.regs.w_access.next = self.cmd_unit.held.val().access;
        self.regs.w_addr.next = self.cmd_unit.held.val().addr;
        self.regs.w_len.next = self.cmd_unit.held.val().len;

        // The op table: started and aborted by commands, moved on by the other units.
        self.ops.key.next = self.cmd_unit.held.val().key;
        self.ops.start.next = self.cmd_unit.start.val();
        self.ops.start_slot.next = self.cmd_unit.start_slot.val();
        self.ops.start_cmd.next = self.cmd_unit.held.val();
        self.ops.start_laddr.next = self.regs.rec.val().addr;
        self.ops.abort.next = self.cmd_unit.abort_en.val();
        self.ops.abort_conn.next = self.cmd_unit.held.val().conn;
        self.ops.rd_issue.next = self.issue.sel.val();
        self.ops.adv.next = self.issue.fire.val();
        self.ops.adv_slot.next = self.issue.sel.val();
        self.ops.adv_rec.next = self.issue.adv.val();
        self.ops.rd_resp.next = self.resp.slot.val();
        self.ops.resp.next = self.resp.hit.val();
        self.ops.resp_slot.next = self.resp.slot.val();
        self.ops.resp_clear.next = self.resp.clear.val();
        self.ops.resp_err.next = self.resp.err.val();
        self.ops.rd_cpl.next = self.cpl.pick.val();
        self.ops.free.next = self.cpl.fire.val();
        self.ops.free_slot.next = self.cpl.pick.val();

        // Requests, responses, completions.
        self.issue.can_mask.next = self.ops.can_mask.val();
        self.issue.start.next = self.cmd_unit.start.val();
        self.issue.start_slot.next = self.cmd_unit.start_slot.val();
        self.issue.ent.next = self.ops.ent_issue.val();
        self.issue.req.next = self.ops.req_issue.val();
        self.issue.rq_ready.next = self.m_axis_rq_tready.val();
        self.resp.rs_valid.next = self.s_axis_rs_tvalid.val();
        self.resp.rs_tag.next = self.s_axis_rs_tag.val();
        self.resp.rs_status.next = self.s_axis_rs_status.val();
        self.resp.ent.next = self.ops.ent_resp.val();
        self.cpl.done_mask.next = self.ops.done_mask.val();
        self.cpl.ent.next = self.ops.ent_cpl.val();
        self.cpl.fin.next = self.ops.done_cpl.val();
        self.cpl.cpl_ready.next = self.m_axis_cpl_tready.val();

        // Remote-access checks.
        self.chk.ac_valid.next = self.s_axis_ac_tvalid.val();
        self.chk.ac_conn.next = self.s_axis_ac_conn.val();
        self.chk.ac_key.next = self.s_axis_ac_key.val();
        self.chk.ac_write.next = self.s_axis_ac_write.val();
        self.chk.ac_addr.next = self.s_axis_ac_addr.val();
        self.chk.ac_len.next = self.s_axis_ac_len.val();
        self.chk.ck_ready.next = self.m_axis_ck_tready.val();
        self.chk.e_valid.next = self.regs.ck_tag.val().valid;
        self.chk.e_conn.next = self.regs.ck_tag.val().conn;
        self.chk.wr_en.next = self.regs.we.val();
        self.chk.wr_addr.next = self.cmd_unit.slot.val();
        self.chk.wr_data.next = self.regs.wrec.val();

        // Counters: every lane sees the index less its first; the one named is read.
        self.cmd_unit.rd_index.next = self.cnt_rd_index.val();
        self.resp.rd_index.next = self.cnt_rd_index.val() - self.k_lane1.val();
        self.cpl.rd_index.next = self.cnt_rd_index.val() - self.k_lane2.val();
        self.chk.rd_index.next = self.cnt_rd_index.val() - self.k_lane3.val();
        self.cnt_sel.d.next = self.cnt_rd_index.val();
        if self.reset.val() {
            self.cnt_sel.d.next = 0.into();
        }
        self.cnt_rd_data.next = 0.into();
        if self.cnt_sel.q.val() < self.k_lane1.val() {
            self.cnt_rd_data.next = self.cmd_unit.rd_data.val();
        } else if self.cnt_sel.q.val() < self.k_lane2.val() {
            self.cnt_rd_data.next = self.resp.rd_data.val();
        } else if self.cnt_sel.q.val() < self.k_lane3.val() {
            self.cnt_rd_data.next = self.cpl.rd_data.val();
        } else if self.cnt_sel.q.val() < self.k_lanes_end.val() {
            self.cnt_rd_data.next = self.chk.rd_data.val();
        }

        // Outputs, all from the units' registers.
        self.s_axis_cmd_tready.next = self.cmd_unit.cmd_ready.val();
        self.m_axis_rsp_tvalid.next = self.cmd_unit.rsp_valid.val();
        self.m_axis_rsp_op.next = self.cmd_unit.rsp.val().op;
        self.m_axis_rsp_conn.next = self.cmd_unit.rsp.val().conn;
        self.m_axis_rsp_status.next = self.cmd_unit.rsp.val().status;
        self.m_axis_rsp_key.next = self.cmd_unit.rsp.val().key;
        self.m_axis_rsp_len.next = self.cmd_unit.rsp.val().len;
        self.m_axis_cpl_tvalid.next = self.cpl.cpl_valid.val();
        self.m_axis_cpl_conn.next = self.cpl.cpl_rec.val().conn;
        self.m_axis_cpl_xfer.next = self.cpl.cpl_rec.val().xfer;
        self.m_axis_cpl_bytes.next = self.cpl.cpl_rec.val().bytes;
        self.m_axis_cpl_write.next = self.cpl.cpl_rec.val().write;
        self.m_axis_cpl_status.next = self.cpl.cpl_rec.val().status;
        self.m_axis_rq_tvalid.next = self.issue.rq_valid.val();
        self.m_axis_rq_tag.next = self.issue.rq_rec.val().tag;
        self.m_axis_rq_write.next = self.issue.rq_rec.val().write;
        self.m_axis_rq_conn.next = self.issue.rq_rec.val().conn;
        self.m_axis_rq_raddr.next = self.issue.rq_rec.val().raddr;
        self.m_axis_rq_rkey.next = self.issue.rq_rec.val().rkey;
        self.m_axis_rq_laddr.next = self.issue.rq_rec.val().laddr;
        self.m_axis_rq_lkey.next = self.issue.rq_rec.val().lkey;
        self.m_axis_rq_len.next = self.issue.rq_rec.val().len;
        self.s_axis_rs_tready.next = true;
        self.s_axis_ac_tready.next = self.chk.ac_ready.val();
        self.m_axis_ck_tvalid.next = self.chk.ck_valid.val();
        self.m_axis_ck_grant.next = self.chk.ck_grant.val();
        self.m_axis_ck_reason.next = self.chk.ck_reason.val();
    }
}
