//! The controller's flush step (the model's `Phase::Flush`): one queued command of the
//! flushed connection completes per cycle with the flush's status, combinational.
//!
//! A full flush (an abort's) completes the waiting LISTEN/CONNECT, then the queued sends,
//! then the posted receives; a close's flush (`all` clear) completes the receives only (the
//! sends finish on the wire first). A receive's completion carries no bytes.
//!
//! # Ports
//! - `cw` (in): the connection's word; `sq_f`, `rq_f` (in): its queues' heads.
//! - `conn`, `all`, `err` (in): the flush (connection, full, status).
//! - `can_push` (in): the completion FIFO has room.
//! - `newc` (out): the word after this step; `cpl` (out): the step's completion. Only
//!   the fields a step changes here (`wait_v`, `sq_head`, `sq_n`, `sent`, `rq_head`,
//!   `rq_n`) are written back ([`CtlState`](super::CtlState) takes the rest of the RAM's
//!   write data from the applied word, which is what the RAM holds during a flush): a
//!   step that changes another field must add it to `CtlState`'s flush write.
//! - `push` (out): a command completes this cycle (push `cpl`, write `newc`).
//! - `done` (out): nothing left to complete; the controller goes idle.

use rust_hdl::prelude::*;

use super::super::records::{ConnWord, CplRec, RqEnt, SqEnt};

#[derive(LogicBlock, Default)]
pub struct CtlFlush {
    pub cw: Signal<In, ConnWord>,
    pub sq_f: Signal<In, SqEnt>,
    pub rq_f: Signal<In, RqEnt>,
    pub conn: Signal<In, Bits<8>>,
    pub all: Signal<In, Bit>,
    pub err: Signal<In, Bits<16>>,
    pub can_push: Signal<In, Bit>,
    pub newc: Signal<Out, ConnWord>,
    pub cpl: Signal<Out, CplRec>,
    pub push: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    waiting: Signal<Local, Bit>,
    send: Signal<Local, Bit>,
    recv: Signal<Local, Bit>,
}

impl Logic for CtlFlush {
    #[hdl_gen]
    fn update(&mut self) {
        self.waiting.next = self.all.val() & self.cw.val().wait_v;
        self.send.next = self.all.val() & (self.cw.val().sq_n != 0);
        self.recv.next = self.cw.val().rq_n != 0;
        // A receive's completion, unless a wait or a send goes first.
        self.cpl.next.bytes = 0.into();
        self.cpl.next.conn = bit_cast::<16, 8>(self.conn.val());
        self.cpl.next.status = self.err.val();
        self.cpl.next.urgent = false;
        self.cpl.next.eof = false;
        self.cpl.next.tag = self.rq_f.val().tag;
        self.cpl.next.opcode = 6.into();
        self.newc.next = self.cw.val();
        if self.waiting.val() {
            self.cpl.next.tag = self.cw.val().wait_tag;
            self.cpl.next.opcode = self.cw.val().wait_op;
            self.newc.next.wait_v = false;
        } else if self.send.val() {
            self.cpl.next.tag = self.sq_f.val().tag;
            self.cpl.next.opcode = 4.into();
            if self.sq_f.val().urgent {
                self.cpl.next.opcode = 5.into();
            }
            self.newc.next.sq_head = self.cw.val().sq_head + 1;
            self.newc.next.sq_n = self.cw.val().sq_n - 1;
            // No port shows this clear (a full flush is an abort's, and an aborted
            // connection's `sent` is not read before an open writes its word afresh): it
            // keeps the word equal to the model's, whose `sent` is 0 with no send at the head.
            self.newc.next.sent = 0.into();
        } else if self.recv.val() {
            self.newc.next.rq_head = self.cw.val().rq_head + 1;
            self.newc.next.rq_n = self.cw.val().rq_n - 1;
        }
        self.done.next = !(self.waiting.val() | self.send.val() | self.recv.val());
        self.push.next = !self.done.val() & self.can_push.val();
    }
}
