//! Cycle-accurate model of the pool manager (`hdl/src/pool.rs`).
//!
//! Per connection: the pool of control-message buffers (send part: handed out for a message,
//! taken back when its send completes; receive part: posted, consumed by an arriving message,
//! re-posted once it is processed) and the credits of `docs/PROTOCOL.md` (the peer's posted
//! count, sequence numbers and acknowledgements, the reserves kept for control and
//! credit-only messages, when a credit-only update is due).
//!
//! One request per cycle on a valid/ready stream; one response per request, in order, with a
//! status. A request it cannot serve (no free send buffer, no credit) is answered with a
//! status, never held. Illegal requests (double free, freeing a buffer never handed out,
//! re-posting past the pool size or twice, a message in a buffer not posted, a sequence gap,
//! an acknowledgement of a message never sent, a peer advertising more buffers than it
//! negotiated) change nothing and are counted, each in its own counter.
//!
//! Reset clears the registers and counters at once, then sweeps the state RAM clear, one word
//! per cycle (`2^addr_bits` cycles, 16 by default) with `s_axis_req_tready` low; every connection
//! starts closed.
//!
//! Timing: two stages. Stage 1 reads the connection's word from a RAM with an asynchronous
//! read port (LUT RAM) and makes every check; stage 2 decides, writes the word back at the
//! edge that ends it, and pushes the response. A request taken at edge `t` has its response
//! on the `resp_*` outputs during cycle `t + 1` (latency 2). One request per cycle for any mix
//! of connections; a request right behind one for the same connection (the same RAM word)
//! waits one cycle in stage 1, so that its read sees the write (a read-after-write hazard,
//! stalled rather than forwarded: a forward would put stage 2's decision in front of stage
//! 1's checks, doubling the logic depth). `s_axis_req_tready` comes from registers only.

use crate::params::{BUF_BITS, CNT_INDEX_BITS, PoolParams};
use crate::ports::CycleModel;
use crate::{seq, wire};

use super::widgets::{CounterBank, Skid};

/// Request opcodes.
pub mod op {
    /// Open (or reopen) a connection: `a` = next mseq to send, `b` = the peer's last
    /// acknowledgement, `c` = the last mseq received, `bufs` = the peer's posted buffers (also
    /// the most it may advertise), `buf` = messages received and not yet acknowledged (0 or 1).
    pub const OPEN: u8 = 0;
    /// Close or abort: the connection's pool and credits are cleared.
    pub const CLOSE: u8 = 1;
    /// A send buffer and a credit for a message of class `class`.
    pub const ALLOC: u8 = 2;
    /// The send from buffer `buf` completed.
    pub const FREE: u8 = 3;
    /// A message arrived in receive buffer `buf` with header `a` = mseq, `b` = mseq_ack,
    /// `bufs` = the peer's posted count.
    pub const RECV: u8 = 4;
    /// Receive buffer `buf` is processed and posted again.
    pub const REPOST: u8 = 5;
    /// Report credits and whether an update is due, changing nothing.
    pub const QUERY: u8 = 6;
}

/// Message classes for ALLOC: how many credits each leaves behind.
pub mod class {
    /// Data, LargeSend: needs more than 2 credits.
    pub const DATA: u8 = 0;
    /// SinkAvail, ReadComplete, WriteComplete, SendByCopy, Disconnect: more than 1.
    pub const CONTROL: u8 = 1;
    /// CreditUpdate, Abort: more than 0.
    pub const UPDATE: u8 = 2;
}

/// Response statuses; every one but OK has its own counter.
pub mod status {
    pub const OK: u8 = 0;
    /// ALLOC: every send buffer is in use.
    pub const NO_BUF: u8 = 1;
    /// ALLOC: not enough credits for the class.
    pub const NO_CREDIT: u8 = 2;
    /// The connection is not open, or its id is out of range.
    pub const CLOSED: u8 = 3;
    /// FREE of a buffer already free.
    pub const DOUBLE_FREE: u8 = 4;
    /// FREE of a buffer never handed out since the connection opened, or out of range.
    pub const NEVER_HANDED_OUT: u8 = 5;
    /// REPOST of a buffer index past the receive pool.
    pub const REPOST_RANGE: u8 = 6;
    /// REPOST of a buffer already posted.
    pub const DOUBLE_POST: u8 = 7;
    /// RECV into a buffer not posted: the peer overran its credits.
    pub const NOT_POSTED: u8 = 8;
    /// RECV with an mseq other than the next expected.
    pub const SEQ_GAP: u8 = 9;
    /// RECV acknowledging a message never sent, or going backwards.
    pub const BAD_ACK: u8 = 10;
    /// RECV advertising more buffers than the peer negotiated.
    pub const BAD_BUFS: u8 = 11;
    /// An opcode or class that does not exist.
    pub const BAD_OP: u8 = 12;
    /// OPEN with operands no connection can reach: more unacknowledged messages than the
    /// peer's posted buffers (`a - 1 - b > bufs`, wrap-safe), fewer posted buffers than
    /// `MIN_POSTED`, or more unacknowledged received messages (`buf`) than our receive pool.
    pub const BAD_OPEN: u8 = 13;
    /// Number of statuses, and of counters (one per status, OK included: requests served).
    pub const COUNT: usize = 14;
    /// Counter names, by status.
    pub const NAMES: [&str; COUNT] = [
        "ok",
        "no_buf",
        "no_credit",
        "closed",
        "double_free",
        "never_handed_out",
        "repost_range",
        "double_post",
        "not_posted",
        "seq_gap",
        "bad_ack",
        "bad_bufs",
        "bad_op",
        "bad_open",
    ];
}

