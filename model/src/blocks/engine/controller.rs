//! The controller (`hdl/src/engine/controller.rs`): the session protocol, one event at a
//! time.
//!
//! Events, in priority order: a message sent by the builder, a delivery done (these two
//! first, so the units they come from never wait on the controller while it waits on them),
//! a credit overrun reported by receive admission, the SAN's word that the peer's end of a
//! connection went down, a message's header record from the parser, a host command, and
//! last a *pump* of one connection that may have work (round-robin over a bitmap set by
//! every event of a connection, cleared by a pump that finds nothing to do). After a
//! header, overrun, teardown or command, a pump with work goes next (after the reports): so
//! those and the pumps take turns, and no stream of incoming messages or commands starves a
//! connection's flush, sends or credit updates, nor a stream of pumps the commands. Likewise
//! after a header, overrun or teardown a waiting command goes before the next of them: a
//! stream of incoming messages cannot starve the host's commands. Last, the sequencer's
//! word that a transfer ended (with the reports: it follows work handed out).
//!
//! Each event reads its connection's state (one RAM word: the state, the send and receive
//! queues, the received payload held for the application), asks the pool manager for at most
//! three things in turn (open, receive, re-post, allocate a send buffer and credit, free one,
//! query, close), then in one cycle writes the state back and hands out at most one message
//! to build, one copy to deliver, one completion and one change of the posted-buffer bitmap.
//! An abort then completes every queued command, one per cycle.
//!
//! Phases: `Idle` (take an event) -> `Decide` (state read) -> (`Pool` request, wait for its
//! answer)* -> `Apply` (waits for room in every FIFO it pushes to) -> [`Flush`] -> `Idle`.

use crate::blocks::parser::{ParserOut, user};
use crate::blocks::pool::{PoolIn, PoolOut, Resp, class, op, status};
use crate::blocks::sequencer::{CplRec, RspRec, SequencerIn, SequencerOut, cmd as seq_op};
use crate::host::{Command, Completion, Opcode};
use crate::params::EngineParams;
use crate::status::WsaError;
use crate::wire::{self, HEADER_BYTES, mid};

use super::EngineModel;
use super::builder::{MAX_FIXED, Sent, TxJob};
use super::delivery::{DlvJob, Done};
use super::rx_admit::AdmitOp;

mod zcopy;
pub use zcopy::{RxX, TxX, XMsg};

/// A connection's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum St {
    /// Never opened.
    #[default]
    Free,
    /// Opened, neither listening nor connecting (a peer's Hello is still accepted).
    Open,
    AwaitHello,
    HelloSent,
    Established,
    /// Both directions shut down gracefully: data held stays readable.
    Closed,
    Aborted,
}

/// A queued send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SqEnt {
    pub tag: u32,
    pub addr: u64,
    pub len: u32,
    pub urgent: bool,
}

/// A posted receive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RqEnt {
    pub tag: u32,
    pub addr: u64,
    pub len: u32,
}

/// A receive buffer holding payload not yet delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    pub buf: u8,
    pub len: u32,
    pub urgent: bool,
    /// The inline part of a LargeSend landing zero-copy (delivered to the landing receive).
    pub land: bool,
}

/// A ring of at most 16 entries (the hardware's per-connection queue RAM and pointers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ring<T: Copy + Default> {
    e: [T; 16],
    head: u8,
    n: u8,
}

impl<T: Copy + Default> Ring<T> {
    pub fn len(&self) -> usize {
        self.n as usize
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    pub fn front(&self) -> Option<&T> {
        (self.n > 0).then(|| &self.e[self.head as usize])
    }
    pub fn front_mut(&mut self) -> Option<&mut T> {
        (self.n > 0).then(|| &mut self.e[self.head as usize])
    }
    pub fn push(&mut self, v: T) {
        self.e[(self.head + self.n) as usize % 16] = v;
        self.n += 1;
    }
    pub fn pop(&mut self) -> Option<T> {
        let v = self.front().copied()?;
        self.head = (self.head + 1) % 16;
        self.n -= 1;
        Some(v)
    }
    pub fn clear(&mut self) {
        self.n = 0;
    }
}

/// One connection's state word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnCtl {
    pub st: St,
    pub init_seq: u32,
    /// The LISTEN or CONNECT waiting for the session: tag and opcode.
    pub wait: Option<(u32, u8)>,
    pub peer_buf: u32,
    pub peer_read: bool,
    pub shut: bool,
    pub fin_sent: bool,
    pub fin_rcvd: bool,
    pub closing: bool,
    /// What requests fail with once aborted.
    pub err: Option<WsaError>,
    pub sq: Ring<SqEnt>,
    /// Bytes of the head send handed to the builder.
    pub sent: u32,
    pub rq: Ring<RqEnt>,
    pub held: Ring<Held>,
    /// Bytes of the head held buffer delivered.
    pub held_off: u32,
    pub dlv_busy: bool,
    /// A buffer that held payload was posted again since the last message: the peer's view
    /// of our posted buffers is low, and it may be waiting for credits only this can give.
    pub adv_due: bool,
    /// Messages of this connection in the builder.
    pub tx_inflight: u8,
    /// Queued commands to complete with this status once nothing of the connection is in
    /// the builder or in delivery (so no host buffer is handed back while it is still being
    /// read or written).
    pub flush_pending: Option<(FlushKind, WsaError)>,
    /// The head send's zero-copy transfer: its state, source key and LargeSend's `mseq`.
    pub tx_x: TxX,
    pub tx_key: u32,
    pub tx_xfer: u32,
    /// The incoming zero-copy transfer, landing in the head posted receive: its state,
    /// landing key, LargeSend's `mseq`, total bytes, and whether its inline part is still
    /// to be delivered.
    pub rx_x: RxX,
    pub rx_key: u32,
    pub rx_xfer: u32,
    pub rx_total: u32,
    pub rx_inline: u32,
    pub rx_inline_due: bool,
    /// Control messages owed to the peer: the sender's WriteComplete, the receiver's
    /// SinkAvail, SendByCopy or ReadComplete. Sent before any Data of the connection.
    pub tx_due: Option<XMsg>,
    pub rx_due: Option<XMsg>,
    /// An RDMA transfer of this connection is in the sequencer (its completion request not
    /// yet taken): a flush waits for it, so no host buffer is handed back under it.
    pub op_live: bool,
}

/// An event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    Overrun(u8),
    Down(u8),
    Rx(ParserOut),
    Sent(Sent),
    Dlv(Done),
    Cmd(Command),
    Pump(u8),
    /// The sequencer's completion request: a transfer ended.
    Xfer(CplRec),
}

