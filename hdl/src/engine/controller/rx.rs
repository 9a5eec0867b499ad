//! The controller's decision on an incoming message's header (the model's
//! `Controller::on_rx`), combinational.
//!
//! # Ports
//! - `hdr` (in): the parser's header record (`tuser`: connection in bits 0..8, receive
//!   buffer in bits 8..16; `error`: the parser's verdict).
//! - `cw` (in): the connection's state word.
//! - `conn` (out): the connection (from `tuser`).
//! - `c`, `fx` (out): the new word (the peer's capabilities from a Hello or HelloAck) and
//!   effects (a duplicate Hello's buffer posted again).
//! - `act` (out): what comes next: the pool request that takes the message (sequence check
//!   and credits), an abort on a malformed or unexpected message, or nothing (a message for
//!   a connection that is gone is dropped, its buffer staying taken until the pool closes).

use rust_hdl::prelude::*;

use crate::widgets::wsa;
use sanswitch_model::status::WsaError;
use sanswitch_model::wire::{Kind, Layout, mid};

use super::super::records::{Act, ConnWord, Fx, HdrRec, PoolReq};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlRx {
    pub hdr: Signal<In, HdrRec>,
    pub cw: Signal<In, ConnWord>,
    pub conn: Signal<Out, Bits<8>>,
    pub c: Signal<Out, ConnWord>,
    pub fx: Signal<Out, Fx>,
    pub act: Signal<Out, Act>,
    k_zero_fx: Param<Fx>,
    k_zero_act: Param<Act>,
    k_zero_req: Param<PoolReq>,
    k_mid_hello: Param<Bits<8>>,
    k_mid_hello_ack: Param<Bits<8>>,
    k_mid_large_send: Param<Bits<8>>,
    /// Bytes before the payload: a Data message's; a LargeSend's without and with its
    /// descriptor.
    k_fixed_data: Param<Bits<32>>,
    k_fixed_ls: Param<Bits<32>>,
    k_fixed_ls_desc: Param<Bits<32>>,
    req: Signal<Local, PoolReq>,
    a: Signal<Local, Act>,
    hbuf: Signal<Local, Bits<8>>,
    st: Signal<Local, Bits<3>>,
    tuser: Signal<Local, Bits<16>>,
    ext: Signal<Local, Bits<64>>,
    flags: Signal<Local, Bits<8>>,
    hello: Signal<Local, Bit>,
    hello_ack: Signal<Local, Bit>,
    /// The incoming message's bytes before its payload.
    fixed: Signal<Local, Bits<32>>,
    /// A Hello's buffer size as the connection word keeps it (`ConnWord::peer_room`).
    peer_room: Signal<Local, Bits<32>>,
    /// `WSAECONNRESET` (`WsaError::ConnReset`).
    k_connreset: Param<Bits<16>>,
}

impl CtlRx {
    pub fn new() -> Self {
        let ls = Layout::of(Kind::LargeSend);
        CtlRx {
            k_mid_hello: param(mid::HELLO as u64),
            k_mid_hello_ack: param(mid::HELLO_ACK as u64),
            k_mid_large_send: param(mid::LARGE_SEND as u64),
            k_fixed_data: param(Layout::of(Kind::Data).fixed_bytes(false) as u64),
            k_fixed_ls: param(ls.fixed_bytes(false) as u64),
            k_fixed_ls_desc: param(ls.fixed_bytes(true) as u64),
            k_connreset: wsa(WsaError::ConnReset),
            ..Default::default()
        }
    }
}

impl Logic for CtlRx {
    #[hdl_gen]
    fn update(&mut self) {
        self.tuser.next = self.hdr.val().tuser;
        self.ext.next = self.hdr.val().ext;
        self.flags.next = self.hdr.val().flags;
        self.st.next = self.cw.val().st;
        self.hbuf.next = self.tuser.val().get_bits::<8>(8);
        self.conn.next = self.tuser.val().get_bits::<8>(0);
        self.hello.next = self.hdr.val().mid == self.k_mid_hello.val();
        self.hello_ack.next = self.hdr.val().mid == self.k_mid_hello_ack.val();
        self.c.next = self.cw.val();
        self.fx.next = self.k_zero_fx.val();
        self.fx.next.work = true;
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.conn.val();
        self.req.next.c = self.hdr.val().mseq;
        self.req.next.bufs = self.hdr.val().bufs;
        self.req.next.buf = 1.into();
        self.a.next.kbuf = self.hbuf.val();
        self.peer_room.next = 0.into();
        if self.ext.val().get_bits::<32>(32) > self.k_fixed_data.val() {
            self.peer_room.next = self.ext.val().get_bits::<32>(32) - self.k_fixed_data.val();
        }
        self.fixed.next = self.k_fixed_data.val();
        if self.hdr.val().mid == self.k_mid_large_send.val() {
            self.fixed.next = self.k_fixed_ls.val();
            if self.flags.val().get_bit(1) {
                self.fixed.next = self.k_fixed_ls_desc.val();
            }
        }
        if (self.st.val() == 0) | (self.st.val() == 5) | (self.st.val() == 6) {
            // Gone: dropped, its buffer stays taken.
        } else if self.hdr.val().error != 0 {
            self.a.next.code = 2.into();
            self.a.next.kerr = self.k_connreset.val();
            self.a.next.notify = true;
        } else if ((self.st.val() == 1) | (self.st.val() == 2)) & self.hello.val() {
            self.c.next.peer_read = self.ext.val().get_bit(8);
            self.c.next.peer_room = self.peer_room.val();
            self.a.next.code = 1.into();
            self.req.next.op = 0.into();
            self.req.next.a = self.cw.val().init_seq;
            self.req.next.b = self.cw.val().init_seq - 1;
            self.a.next.cont = 1.into();
        } else if (self.st.val() == 3) & self.hello_ack.val() {
            if self.hdr.val().ack != self.cw.val().init_seq {
                self.a.next.code = 2.into();
                self.a.next.kerr = self.k_connreset.val();
                self.a.next.notify = true;
            } else {
                self.c.next.peer_read = self.ext.val().get_bit(8);
                self.c.next.peer_room = self.peer_room.val();
                self.a.next.code = 1.into();
                self.req.next.op = 0.into();
                self.req.next.a = self.hdr.val().ack + 1;
                self.req.next.b = self.hdr.val().ack;
                self.a.next.cont = 3.into();
            }
        } else if (self.st.val() == 4) & (self.hello.val() | self.hello_ack.val()) {
            // A duplicate Hello: its buffer posted again.
            self.fx.next.adm_v = true;
            self.fx.next.adm_post = true;
            self.fx.next.adm_buf = self.hbuf.val();
        } else if self.st.val() == 4 {
            self.a.next.code = 1.into();
            self.req.next.op = 4.into();
            self.req.next.buf = self.hbuf.val();
            self.req.next.a = self.hdr.val().mseq;
            self.req.next.b = self.hdr.val().ack;
            self.req.next.c = 0.into();
            self.a.next.cont = 4.into();
            self.a.next.kmid = self.hdr.val().mid;
            self.a.next.kurg = self.flags.val().get_bit(0);
            self.a.next.kpay = 0.into();
            if self.hdr.val().len > self.fixed.val() {
                self.a.next.kpay = self.hdr.val().len - self.fixed.val();
            }
        } else {
            self.a.next.code = 2.into();
            self.a.next.kerr = self.k_connreset.val();
            self.a.next.notify = true;
        }
        self.a.next.req = self.req.val();
        self.act.next = self.a.val();
    }
}
