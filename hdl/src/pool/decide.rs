//! Stage 2 of the pool manager: from the request, its connection's word and stage 1's
//! checks, the status, the connection's new word and the response.
//!
//! Purely combinational. Inputs: `q` (the request), `w` (its word as stage 1 read it), `pre`
//! (stage 1's checks). Outputs: `word` (the new word), `changed` (write it), `resp` (the
//! response record). Statuses are `sanswitch_model::blocks::pool::status`; a refused request
//! changes nothing; a CLOSED one shows no field of any connection's word.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::pool::{op, status};
use sanswitch_model::params::PoolParams;

use super::{ConnHw, NSTAT, PreHw, ReqHw, RespHw};
use crate::widgets::{Param, param};

// rust-hdl writes array indices into the Verilog as written, so the status indices below are
// literals; this check keeps them equal to the model's codes.
const _: () = assert!(
    status::OK == 0
        && status::NO_BUF == 1
        && status::NO_CREDIT == 2
        && status::CLOSED == 3
        && status::DOUBLE_FREE == 4
        && status::NEVER_HANDED_OUT == 5
        && status::REPOST_RANGE == 6
        && status::DOUBLE_POST == 7
        && status::NOT_POSTED == 8
        && status::SEQ_GAP == 9
        && status::BAD_ACK == 10
        && status::BAD_BUFS == 11
        && status::BAD_OP == 12
        && status::BAD_OPEN == 13
);

#[derive(LogicBlock, Default)]
pub struct PoolDecide {
    pub q: Signal<In, ReqHw>,
    pub w: Signal<In, ConnHw>,
    pub pre: Signal<In, PreHw>,
    pub word: Signal<Out, ConnHw>,
    pub changed: Signal<Out, Bit>,
    pub resp: Signal<Out, RespHw>,

    c_recv_mask: Param<Bits<16>>,
    c_recv_bufs: Param<Bits<8>>,
    c_status: [Param<Bits<4>>; NSTAT],
    c_zero: Param<ConnHw>,
    c_op_open: Param<Bits<3>>,
    c_op_close: Param<Bits<3>>,
    c_op_alloc: Param<Bits<3>>,
    c_op_free: Param<Bits<3>>,
    c_op_recv: Param<Bits<3>>,
    c_op_repost: Param<Bits<3>>,
    c_op_query: Param<Bits<3>>,

    st: Signal<Local, Bits<4>>,
    report: Signal<Local, Bit>,
}

impl PoolDecide {
    pub fn new(p: &PoolParams) -> Self {
        PoolDecide {
            c_recv_mask: param((1u64 << p.recv_bufs) - 1),
            c_recv_bufs: param(p.recv_bufs as u64),
            c_status: std::array::from_fn(|i| param(i as u64)),
            c_op_open: param(op::OPEN as u64),
            c_op_close: param(op::CLOSE as u64),
            c_op_alloc: param(op::ALLOC as u64),
            c_op_free: param(op::FREE as u64),
            c_op_recv: param(op::RECV as u64),
            c_op_repost: param(op::REPOST as u64),
            c_op_query: param(op::QUERY as u64),
            ..Default::default()
        }
    }
}

