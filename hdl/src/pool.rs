//! The pool manager: per-connection control-buffer pools and credits.
//!
//! # Ports
//! `sanswitch_model::blocks::pool::{PoolIn, PoolOut}`, one signal per field, plus `clock`.
//! - **Requests** (`req_*`, valid/ready): opcode, connection, message class, buffer index and
//!   the operands `a`, `b`, `c`, `bufs` (see `sanswitch_model::blocks::pool::op`).
//! - **Responses** (`resp_*`, valid/ready): one per request, in order, with a status, and for
//!   ALLOC the buffer and the header fields to send (`mseq`, `mseq_ack`, `bufs`); for every
//!   request the credits after it and whether a credit-only update is due.
//! - **Counters** (`cnt_*`): one per status but OK, 32-bit, wrapping.
//!
//! # Timing
//! Latency 1: a request taken at edge `t` has its response on `resp_*` during cycle `t`.
//! One request per cycle, for any mix of connections, back to back on one connection
//! included: the state RAM's read is asynchronous and its write lands at the edge that takes
//! the request, so the next request reads the new word (no hazard to forward or stall).
//! `req_ready` comes from registers: low while the response skid register is full, and for
//! `2^addr_bits` cycles after reset while the RAM is swept clear.
//!
//! # Where the state lives
//! One RAM word per connection (`ConnHw`, 201 bits): open flag, next mseq, the peer's last
//! acknowledgement, last mseq received, the peer's posted and negotiated buffers, messages
//! received since the last advertisement, posted count, and three bitmaps (send buffers in
//! use, send buffers ever handed out since open, receive buffers posted). Credits are derived
//! (`bufs − (next mseq − 1 − ack)`, on 16 bits) rather than stored, so they cannot disagree
//! with the sequence numbers.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::pool::{class, op, status};
use sanswitch_model::params::{POOL_MAX_BUFS, PoolParams};

use crate::widgets::LutRam;

const NB: usize = POOL_MAX_BUFS as usize;
const NSTAT: usize = status::COUNT;

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
);

/// One connection's state word.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ConnHw {
    pub open: Bit,
    pub tx_next: Bits<32>,
    pub peer_ack: Bits<32>,
    pub rx_last: Bits<32>,
    pub peer_bufs: Bits<16>,
    pub peer_max: Bits<16>,
    pub rx_since_adv: Bits<16>,
    pub posted: Bits<8>,
    pub send_used: Bits<16>,
    pub send_ever: Bits<16>,
    pub recv_posted: Bits<16>,
}

/// A response, as registered.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RespHw {
    pub op: Bits<3>,
    pub conn: Bits<8>,
    pub status: Bits<4>,
    pub buf: Bits<8>,
    pub mseq: Bits<32>,
    pub ack: Bits<32>,
    pub bufs: Bits<16>,
    pub credits: Bits<16>,
    pub update_due: Bit,
}

/// A request, as registered in each stage.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ReqHw {
    pub op: Bits<3>,
    pub conn: Bits<8>,
    pub class: Bits<2>,
    pub buf: Bits<8>,
    pub a: Bits<32>,
    pub b: Bits<32>,
    pub c: Bits<32>,
    pub bufs: Bits<16>,
}

/// What stage 1 works out for stage 2: every check, and the candidate results.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct PreHw {
    pub conn_ok: Bit,
    pub open: Bit,
    pub class_ok: Bit,
    pub free_any: Bit,
    pub cred_low: Bit,
    pub never: Bit,
    pub dfree: Bit,
    pub not_posted: Bit,
    pub seq_gap: Bit,
    pub bad_ack: Bit,
    pub bad_bufs: Bit,
    pub repost_range: Bit,
    pub dpost: Bit,
    pub pick: Bits<8>,
    pub pick_bit: Bits<16>,
    pub buf_bit: Bits<16>,
    pub cred_s: Bits<16>,
    pub cred_s_m1: Bits<16>,
    pub cred_open: Bits<16>,
    pub cred_recv: Bits<16>,
    pub due_s: Bit,
    pub due_recv: Bit,
    pub due_open: Bit,
    pub rx_next: Bits<16>,
}

