//! The controller's decision on a pool answer for the pump's messages (the model's
//! `Controller::cont` for `Cont::DataBuf`, `DisconnectBuf`, `Queried`, `UpdateBuf`),
//! combinational: the head send's next Data message, the Disconnect, a credit-only update.
//!
//! # Ports
//! - `ck` (in): the continuation (`codes::cont`); `conn`, `ci` (in): the connection and its
//!   word; `sq_f` (in): the head send; `rest` (in): its bytes left and whether they fit
//!   the peer's buffer (registered, see [`SendRest`]); `resp`, `ok` (in): the pool's answer.
//! - `c`, `act` (out): the new word (bytes sent, send queue popped, FIN sent) and what comes
//!   next.
//! - `build`, `mid`, `mflags`, `mlen` (out): the message to send, header from the answer.
//! - `pay_addr`, `pay_len` (out): a Data message's payload in host memory; `cpl_v`, `cpl`
//!   (out): the send it finishes, completed when the builder reports it sent.

use rust_hdl::prelude::*;
use sanswitch_model::wire::{Kind, Layout, flag, mid};

use super::super::records::{Act, ConnWord, CplRec, PoolReq, PoolResp, SendRest, SqEnt};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlTxCont {
    pub ck: Signal<In, Bits<4>>,
    pub conn: Signal<In, Bits<8>>,
    pub ci: Signal<In, ConnWord>,
    pub sq_f: Signal<In, SqEnt>,
    pub rest: Signal<In, SendRest>,
    pub resp: Signal<In, PoolResp>,
    pub ok: Signal<In, Bit>,
    pub c: Signal<Out, ConnWord>,
    pub act: Signal<Out, Act>,
    pub build: Signal<Out, Bit>,
    pub mid: Signal<Out, Bits<8>>,
    pub mflags: Signal<Out, Bits<8>>,
    pub mlen: Signal<Out, Bits<32>>,
    pub pay_addr: Signal<Out, Bits<64>>,
    pub pay_len: Signal<Out, Bits<32>>,
    pub cpl_v: Signal<Out, Bit>,
    pub cpl: Signal<Out, CplRec>,
    k_mid_data: Param<Bits<8>>,
    k_mid_disconnect: Param<Bits<8>>,
    k_mid_credit: Param<Bits<8>>,
    k_flag_urgent: Param<Bits<8>>,
    /// A header-only message's length (Data's bytes before its payload, Disconnect's and
    /// CreditUpdate's whole length).
    k_hdr_len: Param<Bits<32>>,
    k_zero_act: Param<Act>,
    k_zero_req: Param<PoolReq>,
    a: Signal<Local, Act>,
    req: Signal<Local, PoolReq>,
    /// The peer's buffer's room for payload, the head send's bytes left, this message's.
    room: Signal<Local, Bits<32>>,
    left: Signal<Local, Bits<32>>,
    n: Signal<Local, Bits<32>>,
    last: Signal<Local, Bit>,
    /// `room + header`, the message length when the payload fills the room.
    room_h: Signal<Local, Bits<32>>,
    /// `left + header`, the message length when the payload is the rest of the send.
    left_h: Signal<Local, Bits<32>>,
    /// `sent + room`, the bytes sent after a message that fills the room.
    sent_room: Signal<Local, Bits<32>>,
}

impl CtlTxCont {
    pub fn new() -> Self {
        CtlTxCont {
            k_mid_data: param(mid::DATA as u64),
            k_mid_disconnect: param(mid::DISCONNECT as u64),
            k_mid_credit: param(mid::CREDIT_UPDATE as u64),
            k_flag_urgent: param(flag::URGENT as u64),
            k_hdr_len: param(Layout::of(Kind::Data).fixed_bytes(false) as u64),
            ..Default::default()
        }
    }
}

impl Logic for CtlTxCont {
    #[hdl_gen]
    fn update(&mut self) {
        self.c.next = self.ci.val();
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.conn.val();
        self.build.next = false;
        self.mid.next = self.k_mid_data.val();
        self.mflags.next = 0.into();
        self.room.next = self.ci.val().peer_room;
        self.room_h.next = self.ci.val().peer_room + self.k_hdr_len.val();
        // The message's payload: the rest of the send if it fits the room, else the room.
        // Every result is chosen by the one compare (`rest.fits`, made a cycle before),
        // from sums made beside it (not after it): `sent + n == len` is `n == left`, which
        // is the compare itself.
        self.left.next = self.rest.val().left;
        self.left_h.next = self.left.val() + self.k_hdr_len.val();
        self.sent_room.next = self.ci.val().sent + self.room.val();
        self.last.next = self.rest.val().fits;
        self.n.next = self.room.val();
        if self.last.val() {
            self.n.next = self.left.val();
        }
        self.mlen.next = self.k_hdr_len.val();
        self.pay_addr.next = 0.into();
        self.pay_len.next = 0.into();
        self.cpl_v.next = false;
        self.cpl.next.tag = self.sq_f.val().tag;
        self.cpl.next.bytes = self.sq_f.val().len;
        self.cpl.next.conn = bit_cast::<16, 8>(self.conn.val());
        self.cpl.next.status = 0.into();
        self.cpl.next.opcode = 4.into();
        if self.sq_f.val().urgent {
            self.cpl.next.opcode = 5.into();
        }
        self.cpl.next.urgent = false;
        self.cpl.next.eof = false;
        if self.ck.val() == 8 {
            // A buffer and credits for the next Data message of the head send.
            self.pay_addr.next = self.sq_f.val().addr + bit_cast::<64, 32>(self.ci.val().sent);
            self.pay_len.next = self.n.val();
            self.cpl_v.next = self.last.val();
            if !self.ok.val() {
                self.a.next.code = 4.into();
            } else {
                self.build.next = true;
                if self.sq_f.val().urgent {
                    self.mflags.next = self.k_flag_urgent.val();
                }
                self.mlen.next = self.room_h.val();
                self.c.next.sent = self.sent_room.val();
                if self.last.val() {
                    self.mlen.next = self.left_h.val();
                    self.c.next.sq_head = self.ci.val().sq_head + 1;
                    self.c.next.sq_n = self.ci.val().sq_n - 1;
                    self.c.next.sent = 0.into();
                }
            }
        } else if self.ck.val() == 9 {
            // The Disconnect's buffer; none: ask whether an update is owed first.
            self.mid.next = self.k_mid_disconnect.val();
            if !self.ok.val() {
                self.a.next.code = 1.into();
                self.req.next.op = 6.into();
                self.a.next.cont = 10.into();
            } else {
                self.build.next = true;
                self.c.next.fin_sent = true;
            }
        } else if self.ck.val() == 10 {
            if self.ok.val() & (self.resp.val().update_due | self.ci.val().adv_due) {
                self.a.next.code = 1.into();
                self.req.next.op = 2.into();
                self.req.next.class = 2.into();
                self.a.next.cont = 11.into();
            } else {
                self.a.next.code = 5.into();
            }
        } else if self.ck.val() == 11 {
            self.mid.next = self.k_mid_credit.val();
            if !self.ok.val() {
                self.a.next.code = 5.into();
            } else {
                self.build.next = true;
            }
        }
        self.a.next.req = self.req.val();
        self.act.next = self.a.val();
    }
}
