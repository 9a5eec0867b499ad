//! Which step a connection's pump takes next (the model's `Controller::pump_step`), one
//! hot, combinational: the one definition of the pump's order, for [`super::CtlPump`] and
//! for the events that take the pump's step early ([`super::CtlZSeq`]: an owed message).
//!
//! In order: `flush` (a flush is pending: done once the connection is quiet, waited for
//! till then); `deliver` (held payload into the head receive); `eof` (the peer's
//! Disconnect came, nothing is held); `idle` (the session is not up); `owed` (a control
//! message is owed: ReadComplete, WriteComplete, SinkAvail, SendByCopy); `zcopy` (the head
//! send's zero-copy transfer; not `large`, a Verilog keyword); `data` (a Data message for the head send); `tail`
//! (Disconnect, credit update, close).
//!
//! # Ports
//! - `cw` (in): the connection's word; `sq_f` (in): the head of its send queue (read only
//!   for `zcopy` and `data`, which a caller that changed the queue must not use).
//! - `flush`, `deliver`, `eof`, `idle`, `owed`, `zcopy`, `data`, `tail` (out): exactly one
//!   is set.

use rust_hdl::prelude::*;

use super::super::records::{ConnWord, SqEnt};

#[derive(LogicBlock, Default)]
pub struct PumpStep {
    pub cw: Signal<In, ConnWord>,
    pub sq_f: Signal<In, SqEnt>,
    pub flush: Signal<Out, Bit>,
    pub deliver: Signal<Out, Bit>,
    pub eof: Signal<Out, Bit>,
    pub idle: Signal<Out, Bit>,
    pub owed: Signal<Out, Bit>,
    pub zcopy: Signal<Out, Bit>,
    pub data: Signal<Out, Bit>,
    pub tail: Signal<Out, Bit>,
    /// A receive is posted and free to take data (nothing being delivered, not aborted).
    rx_free: Signal<Local, Bit>,
    /// The head send goes zero-copy (not yet started: `sent` 0; never an urgent one).
    zc_send: Signal<Local, Bit>,
}

impl Logic for PumpStep {
    #[hdl_gen]
    fn update(&mut self) {
        self.rx_free.next =
            !self.cw.val().dlv_busy & (self.cw.val().rq_n != 0) & (self.cw.val().st != 6);
        self.zc_send.next =
            (self.cw.val().sent == 0) & !self.sq_f.val().urgent & self.sq_f.val().big;
        self.flush.next = false;
        self.deliver.next = false;
        self.eof.next = false;
        self.idle.next = false;
        self.owed.next = false;
        self.zcopy.next = false;
        self.data.next = false;
        self.tail.next = false;
        if self.cw.val().fl_v {
            self.flush.next = true;
        } else if self.rx_free.val() & (self.cw.val().held_n != 0) {
            self.deliver.next = true;
        } else if self.rx_free.val() & self.cw.val().fin_rcvd {
            self.eof.next = true;
        } else if self.cw.val().st != 4 {
            self.idle.next = true;
        } else if (self.cw.val().rx_due != 0) | self.cw.val().tx_due {
            self.owed.next = true;
        } else if (self.cw.val().sq_n != 0) & ((self.cw.val().tx_x != 0) | self.zc_send.val()) {
            self.zcopy.next = true;
        } else if self.cw.val().sq_n != 0 {
            self.data.next = true;
        } else {
            self.tail.next = true;
        }
    }
}