crate::ports! {
    /// Pool manager inputs.
    pub struct PoolIn {
        /// Synchronous reset: registers and counters at once, then the state RAM is swept.
        reset: bool = 1,
        /// Requests (record channel): one per cycle while `s_axis_req_tready`.
        s_axis_req_tvalid: bool = 1,
        /// [`op`].
        s_axis_req_op: u8 = 3,
        s_axis_req_conn: u8 = 8,
        /// ALLOC: [`class`].
        s_axis_req_class: u8 = 2,
        /// FREE, RECV, REPOST: the buffer; OPEN: messages received and not yet acknowledged.
        s_axis_req_buf: u8 = BUF_BITS,
        s_axis_req_a: u32 = 32,
        s_axis_req_b: u32 = 32,
        s_axis_req_c: u32 = 32,
        s_axis_req_bufs: u16 = 16,
        m_axis_resp_tready: bool = 1,
        /// Counter bank: the response count of status `cnt_rd_index` ([`status`]).
        cnt_rd_index: u8 = CNT_INDEX_BITS,
    }
}

crate::ports! {
    /// Pool manager outputs.
    pub struct PoolOut {
        s_axis_req_tready: bool = 1,
        m_axis_resp_tvalid: bool = 1,
        m_axis_resp_op: u8 = 3,
        m_axis_resp_conn: u8 = 8,
        /// [`status`].
        m_axis_resp_status: u8 = 4,
        /// ALLOC: the send buffer handed out.
        m_axis_resp_buf: u8 = BUF_BITS,
        /// The header to send: mseq, mseq_ack, bufs (our posted count); 0 when CLOSED.
        m_axis_resp_mseq: u32 = 32,
        m_axis_resp_ack: u32 = 32,
        m_axis_resp_bufs: u16 = 16,
        /// Credits after the request (OK, NO_BUF, NO_CREDIT; else 0).
        m_axis_resp_credits: u16 = 16,
        /// A credit-only update is due after the request (same rule).
        m_axis_resp_update_due: bool = 1,
        /// Counter bank: the counter named the cycle before.
        cnt_rd_data: u32 = 32,
    }
}

/// One connection's state: one RAM word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnState {
    pub open: bool,
    pub tx_next: u32,
    pub peer_ack: u32,
    pub rx_last: u32,
    pub peer_bufs: u16,
    pub peer_max: u16,
    pub rx_since_adv: u16,
    pub posted: u8,
    /// Send buffers in use.
    pub send_used: u16,
    /// Send buffers handed out at least once since the connection opened.
    pub send_ever: u16,
    /// Receive buffers posted.
    pub recv_posted: u16,
}

impl ConnState {
    /// Credits: the peer's posted buffers not yet used by our unacknowledged messages.
    pub fn credits(&self) -> u16 {
        let inflight = self.tx_next.wrapping_sub(1).wrapping_sub(self.peer_ack) as u16;
        self.peer_bufs.saturating_sub(inflight)
    }
}

/// A response.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resp {
    pub op: u8,
    pub conn: u8,
    pub status: u8,
    pub buf: u8,
    pub mseq: u32,
    pub ack: u32,
    pub bufs: u16,
    pub credits: u16,
    pub update_due: bool,
}

/// The pool manager's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolModel {
    p: PoolParams,
    /// The state RAM, `2^addr_bits` words (ids at or above `connections` are refused).
    pub ram: Vec<ConnState>,
    pub resp: Skid<Resp>,
    /// One counter per status (OK: requests served).
    pub counters: CounterBank,
    /// Stage 1: a request taken, its state word being read.
    pub s1: Option<PoolIn>,
    /// Stage 2: a request whose checks are made; it completes when the response can go.
    pub s2: Option<PoolIn>,
    /// After reset the RAM is cleared one word per cycle; no request is taken meanwhile.
    pub clearing: bool,
    pub clear_addr: u32,
}

