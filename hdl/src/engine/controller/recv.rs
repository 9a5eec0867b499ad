//! The controller's decision on a copy-path message the pool took (the model's
//! `Controller::on_received` for Data, Disconnect, Abort and CreditUpdate), combinational.
//! The zero-copy messages go to [`super::zmsg::CtlZMsg`].
//!
//! # Ports
//! - `step` (in): the message (`kmid`, `kbuf` its receive buffer, `kpay` its payload bytes,
//!   `kurg` urgent); `ci` (in): the connection's word; `ok` (in): the pool took it (sequence
//!   and credits right).
//! - `c`, `act` (out): the new word (peer's FIN, payload held) and what comes next
//!   (re-post the buffer, or abort on a violation).
//! - `held_v`, `held` (out): Data's payload, held in its buffer for delivery.

use rust_hdl::prelude::*;

use crate::widgets::wsa;
use sanswitch_model::status::WsaError;
use sanswitch_model::wire::mid;

use super::super::records::{Act, ConnWord, HeldEnt};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlRecv {
    pub step: Signal<In, Act>,
    pub ci: Signal<In, ConnWord>,
    pub ok: Signal<In, Bit>,
    pub c: Signal<Out, ConnWord>,
    pub act: Signal<Out, Act>,
    pub held_v: Signal<Out, Bit>,
    pub held: Signal<Out, HeldEnt>,
    k_mid_credit: Param<Bits<8>>,
    k_mid_abort: Param<Bits<8>>,
    k_mid_disconnect: Param<Bits<8>>,
    k_mid_data: Param<Bits<8>>,
    k_zero_act: Param<Act>,
    a: Signal<Local, Act>,
    kmid: Signal<Local, Bits<8>>,
    /// Stream data or a FIN now would overtake a FIN or a landing transfer.
    late: Signal<Local, Bit>,
    viol: Signal<Local, Bit>,
    verr: Signal<Local, Bits<16>>,
    /// `WSAECONNRESET` (`WsaError::ConnReset`).
    k_connreset: Param<Bits<16>>,
    /// `WSA_OPERATION_ABORTED` (`WsaError::OperationAborted`).
    k_aborted: Param<Bits<16>>,
}

impl CtlRecv {
    pub fn new() -> Self {
        CtlRecv {
            k_mid_credit: param(mid::CREDIT_UPDATE as u64),
            k_mid_abort: param(mid::ABORT as u64),
            k_mid_disconnect: param(mid::DISCONNECT as u64),
            k_mid_data: param(mid::DATA as u64),
            k_connreset: wsa(WsaError::ConnReset),
            k_aborted: wsa(WsaError::OperationAborted),
            ..Default::default()
        }
    }
}

impl Logic for CtlRecv {
    #[hdl_gen]
    fn update(&mut self) {
        self.kmid.next = self.step.val().kmid;
        self.c.next = self.ci.val();
        self.a.next = self.k_zero_act.val();
        self.held_v.next = false;
        self.held.next.buf = self.step.val().kbuf;
        self.held.next.len = self.step.val().kpay;
        self.held.next.urgent = self.step.val().kurg;
        self.late.next = self.ci.val().fin_rcvd | (self.ci.val().rx_x != 0);
        // A violation unless a branch below takes the message.
        self.viol.next = true;
        self.verr.next = self.k_connreset.val();
        if !self.ok.val() {
        } else if self.kmid.val() == self.k_mid_credit.val() {
            self.viol.next = false;
            self.a.next.code = 3.into();
            self.a.next.kbuf = self.step.val().kbuf;
        } else if self.kmid.val() == self.k_mid_abort.val() {
            // The peer aborted: reset, without answering.
            self.viol.next = false;
            self.a.next.code = 2.into();
            self.a.next.kerr = self.k_connreset.val();
        } else if self.kmid.val() == self.k_mid_disconnect.val() {
            if !self.late.val() {
                self.viol.next = false;
                self.c.next.fin_rcvd = true;
                self.a.next.code = 3.into();
                self.a.next.kbuf = self.step.val().kbuf;
            }
        } else if self.kmid.val() == self.k_mid_data.val() {
            if self.late.val() {
            } else if self.ci.val().closing {
                self.verr.next = self.k_aborted.val();
            } else {
                self.viol.next = false;
                self.held_v.next = true;
                self.c.next.held_n = self.ci.val().held_n + 1;
            }
        }
        if self.viol.val() {
            self.a.next.code = 2.into();
            self.a.next.kerr = self.verr.val();
            self.a.next.notify = true;
        }
        self.act.next = self.a.val();
    }
}