/// The pool manager for `2^A` state words.
#[derive(LogicBlock)]
pub struct PoolManager<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub req_valid: Signal<In, Bit>,
    pub req_op: Signal<In, Bits<3>>,
    pub req_conn: Signal<In, Bits<8>>,
    pub req_class: Signal<In, Bits<2>>,
    pub req_buf: Signal<In, Bits<8>>,
    pub req_a: Signal<In, Bits<32>>,
    pub req_b: Signal<In, Bits<32>>,
    pub req_c: Signal<In, Bits<32>>,
    pub req_bufs: Signal<In, Bits<16>>,
    pub resp_ready: Signal<In, Bit>,

    pub req_ready: Signal<Out, Bit>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_op: Signal<Out, Bits<3>>,
    pub resp_conn: Signal<Out, Bits<8>>,
    pub resp_status: Signal<Out, Bits<4>>,
    pub resp_buf: Signal<Out, Bits<8>>,
    pub resp_mseq: Signal<Out, Bits<32>>,
    pub resp_ack: Signal<Out, Bits<32>>,
    pub resp_bufs: Signal<Out, Bits<16>>,
    pub resp_credits: Signal<Out, Bits<16>>,
    pub resp_update_due: Signal<Out, Bit>,
    pub cnt_no_buf: Signal<Out, Bits<32>>,
    pub cnt_no_credit: Signal<Out, Bits<32>>,
    pub cnt_closed: Signal<Out, Bits<32>>,
    pub cnt_double_free: Signal<Out, Bits<32>>,
    pub cnt_never_handed_out: Signal<Out, Bits<32>>,
    pub cnt_repost_range: Signal<Out, Bits<32>>,
    pub cnt_double_post: Signal<Out, Bits<32>>,
    pub cnt_not_posted: Signal<Out, Bits<32>>,
    pub cnt_seq_gap: Signal<Out, Bits<32>>,
    pub cnt_bad_ack: Signal<Out, Bits<32>>,
    pub cnt_bad_bufs: Signal<Out, Bits<32>>,
    pub cnt_bad_op: Signal<Out, Bits<32>>,

    ram: LutRam<ConnHw, A>,
    resp_out: DFF<RespHw>,
    resp_out_valid: DFF<Bit>,
    resp_skid: DFF<RespHw>,
    resp_skid_valid: DFF<Bit>,
    cnt: [DFF<Bits<32>>; NSTAT],
    clearing: DFFWithInit<Bit>,
    clear_addr: DFF<Bits<A>>,

    c_connections: Constant<Bits<9>>,
    c_send_mask: Constant<Bits<16>>,
    c_recv_mask: Constant<Bits<16>>,
    c_send_bufs: Constant<Bits<8>>,
    c_recv_bufs: Constant<Bits<8>>,
    c_due: Constant<Bits<16>>,
    c_due_m1: Constant<Bits<16>>,
    c_last_addr: Constant<Bits<A>>,
    c_idx: [Constant<Bits<8>>; NB],
    c_onehot: [Constant<Bits<16>>; NB],
    /// The bits below bit `i`.
    c_below: [Constant<Bits<16>>; NB],
    c_status: [Constant<Bits<4>>; NSTAT],
    c_zero: Constant<ConnHw>,
    c_zero_resp: Constant<RespHw>,
    c_op_open: Constant<Bits<3>>,
    c_op_close: Constant<Bits<3>>,
    c_op_alloc: Constant<Bits<3>>,
    c_op_free: Constant<Bits<3>>,
    c_op_recv: Constant<Bits<3>>,
    c_op_repost: Constant<Bits<3>>,
    c_op_query: Constant<Bits<3>>,
    c_class_data: Constant<Bits<2>>,
    c_class_control: Constant<Bits<2>>,
    c_class_update: Constant<Bits<2>>,

    // Stage registers.
    r1: DFF<ReqHw>,
    r1_valid: DFF<Bit>,
    r2: DFF<ReqHw>,
    r2_valid: DFF<Bit>,
    w2: DFF<ConnHw>,
    p2: DFF<PreHw>,

    // Stage 1 wires.
    accept: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    conn1: Signal<Local, Bits<8>>,
    conn2: Signal<Local, Bits<8>>,
    advance: Signal<Local, Bit>,
    req: Signal<Local, ReqHw>,
    q1: Signal<Local, ReqHw>,
    s: Signal<Local, ConnHw>,
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
    inflight_recv: Signal<Local, Bits<16>>,
    reserve: Signal<Local, Bits<16>>,
    ack_off: Signal<Local, Bits<32>>,
    ack_span: Signal<Local, Bits<32>>,
    pre: Signal<Local, PreHw>,

    // Stage 2 wires.
    q2: Signal<Local, ReqHw>,
    w: Signal<Local, ConnHw>,
    pp: Signal<Local, PreHw>,
    nxt: Signal<Local, ConnHw>,
    changed: Signal<Local, Bit>,
    st: Signal<Local, Bits<4>>,
    report: Signal<Local, Bit>,
    rec: Signal<Local, RespHw>,
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

