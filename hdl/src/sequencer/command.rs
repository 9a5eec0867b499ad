//! The command unit: REGISTER, DEREGISTER, START_READ/START_WRITE and ABORT, one at a time,
//! each answered by one response; with the commands' counter lane.
//!
//! A three-state FSM. **IDLE** takes a command and starts the registration RAM's read at its
//! key; **VERDICT** decides its status (first failure wins, as the model's `verdict`) and
//! the slot it uses; **APPLY** writes the tables and loads the response register once it is
//! free, back to IDLE. So a command taken at edge `t` has its response from cycle `t + 2`
//! when the response channel is ready, and the unit takes a command at most every three
//! cycles.
//!
//! # Ports
//! - `cmd_valid`, `cmd` (in), `cmd_ready` (out, = IDLE): the command channel.
//! - `index` (out): the registration entry the command names (its key's low bits: `key` for
//!   a DEREGISTER, `lkey` otherwise), for the RAM: the offered command's in IDLE, the held
//!   one's after; `rec` (in): that RAM word, one edge later. `tag_index` (out): the held
//!   command's entry; `tag` (in): its flip-flop half, same cycle. `free_reg`, `free_rslot`,
//!   `new_key` (in): the table's free slot and the key a registration there gets.
//! - `free_mask`, `key_busy` (in): the op table's free ops, and whether an op uses the
//!   command's key (`held.key`).
//! - `held` (out): the command being executed (its fields drive the tables' writes).
//! - `reg`, `dereg`, `abort`, `slot` (out): table writes at the APPLY edge of a successful
//!   command; `start`, `start_slot` (out): a successful START (the op table builds the
//!   entry from `held` and `rec.addr`).
//! - `rsp_valid`, `rsp` (out, registered), `rsp_ready` (in): the response channel.
//! - `rd_index` (in) / `rd_data` (out): the counter lane (no buffers or memory, stale,
//!   bad descriptor or command, busy).
//! - `reset` (in): synchronous; IDLE, no response held.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::sequencer::{access, cmd, cnt, cst, rsp_status};
use sanswitch_model::params::SequencerParams;

use super::{CmdRec, RegRec, RegTag, RspRec};
use crate::widgets::counter_bank::IDX;
use crate::widgets::{CounterBank, Param, param};

#[derive(LogicBlock, Default)]
pub struct CmdUnit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd: Signal<In, CmdRec>,
    pub rsp_ready: Signal<In, Bit>,
    pub tag: Signal<In, RegTag>,
    pub rec: Signal<In, RegRec>,
    pub free_reg: Signal<In, Bit>,
    pub free_rslot: Signal<In, Bits<5>>,
    pub new_key: Signal<In, Bits<32>>,
    pub free_mask: Signal<In, Bits<16>>,
    pub key_busy: Signal<In, Bit>,
    pub rd_index: Signal<In, Bits<IDX>>,
    pub cmd_ready: Signal<Out, Bit>,
    pub index: Signal<Out, Bits<5>>,
    pub tag_index: Signal<Out, Bits<5>>,
    pub held: Signal<Out, CmdRec>,
    pub reg_en: Signal<Out, Bit>,
    pub dereg_en: Signal<Out, Bit>,
    pub abort_en: Signal<Out, Bit>,
    pub slot: Signal<Out, Bits<5>>,
    pub start: Signal<Out, Bit>,
    pub start_slot: Signal<Out, Bits<4>>,
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp: Signal<Out, RspRec>,
    pub rd_data: Signal<Out, Bits<32>>,
    cst: DFF<Bits<2>>,
    c: DFF<CmdRec>,
    v_status: DFF<Bits<3>>,
    v_rslot: DFF<Bits<5>>,
    v_oslot: DFF<Bits<4>>,
    rsp_v: DFF<Bit>,
    rsp_q: DFF<RspRec>,
    counters: CounterBank,
    k_idx: Vec<Param<Bits<4>>>,
    k_idx_mask: Param<Bits<32>>,
    k_conn_max: Param<Bits<8>>,
    k_reg: Param<Bits<3>>,
    k_dereg: Param<Bits<3>>,
    k_read: Param<Bits<3>>,
    k_write: Param<Bits<3>>,
    k_abort: Param<Bits<3>>,
    k_acc_local: Param<Bits<2>>,
    k_acc_bad: Param<Bits<2>>,
    k_ok: Param<Bits<3>>,
    k_nobufs: Param<Bits<3>>,
    k_nomem: Param<Bits<3>>,
    k_stale: Param<Bits<3>>,
    k_baddesc: Param<Bits<3>>,
    k_busy: Param<Bits<3>>,
    k_badcmd: Param<Bits<3>>,
    k_idle: Param<Bits<2>>,
    k_verdict: Param<Bits<2>>,
    k_apply: Param<Bits<2>>,
    k_lane_stale: Param<Bits<IDX>>,
    k_lane_bad: Param<Bits<IDX>>,
    k_lane_busy: Param<Bits<IDX>>,
    k_cmd_zero: Param<CmdRec>,
    k_rsp_zero: Param<RspRec>,
    /// Some op below `i` is free (the free-slot priority chain).
    lower: Vec<Signal<Local, Bit>>,
    free_oslot: Signal<Local, Bits<4>>,
    any_free_op: Signal<Local, Bit>,
    key: Signal<Local, Bits<32>>,
    in_key: Signal<Local, Bits<32>>,
    is_reg: Signal<Local, Bit>,
    is_dereg: Signal<Local, Bit>,
    is_start: Signal<Local, Bit>,
    is_abort: Signal<Local, Bit>,
    entry_ok: Signal<Local, Bit>,
    status: Signal<Local, Bits<3>>,
    apply: Signal<Local, Bit>,
    ok: Signal<Local, Bit>,
    answer: Signal<Local, RspRec>,
}

