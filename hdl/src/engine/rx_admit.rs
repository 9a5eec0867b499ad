//! Receive admission: the receive buffer each incoming message lands in (model:
//! `sanswitch_model::blocks::engine::rx_admit`, whose documentation gives the behaviour).
//!
//! # Ports
//! - `rx_*` (in) / `rx_ready` (out, from registers): the SAN receive stream, `rx_conn` its
//!   `tuser`.
//! - `out_*` (out, registered, zero when not valid) / `out_ready` (in, the parser's registered
//!   ready): the stream toward the parser, `out_user` = `{buf, conn}`.
//! - `ovr_pop` (in) / `ovr_valid`, `ovr_conn` (out): connections whose peer overran its
//!   credits (a FIFO of two).
//! - `op_valid`, `op_conn`, `op_post`, `op_buf`, `op_open` (in): the controller's change to a
//!   connection's posted bitmap: post `op_buf` again (`op_post`), else every buffer
//!   (`op_open`) or none.
//! - `reset` (in): synchronous; nothing posted.
//!
//! The bitmaps are flip-flops (a word per connection): a message's first beat and the
//! controller may change two of them in the same cycle. They are 16 bits wide (the most
//! buffers a connection may have) and every write is masked to the engine's `recv_bufs`,
//! so synthesis keeps only those bits.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use crate::widgets::{Fifo, Param, param};

#[derive(LogicBlock, Default)]
pub struct RxAdmit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_data: Signal<In, Bits<64>>,
    pub rx_keep: Signal<In, Bits<8>>,
    pub rx_last: Signal<In, Bit>,
    pub rx_conn: Signal<In, Bits<8>>,
    pub rx_ready: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_data: Signal<Out, Bits<64>>,
    pub out_keep: Signal<Out, Bits<8>>,
    pub out_last: Signal<Out, Bit>,
    pub out_user: Signal<Out, Bits<16>>,
    pub ovr_pop: Signal<In, Bit>,
    pub ovr_valid: Signal<Out, Bit>,
    pub ovr_conn: Signal<Out, Bits<8>>,
    pub op_valid: Signal<In, Bit>,
    pub op_conn: Signal<In, Bits<8>>,
    pub op_post: Signal<In, Bit>,
    pub op_buf: Signal<In, Bits<8>>,
    pub op_open: Signal<In, Bit>,
    avail: Vec<DFF<Bits<16>>>,
    ovr: Fifo<Bits<8>>,
    in_msg: DFF<Bit>,
    cur_conn: DFF<Bits<8>>,
    cur_buf: DFF<Bits<8>>,
    cur_drop: DFF<Bit>,
    o_v: DFF<Bit>,
    o_data: DFF<Bits<64>>,
    o_keep: DFF<Bits<8>>,
    o_last: DFF<Bit>,
    o_user: DFF<Bits<16>>,
    k_idx: Vec<Param<Bits<8>>>,
    k_b: Vec<Param<Bits<8>>>,
    k_one: Param<Bits<16>>,
    k_full: Param<Bits<16>>,
    k_conns: Param<Bits<8>>,
    ready: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    a: Signal<Local, Bits<16>>,
    lower: Vec<Signal<Local, Bit>>,
    low_buf: Signal<Local, Bits<8>>,
    conn: Signal<Local, Bits<8>>,
    bufn: Signal<Local, Bits<8>>,
    drop: Signal<Local, Bit>,
    consume: Signal<Local, Bit>,
    /// Each bitmap after this cycle's arrival, before the controller's change.
    after: Vec<Signal<Local, Bits<16>>>,
}

impl RxAdmit {
    pub fn new(p: &EngineParams) -> Self {
        let n = p.connections as usize;
        RxAdmit {
            avail: (0..n).map(|_| Default::default()).collect(),
            ovr: Fifo::new(2),
            k_idx: (0..n).map(|i| param(i as u64)).collect(),
            k_b: (0..16).map(param).collect(),
            k_one: param(1),
            after: (0..n).map(|_| Default::default()).collect(),
            k_full: param((1u64 << p.recv_bufs) - 1),
            k_conns: param(n.min(255) as u64),
            lower: (0..=16).map(|_| Default::default()).collect(),
            ..Default::default()
        }
    }
}