impl Ev {
    /// The kinds' names, by [`Ev::kind`].
    pub const KINDS: [&'static str; 8] =
        ["overrun", "header", "sent", "delivered", "command", "pump", "down", "xfer"];

    /// The kind's number: the HDL's `ev_kind`.
    pub fn kind(&self) -> usize {
        match self {
            Ev::Overrun(_) => 0,
            Ev::Rx(_) => 1,
            Ev::Sent(_) => 2,
            Ev::Dlv(_) => 3,
            Ev::Cmd(_) => 4,
            Ev::Pump(_) => 5,
            Ev::Down(_) => 6,
            Ev::Xfer(_) => 7,
        }
    }
}

/// What the rest of the event's handling does with a pool answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cont {
    /// Ignore the answer: apply.
    Apply,
    HelloOpened {
        buf: u8,
    },
    HelloAckAlloc {
        buf: u8,
    },
    AckOpened {
        buf: u8,
    },
    /// After RECV of a message: its buffer, kind, urgent flag, payload bytes, and for the
    /// zero-copy messages the header fields they carry.
    Received {
        buf: u8,
        mid: u8,
        urgent: bool,
        pay: u32,
        z: ZHdr,
    },
    /// Zero-copy steps, answered by the sequencer (or the pool, for `LargeAlloc`).
    Z(zcopy::ZCont),
    /// A zero-copy step after a sequencer command whose answer nothing reads: the
    /// DEREGISTER of a region only this engine's own RDMA operations used (the landing
    /// region of its reads, the source of its writes), which no peer request can reach, so
    /// nothing is exposed if the host hears of the transfer's end before the sequencer has
    /// dropped the registration. The event goes on once the sequencer takes the command,
    /// and the answer is taken and dropped when it comes (`Controller::seq_owed`).
    ZPosted(zcopy::ZCont),
    Reposted {
        buf: u8,
    },
    AbortAlloc {
        err: WsaError,
    },
    AbortClosed {
        err: WsaError,
    },
    DataAlloc,
    FinAlloc,
    Queried,
    UpdateAlloc,
}

/// Which queued commands a flush completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushKind {
    /// The waiting LISTEN/CONNECT, every send, every receive (an abort).
    All,
    /// Every receive (a graceful close).
    Recv,
}

/// Effects of an event, applied in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    pub cpl: Option<Completion>,
    pub job: Option<TxJob>,
    pub dlv: Option<DlvJob>,
    pub admit: Option<AdmitOp>,
    pub flush: Option<(FlushKind, WsaError)>,
    /// Tear the connection down on the SAN (it was reset here).
    pub down: bool,
    /// The connection may have more to do (set its pump bit).
    pub work: bool,
}

/// An event being handled: its connection (none for a command naming no connection), that
/// connection's state as it will be written back, and the effects so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    pub conn: Option<u8>,
    pub c: ConnCtl,
    pub fx: Effects,
}

/// The header fields of a zero-copy message the controller keeps while it asks the pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZHdr {
    pub mseq: u32,
    pub ext: u64,
    pub desc: bool,
    pub daddr: u64,
    pub dkey: u32,
    pub dlen: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Decide(Ev),
    Pool {
        req: PoolIn,
        sent: bool,
        k: Cont,
        w: Work,
    },
    /// A sequencer command out, then its response.
    Seq {
        req: SequencerIn,
        sent: bool,
        k: Cont,
        w: Work,
    },
    Apply(Work),
    Flush {
        conn: u8,
        kind: FlushKind,
        err: WsaError,
    },
}

/// A connection's next pump step ([`Controller::pump_step`]); the HDL's `PumpStep` widget
/// decides the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PumpStep {
    /// A flush is pending: done once the connection is quiet, waited for till then.
    Flush,
    /// Held payload into the head receive.
    Deliver,
    /// The EOF to the head receive (the peer's Disconnect came, nothing is held).
    Eof,
    /// Nothing more before the session is up (or after it ended).
    Idle,
    /// A buffer for an owed control message (ReadComplete, WriteComplete, SinkAvail,
    /// SendByCopy).
    Owed,
    /// The head send's zero-copy transfer.
    Large,
    /// A buffer for the head send's Data message.
    Data,
    /// The tails: Disconnect, credit update, close.
    Tail,
}

enum Next {
    Pool(PoolIn, Cont, Work),
    Seq(SequencerIn, Cont, Work),
    Apply(Work),
}

/// What the controller shows during a cycle, and what it becomes at the edge.
#[derive(Clone, Debug, Default)]
pub struct Comb {
    pub take_ovr: bool,
    pub take_down: bool,
    pub take_hdr: bool,
    pub take_sent: bool,
    pub take_dlv: bool,
    pub take_cmd: bool,
    pub take_xfer: bool,
    pub take_rsp: bool,
    pub pool_req: Option<PoolIn>,
    pub seq_req: Option<SequencerIn>,
    pub fx_job: Option<TxJob>,
    pub fx_dlv: Option<DlvJob>,
    pub fx_cpl: Option<Completion>,
    pub fx_admit: Option<(u8, AdmitOp)>,
    pub fx_down: Option<u8>,
    next: Option<Phase>,
    write: Option<(u8, ConnCtl)>,
    work: Option<(u8, bool)>,
    rr: Option<u8>,
    /// A posted pool request was taken this cycle.
    posted: bool,
    /// A posted request's answer came this cycle (and nothing read it).
    answered: bool,
    /// A posted sequencer command was taken this cycle.
    seq_posted: bool,
    /// A posted sequencer command's answer is taken (and dropped) this cycle.
    seq_dropped: bool,
}

/// Event counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CtlStats {
    pub events: u64,
    /// Events taken, by [`Ev::kind`].
    pub events_by_kind: [u64; 8],
    pub violations: u64,
    pub malformed: u64,
    pub overruns: u64,
    pub aborts: u64,
    pub pumps_idle: u64,
}

#[derive(Clone, Debug)]
pub struct Controller {
    p: EngineParams,
    pub conns: Vec<ConnCtl>,
    pub phase: Phase,
    /// Connections that may have work.
    pub work: Vec<bool>,
    /// Where the next pump search starts.
    pub rr: u8,
    /// The last event taken (reports aside) was not a pump: a pump with work goes before the
    /// next message header, overrun, teardown or command.
    pub pump_due: bool,
    /// A header, overrun or teardown was taken since the last command: a waiting command
    /// goes before the next of them, so a stream of incoming messages cannot starve the
    /// host's commands (and the abort bound holds for commands in the command FIFO).
    pub cmd_due: bool,
    /// Cycles left of the sweep after reset (the hardware writes every connection's word
    /// Free, one per cycle, taking no event meanwhile).
    pub sweep: u16,
    /// Answers still to come for posted pool requests (those whose answer nobody reads,
    /// `Cont::Apply`: the event went on to Apply once the request was taken). Not
    /// hardware: a check that no such answer ever reaches an event waiting for its own.
    /// The pool answers a request two cycles after it takes it, and an event reaches `Pool`
    /// with its request taken four cycles after a posted one at the soonest (Apply, Decide,
    /// Pool, then waiting), so the hardware needs no count to tell the two apart.
    pub owed: u8,
    /// The answer to a posted sequencer command (`Cont::ZPosted`) is still to come; the
    /// sequencer answers in order, so it is the next one, taken and dropped when it comes.
    /// Hardware (one bit): unlike the pool's, the sequencer's answer waits for `tready`,
    /// and it may come while the next command is already taken.
    pub seq_owed: bool,
    pub stats: CtlStats,
    /// The last events taken, newest last (for a mismatch's report; not hardware).
    pub trace: std::collections::VecDeque<Ev>,
}

