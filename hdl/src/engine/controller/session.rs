//! The controller's decision on a pool answer for the session's own messages (the model's
//! `Controller::cont` for `Cont::HelloOpened`, `HelloAckBuf`, `HelloAckOpened`,
//! `AbortBuf`, `AbortClosed`), combinational: the handshake's pool steps, and an abort's
//! Abort message and teardown.
//!
//! # Ports
//! - `ck`, `step` (in): the continuation (`codes::cont`) and its arguments.
//! - `conn` (in), `ci` (in): the connection and its word; `ok` (in): the pool granted.
//! - `c`, `fx`, `act` (out): the new word, effects, what comes next.
//! - `cpl_v`, `cpl` (out): the waiting LISTEN or CONNECT completes (session up).
//! - `build`, `mid`, `mlen`, `ext_v` (out): a message to send (HelloAck with its extension
//!   word, or Abort), header from the pool's answer.

use rust_hdl::prelude::*;

use crate::widgets::wsa;
use sanswitch_model::status::WsaError;
use sanswitch_model::wire::{Kind, Layout, mid};

use super::super::records::{Act, ConnWord, CplRec, Fx, PoolReq};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlSession {
    pub ck: Signal<In, Bits<4>>,
    pub step: Signal<In, Act>,
    pub conn: Signal<In, Bits<8>>,
    pub ci: Signal<In, ConnWord>,
    pub fx_in: Signal<In, Fx>,
    pub ok: Signal<In, Bit>,
    pub c: Signal<Out, ConnWord>,
    pub fx: Signal<Out, Fx>,
    pub act: Signal<Out, Act>,
    pub cpl_v: Signal<Out, Bit>,
    pub cpl: Signal<Out, CplRec>,
    pub build: Signal<Out, Bit>,
    pub mid: Signal<Out, Bits<8>>,
    pub mlen: Signal<Out, Bits<32>>,
    pub ext_v: Signal<Out, Bit>,
    /// The engine has the zero-copy paths (an abort then ends the connection's transfers).
    k_zc: Param<Bit>,
    k_mid_hello_ack: Param<Bits<8>>,
    k_mid_abort: Param<Bits<8>>,
    k_len_hello_ack: Param<Bits<32>>,
    k_len_abort: Param<Bits<32>>,
    k_zero_act: Param<Act>,
    k_zero_req: Param<PoolReq>,
    a: Signal<Local, Act>,
    req: Signal<Local, PoolReq>,
    /// `WSAECONNRESET` (`WsaError::ConnReset`).
    k_connreset: Param<Bits<16>>,
    /// `WSAENOTCONN` (`WsaError::NotConn`).
    k_notconn: Param<Bits<16>>,
}

impl CtlSession {
    pub fn new(zero_copy: bool) -> Self {
        CtlSession {
            k_zc: Param::new(zero_copy),
            k_mid_hello_ack: param(mid::HELLO_ACK as u64),
            k_mid_abort: param(mid::ABORT as u64),
            k_len_hello_ack: param(Layout::of(Kind::HelloAck).fixed_bytes(false) as u64),
            k_len_abort: param(Layout::of(Kind::Abort).fixed_bytes(false) as u64),
            k_connreset: wsa(WsaError::ConnReset),
            k_notconn: wsa(WsaError::NotConn),
            ..Default::default()
        }
    }
}

impl Logic for CtlSession {
    #[hdl_gen]
    fn update(&mut self) {
        self.c.next = self.ci.val();
        self.fx.next = self.fx_in.val();
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.conn.val();
        self.build.next = false;
        self.mid.next = self.k_mid_hello_ack.val();
        self.mlen.next = self.k_len_hello_ack.val();
        self.ext_v.next = self.ck.val() == 2;
        self.cpl_v.next = false;
        self.cpl.next.tag = self.ci.val().wait_tag;
        self.cpl.next.bytes = 0.into();
        self.cpl.next.conn = bit_cast::<16, 8>(self.conn.val());
        self.cpl.next.status = 0.into();
        self.cpl.next.opcode = self.ci.val().wait_op;
        self.cpl.next.urgent = false;
        self.cpl.next.eof = false;
        if ((self.ck.val() == 1) | (self.ck.val() == 2) | (self.ck.val() == 3)) & !self.ok.val() {
            self.a.next.code = 2.into();
            self.a.next.kerr = self.k_connreset.val();
            self.a.next.notify = true;
        } else if self.ck.val() == 1 {
            // The pool opened on a Hello: a buffer for the HelloAck.
            self.a.next.code = 1.into();
            self.req.next.op = 2.into();
            self.req.next.class = 1.into();
            self.a.next.cont = 2.into();
            self.a.next.kbuf = self.step.val().kbuf;
        } else if (self.ck.val() == 2) | (self.ck.val() == 3) {
            // Up: the Hello's buffer posted again, a waiting LISTEN/CONNECT completes.
            self.build.next = self.ck.val() == 2;
            self.c.next.st = 4.into();
            self.fx.next.adm_v = true;
            self.fx.next.adm_post = true;
            self.fx.next.adm_buf = self.step.val().kbuf;
            if self.ci.val().wait_v {
                self.c.next.wait_v = false;
                self.cpl_v.next = true;
            }
        } else if self.ck.val() == 6 {
            // The Abort message, when a buffer and credit allow; then close the pool.
            self.build.next = self.ok.val();
            self.mid.next = self.k_mid_abort.val();
            self.mlen.next = self.k_len_abort.val();
            self.a.next.code = 1.into();
            self.req.next.op = 1.into();
            self.a.next.cont = 7.into();
            self.a.next.kerr = self.step.val().kerr;
        } else if self.ck.val() == 7 {
            // The pool closed: aborted, flush every queued command, tear down on the SAN.
            self.c.next.st = 6.into();
            self.c.next.err = self.step.val().kerr;
            if self.step.val().kerr == 995 {
                self.c.next.err = self.k_notconn.val();
            }
            self.c.next.held_n = 0.into();
            self.c.next.held_off = 0.into();
            self.c.next.held_land = false;
            self.fx.next.adm_v = true;
            self.fx.next.adm_post = false;
            self.fx.next.adm_open = false;
            self.c.next.fl_v = true;
            self.c.next.fl_all = true;
            self.c.next.fl_err = self.step.val().kerr;
            self.fx.next.down = true;
            if self.k_zc.val() {
                // Every transfer of the connection ends (its completion request follows),
                // every registration of it is released: the peer can touch nothing more.
                self.c.next.tx_x = 0.into();
                self.c.next.rx_x = 0.into();
                self.c.next.tx_due = false;
                self.c.next.rx_due = 0.into();
                self.a.next.code = 6.into();
                self.a.next.sop = 4.into();
                self.a.next.zk = 8.into();
            }
        }
        self.a.next.req = self.req.val();
        self.act.next = self.a.val();
    }
}