impl Logic for RxAdmit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_msg, cur_conn, cur_buf, cur_drop, o_v, o_data, o_keep, o_last, o_user
        );
        clock!(self, clock, ovr);
        for i in 0..self.avail.len() {
            self.avail[i].clock.next = self.clock.val();
            self.avail[i].d.next = self.avail[i].q.val();
        }
        self.ovr.reset.next = self.reset.val();
        self.ovr.pop.next = self.ovr_pop.val();
        self.ovr_valid.next = self.ovr.valid.val();
        self.ovr_conn.next = self.ovr.head.val();
        self.out_valid.next = self.o_v.q.val();
        self.out_data.next = 0.into();
        self.out_keep.next = 0.into();
        self.out_last.next = false;
        self.out_user.next = 0.into();
        if self.o_v.q.val() {
            self.out_data.next = self.o_data.q.val();
            self.out_keep.next = self.o_keep.q.val();
            self.out_last.next = self.o_last.q.val();
            self.out_user.next = self.o_user.q.val();
        }
        self.ready.next = (!self.o_v.q.val() | self.out_ready.val()) & self.ovr.can_push.val();
        self.rx_ready.next = self.ready.val();
        if self.o_v.q.val() & self.out_ready.val() {
            self.o_v.d.next = false;
        }

        // The arriving connection's posted bitmap and its lowest buffer.
        self.a.next = 0.into();
        for i in 0..self.avail.len() {
            if self.rx_conn.val() == self.k_idx[i].val() {
                self.a.next = self.avail[i].q.val();
            }
        }
        self.lower[0].next = false;
        self.low_buf.next = 0.into();
        for i in 0..16 {
            if self.a.val().get_bit(i) & !self.lower[i].val() {
                self.low_buf.next = self.k_b[i].val();
            }
            self.lower[i + 1].next = self.lower[i].val() | self.a.val().get_bit(i);
        }

        self.take.next = self.rx_valid.val() & self.ready.val();
        self.conn.next = self.cur_conn.q.val();
        self.bufn.next = self.cur_buf.q.val();
        self.drop.next = self.cur_drop.q.val();
        self.consume.next = false;
        self.ovr.push.next = false;
        self.ovr.push_data.next = self.rx_conn.val();
        if !self.in_msg.q.val() {
            self.conn.next = self.rx_conn.val();
            self.bufn.next = self.low_buf.val();
            self.drop.next = !((self.rx_conn.val() < self.k_conns.val()) & (self.a.val() != 0));
            self.consume.next = self.take.val() & !self.drop.val();
            self.ovr.push.next =
                self.take.val() & self.drop.val() & (self.rx_conn.val() < self.k_conns.val());
        }
        if self.take.val() {
            if !self.drop.val() {
                self.o_v.d.next = true;
                self.o_data.d.next = self.rx_data.val();
                self.o_keep.d.next = self.rx_keep.val();
                self.o_last.d.next = self.rx_last.val();
                self.o_user.d.next =
                    (bit_cast::<16, 8>(self.bufn.val()) << 8) | bit_cast::<16, 8>(self.conn.val());
            }
            self.in_msg.d.next = !self.rx_last.val();
            self.cur_conn.d.next = self.conn.val();
            self.cur_buf.d.next = self.bufn.val();
            self.cur_drop.d.next = self.drop.val();
        }
        // Every write is masked to the connection's `recv_bufs` buffers: the bits above
        // are then constant zero, and synthesis drops their flip-flops and logic (the
        // controller only ever posts a buffer admission chose, so nothing is lost).
        for i in 0..self.avail.len() {
            self.after[i].next = self.avail[i].q.val() & self.k_full.val();
            if self.consume.val() & (self.rx_conn.val() == self.k_idx[i].val()) {
                self.after[i].next = self.avail[i].q.val()
                    & self.k_full.val()
                    & !(self.k_one.val() << bit_cast::<16, 8>(self.bufn.val()));
            }
            self.avail[i].d.next = self.after[i].val();
            if self.op_valid.val() & (self.op_conn.val() == self.k_idx[i].val()) {
                if self.op_post.val() {
                    self.avail[i].d.next = (self.after[i].val()
                        | (self.k_one.val() << bit_cast::<16, 8>(self.op_buf.val())))
                        & self.k_full.val();
                } else if self.op_open.val() {
                    self.avail[i].d.next = self.k_full.val();
                } else {
                    self.avail[i].d.next = 0.into();
                }
            }
        }
        if self.reset.val() {
            self.in_msg.d.next = false;
            self.o_v.d.next = false;
            for i in 0..self.avail.len() {
                self.avail[i].d.next = 0.into();
            }
        }
    }
}