impl PoolModel {
    pub fn new(p: PoolParams) -> Self {
        p.validate().expect("valid pool parameters");
        PoolModel {
            ram: vec![ConnState::default(); 1 << p.addr_bits()],
            resp: Skid::default(),
            counters: CounterBank::new(status::COUNT),
            s1: None,
            s2: None,
            clearing: false,
            clear_addr: 0,
            p,
        }
    }

    pub fn params(&self) -> &PoolParams {
        &self.p
    }

    fn addr(&self, conn: u8) -> usize {
        conn as usize & ((1 << self.p.addr_bits()) - 1)
    }

    /// Stage 2 completes: it writes its word and pushes its response.
    fn s2_fires(&self) -> bool {
        self.s2.is_some() && !self.resp.skid_valid
    }

    /// Stage 1 moves to stage 2: the place is free, and stage 2 is not on the same word
    /// (whose write this stage's read would miss: the one stall, a read-after-write hazard).
    fn s1_advances(&self) -> bool {
        let Some(a) = &self.s1 else { return false };
        match &self.s2 {
            None => true,
            Some(b) => {
                self.s2_fires() && self.addr(a.s_axis_req_conn) != self.addr(b.s_axis_req_conn)
            }
        }
    }

    fn s_axis_req_tready(&self) -> bool {
        !self.clearing && (self.s1.is_none() || self.s1_advances())
    }

    fn update_due(&self, s: &ConnState) -> bool {
        s.rx_since_adv >= u16::max(1, self.p.recv_bufs as u16 / 2)
    }

    /// What a request does: its response and the connection's new state (if it changes).
    pub fn execute(&self, i: &PoolIn) -> (Resp, Option<ConnState>) {
        let p = &self.p;
        let conn_ok = (i.s_axis_req_conn as u32) < p.connections as u32;
        let addr = i.s_axis_req_conn as usize & ((1 << p.addr_bits()) - 1);
        let s = self.ram[addr];
        let open = conn_ok && s.open;
        let send_mask = ((1u32 << p.send_bufs) - 1) as u16;
        let recv_mask = ((1u32 << p.recv_bufs) - 1) as u16;
        let buf = i.s_axis_req_buf;
        let bit = if buf < 16 { 1u16 << buf } else { 0 };
        let mut r = Resp {
            op: i.s_axis_req_op,
            conn: i.s_axis_req_conn,
            status: status::OK,
            buf: 0,
            mseq: s.tx_next,
            ack: s.rx_last,
            bufs: s.posted as u16,
            credits: 0,
            update_due: false,
        };
        let mut new = None;
        // Unacknowledged messages OPEN would leave, wrap-safe.
        let open_inflight = i.s_axis_req_a.wrapping_sub(1).wrapping_sub(i.s_axis_req_b);
        match i.s_axis_req_op {
            op::OPEN if !conn_ok => r.status = status::CLOSED,
            op::OPEN
                if open_inflight > i.s_axis_req_bufs as u32
                    || i.s_axis_req_bufs < wire::MIN_POSTED
                    || buf > p.recv_bufs =>
            {
                r.status = status::BAD_OPEN
            }
            op::OPEN => {
                new = Some(ConnState {
                    open: true,
                    tx_next: i.s_axis_req_a,
                    peer_ack: i.s_axis_req_b,
                    rx_last: i.s_axis_req_c,
                    peer_bufs: i.s_axis_req_bufs,
                    peer_max: i.s_axis_req_bufs,
                    rx_since_adv: i.s_axis_req_buf as u16,
                    posted: p.recv_bufs,
                    send_used: 0,
                    send_ever: 0,
                    recv_posted: recv_mask,
                });
            }
            op::CLOSE | op::ALLOC | op::FREE | op::RECV | op::REPOST | op::QUERY if !open => {
                r.status = status::CLOSED
            }
            op::CLOSE => new = Some(ConnState::default()),
            op::ALLOC => {
                let free = !s.send_used & send_mask;
                let reserve = match i.s_axis_req_class {
                    class::DATA => 2,
                    class::CONTROL => 1,
                    class::UPDATE => 0,
                    _ => u16::MAX,
                };
                if reserve == u16::MAX {
                    r.status = status::BAD_OP;
                } else if free == 0 {
                    r.status = status::NO_BUF;
                } else if s.credits() <= reserve {
                    r.status = status::NO_CREDIT;
                } else {
                    let b = free.trailing_zeros() as u16;
                    r.buf = b as u8;
                    new = Some(ConnState {
                        send_used: s.send_used | 1 << b,
                        send_ever: s.send_ever | 1 << b,
                        tx_next: s.tx_next.wrapping_add(1),
                        rx_since_adv: 0,
                        ..s
                    });
                }
            }
            op::FREE => {
                if buf >= p.send_bufs || s.send_ever & bit == 0 {
                    r.status = status::NEVER_HANDED_OUT;
                } else if s.send_used & bit == 0 {
                    r.status = status::DOUBLE_FREE;
                } else {
                    new = Some(ConnState { send_used: s.send_used & !bit, ..s });
                }
            }
            op::RECV => {
                if buf >= p.recv_bufs || s.recv_posted & bit == 0 {
                    r.status = status::NOT_POSTED;
                } else if i.s_axis_req_a != s.rx_last.wrapping_add(1) {
                    r.status = status::SEQ_GAP;
                } else if !seq::in_window(i.s_axis_req_b, s.peer_ack, s.tx_next.wrapping_sub(1)) {
                    r.status = status::BAD_ACK;
                } else if i.s_axis_req_bufs > s.peer_max {
                    r.status = status::BAD_BUFS;
                } else {
                    new = Some(ConnState {
                        recv_posted: s.recv_posted & !bit,
                        posted: s.posted - 1,
                        rx_last: i.s_axis_req_a,
                        rx_since_adv: s.rx_since_adv.saturating_add(1),
                        peer_ack: i.s_axis_req_b,
                        peer_bufs: i.s_axis_req_bufs,
                        ..s
                    });
                }
            }
            op::REPOST => {
                if buf >= p.recv_bufs {
                    r.status = status::REPOST_RANGE;
                } else if s.recv_posted & bit != 0 {
                    r.status = status::DOUBLE_POST;
                } else {
                    new = Some(ConnState {
                        recv_posted: s.recv_posted | bit,
                        posted: s.posted + 1,
                        ..s
                    });
                }
            }
            op::QUERY => {}
            _ => r.status = status::BAD_OP,
        }
        if r.status == status::CLOSED {
            // Nothing of another connection's word shows (an id at or above `connections`
            // reads the word its low bits name).
            (r.mseq, r.ack, r.bufs) = (0, 0, 0);
        }
        let after = new.unwrap_or(s);
        if r.status == status::OK || r.status == status::NO_BUF || r.status == status::NO_CREDIT {
            r.credits = after.credits();
            r.update_due = self.update_due(&after);
        }
        (r, new)
    }
}