fn cpl_of(conn: u8, tag: u32, opcode: u8, r: Result<u32, WsaError>) -> Completion {
    let (bytes, status) = match r {
        Ok(n) => (n, 0),
        Err(e) => (0, e.code() as u16),
    };
    Completion { tag, bytes, conn: conn as u16, status, opcode, urgent: false, eof: false }
}

fn pool(op_: u8, conn: u8) -> PoolIn {
    PoolIn { s_axis_req_op: op_, s_axis_req_conn: conn, ..PoolIn::default() }
}

/// Header word 0: mid, flags, bufs, len.
pub fn hdr_word0(mid: u8, flags: u8, bufs: u16, len: u32) -> u64 {
    mid as u64 | (flags as u64) << 8 | (bufs as u64) << 16 | (len as u64) << 32
}

/// Header word 1: mseq, mseq_ack.
pub fn hdr_word1(mseq: u32, ack: u32) -> u64 {
    mseq as u64 | (ack as u64) << 32
}

/// The Hello/HelloAck extension word.
pub fn hello_ext(rdma_read: bool, buf_size: u32) -> u64 {
    wire::VERSION as u64
        | (if rdma_read { wire::cap::RDMA_READ as u64 } else { 0 }) << 8
        | (buf_size as u64) << 32
}

impl Controller {
    pub fn new(p: &EngineParams) -> Self {
        let n = p.connections as usize;
        Controller {
            p: *p,
            conns: vec![ConnCtl::default(); n],
            phase: Phase::Idle,
            work: vec![false; n],
            rr: 0,
            pump_due: false,
            cmd_due: false,
            sweep: 0,
            owed: 0,
            seq_owed: false,
            stats: CtlStats::default(),
            trace: Default::default(),
        }
    }

    /// A job for a message with fixed words `words` and the pool's answer `r` (or none, for
    /// the Hello sent before the pool is open).
    fn job(conn: u8, r: Option<&Resp>, words: &[u64]) -> TxJob {
        let mut w = [0; MAX_FIXED];
        w[..words.len()].copy_from_slice(words);
        TxJob {
            conn,
            buf: r.map_or(0, |r| r.buf),
            pooled: r.is_some(),
            words: w,
            nwords: words.len() as u8,
            ..TxJob::default()
        }
    }

    fn msg(conn: u8, r: &Resp, mid_: u8, flags: u8, len: u32, ext: Option<u64>) -> TxJob {
        let w0 = hdr_word0(mid_, flags, r.bufs, len);
        let w1 = hdr_word1(r.mseq, r.ack);
        match ext {
            Some(e) => Self::job(conn, Some(r), &[w0, w1, e]),
            None => Self::job(conn, Some(r), &[w0, w1]),
        }
    }

    /// The pump's pick: the first connection with work at or after `rr`.
    fn pick_pump(&self, fwd: Option<(u8, bool)>, o: &mut Comb) -> Option<Ev> {
        let n = self.work.len();
        (0..n).map(|k| (self.rr as usize + k) % n).find(|&c| self.work_bit(c, fwd)).map(|c| {
            o.rr = Some(((c + 1) % n) as u8);
            Ev::Pump(c as u8)
        })
    }

    /// The work bit of connection `c`, with `fwd` (a connection and the bit Apply writes
    /// for it this cycle) forwarded: the pick in Apply's cycle sees the event's own result.
    fn work_bit(&self, c: usize, fwd: Option<(u8, bool)>) -> bool {
        match fwd {
            Some((f, b)) if f as usize == c => b,
            _ => self.work[c],
        }
    }

    /// The event to take this cycle, if any (its pops and the pump's `rr` set in `o`), with
    /// the work bit Apply writes this cycle forwarded (`fwd`).
    fn pick(
        &self,
        po: &ParserOut,
        seq_o: &SequencerOut,
        e: &EngineModel,
        fwd: Option<(u8, bool)>,
        o: &mut Comb,
    ) -> Option<Ev> {
        // The builder's and delivery's reports come first: an event that hands
        // them work waits in Apply for room, and they make room only by reporting.
        // Taken first, their report FIFOs are empty whenever another event starts,
        // and deep enough (SENT_FIFO, DONE_FIFO) for all the work they can hold.
        if let Some(&s) = e.builder.sent.head() {
            o.take_sent = true;
            Some(Ev::Sent(s))
        } else if let Some(&d) = e.delivery.done.head() {
            o.take_dlv = true;
            Some(Ev::Dlv(d))
        } else if seq_o.m_axis_cpl_tvalid {
            o.take_xfer = true;
            Some(Ev::Xfer(CplRec {
                conn: seq_o.m_axis_cpl_conn,
                xfer: seq_o.m_axis_cpl_xfer,
                bytes: seq_o.m_axis_cpl_bytes,
                write: seq_o.m_axis_cpl_write,
                status: seq_o.m_axis_cpl_status,
            }))
        } else if self.pump_due && (0..self.work.len()).any(|c| self.work_bit(c, fwd)) {
            // Every other event a pump, when one is due: a stream of messages or
            // commands cannot starve a connection's flush, sends or credit updates.
            self.pick_pump(fwd, o)
        } else if let Some(&c) = e.cmd.head().filter(|_| self.cmd_due) {
            o.take_cmd = true;
            Some(Ev::Cmd(c))
        } else if let Some(&c) = e.admit.overruns.head() {
            o.take_ovr = true;
            Some(Ev::Overrun(c))
        } else if let Some(&c) = e.down_in.head() {
            o.take_down = true;
            Some(Ev::Down(c))
        } else if po.m_axis_hdr_tvalid {
            o.take_hdr = true;
            Some(Ev::Rx(*po))
        } else if let Some(&c) = e.cmd.head() {
            o.take_cmd = true;
            Some(Ev::Cmd(c))
        } else {
            self.pick_pump(fwd, o)
        }
    }