impl Logic for PoolDecide {
    #[hdl_gen]
    fn update(&mut self) {
        self.st.next = self.c_status[0].val();
        self.word.next = self.w.val();
        self.changed.next = false;
        if self.q.val().op == self.c_op_open.val() {
            if !self.pre.val().conn_ok {
                self.st.next = self.c_status[3].val();
            } else if self.pre.val().bad_open {
                self.st.next = self.c_status[13].val();
            } else {
                self.changed.next = true;
                self.word.next.open = true;
                self.word.next.tx_next = self.q.val().a;
                self.word.next.peer_ack = self.q.val().b;
                self.word.next.rx_last = self.q.val().c;
                self.word.next.peer_bufs = self.q.val().bufs;
                self.word.next.peer_max = self.q.val().bufs;
                self.word.next.rx_since_adv = bit_cast::<16, 8>(self.q.val().buf);
                self.word.next.posted = self.c_recv_bufs.val();
                self.word.next.send_used = 0.into();
                self.word.next.send_ever = 0.into();
                self.word.next.recv_posted = self.c_recv_mask.val();
            }
        } else if (self.q.val().op == self.c_op_close.val())
            | (self.q.val().op == self.c_op_alloc.val())
            | (self.q.val().op == self.c_op_free.val())
            | (self.q.val().op == self.c_op_recv.val())
            | (self.q.val().op == self.c_op_repost.val())
            | (self.q.val().op == self.c_op_query.val())
        {
            if !self.pre.val().open {
                self.st.next = self.c_status[3].val();
            } else if self.q.val().op == self.c_op_close.val() {
                self.changed.next = true;
                self.word.next = self.c_zero.val();
            } else if self.q.val().op == self.c_op_alloc.val() {
                if !self.pre.val().class_ok {
                    self.st.next = self.c_status[12].val();
                } else if !self.pre.val().free_any {
                    self.st.next = self.c_status[1].val();
                } else if self.pre.val().cred_low {
                    self.st.next = self.c_status[2].val();
                } else {
                    self.changed.next = true;
                    self.word.next.send_used = self.w.val().send_used | self.pre.val().pick_bit;
                    self.word.next.send_ever = self.w.val().send_ever | self.pre.val().pick_bit;
                    self.word.next.tx_next = self.w.val().tx_next + 1;
                    self.word.next.rx_since_adv = 0.into();
                }
            } else if self.q.val().op == self.c_op_free.val() {
                if self.pre.val().never {
                    self.st.next = self.c_status[5].val();
                } else if self.pre.val().dfree {
                    self.st.next = self.c_status[4].val();
                } else {
                    self.changed.next = true;
                    self.word.next.send_used = self.w.val().send_used & !self.pre.val().buf_bit;
                }
            } else if self.q.val().op == self.c_op_recv.val() {
                if self.pre.val().not_posted {
                    self.st.next = self.c_status[8].val();
                } else if self.pre.val().seq_gap {
                    self.st.next = self.c_status[9].val();
                } else if self.pre.val().bad_ack {
                    self.st.next = self.c_status[10].val();
                } else if self.pre.val().bad_bufs {
                    self.st.next = self.c_status[11].val();
                } else {
                    self.changed.next = true;
                    self.word.next.recv_posted = self.w.val().recv_posted & !self.pre.val().buf_bit;
                    self.word.next.posted = self.w.val().posted - 1;
                    self.word.next.rx_last = self.q.val().a;
                    self.word.next.rx_since_adv = self.pre.val().rx_next;
                    self.word.next.peer_ack = self.q.val().b;
                    self.word.next.peer_bufs = self.q.val().bufs;
                }
            } else if self.q.val().op == self.c_op_repost.val() {
                if self.pre.val().repost_range {
                    self.st.next = self.c_status[6].val();
                } else if self.pre.val().dpost {
                    self.st.next = self.c_status[7].val();
                } else {
                    self.changed.next = true;
                    self.word.next.recv_posted = self.w.val().recv_posted | self.pre.val().buf_bit;
                    self.word.next.posted = self.w.val().posted + 1;
                }
            }
        } else {
            self.st.next = self.c_status[12].val();
        }
        // Credits and update-due are reported for served and refused requests only.
        self.report.next = (self.st.val() == self.c_status[0].val())
            | (self.st.val() == self.c_status[1].val())
            | (self.st.val() == self.c_status[2].val());

        self.resp.next.op = self.q.val().op;
        self.resp.next.conn = self.q.val().conn;
        self.resp.next.status = self.st.val();
        self.resp.next.buf = 0.into();
        self.resp.next.mseq = self.w.val().tx_next;
        self.resp.next.ack = self.w.val().rx_last;
        self.resp.next.bufs = bit_cast::<16, 8>(self.w.val().posted);
        if self.st.val() == self.c_status[3].val() {
            self.resp.next.mseq = 0.into();
            self.resp.next.ack = 0.into();
            self.resp.next.bufs = 0.into();
        }
        self.resp.next.credits = 0.into();
        self.resp.next.update_due = false;
        if self.report.val() {
            self.resp.next.credits = self.pre.val().cred_s;
            self.resp.next.update_due = self.pre.val().due_s;
            if self.changed.val() {
                if self.q.val().op == self.c_op_open.val() {
                    self.resp.next.credits = self.pre.val().cred_open;
                    self.resp.next.update_due = self.pre.val().due_open;
                } else if self.q.val().op == self.c_op_close.val() {
                    self.resp.next.credits = 0.into();
                    self.resp.next.update_due = false;
                } else if self.q.val().op == self.c_op_alloc.val() {
                    self.resp.next.buf = self.pre.val().pick;
                    self.resp.next.credits = self.pre.val().cred_s_m1;
                    self.resp.next.update_due = false;
                } else if self.q.val().op == self.c_op_recv.val() {
                    self.resp.next.credits = self.pre.val().cred_recv;
                    self.resp.next.update_due = self.pre.val().due_recv;
                }
            }
        }
    }
}
