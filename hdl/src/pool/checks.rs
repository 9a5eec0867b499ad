//! Stage 1 of the pool manager: every check a request needs, made on the request and the
//! connection's state word as read from the RAM, registered for stage 2 as a [`PreHw`].
//!
//! Purely combinational. Inputs: `q` (the request in stage 1) and `s` (its connection's word,
//! read asynchronously). Outputs: `pre`, and `word` (`s` with its bitmaps masked to the
//! buffers there are, which stage 2 takes). Keeping every comparison here and every decision in
//! stage 2 ([`super::decide`]) is what holds the pool at 7 LUT levels.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::pool::class;
use sanswitch_model::params::PoolParams;
use sanswitch_model::wire;

use super::{ConnHw, NB, PreHw, ReqHw};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct PoolChecks {
    pub q: Signal<In, ReqHw>,
    pub s: Signal<In, ConnHw>,
    pub pre: Signal<Out, PreHw>,
    /// `s` with its bitmaps masked to the buffers there are, for stage 2.
    pub word: Signal<Out, ConnHw>,

    c_connections: Param<Bits<9>>,
    c_send_mask: Param<Bits<16>>,
    c_recv_mask: Param<Bits<16>>,
    c_send_bufs: Param<Bits<8>>,
    c_recv_bufs: Param<Bits<8>>,
    c_due: Param<Bits<16>>,
    c_due_m1: Param<Bits<16>>,
    c_min_posted: Param<Bits<16>>,
    c_idx: [Param<Bits<8>>; NB],
    c_onehot: [Param<Bits<16>>; NB],
    /// The bits below bit `i`.
    c_below: [Param<Bits<16>>; NB],
    c_class_data: Param<Bits<2>>,
    c_class_control: Param<Bits<2>>,
    c_class_update: Param<Bits<2>>,

    // (Fields sliced further get their own wire: Yosys takes one slice per select.)
    s_tx: Signal<Local, Bits<32>>,
    s_ack: Signal<Local, Bits<32>>,
    s_used: Signal<Local, Bits<16>>,
    s_ever: Signal<Local, Bits<16>>,
    s_posted: Signal<Local, Bits<16>>,
    s_rx: Signal<Local, Bits<16>>,
    s_bufs: Signal<Local, Bits<16>>,
    q_a: Signal<Local, Bits<32>>,
    q_b: Signal<Local, Bits<32>>,
    q_buf: Signal<Local, Bits<8>>,
    q_class: Signal<Local, Bits<2>>,
    q_bufs: Signal<Local, Bits<16>>,
    free: Signal<Local, Bits<16>>,
    inflight: Signal<Local, Bits<16>>,
    inflight_open: Signal<Local, Bits<16>>,
    inflight_open32: Signal<Local, Bits<32>>,
    inflight_recv: Signal<Local, Bits<16>>,
    reserve: Signal<Local, Bits<16>>,
    ack_off: Signal<Local, Bits<32>>,
    ack_span: Signal<Local, Bits<32>>,
}

impl PoolChecks {
    pub fn new(p: &PoolParams) -> Self {
        PoolChecks {
            c_connections: param(p.connections as u64),
            c_send_mask: param((1u64 << p.send_bufs) - 1),
            c_recv_mask: param((1u64 << p.recv_bufs) - 1),
            c_send_bufs: param(p.send_bufs as u64),
            c_recv_bufs: param(p.recv_bufs as u64),
            c_due: param(u64::max(1, p.recv_bufs as u64 / 2)),
            c_due_m1: param(u64::max(1, p.recv_bufs as u64 / 2) - 1),
            c_min_posted: param(wire::MIN_POSTED as u64),
            c_idx: std::array::from_fn(|i| param(i as u64)),
            c_onehot: std::array::from_fn(|i| param(1u64 << i)),
            c_below: std::array::from_fn(|i| param((1u64 << i) - 1)),
            c_class_data: param(class::DATA as u64),
            c_class_control: param(class::CONTROL as u64),
            c_class_update: param(class::UPDATE as u64),
            ..Default::default()
        }
    }
}