    /// The controller's outputs this cycle and its next state.
    pub fn comb(
        &self,
        po: &ParserOut,
        pool_o: &PoolOut,
        seq_o: &SequencerOut,
        e: &EngineModel,
    ) -> Comb {
        let mut o = Comb {
            answered: self.owed > 0 && pool_o.m_axis_resp_tvalid,
            seq_dropped: self.seq_owed && seq_o.m_axis_rsp_tvalid,
            take_rsp: self.seq_owed && seq_o.m_axis_rsp_tvalid,
            ..Comb::default()
        };
        match &self.phase {
            Phase::Idle if self.sweep > 0 => {}
            Phase::Idle => {
                o.next = self.pick(po, seq_o, e, None, &mut o).map(Phase::Decide);
            }
            Phase::Decide(ev) => {
                o.next = Some(self.to_phase(self.start(ev)));
            }
            Phase::Pool { req, sent, k, w } => {
                if !sent {
                    o.pool_req = Some(*req);
                    if pool_o.s_axis_req_tready && *k == Cont::Apply {
                        // Nothing reads the answer: apply now; the answer comes while the
                        // next event is not yet waiting for one (`owed`).
                        o.posted = true;
                        o.next = Some(Phase::Apply(*w));
                    } else if pool_o.s_axis_req_tready {
                        o.next = Some(Phase::Pool { req: *req, sent: true, k: *k, w: *w });
                    }
                } else if pool_o.m_axis_resp_tvalid {
                    assert!(!o.answered, "a posted request's answer came to an event waiting");
                    let r = Resp {
                        op: pool_o.m_axis_resp_op,
                        conn: pool_o.m_axis_resp_conn,
                        status: pool_o.m_axis_resp_status,
                        buf: pool_o.m_axis_resp_buf,
                        mseq: pool_o.m_axis_resp_mseq,
                        ack: pool_o.m_axis_resp_ack,
                        bufs: pool_o.m_axis_resp_bufs,
                        credits: pool_o.m_axis_resp_credits,
                        update_due: pool_o.m_axis_resp_update_due,
                    };
                    let next = self.to_phase(self.cont(*k, *w, &r));
                    // A zero-copy message's sequencer command (the pool took the message):
                    // its operands are the event's own, none from the answer.
                    let fwd = matches!(k, Cont::Received { .. });
                    o.next = Some(if fwd { Self::forward(next, seq_o, &mut o) } else { next });
                }
            }
            Phase::Seq { req, sent, k, w } => {
                if !sent {
                    o.seq_req = Some(*req);
                    if seq_o.s_axis_cmd_tready
                        && let Cont::ZPosted(zk) = *k
                    {
                        // Nothing reads the answer: go on now, drop it when it comes; a
                        // pool request decided next is offered in this same cycle.
                        o.seq_posted = true;
                        let next = self.to_phase(self.z_seq(zk, *w, &RspRec::default()));
                        o.next = Some(Self::forward_pool(next, pool_o, &mut o));
                    } else if seq_o.s_axis_cmd_tready {
                        o.next = Some(Phase::Seq { req: *req, sent: true, k: *k, w: *w });
                    }
                } else if seq_o.m_axis_rsp_tvalid && !self.seq_owed {
                    o.take_rsp = true;
                    let r = RspRec {
                        op: seq_o.m_axis_rsp_op,
                        conn: seq_o.m_axis_rsp_conn,
                        status: seq_o.m_axis_rsp_status,
                        key: seq_o.m_axis_rsp_key,
                        len: seq_o.m_axis_rsp_len,
                    };
                    let Cont::Z(zk) = *k else { unreachable!("a sequencer step continues Z") };
                    let next = self.to_phase(self.z_seq(zk, *w, &r));
                    o.next = Some(Self::forward(next, seq_o, &mut o));
                }
            }
            Phase::Apply(w) => {
                let fx = &w.fx;
                let room = (fx.cpl.is_none() || e.cpl.can_push())
                    && (fx.job.is_none() || e.builder.jobs.can_push())
                    && (fx.dlv.is_none() || e.delivery.jobs.can_push())
                    && (!fx.down || e.down_out.can_push());
                if room {
                    o.fx_cpl = fx.cpl;
                    o.fx_job = fx.job;
                    o.fx_dlv = fx.dlv;
                    if let Some(c) = w.conn {
                        o.fx_admit = fx.admit.map(|a| (c, a));
                        o.fx_down = fx.down.then_some(c);
                        let mut s = w.c;
                        // Every message carries our posted count.
                        if fx.job.is_some_and(|j| j.pooled) {
                            s.adv_due = false;
                        }
                        o.write = Some((c, s));
                        o.work = Some((c, fx.work));
                    }
                    // The next event is picked in this same cycle (its state is read in
                    // Decide, after this cycle's write), unless a flush comes first.
                    o.next = Some(match (w.conn, fx.flush) {
                        (Some(conn), Some((kind, err))) => Phase::Flush { conn, kind, err },
                        _ => {
                            let fwd = w.conn.map(|c| (c, fx.work));
                            self.pick(po, seq_o, e, fwd, &mut o).map_or(Phase::Idle, Phase::Decide)
                        }
                    });
                }
            }
            Phase::Flush { conn, kind, err } => {
                let mut c = self.conns[*conn as usize];
                let r = Err(*err);
                let cpl = if *kind == FlushKind::All
                    && let Some((tag, opc)) = c.wait.take()
                {
                    Some(cpl_of(*conn, tag, opc, r))
                } else if *kind == FlushKind::All
                    && let Some(s) = c.sq.pop()
                {
                    let opc = if s.urgent { Opcode::SendUrgent } else { Opcode::Send };
                    c.sent = 0;
                    Some(cpl_of(*conn, s.tag, opc.code(), r))
                } else {
                    c.rq.pop().map(|q| cpl_of(*conn, q.tag, Opcode::PostRecv.code(), r))
                };
                match cpl {
                    None => o.next = Some(Phase::Idle),
                    Some(_) if e.cpl.can_push() => {
                        o.fx_cpl = cpl;
                        o.write = Some((*conn, c));
                    }
                    Some(_) => {}
                }
            }
        }
        o
    }

    /// A sequencer command decided on an answer is offered in the answer's cycle, and
    /// waits for its own answer from the next when the sequencer takes it now (the
    /// sequencer takes a command while its last answer is taken: `docs/HARDWARE.md`,
    /// the sequencer's timing). The HDL forwards the same two decisions (`CtlDecide`'s
    /// `fwd`): a zero-copy message's and the sequencer answer's.
    fn forward(next: Phase, seq_o: &SequencerOut, o: &mut Comb) -> Phase {
        match next {
            Phase::Seq { req, sent: false, k, w } => {
                debug_assert!(!matches!(k, Cont::ZPosted(_)), "a forwarded command is read");
                o.seq_req = Some(req);
                Phase::Seq { req, sent: seq_o.s_axis_cmd_tready, k, w }
            }
            next => next,
        }
    }

