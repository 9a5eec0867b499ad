//! The pool manager: per-connection control-buffer pools and credits.
//!
//! # Ports
//! `sanswitch_model::blocks::pool::{PoolIn, PoolOut}`, one signal per field, plus `clock`.
//! - **Requests** (`s_axis_req_*`, a record channel): opcode, connection, message class,
//!   buffer index and the operands `a`, `b`, `c`, `bufs` (see
//!   `sanswitch_model::blocks::pool::op`).
//! - **Responses** (`m_axis_resp_*`): one per request, in order, with a status, and for ALLOC
//!   the buffer and the header fields to send (`mseq`, `mseq_ack`, `bufs`); for every request
//!   served or refused for want of a buffer or a credit, the credits after it and whether a
//!   credit-only update is due.
//! - **Counter bank** (`cnt_rd_index`, `cnt_rd_data`): one counter per status, OK included.
//!
//! # Timing
//! Two stages. Stage 1 reads the connection's word from a RAM with an asynchronous read port
//! and makes every check ([`checks::PoolChecks`]); stage 2 decides ([`decide::PoolDecide`]),
//! writes the word back at the edge that ends it and pushes the response into a
//! [`SkidBuffer`]. A request taken at edge `t` has its response on `m_axis_resp_*` during
//! cycle `t + 1` (the cycle that begins at edge `t + 2`, by the convention under which the
//! parser's latency is 1: latency 2). One request per cycle for any mix of connections; a
//! request right behind one for the same connection (the same RAM word) waits one cycle in
//! stage 1 so that its read sees the write (a read-after-write hazard, stalled rather than
//! forwarded: a forward would put stage 2's decision in front of stage 1's checks).
//! `s_axis_req_tready` comes from registers: low while stage 1 cannot move, while the
//! response skid slot is full, and for `2^A` cycles after reset while the RAM is swept clear.
//!
//! # Where the state lives
//! One RAM word per connection ([`ConnHw`], 201 bits, in a [`ConnRam`]): open flag, next
//! mseq, the peer's last acknowledgement, last mseq received, the peer's posted and
//! negotiated buffers, messages received since the last advertisement, posted count, and
//! three bitmaps (send buffers in use, send buffers ever handed out since open, receive
//! buffers posted). Credits are derived (`bufs − (next mseq − 1 − ack)`, on 16 bits) rather
//! than stored, so they cannot disagree with the sequence numbers. An id at or above
//! `connections` is refused CLOSED before its (aliased) word is used.

pub mod checks;
pub mod decide;

use rust_hdl::prelude::*;
use sanswitch_model::blocks::pool::status;
use sanswitch_model::params::{BUF_BITS, CNT_INDEX_BITS, POOL_MAX_BUFS, PoolParams};

use crate::widgets::{ConnRam, CounterBank, SkidBuffer};
use checks::PoolChecks;
use decide::PoolDecide;

const NB: usize = POOL_MAX_BUFS as usize;
const NSTAT: usize = status::COUNT;
const IDX: usize = CNT_INDEX_BITS as usize;
const BUF: usize = BUF_BITS as usize;

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
    pub buf: Bits<BUF>,
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
    pub buf: Bits<BUF>,
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
    pub bad_open: Bit,
    pub rx_next: Bits<16>,
}

/// The pool manager for `2^A` state words.
#[derive(LogicBlock, Default)]
pub struct PoolManager<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_req_tvalid: Signal<In, Bit>,
    pub s_axis_req_op: Signal<In, Bits<3>>,
    pub s_axis_req_conn: Signal<In, Bits<8>>,
    pub s_axis_req_class: Signal<In, Bits<2>>,
    pub s_axis_req_buf: Signal<In, Bits<BUF>>,
    pub s_axis_req_a: Signal<In, Bits<32>>,
    pub s_axis_req_b: Signal<In, Bits<32>>,
    pub s_axis_req_c: Signal<In, Bits<32>>,
    pub s_axis_req_bufs: Signal<In, Bits<16>>,
    pub m_axis_resp_tready: Signal<In, Bit>,
    pub cnt_rd_index: Signal<In, Bits<IDX>>,

    pub s_axis_req_tready: Signal<Out, Bit>,
    pub m_axis_resp_tvalid: Signal<Out, Bit>,
    pub m_axis_resp_op: Signal<Out, Bits<3>>,
    pub m_axis_resp_conn: Signal<Out, Bits<8>>,
    pub m_axis_resp_status: Signal<Out, Bits<4>>,
    pub m_axis_resp_buf: Signal<Out, Bits<BUF>>,
    pub m_axis_resp_mseq: Signal<Out, Bits<32>>,
    pub m_axis_resp_ack: Signal<Out, Bits<32>>,
    pub m_axis_resp_bufs: Signal<Out, Bits<16>>,
    pub m_axis_resp_credits: Signal<Out, Bits<16>>,
    pub m_axis_resp_update_due: Signal<Out, Bit>,
    pub cnt_rd_data: Signal<Out, Bits<32>>,

    ram: ConnRam<ConnHw, A>,
    checks: PoolChecks,
    decide: PoolDecide,
    resp: SkidBuffer<RespHw>,
    counters: CounterBank,

    // Stage registers.
    r1: DFF<ReqHw>,
    r1_valid: DFF<Bit>,
    r2: DFF<ReqHw>,
    r2_valid: DFF<Bit>,
    w2: DFF<ConnHw>,
    p2: DFF<PreHw>,

    accept: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    conn1: Signal<Local, Bits<8>>,
    conn2: Signal<Local, Bits<8>>,
    req: Signal<Local, ReqHw>,
}