impl CycleModel for PoolModel {
    type In = PoolIn;
    type Out = PoolOut;

    fn outputs(&self, _i: &PoolIn) -> PoolOut {
        let r = &self.resp.out;
        PoolOut {
            s_axis_req_tready: self.s_axis_req_tready(),
            m_axis_resp_tvalid: self.resp.out_valid,
            m_axis_resp_op: r.op,
            m_axis_resp_conn: r.conn,
            m_axis_resp_status: r.status,
            m_axis_resp_buf: r.buf,
            m_axis_resp_mseq: r.mseq,
            m_axis_resp_ack: r.ack,
            m_axis_resp_bufs: r.bufs,
            m_axis_resp_credits: r.credits,
            m_axis_resp_update_due: r.update_due,
            cnt_rd_data: self.counters.rd_data(),
        }
    }

    fn clock(&mut self, i: &PoolIn) {
        if i.reset {
            // Registers clear at once; the RAM is swept afterwards, a word per cycle.
            let ram = std::mem::take(&mut self.ram);
            *self = PoolModel { ram, clearing: true, clear_addr: 0, ..PoolModel::new(self.p) };
            return;
        }
        let accept = i.s_axis_req_tvalid && self.s_axis_req_tready();
        let fires = self.s2_fires();
        let advances = self.s1_advances();
        if self.clearing {
            self.ram[self.clear_addr as usize] = ConnState::default();
            self.clear_addr += 1;
            if self.clear_addr as usize == self.ram.len() {
                self.clearing = false;
                self.clear_addr = 0;
            }
        }
        let mut push = None;
        if fires {
            let req = self.s2.expect("stage 2 holds a request");
            let (r, new) = self.execute(&req);
            if let Some(n) = new {
                let addr = self.addr(req.s_axis_req_conn);
                self.ram[addr] = n;
            }
            push = Some(r);
        }
        self.counters.clock(push.map(|r| r.status as usize), i.cnt_rd_index as usize);
        if advances {
            self.s2 = self.s1;
        } else if fires {
            self.s2 = None;
        }
        if accept {
            self.s1 =
                Some(PoolIn { m_axis_resp_tready: false, reset: false, cnt_rd_index: 0, ..*i });
        } else if advances {
            self.s1 = None;
        }
        self.resp.clock(i.m_axis_resp_tready, push);
    }
}