    /// A pool request decided as a posted sequencer command is taken (the owed message's
    /// `ALLOC` after a transfer's posted `DEREGISTER`) is offered in that cycle, and waits
    /// for its answer from the next when the pool takes it now. One whose answer nobody
    /// reads (`Cont::Apply`) is not forwarded: it is offered from `Pool` as usual. The
    /// HDL forwards the same (`CtlDecide`'s `pfwd`).
    fn forward_pool(next: Phase, pool_o: &PoolOut, o: &mut Comb) -> Phase {
        match next {
            Phase::Pool { req, sent: false, k, w } if k != Cont::Apply => {
                o.pool_req = Some(req);
                Phase::Pool { req, sent: pool_o.s_axis_req_tready, k, w }
            }
            next => next,
        }
    }

    fn to_phase(&self, n: Next) -> Phase {
        match n {
            Next::Pool(req, k, w) => Phase::Pool { req, sent: false, k, w },
            Next::Seq(req, k, w) => Phase::Seq { req, sent: false, k, w },
            Next::Apply(w) => Phase::Apply(w),
        }
    }

    pub fn clock(&mut self, o: &Comb) {
        if self.sweep > 0 {
            self.sweep -= 1;
        }
        self.owed = self.owed + o.posted as u8 - o.answered as u8;
        // Posted requests are three cycles apart at least, their answers two cycles behind.
        assert!(self.owed <= 1, "posted pool answers outstanding: {}", self.owed);
        // The sequencer takes a command only once the last one's answer is out (its response
        // register loads as it goes back to taking commands), and an owed answer is taken
        // the cycle it shows: so one bit holds what is owed.
        assert!(
            !(o.seq_posted && self.seq_owed && !o.seq_dropped),
            "two posted sequencer answers outstanding"
        );
        self.seq_owed = o.seq_posted || (self.seq_owed && !o.seq_dropped);
        if let Some((c, s)) = o.write {
            self.conns[c as usize] = s;
        }
        if let Some((c, b)) = o.work {
            self.work[c as usize] = b;
            if !b {
                self.stats.pumps_idle += 1;
            }
        }
        if let Some(rr) = o.rr {
            self.rr = rr;
        }
        if let Some(Phase::Decide(ev)) = &o.next {
            self.stats.events += 1;
            self.stats.events_by_kind[ev.kind()] += 1;
            // The reports neither make a pump due nor take its turn (they only follow work
            // handed out, and come first anyway).
            match ev {
                Ev::Pump(_) => self.pump_due = false,
                Ev::Sent(_) | Ev::Dlv(_) | Ev::Xfer(_) => {}
                _ => self.pump_due = true,
            }
            match ev {
                Ev::Overrun(_) | Ev::Down(_) | Ev::Rx(_) => self.cmd_due = true,
                Ev::Cmd(_) => self.cmd_due = false,
                _ => {}
            }
            if self.trace.len() == 24 {
                self.trace.pop_front();
            }
            self.trace.push_back(*ev);
            match ev {
                Ev::Overrun(_) => self.stats.overruns += 1,
                Ev::Rx(h) if h.m_axis_hdr_error != 0 => self.stats.malformed += 1,
                _ => {}
            }
        }
        if let Some(n) = o.next {
            self.phase = n;
        }
    }

    // ------------------------------------------------------------------ decisions

    fn start(&self, ev: &Ev) -> Next {
        let work = |conn: u8| Work {
            conn: Some(conn),
            c: self.conns[conn as usize],
            fx: Effects { work: true, ..Effects::default() },
        };
        match *ev {
            // A message for a connection never opened here: no socket to take it. Tear the
            // connection down so the peer's CONNECT is refused instead of waiting for ever.
            Ev::Overrun(conn) if self.conns[conn as usize].st == St::Free => {
                let mut w = work(conn);
                w.fx.down = true;
                Next::Apply(w)
            }
            Ev::Overrun(conn) => self.abort(work(conn), WsaError::ConnReset, true),
            // Out of range: nothing of ours (the word read is another connection's).
            Ev::Down(conn) if conn as u16 >= self.p.connections => {
                Next::Apply(Work { conn: None, c: ConnCtl::default(), fx: Effects::default() })
            }
            // Down while our Hello waits for its answer: nobody was there to take it.
            Ev::Down(conn) if self.conns[conn as usize].st == St::HelloSent => {
                self.abort(work(conn), WsaError::ConnRefused, false)
            }
            Ev::Down(conn) => self.abort(work(conn), WsaError::ConnReset, false),
            Ev::Rx(h) => self.on_rx(work(user::conn(h.m_axis_hdr_tuser as u32)), &h),
            Ev::Sent(s) => {
                let mut w = work(s.conn);
                w.c.tx_inflight -= 1;
                w.fx.cpl = s.cpl;
                if s.pooled {
                    let req = PoolIn { s_axis_req_buf: s.buf, ..pool(op::FREE, s.conn) };
                    Next::Pool(req, Cont::Apply, w)
                } else {
                    Next::Apply(w)
                }
            }
            Ev::Dlv(d) => self.on_dlv(work(d.job.conn), &d.job),
            Ev::Cmd(cmd) => {
                if cmd.conn >= self.p.connections {
                    let fx = Effects {
                        cpl: Some(cpl_of(0, cmd.tag, cmd.opcode, Err(WsaError::NotSock))),
                        ..Effects::default()
                    };
                    let mut cpl = fx;
                    if let Some(c) = &mut cpl.cpl {
                        c.conn = cmd.conn;
                    }
                    return Next::Apply(Work { conn: None, c: ConnCtl::default(), fx: cpl });
                }
                self.on_cmd(work(cmd.conn as u8), &cmd)
            }
            Ev::Pump(conn) => self.pump(work(conn)),
            Ev::Xfer(x) => self.on_xfer(work(x.conn), &x),
        }
    }

