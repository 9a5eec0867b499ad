//! The flush in hand: its connection, kind and status, loaded by the Apply that starts it
//! and kept while [`CtlFlush`](super::CtlFlush) steps through the connection's queues.
//!
//! A block of its own with registered outputs only: rust-hdl's loop check takes every
//! combinational output of a block to depend on all of its inputs, and `load` is made
//! from the controller's `applied`, which depends on the flush's `done` through the phases.
//!
//! # Ports
//! - `load` (in): an Apply starts a flush this cycle; `conn`, `all`, `err` (in) are kept.
//! - `fl_conn`, `fl_all`, `fl_err` (out, registers): the flush's connection, whether it
//!   is full (an abort's) and its completion status.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CtlFlushKind {
    pub clock: Signal<In, Clock>,
    pub load: Signal<In, Bit>,
    pub conn: Signal<In, Bits<8>>,
    pub all: Signal<In, Bit>,
    pub err: Signal<In, Bits<16>>,
    pub fl_conn: Signal<Out, Bits<8>>,
    pub fl_all: Signal<Out, Bit>,
    pub fl_err: Signal<Out, Bits<16>>,
    conn_r: DFF<Bits<8>>,
    all_r: DFF<Bit>,
    err_r: DFF<Bits<16>>,
}

impl Logic for CtlFlushKind {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, conn_r, all_r, err_r);
        self.fl_conn.next = self.conn_r.q.val();
        self.fl_all.next = self.all_r.q.val();
        self.fl_err.next = self.err_r.q.val();
        if self.load.val() {
            self.conn_r.d.next = self.conn.val();
            self.all_r.d.next = self.all.val();
            self.err_r.d.next = self.err.val();
        }
    }
}
