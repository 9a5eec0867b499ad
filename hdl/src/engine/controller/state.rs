//! The controller's per-connection state: the connection-word RAM and the queue RAMs
//! ([`CtlQueues`]), read for the connection in hand and written back when an event is
//! applied or a flush steps, and cleared by [`CtlSweep`] after reset.
//!
//! # Ports
//! - `rd_conn` (in, a register): the connection read, the event's (`CtlEvent`'s register):
//!   in Decide, and in Flush, whose connection is the event's that started it (every
//!   decision writes the connection its event names, and no event is taken while a flush
//!   runs). A register, so the RAM's read starts at one.
//! - `fl_conn`, `w` (in): the flush's connection, and the event as handled so far (its
//!   connection, new word and pending queue appends).
//! - `cw` (out): the word read (distributed RAM, combinational from the address); read in
//!   Decide and Flush only.
//! - `sq_f`, `rq_f`, `held_f` (out): the queue heads of the connection read, found from
//!   `cw`: for Decide and Flush.
//! - `sq_h`, `rq_h` (out): the queue heads of the word in hand (`w`), whose heads the
//!   decisions have moved: for Pool, Apply and Seq. A second copy of the rings
//!   ([`CtlQueues`]), so these heads do not wait for the state RAM's read.
//! - `apply`, `word`, `cmd` (in): Apply writes `word` for `w.conn` and makes `w.pend`'s
//!   queue appends (a send or receive from `cmd`, a held buffer from `w.pend`).
//! - `fl_write`, `fl_word` (in): a flush step writes `fl_word` for `fl_conn`: the fields a
//!   step changes ([`CtlFlush`](super::CtlFlush): `wait_v`, the send and receive queues'
//!   heads and counts, `sent`) from `fl_word`, the rest from `word`. They are equal: the
//!   flush's connection is the one whose Apply started it, which wrote `word` at the edge,
//!   and nothing changes the word in hand while the flush runs (no event is taken).
//! - `sweeping` (out): the sweep writes this cycle; nothing else may (the controller takes
//!   no event meanwhile). It writes `word`, which must be zero meanwhile: the controller
//!   clears the word in hand at reset ([`CtlDecide`](super::CtlDecide)'s `reset`) and loads
//!   none until the sweep ends.
//! - `reset` (in): synchronous; starts the sweep.
//!
//! Timing: `cw`, `sq_f`, `rq_f` and `held_f` are combinational from the read-address
//! register and the RAMs, `sq_h` and `rq_h` from `w` and the RAMs; the read address and
//! the writes land at the edge.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use super::super::records::{CmdRec, ConnWord, HeldEnt, Pend, RqEnt, SqEnt, Work};
use super::{CtlQueues, CtlSweep};
use crate::widgets::Ram;

#[derive(LogicBlock, Default)]
pub struct CtlState {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rd_conn: Signal<In, Bits<8>>,
    pub fl_conn: Signal<In, Bits<8>>,
    pub w: Signal<In, Work>,
    pub cw: Signal<Out, ConnWord>,
    pub sq_f: Signal<Out, SqEnt>,
    pub rq_f: Signal<Out, RqEnt>,
    pub held_f: Signal<Out, HeldEnt>,
    pub sq_h: Signal<Out, SqEnt>,
    pub rq_h: Signal<Out, RqEnt>,
    pub apply: Signal<In, Bit>,
    pub word: Signal<In, ConnWord>,
    pub cmd: Signal<In, CmdRec>,
    pub fl_write: Signal<In, Bit>,
    pub fl_word: Signal<In, ConnWord>,
    pub sweeping: Signal<Out, Bit>,
    sweep: CtlSweep,
    conn_ram: Ram<ConnWord>,
    queues: CtlQueues,
    pend: Signal<Local, Pend>,
}

impl CtlState {
    pub fn new(p: &EngineParams) -> Self {
        let n = p.connections as usize;
        CtlState {
            sweep: CtlSweep::new(n),
            conn_ram: Ram::new(n.next_power_of_two().max(2), false),
            queues: CtlQueues::new(p),
            ..Default::default()
        }
    }
}

impl Logic for CtlState {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, sweep, queues);
        self.conn_ram.write_clock.next = self.clock.val();
        self.sweep.reset.next = self.reset.val();
        self.sweeping.next = self.sweep.active.val();

        self.conn_ram.read_address.next = bit_cast::<16, 8>(self.rd_conn.val());
        self.cw.next = self.conn_ram.read_data.val();
        self.queues.rd_conn.next = self.rd_conn.val();
        self.queues.rd.next = self.conn_ram.read_data.val();
        self.sq_f.next = self.queues.sq_f.val();
        self.rq_f.next = self.queues.rq_f.val();
        self.held_f.next = self.queues.held_f.val();
        self.sq_h.next = self.queues.sq_h.val();
        self.rq_h.next = self.queues.rq_h.val();

        self.pend.next = self.w.val().pend;
        self.queues.wr_conn.next = self.w.val().conn;
        self.queues.wr.next = self.w.val().c;
        self.queues.cmd.next = self.cmd.val();
        self.queues.held.next = self.pend.val().held;
        self.queues.sq_we.next = self.apply.val() & self.pend.val().sq_v;
        self.queues.rq_we.next = self.apply.val() & self.pend.val().rq_v;
        self.queues.held_we.next = self.apply.val() & self.pend.val().held_v;

        // Every write's data is `word` but for the fields a flush step changes: the rest of
        // the flushed connection's word is `word`'s already, and `word` is zero while the
        // sweep runs (see the ports), so the ~500 bits no flush changes need no multiplexer.
        // The sweep wins: it runs only after reset, when no event is in hand.
        self.conn_ram.write_enable.next = self.apply.val() | self.fl_write.val();
        self.conn_ram.write_address.next = bit_cast::<16, 8>(self.w.val().conn);
        self.conn_ram.write_data.next = self.word.val();
        if self.fl_write.val() {
            self.conn_ram.write_address.next = bit_cast::<16, 8>(self.fl_conn.val());
            self.conn_ram.write_data.next.wait_v = self.fl_word.val().wait_v;
            self.conn_ram.write_data.next.sq_head = self.fl_word.val().sq_head;
            self.conn_ram.write_data.next.sq_n = self.fl_word.val().sq_n;
            self.conn_ram.write_data.next.sent = self.fl_word.val().sent;
            self.conn_ram.write_data.next.rq_head = self.fl_word.val().rq_head;
            self.conn_ram.write_data.next.rq_n = self.fl_word.val().rq_n;
        }
        if self.sweep.active.val() {
            self.conn_ram.write_enable.next = true;
            self.conn_ram.write_address.next = bit_cast::<16, 8>(self.sweep.addr.val());
        }
    }
}