    fn cont(&self, k: Cont, mut w: Work, r: &Resp) -> Next {
        let conn = w.conn.expect("a pool request has a connection");
        let ok = r.status == status::OK;
        match k {
            Cont::Apply => Next::Apply(w),
            Cont::HelloOpened { buf } => {
                if !ok {
                    return self.violation(w);
                }
                Next::Pool(pool_alloc(conn, class::CONTROL), Cont::HelloAckAlloc { buf }, w)
            }
            Cont::HelloAckAlloc { buf } => {
                if !ok {
                    return self.violation(w);
                }
                let ext = hello_ext(self.p.rdma_read, self.p.buf_size);
                w.fx.job = Some(Self::msg(conn, r, mid::HELLO_ACK, 0, 24, Some(ext)));
                w.c.tx_inflight += 1;
                w.c.st = St::Established;
                w.fx.admit = Some(AdmitOp::Post(buf));
                if let Some((tag, opc)) = w.c.wait.take() {
                    w.fx.cpl = Some(cpl_of(conn, tag, opc, Ok(0)));
                }
                Next::Apply(w)
            }
            Cont::AckOpened { buf } => {
                if !ok {
                    return self.violation(w);
                }
                w.c.st = St::Established;
                w.fx.admit = Some(AdmitOp::Post(buf));
                if let Some((tag, opc)) = w.c.wait.take() {
                    w.fx.cpl = Some(cpl_of(conn, tag, opc, Ok(0)));
                }
                Next::Apply(w)
            }
            Cont::Received { buf, mid, urgent, pay, z } => {
                if !ok {
                    return self.violation(w);
                }
                self.on_received(w, buf, mid, urgent, pay, z)
            }
            Cont::Z(zk) => self.z_pool(zk, w, r),
            Cont::ZPosted(_) => unreachable!("a sequencer step"),
            Cont::Reposted { buf } => {
                w.fx.admit = Some(AdmitOp::Post(buf));
                Next::Apply(w)
            }
            Cont::AbortAlloc { err } => {
                if ok {
                    w.fx.job = Some(Self::msg(conn, r, mid::ABORT, 0, HEADER_BYTES as u32, None));
                    w.c.tx_inflight += 1;
                }
                Next::Pool(pool(op::CLOSE, conn), Cont::AbortClosed { err }, w)
            }
            Cont::AbortClosed { err } => {
                let c = &mut w.c;
                c.st = St::Aborted;
                c.err =
                    Some(if err == WsaError::OperationAborted { WsaError::NotConn } else { err });
                c.held.clear();
                c.held_off = 0;
                w.fx.admit = Some(AdmitOp::Reset(false));
                c.flush_pending = Some((FlushKind::All, err));
                w.fx.down = true;
                if self.p.zero_copy() {
                    // Every transfer of the connection ends (its completion request follows),
                    // every registration of it is released: the peer can touch nothing more.
                    c.tx_x = TxX::None;
                    c.rx_x = RxX::None;
                    c.tx_due = None;
                    c.rx_due = None;
                    return Next::Seq(
                        zcopy::seq_cmd(seq_op::ABORT, conn),
                        Cont::Z(zcopy::ZCont::Aborted),
                        w,
                    );
                }
                Next::Apply(w)
            }
            Cont::DataAlloc => {
                if !ok {
                    return self.pump_fin(w);
                }
                let s = *w.c.sq.front().expect("a send is queued");
                let room = wire::max_payload(wire::Kind::Data, false, w.c.peer_buf) as u32;
                let n = u32::min(room, s.len - w.c.sent);
                let flags = if s.urgent { wire::flag::URGENT } else { 0 };
                let mut job = Self::msg(conn, r, mid::DATA, flags, HEADER_BYTES as u32 + n, None);
                job.pay_addr = s.addr + w.c.sent as u64;
                job.pay_len = n;
                w.c.sent += n;
                if w.c.sent == s.len {
                    w.c.sq.pop();
                    w.c.sent = 0;
                    let opc = if s.urgent { Opcode::SendUrgent } else { Opcode::Send };
                    job.cpl = Some(cpl_of(conn, s.tag, opc.code(), Ok(s.len)));
                }
                w.fx.job = Some(job);
                w.c.tx_inflight += 1;
                Next::Apply(w)
            }
            Cont::FinAlloc => {
                if !ok {
                    return Next::Pool(pool(op::QUERY, conn), Cont::Queried, w);
                }
                let len = HEADER_BYTES as u32;
                w.fx.job = Some(Self::msg(conn, r, mid::DISCONNECT, 0, len, None));
                w.c.tx_inflight += 1;
                w.c.fin_sent = true;
                Next::Apply(w)
            }
            Cont::Queried => {
                if ok && (r.update_due || w.c.adv_due) {
                    return Next::Pool(pool_alloc(conn, class::UPDATE), Cont::UpdateAlloc, w);
                }
                self.pump_closed(w)
            }
            Cont::UpdateAlloc => {
                if !ok {
                    return self.pump_closed(w);
                }
                let len = HEADER_BYTES as u32;
                w.fx.job = Some(Self::msg(conn, r, mid::CREDIT_UPDATE, 0, len, None));
                w.c.tx_inflight += 1;
                Next::Apply(w)
            }
        }
    }
}

fn pool_alloc(conn: u8, cls: u8) -> PoolIn {
    PoolIn { s_axis_req_class: cls, ..pool(op::ALLOC, conn) }
}

impl Controller {
    /// A protocol violation by the peer: reset the connection, telling the peer.
    fn violation(&self, w: Work) -> Next {
        self.abort(w, WsaError::ConnReset, true)
    }

    /// Abort: tell the peer (when `notify`, the session is up and a buffer and credit allow),
    /// close the pool, drop the held payload and stop receiving, then complete every queued
    /// command with `err`.
    fn abort(&self, w: Work, err: WsaError, notify: bool) -> Next {
        let conn = w.conn.expect("an abort has a connection");
        match w.c.st {
            St::Free | St::Closed | St::Aborted => Next::Apply(w),
            St::Established if notify => {
                Next::Pool(pool_alloc(conn, class::UPDATE), Cont::AbortAlloc { err }, w)
            }
            _ => Next::Pool(pool(op::CLOSE, conn), Cont::AbortClosed { err }, w),
        }
    }