impl CmdUnit {
    pub fn new(p: &SequencerParams) -> Self {
        CmdUnit {
            counters: CounterBank::new(cnt::LANES[0].1),
            k_idx: (0..p.ops as usize).map(|i| param(i as u64)).collect(),
            k_idx_mask: param(p.reg_entries as u64 - 1),
            k_conn_max: param(p.connections as u64 - 1),
            k_reg: param(cmd::REGISTER as u64),
            k_dereg: param(cmd::DEREGISTER as u64),
            k_read: param(cmd::START_READ as u64),
            k_write: param(cmd::START_WRITE as u64),
            k_abort: param(cmd::ABORT as u64),
            k_acc_local: param(access::LOCAL as u64),
            k_acc_bad: param(3),
            k_ok: param(rsp_status::OK as u64),
            k_nobufs: param(rsp_status::NOBUFS as u64),
            k_nomem: param(rsp_status::NOMEM as u64),
            k_stale: param(rsp_status::STALE as u64),
            k_baddesc: param(rsp_status::BADDESC as u64),
            k_busy: param(rsp_status::BUSY as u64),
            k_badcmd: param(rsp_status::BADCMD as u64),
            k_idle: param(cst::IDLE as u64),
            k_verdict: param(cst::VERDICT as u64),
            k_apply: param(cst::APPLY as u64),
            k_lane_stale: param(1),
            k_lane_bad: param(2),
            k_lane_busy: param(3),
            lower: (0..=p.ops as usize).map(|_| Default::default()).collect(),
            ..Default::default()
        }
    }
}