impl Logic for PoolChecks {
    #[hdl_gen]
    fn update(&mut self) {
        self.q_a.next = self.q.val().a;
        self.q_b.next = self.q.val().b;
        self.q_buf.next = self.q.val().buf;
        self.q_class.next = self.q.val().class;
        self.q_bufs.next = self.q.val().bufs;
        self.s_tx.next = self.s.val().tx_next;
        self.s_ack.next = self.s.val().peer_ack;
        // No bitmap bit above `send_bufs` / `recv_bufs` is ever set (every request that
        // would set one is refused), but nothing tells synthesis so: masked as read, those
        // bits are constant zero here, in stage 2 (which takes `word`) and in what it writes
        // back, so their logic and RAM columns go.
        self.s_used.next = self.s.val().send_used & self.c_send_mask.val();
        self.s_ever.next = self.s.val().send_ever & self.c_send_mask.val();
        self.s_posted.next = self.s.val().recv_posted & self.c_recv_mask.val();
        self.word.next = self.s.val();
        self.word.next.send_used = self.s_used.val();
        self.word.next.send_ever = self.s_ever.val();
        self.word.next.recv_posted = self.s_posted.val();
        self.s_rx.next = self.s.val().rx_since_adv;
        self.s_bufs.next = self.s.val().peer_bufs;

        self.pre.next.conn_ok = bit_cast::<9, 8>(self.q.val().conn) < self.c_connections.val();
        self.pre.next.open = self.pre.val().conn_ok & self.s.val().open;
        self.pre.next.class_ok = (self.q_class.val() == self.c_class_data.val())
            | (self.q_class.val() == self.c_class_control.val())
            | (self.q_class.val() == self.c_class_update.val());
        // The buffer named by the request, as a bit (none if out of range).
        self.pre.next.buf_bit = 0.into();
        for i in 0..NB {
            if self.q_buf.val() == self.c_idx[i].val() {
                self.pre.next.buf_bit = self.c_onehot[i].val();
            }
        }
        // The lowest free send buffer.
        self.free.next = !self.s_used.val() & self.c_send_mask.val();
        self.pre.next.free_any = self.free.val().any();
        self.pre.next.pick = 0.into();
        self.pre.next.pick_bit = 0.into();
        for i in 0..NB {
            if self.free.val().get_bit(i) & !(self.free.val() & self.c_below[i].val()).any() {
                self.pre.next.pick = self.c_idx[i].val();
                self.pre.next.pick_bit = self.c_onehot[i].val();
            }
        }
        // Credits: the peer's posted buffers less our unacknowledged messages (16 bits).
        self.inflight.next =
            self.s_tx.val().get_bits::<16>(0) - 1 - self.s_ack.val().get_bits::<16>(0);
        self.pre.next.cred_s = 0.into();
        if self.s_bufs.val() > self.inflight.val() {
            self.pre.next.cred_s = self.s_bufs.val() - self.inflight.val();
        }
        self.pre.next.cred_s_m1 = self.pre.val().cred_s - 1;
        self.inflight_open.next =
            self.q_a.val().get_bits::<16>(0) - 1 - self.q_b.val().get_bits::<16>(0);
        self.pre.next.cred_open = 0.into();
        if self.q_bufs.val() > self.inflight_open.val() {
            self.pre.next.cred_open = self.q_bufs.val() - self.inflight_open.val();
        }
        // OPEN's operands must describe a state the protocol can reach.
        self.inflight_open32.next = self.q_a.val() - 1 - self.q_b.val();
        self.pre.next.bad_open = (self.inflight_open32.val()
            > bit_cast::<32, 16>(self.q_bufs.val()))
            | (self.q_bufs.val() < self.c_min_posted.val())
            | (self.q_buf.val() > self.c_recv_bufs.val());
        self.inflight_recv.next =
            self.s_tx.val().get_bits::<16>(0) - 1 - self.q_b.val().get_bits::<16>(0);
        self.pre.next.cred_recv = 0.into();
        if self.q_bufs.val() > self.inflight_recv.val() {
            self.pre.next.cred_recv = self.q_bufs.val() - self.inflight_recv.val();
        }
        self.reserve.next = 2.into();
        if self.q_class.val() == self.c_class_control.val() {
            self.reserve.next = 1.into();
        }
        if self.q_class.val() == self.c_class_update.val() {
            self.reserve.next = 0.into();
        }
        self.pre.next.cred_low = self.pre.val().cred_s <= self.reserve.val();
        self.pre.next.never = (self.q_buf.val() >= self.c_send_bufs.val())
            | !(self.s_ever.val() & self.pre.val().buf_bit).any();
        self.pre.next.dfree = !(self.s_used.val() & self.pre.val().buf_bit).any();
        self.pre.next.not_posted = (self.q_buf.val() >= self.c_recv_bufs.val())
            | !(self.s_posted.val() & self.pre.val().buf_bit).any();
        self.pre.next.seq_gap = self.q_a.val() != self.s.val().rx_last + 1;
        // The acknowledgement lies in [peer_ack, tx_next - 1], wrap-safe.
        self.ack_off.next = self.q_b.val() - self.s_ack.val();
        self.ack_span.next = self.s_tx.val() - 1 - self.s_ack.val();
        self.pre.next.bad_ack = self.ack_off.val() > self.ack_span.val();
        self.pre.next.bad_bufs = self.q_bufs.val() > self.s.val().peer_max;
        self.pre.next.repost_range = self.q_buf.val() >= self.c_recv_bufs.val();
        self.pre.next.dpost = (self.s_posted.val() & self.pre.val().buf_bit).any();
        self.pre.next.due_s = self.s_rx.val() >= self.c_due.val();
        self.pre.next.due_recv = self.s_rx.val() >= self.c_due_m1.val();
        self.pre.next.due_open = bit_cast::<16, 8>(self.q_buf.val()) >= self.c_due.val();
        self.pre.next.rx_next = self.s_rx.val() + 1;
        if self.s_rx.val().all() {
            self.pre.next.rx_next = self.s_rx.val();
        }
    }
}