    fn on_rx(&self, w: Work, h: &ParserOut) -> Next {
        let conn = w.conn.expect("a message has a connection");
        let buf = user::buf(h.m_axis_hdr_tuser as u32);
        let m = h.m_axis_hdr_mid;
        match w.c.st {
            // Gone: the message is dropped, its buffer stays taken.
            St::Free | St::Closed | St::Aborted => return Next::Apply(w),
            _ if h.m_axis_hdr_error != 0 => return self.violation(w),
            _ => {}
        }
        let open = |a: u32, b: u32| PoolIn {
            s_axis_req_a: a,
            s_axis_req_b: b,
            s_axis_req_c: h.m_axis_hdr_mseq,
            s_axis_req_bufs: h.m_axis_hdr_bufs,
            // The message that opens the pool is owed an acknowledgement.
            s_axis_req_buf: 1,
            ..pool(op::OPEN, conn)
        };
        let peer = |mut w: Work| {
            let ext = h.m_axis_hdr_ext;
            w.c.peer_read = (ext >> 8) as u8 & wire::cap::RDMA_READ != 0;
            w.c.peer_buf = (ext >> 32) as u32;
            w
        };
        match (w.c.st, m) {
            (St::Open | St::AwaitHello, mid::HELLO) => {
                let init = w.c.init_seq;
                Next::Pool(open(init, init.wrapping_sub(1)), Cont::HelloOpened { buf }, peer(w))
            }
            (St::HelloSent, mid::HELLO_ACK) => {
                let ack = h.m_axis_hdr_mseq_ack;
                if ack != w.c.init_seq {
                    return self.violation(w);
                }
                Next::Pool(open(ack.wrapping_add(1), ack), Cont::AckOpened { buf }, peer(w))
            }
            (St::Established, mid::HELLO | mid::HELLO_ACK) => {
                // A duplicate: ignored, its buffer posted again (the pool never counted it).
                let mut w = w;
                w.fx.admit = Some(AdmitOp::Post(buf));
                Next::Apply(w)
            }
            (St::Established, _) => {
                let req = PoolIn {
                    s_axis_req_buf: buf,
                    s_axis_req_a: h.m_axis_hdr_mseq,
                    s_axis_req_b: h.m_axis_hdr_mseq_ack,
                    s_axis_req_bufs: h.m_axis_hdr_bufs,
                    ..pool(op::RECV, conn)
                };
                let urgent = h.m_axis_hdr_flags & wire::flag::URGENT != 0;
                let desc = h.m_axis_hdr_flags & wire::flag::DESC != 0;
                let fixed = wire::Layout::of_mid(m).map_or(HEADER_BYTES, |l| l.fixed_bytes(desc));
                let pay = h.m_axis_hdr_len.saturating_sub(fixed as u32);
                let z = ZHdr {
                    mseq: h.m_axis_hdr_mseq,
                    ext: h.m_axis_hdr_ext,
                    desc,
                    daddr: h.m_axis_hdr_desc_addr,
                    dkey: h.m_axis_hdr_desc_key,
                    dlen: h.m_axis_hdr_desc_len,
                };
                Next::Pool(req, Cont::Received { buf, mid: m, urgent, pay, z }, w)
            }
            _ => self.violation(w),
        }
    }

    /// A message the pool took (sequence, acknowledgement and credits checked).
    fn on_received(&self, mut w: Work, buf: u8, m: u8, urgent: bool, pay: u32, z: ZHdr) -> Next {
        let conn = w.conn.expect("a message has a connection");
        let repost = |w: Work| {
            let req = PoolIn { s_axis_req_buf: buf, ..pool(op::REPOST, conn) };
            Next::Pool(req, Cont::Reposted { buf }, w)
        };
        match m {
            mid::CREDIT_UPDATE => repost(w),
            mid::ABORT => self.abort(w, WsaError::ConnReset, false),
            mid::DISCONNECT => {
                if w.c.fin_rcvd || w.c.rx_x != RxX::None {
                    return self.violation(w);
                }
                w.c.fin_rcvd = true;
                repost(w)
            }
            mid::DATA => {
                // Stream data while a transfer lands would overtake it.
                if w.c.fin_rcvd || w.c.rx_x != RxX::None {
                    return self.violation(w);
                }
                if w.c.closing {
                    // Data for a socket the application closed: reset, as TCP does.
                    return self.abort(w, WsaError::OperationAborted, true);
                }
                w.c.held.push(Held { buf, len: pay, urgent, land: false });
                Next::Apply(w)
            }
            _ if self.p.zero_copy() => self.on_zmsg(w, buf, m, pay, &z),
            // An engine without the zero-copy paths takes none of their messages.
            _ => self.violation(w),
        }
    }

    fn on_dlv(&self, mut w: Work, j: &DlvJob) -> Next {
        let conn = w.conn.expect("a delivery has a connection");
        w.c.dlv_busy = false;
        // An abort or a close completed the receive already.
        if w.c.st == St::Aborted || w.c.rq.is_empty() {
            return Next::Apply(w);
        }
        if j.land {
            w.c.rx_inline_due = false;
        }
        if j.land && w.c.rx_x != RxX::None {
            // The landing receive completes with its transfer (or now, if that is done).
            if w.c.rx_x == RxX::Landed {
                w.c.rx_x = RxX::None;
                if let Some(q) = w.c.rq.pop() {
                    let n = w.c.rx_total;
                    w.fx.cpl = Some(cpl_of(conn, q.tag, Opcode::PostRecv.code(), Ok(n)));
                }
            }
        } else {
            let q = w.c.rq.pop().expect("checked");
            let mut cpl = cpl_of(conn, q.tag, Opcode::PostRecv.code(), Ok(j.len));
            cpl.urgent = j.urgent;
            w.fx.cpl = Some(cpl);
        }
        w.c.held_off += j.len;
        if j.last_of_buf {
            w.c.held.pop();
            w.c.held_off = 0;
            w.c.adv_due = true;
            let req = PoolIn { s_axis_req_buf: j.buf, ..pool(op::REPOST, conn) };
            return Next::Pool(req, Cont::Reposted { buf: j.buf }, w);
        }
        Next::Apply(w)
    }

    fn dead(c: &ConnCtl) -> Option<WsaError> {
        match c.st {
            St::Free | St::Open | St::Closed => Some(WsaError::NotConn),
            St::Aborted => c.err.or(Some(WsaError::NotConn)),
            _ => None,
        }
    }