impl<const A: usize> PoolManager<A> {
    pub fn new(p: &PoolParams) -> Self {
        p.validate().expect("valid pool parameters");
        assert_eq!(p.addr_bits() as usize, A, "address bits must match the connections");
        PoolManager {
            ram: ConnRam::new(),
            checks: PoolChecks::new(p),
            decide: PoolDecide::new(p),
            counters: CounterBank::new(NSTAT),
            ..Default::default()
        }
    }
}

impl<const A: usize> Logic for PoolManager<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r1, r1_valid, r2, r2_valid, w2, p2);
        clock!(self, clock, ram, resp, counters);
        self.ram.reset.next = self.reset.val();
        self.resp.reset.next = self.reset.val();
        self.counters.reset.next = self.reset.val();

        // Flow: stage 2 completes when its response has a place; stage 1 moves on when
        // stage 2 is free (or completing) and is not on the same RAM word.
        self.conn1.next = self.r1.q.val().conn;
        self.conn2.next = self.r2.q.val().conn;
        self.fire.next = self.r2_valid.q.val() & self.resp.can_push.val();
        self.advance.next = self.r1_valid.q.val()
            & (!self.r2_valid.q.val()
                | (self.fire.val()
                    & (self.conn1.val().get_bits::<A>(0) != self.conn2.val().get_bits::<A>(0))));
        self.s_axis_req_tready.next =
            !self.ram.clearing.val() & (!self.r1_valid.q.val() | self.advance.val());
        self.accept.next = self.s_axis_req_tvalid.val() & self.s_axis_req_tready.val();

        // Stage 1: read the word, check.
        self.req.next.op = self.s_axis_req_op.val();
        self.req.next.conn = self.s_axis_req_conn.val();
        self.req.next.class = self.s_axis_req_class.val();
        self.req.next.buf = self.s_axis_req_buf.val();
        self.req.next.a = self.s_axis_req_a.val();
        self.req.next.b = self.s_axis_req_b.val();
        self.req.next.c = self.s_axis_req_c.val();
        self.req.next.bufs = self.s_axis_req_bufs.val();
        self.ram.read_address.next = self.conn1.val().get_bits::<A>(0);
        self.checks.q.next = self.r1.q.val();
        self.checks.s.next = self.ram.read_data.val();

        // Stage 2: decide, write back, respond, count.
        self.decide.q.next = self.r2.q.val();
        self.decide.w.next = self.w2.q.val();
        self.decide.pre.next = self.p2.q.val();
        self.ram.write_address.next = self.conn2.val().get_bits::<A>(0);
        self.ram.write_data.next = self.decide.word.val();
        self.ram.write_enable.next = self.fire.val() & self.decide.changed.val();
        self.resp.push.next = self.fire.val();
        self.resp.push_data.next = self.decide.resp.val();
        self.resp.out_ready.next = self.m_axis_resp_tready.val();
        self.counters.inc.next = self.fire.val();
        self.counters.inc_index.next = bit_cast::<IDX, 4>(self.decide.resp.val().status);
        self.counters.rd_index.next = self.cnt_rd_index.val();

        // Stage moves.
        if self.advance.val() {
            self.r2.d.next = self.r1.q.val();
            self.w2.d.next = self.checks.word.val();
            self.p2.d.next = self.checks.pre.val();
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
        if self.reset.val() {
            self.r1_valid.d.next = false;
            self.r2_valid.d.next = false;
        }

        self.m_axis_resp_tvalid.next = self.resp.out_valid.val();
        self.m_axis_resp_op.next = self.resp.out_data.val().op;
        self.m_axis_resp_conn.next = self.resp.out_data.val().conn;
        self.m_axis_resp_status.next = self.resp.out_data.val().status;
        self.m_axis_resp_buf.next = self.resp.out_data.val().buf;
        self.m_axis_resp_mseq.next = self.resp.out_data.val().mseq;
        self.m_axis_resp_ack.next = self.resp.out_data.val().ack;
        self.m_axis_resp_bufs.next = self.resp.out_data.val().bufs;
        self.m_axis_resp_credits.next = self.resp.out_data.val().credits;
        self.m_axis_resp_update_due.next = self.resp.out_data.val().update_due;
        self.cnt_rd_data.next = self.counters.rd_data.val();
    }
}