impl<const A: usize> PoolManager<A> {
    pub fn new(p: &PoolParams) -> Self {
        p.validate().expect("valid pool parameters");
        assert_eq!(p.addr_bits() as usize, A, "address bits must match the connections");
        PoolManager {
            clock: Default::default(),
            reset: Default::default(),
            req_valid: Default::default(),
            req_op: Default::default(),
            req_conn: Default::default(),
            req_class: Default::default(),
            req_buf: Default::default(),
            req_a: Default::default(),
            req_b: Default::default(),
            req_c: Default::default(),
            req_bufs: Default::default(),
            resp_ready: Default::default(),
            req_ready: Default::default(),
            resp_valid: Default::default(),
            resp_op: Default::default(),
            resp_conn: Default::default(),
            resp_status: Default::default(),
            resp_buf: Default::default(),
            resp_mseq: Default::default(),
            resp_ack: Default::default(),
            resp_bufs: Default::default(),
            resp_credits: Default::default(),
            resp_update_due: Default::default(),
            cnt_no_buf: Default::default(),
            cnt_no_credit: Default::default(),
            cnt_closed: Default::default(),
            cnt_double_free: Default::default(),
            cnt_never_handed_out: Default::default(),
            cnt_repost_range: Default::default(),
            cnt_double_post: Default::default(),
            cnt_not_posted: Default::default(),
            cnt_seq_gap: Default::default(),
            cnt_bad_ack: Default::default(),
            cnt_bad_bufs: Default::default(),
            cnt_bad_op: Default::default(),
            ram: Default::default(),
            resp_out: Default::default(),
            resp_out_valid: Default::default(),
            resp_skid: Default::default(),
            resp_skid_valid: Default::default(),
            cnt: Default::default(),
            clearing: DFFWithInit::new(false),
            clear_addr: Default::default(),
            c_connections: c(p.connections as u64),
            c_send_mask: c((1u64 << p.send_bufs) - 1),
            c_recv_mask: c((1u64 << p.recv_bufs) - 1),
            c_send_bufs: c(p.send_bufs as u64),
            c_recv_bufs: c(p.recv_bufs as u64),
            c_due: c(u64::max(1, p.recv_bufs as u64 / 2)),
            c_due_m1: c(u64::max(1, p.recv_bufs as u64 / 2) - 1),
            c_last_addr: c((1u64 << A) - 1),
            c_idx: std::array::from_fn(|i| c(i as u64)),
            c_onehot: std::array::from_fn(|i| c(1u64 << i)),
            c_below: std::array::from_fn(|i| c((1u64 << i) - 1)),
            c_status: std::array::from_fn(|i| c(i as u64)),
            c_zero: Constant::new(ConnHw::default()),
            c_zero_resp: Constant::new(RespHw::default()),
            c_op_open: c(op::OPEN as u64),
            c_op_close: c(op::CLOSE as u64),
            c_op_alloc: c(op::ALLOC as u64),
            c_op_free: c(op::FREE as u64),
            c_op_recv: c(op::RECV as u64),
            c_op_repost: c(op::REPOST as u64),
            c_op_query: c(op::QUERY as u64),
            c_class_data: c(class::DATA as u64),
            c_class_control: c(class::CONTROL as u64),
            c_class_update: c(class::UPDATE as u64),
            r1: Default::default(),
            r1_valid: Default::default(),
            r2: Default::default(),
            r2_valid: Default::default(),
            w2: Default::default(),
            p2: Default::default(),
            accept: Default::default(),
            fire: Default::default(),
            conn1: Default::default(),
            conn2: Default::default(),
            advance: Default::default(),
            req: Default::default(),
            q1: Default::default(),
            s: Default::default(),
            s_tx: Default::default(),
            s_ack: Default::default(),
            s_used: Default::default(),
            s_ever: Default::default(),
            s_posted: Default::default(),
            s_rx: Default::default(),
            s_bufs: Default::default(),
            q_a: Default::default(),
            q_b: Default::default(),
            q_buf: Default::default(),
            q_class: Default::default(),
            q_bufs: Default::default(),
            free: Default::default(),
            inflight: Default::default(),
            inflight_open: Default::default(),
            inflight_recv: Default::default(),
            reserve: Default::default(),
            ack_off: Default::default(),
            ack_span: Default::default(),
            pre: Default::default(),
            q2: Default::default(),
            w: Default::default(),
            pp: Default::default(),
            nxt: Default::default(),
            changed: Default::default(),
            st: Default::default(),
            report: Default::default(),
            rec: Default::default(),
        }
    }
}