    fn on_cmd(&self, mut w: Work, cmd: &Command) -> Next {
        let conn = w.conn.expect("checked");
        let done = |w: &mut Work, r: Result<u32, WsaError>| {
            w.fx.cpl = Some(cpl_of(conn, cmd.tag, cmd.opcode, r));
        };
        let depth = self.p.queue_depth as usize;
        let Some(opc) = Opcode::from_code(cmd.opcode) else {
            done(&mut w, Err(WsaError::Inval));
            return Next::Apply(w);
        };
        let st = w.c.st;
        match opc {
            Opcode::Open => {
                let idle = matches!(st, St::Free | St::Open | St::Closed | St::Aborted);
                // Not while anything of the last session is in a unit (an aborted transfer
                // ends only once its RDMA requests in flight are answered).
                if !idle
                    || w.c.dlv_busy
                    || w.c.tx_inflight > 0
                    || w.c.flush_pending.is_some()
                    || w.c.op_live
                {
                    done(&mut w, Err(WsaError::Inval));
                    return Next::Apply(w);
                }
                w.c = ConnCtl { st: St::Open, init_seq: cmd.aux as u32, ..ConnCtl::default() };
                w.fx.admit = Some(AdmitOp::Reset(true));
                done(&mut w, Ok(0));
                Next::Pool(pool(op::CLOSE, conn), Cont::Apply, w)
            }
            Opcode::Listen => {
                match st {
                    St::Open => {
                        w.c.st = St::AwaitHello;
                        w.c.wait = Some((cmd.tag, cmd.opcode));
                    }
                    St::Established if w.c.wait.is_none() => done(&mut w, Ok(0)),
                    _ => done(&mut w, Err(WsaError::Inval)),
                }
                Next::Apply(w)
            }
            Opcode::Connect => {
                match st {
                    St::Open => {
                        let ext = hello_ext(self.p.rdma_read, self.p.buf_size);
                        let w0 = hdr_word0(mid::HELLO, 0, self.p.recv_bufs as u16, 24);
                        let w1 = hdr_word1(w.c.init_seq, 0);
                        w.fx.job = Some(Self::job(conn, None, &[w0, w1, ext]));
                        w.c.tx_inflight += 1;
                        w.c.st = St::HelloSent;
                        w.c.wait = Some((cmd.tag, cmd.opcode));
                    }
                    St::Established => done(&mut w, Err(WsaError::IsConn)),
                    _ => done(&mut w, Err(WsaError::Inval)),
                }
                Next::Apply(w)
            }
            Opcode::Send | Opcode::SendUrgent => {
                if let Some(e) = Self::dead(&w.c) {
                    done(&mut w, Err(e));
                } else if w.c.shut || w.c.closing {
                    done(&mut w, Err(WsaError::Shutdown));
                } else if cmd.len == 0 {
                    done(&mut w, Ok(0));
                } else if w.c.sq.len() >= depth {
                    done(&mut w, Err(WsaError::NoBufs));
                } else {
                    let urgent = opc == Opcode::SendUrgent;
                    w.c.sq.push(SqEnt { tag: cmd.tag, addr: cmd.addr, len: cmd.len, urgent });
                }
                Next::Apply(w)
            }
            Opcode::PostRecv => {
                let readable = st == St::Closed && !w.c.closing;
                match Self::dead(&w.c) {
                    Some(e) if !readable => done(&mut w, Err(e)),
                    _ if w.c.closing => done(&mut w, Err(WsaError::NotConn)),
                    _ if cmd.len == 0 => done(&mut w, Ok(0)),
                    _ if w.c.rq.len() >= depth => done(&mut w, Err(WsaError::NoBufs)),
                    _ => w.c.rq.push(RqEnt { tag: cmd.tag, addr: cmd.addr, len: cmd.len }),
                }
                Next::Apply(w)
            }
            Opcode::Shutdown => {
                match Self::dead(&w.c) {
                    Some(e) => done(&mut w, Err(e)),
                    None => {
                        w.c.shut = true;
                        done(&mut w, Ok(0));
                    }
                }
                Next::Apply(w)
            }
            Opcode::Abort => {
                done(&mut w, Ok(0));
                self.abort(w, WsaError::OperationAborted, true)
            }
            Opcode::Close => {
                done(&mut w, Ok(0));
                if matches!(st, St::Free | St::Closed | St::Aborted) || w.c.closing {
                    return Next::Apply(w);
                }
                if !w.c.held.is_empty() || st != St::Established || w.c.rx_x != RxX::None {
                    // Closing with data unread, or before the session is up, is abortive; so
                    // is closing while a transfer lands in a posted receive (a graceful close
                    // hands the receives back, and the peer may still write into that one).
                    return self.abort(w, WsaError::OperationAborted, true);
                }
                w.c.closing = true;
                w.c.shut = true;
                w.c.flush_pending = Some((FlushKind::Recv, WsaError::OperationAborted));
                Next::Apply(w)
            }
        }
    }

    /// Which step a connection's pump takes next, in order: a flush (or its wait) while one
    /// is pending, else a delivery, else the EOF, else nothing before the session is up,
    /// else an owed message, else the head send (zero-copy or Data), else the tails. One
    /// definition for the pump and for the events that take the pump's step early.
    fn pump_step(&self, c: &ConnCtl) -> PumpStep {
        if c.flush_pending.is_some() {
            return PumpStep::Flush;
        }
        if !c.dlv_busy && !c.rq.is_empty() && c.st != St::Aborted {
            if !c.held.is_empty() {
                return PumpStep::Deliver;
            }
            if c.fin_rcvd {
                return PumpStep::Eof;
            }
        }
        if c.st != St::Established {
            return PumpStep::Idle;
        }
        if c.tx_due.is_some() || c.rx_due.is_some() {
            return PumpStep::Owed;
        }
        match c.sq.front() {
            Some(s) if c.tx_x != TxX::None || self.large(c, s) => PumpStep::Large,
            Some(_) => PumpStep::Data,
            None => PumpStep::Tail,
        }
    }

    /// One step of a connection's work ([`Self::pump_step`]).
    fn pump(&self, mut w: Work) -> Next {
        let conn = w.conn.expect("a pump has a connection");
        let step = self.pump_step(&w.c);
        let c = &mut w.c;
        match step {
            PumpStep::Flush => {
                if !c.dlv_busy && c.tx_inflight == 0 && !c.op_live {
                    w.fx.flush = c.flush_pending.take();
                }
                // Else the builder's or delivery's report wakes the connection again.
                w.fx.work = false;
                Next::Apply(w)
            }
            PumpStep::Deliver => {
                let (q, h) = (c.rq.front().expect("a receive"), c.held.front().expect("held"));
                let n = u32::min(h.len - c.held_off, q.len);
                w.fx.dlv = Some(DlvJob {
                    conn,
                    buf: h.buf,
                    off: c.held_off,
                    len: n,
                    addr: q.addr,
                    urgent: h.urgent,
                    last_of_buf: c.held_off + n == h.len,
                    land: h.land,
                });
                c.dlv_busy = true;
                Next::Apply(w)
            }
            PumpStep::Eof => {
                let q = c.rq.pop().expect("a receive");
                let mut cpl = cpl_of(conn, q.tag, Opcode::PostRecv.code(), Ok(0));
                cpl.eof = true;
                w.fx.cpl = Some(cpl);
                Next::Apply(w)
            }
            PumpStep::Idle => {
                w.fx.work = false;
                Next::Apply(w)
            }
            PumpStep::Owed => {
                Next::Pool(pool_alloc(conn, class::CONTROL), Cont::Z(zcopy::ZCont::DueAlloc), w)
            }
            PumpStep::Large => self.pump_large(w),
            PumpStep::Data => Next::Pool(pool_alloc(conn, class::DATA), Cont::DataAlloc, w),
            PumpStep::Tail => self.pump_fin(w),
        }
    }

    fn pump_fin(&self, w: Work) -> Next {
        let conn = w.conn.expect("a pump has a connection");
        if w.c.shut && !w.c.fin_sent && w.c.sq.is_empty() {
            return Next::Pool(pool_alloc(conn, class::CONTROL), Cont::FinAlloc, w);
        }
        Next::Pool(pool(op::QUERY, conn), Cont::Queried, w)
    }

    fn pump_closed(&self, mut w: Work) -> Next {
        let conn = w.conn.expect("a pump has a connection");
        let c = &mut w.c;
        if c.fin_sent && c.fin_rcvd && c.sq.is_empty() {
            c.st = St::Closed;
            return Next::Pool(pool(op::CLOSE, conn), Cont::Apply, w);
        }
        w.fx.work = false;
        Next::Apply(w)
    }
}