impl Logic for CmdUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cst, c, v_status, v_rslot, v_oslot, rsp_v, rsp_q);
        clock!(self, clock, counters);
        self.counters.reset.next = self.reset.val();
        self.counters.rd_index.next = self.rd_index.val();
        self.rd_data.next = self.counters.rd_data.val();

        // IDLE: take a command; the RAM reads its entry (at the offered command's key until
        // one is taken, then at the held one's). The tag look-up uses the held command's
        // index only (it is needed in VERDICT), which keeps the IDLE multiplexer off the
        // verdict's path.
        self.cmd_ready.next = self.cst.q.val() == self.k_idle.val();
        self.held.next = self.c.q.val();
        self.key.next = self.c.q.val().lkey;
        if self.c.q.val().op == self.k_dereg.val() {
            self.key.next = self.c.q.val().key;
        }
        self.tag_index.next = bit_cast::<5, 32>(self.key.val() & self.k_idx_mask.val());
        self.in_key.next = self.cmd.val().lkey;
        if self.cmd.val().op == self.k_dereg.val() {
            self.in_key.next = self.cmd.val().key;
        }
        self.index.next = self.tag_index.val();
        if self.cmd_ready.val() {
            self.index.next = bit_cast::<5, 32>(self.in_key.val() & self.k_idx_mask.val());
        }
        if self.cmd_ready.val() & self.cmd_valid.val() {
            self.c.d.next = self.cmd.val();
            self.cst.d.next = self.k_verdict.val();
        }

        // VERDICT: first failure wins.
        self.lower[0].next = false;
        self.free_oslot.next = 0.into();
        for i in 0..self.k_idx.len() {
            if self.free_mask.val().get_bit(i) & !self.lower[i].val() {
                self.free_oslot.next = self.k_idx[i].val();
            }
            self.lower[i + 1].next = self.lower[i].val() | self.free_mask.val().get_bit(i);
        }
        self.any_free_op.next = false;
        for i in 0..self.k_idx.len() {
            self.any_free_op.next = self.lower[i + 1].val();
        }
        self.entry_ok.next = self.tag.val().valid
            & (self.rec.val().key == self.key.val())
            & (self.tag.val().conn == self.c.q.val().conn);
        self.is_reg.next = self.c.q.val().op == self.k_reg.val();
        self.is_dereg.next = self.c.q.val().op == self.k_dereg.val();
        self.is_start.next =
            (self.c.q.val().op == self.k_read.val()) | (self.c.q.val().op == self.k_write.val());
        self.is_abort.next = self.c.q.val().op == self.k_abort.val();
        self.status.next = self.k_ok.val();
        if !(self.is_reg.val() | self.is_dereg.val() | self.is_start.val() | self.is_abort.val()) {
            self.status.next = self.k_badcmd.val();
        } else if self.c.q.val().conn > self.k_conn_max.val() {
            self.status.next = self.k_baddesc.val();
        } else if self.is_reg.val() {
            if self.c.q.val().access == self.k_acc_bad.val() {
                self.status.next = self.k_baddesc.val();
            } else if self.c.q.val().nomem {
                self.status.next = self.k_nomem.val();
            } else if !self.free_reg.val() {
                self.status.next = self.k_nobufs.val();
            }
        } else if self.is_dereg.val() {
            if !self.entry_ok.val() {
                self.status.next = self.k_stale.val();
            } else if self.key_busy.val() {
                self.status.next = self.k_busy.val();
            }
        } else if self.is_start.val() {
            if !self.entry_ok.val()
                | (self.rec.val().access != self.k_acc_local.val())
                | (self.c.q.val().len > self.rec.val().len)
            {
                self.status.next = self.k_baddesc.val();
            } else if !self.any_free_op.val() {
                self.status.next = self.k_busy.val();
            }
        }
        if self.cst.q.val() == self.k_verdict.val() {
            self.v_status.d.next = self.status.val();
            self.v_rslot.d.next = self.index.val();
            if self.is_reg.val() {
                self.v_rslot.d.next = self.free_rslot.val();
            }
            self.v_oslot.d.next = self.free_oslot.val();
            self.cst.d.next = self.k_apply.val();
        }

        // APPLY: write the tables and answer, once the response register is free.
        self.apply.next =
            (self.cst.q.val() == self.k_apply.val()) & (!self.rsp_v.q.val() | self.rsp_ready.val());
        self.ok.next = self.v_status.q.val() == self.k_ok.val();
        self.reg_en.next = self.apply.val() & self.ok.val() & self.is_reg.val();
        self.dereg_en.next = self.apply.val() & self.ok.val() & self.is_dereg.val();
        self.abort_en.next = self.apply.val() & self.ok.val() & self.is_abort.val();
        self.start.next = self.apply.val() & self.ok.val() & self.is_start.val();
        self.slot.next = self.v_rslot.q.val();
        self.start_slot.next = self.v_oslot.q.val();
        self.answer.next.op = self.c.q.val().op;
        self.answer.next.conn = self.c.q.val().conn;
        self.answer.next.status = self.v_status.q.val();
        self.answer.next.key = 0.into();
        self.answer.next.len = self.c.q.val().len;
        if self.is_reg.val() & self.ok.val() {
            self.answer.next.key = self.new_key.val();
        }
        if self.is_start.val() & self.ok.val() {
            self.answer.next.key = bit_cast::<32, 4>(self.v_oslot.q.val());
        }
        if self.is_dereg.val() {
            self.answer.next.key = self.c.q.val().key;
            self.answer.next.len = 0.into();
            if self.ok.val() {
                self.answer.next.len = self.rec.val().len;
            }
        }
        self.counters.inc.next = false;
        self.counters.inc_index.next = 0.into();
        if self.apply.val() {
            self.rsp_q.d.next = self.answer.val();
            self.rsp_v.d.next = true;
            self.cst.d.next = self.k_idle.val();
            self.counters.inc.next = !self.ok.val();
            if self.v_status.q.val() == self.k_stale.val() {
                self.counters.inc_index.next = self.k_lane_stale.val();
            } else if (self.v_status.q.val() == self.k_baddesc.val())
                | (self.v_status.q.val() == self.k_badcmd.val())
            {
                self.counters.inc_index.next = self.k_lane_bad.val();
            } else if self.v_status.q.val() == self.k_busy.val() {
                self.counters.inc_index.next = self.k_lane_busy.val();
            }
        } else if self.rsp_v.q.val() & self.rsp_ready.val() {
            self.rsp_v.d.next = false;
        }

        if self.reset.val() {
            self.cst.d.next = self.k_idle.val();
            self.c.d.next = self.k_cmd_zero.val();
            self.v_status.d.next = 0.into();
            self.v_rslot.d.next = 0.into();
            self.v_oslot.d.next = 0.into();
            self.rsp_v.d.next = false;
            self.rsp_q.d.next = self.k_rsp_zero.val();
        }
        self.rsp_valid.next = self.rsp_v.q.val();
        self.rsp.next = self.rsp_q.q.val();
    }
}