impl<const A: usize> Logic for PoolManager<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            resp_out,
            resp_out_valid,
            resp_skid,
            resp_skid_valid,
            clearing,
            clear_addr,
            r1,
            r1_valid,
            r2,
            r2_valid,
            w2,
            p2
        );
        for i in 0..NSTAT {
            self.cnt[i].clock.next = self.clock.val();
            self.cnt[i].d.next = self.cnt[i].q.val();
        }
        self.ram.write_clock.next = self.clock.val();

        // Flow: stage 2 completes when its response has a place; stage 1 moves on when
        // stage 2 is free (or completing) and is not on the same RAM word.
        self.conn1.next = self.r1.q.val().conn;
        self.conn2.next = self.r2.q.val().conn;
        self.fire.next = self.r2_valid.q.val() & !self.resp_skid_valid.q.val();
        self.advance.next = self.r1_valid.q.val()
            & (!self.r2_valid.q.val()
                | (self.fire.val()
                    & (self.conn1.val().get_bits::<A>(0) != self.conn2.val().get_bits::<A>(0))));
        self.req_ready.next =
            !self.clearing.q.val() & (!self.r1_valid.q.val() | self.advance.val());
        self.accept.next = self.req_valid.val() & self.req_ready.val();

        // ---------------------------------------------------------------- stage 1
        self.req.next.op = self.req_op.val();
        self.req.next.conn = self.req_conn.val();
        self.req.next.class = self.req_class.val();
        self.req.next.buf = self.req_buf.val();
        self.req.next.a = self.req_a.val();
        self.req.next.b = self.req_b.val();
        self.req.next.c = self.req_c.val();
        self.req.next.bufs = self.req_bufs.val();
        self.q1.next = self.r1.q.val();
        // (Fields sliced further get their own wire: Yosys takes one slice per select.)
        self.q_a.next = self.q1.val().a;
        self.q_b.next = self.q1.val().b;
        self.q_buf.next = self.q1.val().buf;
        self.q_class.next = self.q1.val().class;
        self.q_bufs.next = self.q1.val().bufs;
        self.ram.read_address.next = self.conn1.val().get_bits::<A>(0);
        self.s.next = self.ram.read_data.val();
        self.s_tx.next = self.s.val().tx_next;
        self.s_ack.next = self.s.val().peer_ack;
        self.s_used.next = self.s.val().send_used;
        self.s_ever.next = self.s.val().send_ever;
        self.s_posted.next = self.s.val().recv_posted;
        self.s_rx.next = self.s.val().rx_since_adv;
        self.s_bufs.next = self.s.val().peer_bufs;

        self.pre.next.conn_ok = bit_cast::<9, 8>(self.q1.val().conn) < self.c_connections.val();
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

        // ---------------------------------------------------------------- stage 2
        self.q2.next = self.r2.q.val();
        self.w.next = self.w2.q.val();
        self.pp.next = self.p2.q.val();
        self.st.next = self.c_status[0].val();
        self.nxt.next = self.w.val();
        self.changed.next = false;
        if (self.q2.val().op == self.c_op_open.val()) | (self.q2.val().op == self.c_op_close.val())
        {
            if !self.pp.val().conn_ok {
                self.st.next = self.c_status[3].val();
            } else if self.q2.val().op == self.c_op_open.val() {
                self.changed.next = true;
                self.nxt.next.open = true;
                self.nxt.next.tx_next = self.q2.val().a;
                self.nxt.next.peer_ack = self.q2.val().b;
                self.nxt.next.rx_last = self.q2.val().c;
                self.nxt.next.peer_bufs = self.q2.val().bufs;
                self.nxt.next.peer_max = self.q2.val().bufs;
                self.nxt.next.rx_since_adv = bit_cast::<16, 8>(self.q2.val().buf);
                self.nxt.next.posted = self.c_recv_bufs.val();
                self.nxt.next.send_used = 0.into();
                self.nxt.next.send_ever = 0.into();
                self.nxt.next.recv_posted = self.c_recv_mask.val();
            } else {
                self.changed.next = true;
                self.nxt.next = self.c_zero.val();
            }
        } else if (self.q2.val().op == self.c_op_alloc.val())
            | (self.q2.val().op == self.c_op_free.val())
            | (self.q2.val().op == self.c_op_recv.val())
            | (self.q2.val().op == self.c_op_repost.val())
            | (self.q2.val().op == self.c_op_query.val())
        {
            if !self.pp.val().open {
                self.st.next = self.c_status[3].val();
            } else if self.q2.val().op == self.c_op_alloc.val() {
                if !self.pp.val().class_ok {
                    self.st.next = self.c_status[12].val();
                } else if !self.pp.val().free_any {
                    self.st.next = self.c_status[1].val();
                } else if self.pp.val().cred_low {
                    self.st.next = self.c_status[2].val();
                } else {
                    self.changed.next = true;
                    self.nxt.next.send_used = self.w.val().send_used | self.pp.val().pick_bit;
                    self.nxt.next.send_ever = self.w.val().send_ever | self.pp.val().pick_bit;
                    self.nxt.next.tx_next = self.w.val().tx_next + 1;
                    self.nxt.next.rx_since_adv = 0.into();
                }
            } else if self.q2.val().op == self.c_op_free.val() {
                if self.pp.val().never {
                    self.st.next = self.c_status[5].val();
                } else if self.pp.val().dfree {
                    self.st.next = self.c_status[4].val();
                } else {
                    self.changed.next = true;
                    self.nxt.next.send_used = self.w.val().send_used & !self.pp.val().buf_bit;
                }
            } else if self.q2.val().op == self.c_op_recv.val() {
                if self.pp.val().not_posted {
                    self.st.next = self.c_status[8].val();
                } else if self.pp.val().seq_gap {
                    self.st.next = self.c_status[9].val();
                } else if self.pp.val().bad_ack {
                    self.st.next = self.c_status[10].val();
                } else if self.pp.val().bad_bufs {
                    self.st.next = self.c_status[11].val();
                } else {
                    self.changed.next = true;
                    self.nxt.next.recv_posted = self.w.val().recv_posted & !self.pp.val().buf_bit;
                    self.nxt.next.posted = self.w.val().posted - 1;
                    self.nxt.next.rx_last = self.q2.val().a;
                    self.nxt.next.rx_since_adv = self.pp.val().rx_next;
                    self.nxt.next.peer_ack = self.q2.val().b;
                    self.nxt.next.peer_bufs = self.q2.val().bufs;
                }
            } else if self.q2.val().op == self.c_op_repost.val() {
                if self.pp.val().repost_range {
                    self.st.next = self.c_status[6].val();
                } else if self.pp.val().dpost {
                    self.st.next = self.c_status[7].val();
                } else {
                    self.changed.next = true;
                    self.nxt.next.recv_posted = self.w.val().recv_posted | self.pp.val().buf_bit;
                    self.nxt.next.posted = self.w.val().posted + 1;
                }
            }
        } else {
            self.st.next = self.c_status[12].val();
        }
        // Credits and update-due are reported for served and refused requests only.
        self.report.next = (self.st.val() == self.c_status[0].val())
            | (self.st.val() == self.c_status[1].val())
            | (self.st.val() == self.c_status[2].val());

        self.rec.next.op = self.q2.val().op;
        self.rec.next.conn = self.q2.val().conn;
        self.rec.next.status = self.st.val();
        self.rec.next.buf = 0.into();
        self.rec.next.mseq = self.w.val().tx_next;
        self.rec.next.ack = self.w.val().rx_last;
        self.rec.next.bufs = bit_cast::<16, 8>(self.w.val().posted);
        self.rec.next.credits = 0.into();
        self.rec.next.update_due = false;
        if self.report.val() {
            self.rec.next.credits = self.pp.val().cred_s;
            self.rec.next.update_due = self.pp.val().due_s;
            if self.changed.val() {
                if self.q2.val().op == self.c_op_open.val() {
                    self.rec.next.credits = self.pp.val().cred_open;
                    self.rec.next.update_due = self.pp.val().due_open;
                } else if self.q2.val().op == self.c_op_close.val() {
                    self.rec.next.credits = 0.into();
                    self.rec.next.update_due = false;
                } else if self.q2.val().op == self.c_op_alloc.val() {
                    self.rec.next.buf = self.pp.val().pick;
                    self.rec.next.credits = self.pp.val().cred_s_m1;
                    self.rec.next.update_due = false;
                } else if self.q2.val().op == self.c_op_recv.val() {
                    self.rec.next.credits = self.pp.val().cred_recv;
                    self.rec.next.update_due = self.pp.val().due_recv;
                }
            }
        }

        // The RAM write: stage 2's new word, or the post-reset sweep.
        self.ram.write_address.next = self.conn2.val().get_bits::<A>(0);
        self.ram.write_data.next = self.nxt.val();
        self.ram.write_enable.next = self.fire.val() & self.changed.val();
        if self.clearing.q.val() {
            self.ram.write_address.next = self.clear_addr.q.val();
            self.ram.write_data.next = self.c_zero.val();
            self.ram.write_enable.next = true;
            self.clear_addr.d.next = self.clear_addr.q.val() + 1;
            if self.clear_addr.q.val() == self.c_last_addr.val() {
                self.clearing.d.next = false;
                self.clear_addr.d.next = 0.into();
            }
        }
        if self.fire.val() {
            for i in 1..NSTAT {
                if self.st.val() == self.c_status[i].val() {
                    self.cnt[i].d.next = self.cnt[i].q.val() + 1;
                }
            }
        }

        // Stage moves.
        if self.advance.val() {
            self.r2.d.next = self.r1.q.val();
            self.w2.d.next = self.s.val();
            self.p2.d.next = self.pre.val();
            self.r2_valid.d.next = true;
        } else if self.fire.val() {
            self.r2_valid.d.next = false;
        }
        if self.accept.val() {
            self.r1.d.next = self.req.val();
            self.r1_valid.d.next = true;
        } else if self.advance.val() {
            self.r1_valid.d.next = false;
        }

        // Response register with one skid slot.
        if !self.resp_out_valid.q.val() | self.resp_ready.val() {
            if self.resp_skid_valid.q.val() {
                self.resp_out.d.next = self.resp_skid.q.val();
                self.resp_skid_valid.d.next = false;
            } else {
                self.resp_out_valid.d.next = self.fire.val();
                if self.fire.val() {
                    self.resp_out.d.next = self.rec.val();
                }
            }
        } else if self.fire.val() {
            self.resp_skid.d.next = self.rec.val();
            self.resp_skid_valid.d.next = true;
        }

        if self.reset.val() {
            self.resp_out.d.next = self.c_zero_resp.val();
            self.resp_out_valid.d.next = false;
            self.resp_skid_valid.d.next = false;
            self.r1_valid.d.next = false;
            self.r2_valid.d.next = false;
            self.clearing.d.next = true;
            self.clear_addr.d.next = 0.into();
            for i in 0..NSTAT {
                self.cnt[i].d.next = 0.into();
            }
        }

        self.resp_valid.next = self.resp_out_valid.q.val();
        self.resp_op.next = self.resp_out.q.val().op;
        self.resp_conn.next = self.resp_out.q.val().conn;
        self.resp_status.next = self.resp_out.q.val().status;
        self.resp_buf.next = self.resp_out.q.val().buf;
        self.resp_mseq.next = self.resp_out.q.val().mseq;
        self.resp_ack.next = self.resp_out.q.val().ack;
        self.resp_bufs.next = self.resp_out.q.val().bufs;
        self.resp_credits.next = self.resp_out.q.val().credits;
        self.resp_update_due.next = self.resp_out.q.val().update_due;
        self.cnt_no_buf.next = self.cnt[1].q.val();
        self.cnt_no_credit.next = self.cnt[2].q.val();
        self.cnt_closed.next = self.cnt[3].q.val();
        self.cnt_double_free.next = self.cnt[4].q.val();
        self.cnt_never_handed_out.next = self.cnt[5].q.val();
        self.cnt_repost_range.next = self.cnt[6].q.val();
        self.cnt_double_post.next = self.cnt[7].q.val();
        self.cnt_not_posted.next = self.cnt[8].q.val();
        self.cnt_seq_gap.next = self.cnt[9].q.val();
        self.cnt_bad_ack.next = self.cnt[10].q.val();
        self.cnt_bad_bufs.next = self.cnt[11].q.val();
        self.cnt_bad_op.next = self.cnt[12].q.val();
    }
}
