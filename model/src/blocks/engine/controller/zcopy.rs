//! The controller's zero-copy paths (`docs/PROTOCOL.md` sections 9 to 12): the large send
//! in read mode (the receiver pulls with RDMA reads) and in write mode (the sender pushes
//! into a sink the receiver registered), with the sequencer doing the registrations and the
//! RDMA requests.
//!
//! Sender (head send longer than `rdma_threshold`, not urgent): register the part after the
//! inline bytes (remote read in read mode, local in write mode; failure: WSAENOBUFS), then a
//! LargeSend carrying the inline bytes (and the descriptor, in read mode). Read mode:
//! ReadComplete deregisters the source and completes the send. Write mode: SinkAvail starts
//! the RDMA writes; their end deregisters the source, completes the send and owes the peer a
//! WriteComplete. SendByCopy (or failed writes, WriteComplete{0}) sends the rest as Data.
//!
//! Receiver: a LargeSend lands zero-copy when nothing is held before it and the head posted
//! receive takes the whole transfer: the inline bytes go to its start, the rest is
//! registered right after them (local in read mode, remote write in write mode). Read mode
//! starts the RDMA reads, and their end owes a ReadComplete; write mode owes a SinkAvail and
//! waits for WriteComplete. The landing receive completes with the transfer's total once
//! both the transfer and the inline bytes are in. Anything else (no such receive, no
//! registration, no op slot, a failed read, WriteComplete{0}) falls back: SendByCopy, and
//! the rest comes as Data into the following receives.

use crate::blocks::pool::{Resp, class, op, status};
use crate::blocks::sequencer::{CplRec, RspRec, SequencerIn, access, cmd, rsp_status};
use crate::host::Opcode;
use crate::status::WsaError;
use crate::wire::{self, HEADER_BYTES, mid};

use super::{
    Cont, Controller, Held, Next, TxJob, Work, ZHdr, cpl_of, hdr_word0, hdr_word1, pool, pool_alloc,
};

/// The head send's zero-copy state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TxX {
    #[default]
    None,
    /// Its source is registered (`tx_key`); the LargeSend waits for a buffer and credits.
    Registered,
    /// LargeSend sent in read mode: waiting for ReadComplete or SendByCopy.
    AwaitRead,
    /// LargeSend sent in write mode: waiting for SinkAvail or SendByCopy.
    AwaitSink,
    /// RDMA writes running in the sequencer.
    Writing,
}

/// The incoming transfer's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RxX {
    #[default]
    None,
    /// RDMA reads running in the sequencer.
    Reading,
    /// SinkAvail owed or sent: waiting for WriteComplete.
    AwaitWrite,
    /// The rest has landed; the inline bytes are still being delivered.
    Landed,
}

/// A zero-copy control message owed to the peer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XMsg {
    pub mid: u8,
    pub xfer: u32,
    pub bytes: u32,
    /// SinkAvail's descriptor: address and key (`bytes` is its length).
    pub addr: u64,
    pub key: u32,
}

/// What a zero-copy step does with its answer. `repost`: the message's receive buffer, to
/// post again once the step is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZCont {
    /// REGISTER of the head send's source answered.
    SrcReg,
    /// The LargeSend's buffer and credit (pool).
    LargeAlloc,
    /// A buffer and credit for an owed control message (pool).
    DueAlloc,
    /// REGISTER of the landing region answered; `src` the sender's region (read mode).
    LandReg {
        repost: Option<u8>,
        saddr: u64,
        skey: u32,
        rest: u32,
    },
    ReadStarted {
        repost: Option<u8>,
    },
    WriteStarted {
        repost: Option<u8>,
    },
    /// The source deregistered after the transfer: complete the send.
    SrcDone {
        repost: Option<u8>,
    },
    /// The source deregistered without a transfer: the rest goes as Data.
    SrcDropped {
        repost: Option<u8>,
    },
    /// The landing region deregistered after the transfer.
    LandDone {
        repost: Option<u8>,
    },
    /// The landing region given up (deregistered, when it was registered); `notify`: owe
    /// the peer a SendByCopy (not after WriteComplete{0}, which says the rest comes as Data).
    LandFallback {
        repost: Option<u8>,
        notify: bool,
    },
    /// ABORT answered.
    Aborted,
}

/// A sequencer command naming `op` and `conn`.
pub fn seq_cmd(op_: u8, conn: u8) -> SequencerIn {
    SequencerIn { s_axis_cmd_op: op_, s_axis_cmd_conn: conn, ..SequencerIn::default() }
}

fn dereg(conn: u8, key: u32) -> SequencerIn {
    SequencerIn { s_axis_cmd_key: key, ..seq_cmd(cmd::DEREGISTER, conn) }
}

impl Controller {
    /// Whether send `s` goes zero-copy (decided before any of it is sent).
    pub(super) fn large(&self, c: &super::ConnCtl, s: &super::SqEnt) -> bool {
        self.p.zero_copy() && c.sent == 0 && !s.urgent && s.len > self.p.rdma_threshold
    }

    fn inline(c: &super::ConnCtl, len: u32) -> u32 {
        crate::endpoint::inline_len(c.peer_read, c.peer_buf, len as usize) as u32
    }

    /// The pump's step for a zero-copy head send.
    pub(super) fn pump_large(&self, w: Work) -> Next {
        let conn = w.conn.expect("a pump has a connection");
        let s = *w.c.sq.front().expect("a send is queued");
        match w.c.tx_x {
            TxX::None => {
                let inline = Self::inline(&w.c, s.len);
                let req = SequencerIn {
                    s_axis_cmd_access: if w.c.peer_read {
                        access::REMOTE_READ
                    } else {
                        access::LOCAL
                    },
                    s_axis_cmd_addr: s.addr + inline as u64,
                    s_axis_cmd_len: s.len - inline,
                    ..seq_cmd(cmd::REGISTER, conn)
                };
                Next::Seq(req, Cont::Z(ZCont::SrcReg), w)
            }
            TxX::Registered => {
                Next::Pool(pool_alloc(conn, class::DATA), Cont::Z(ZCont::LargeAlloc), w)
            }
            // Waiting for the peer: nothing of this send to do.
            _ => self.pump_fin(w),
        }
    }

    /// After the pool answered a zero-copy step.
    pub(super) fn z_pool(&self, k: ZCont, mut w: Work, r: &Resp) -> Next {
        let conn = w.conn.expect("a pool request has a connection");
        let ok = r.status == status::OK;
        match k {
            ZCont::LargeAlloc if ok => {
                let s = *w.c.sq.front().expect("a send is queued");
                let inline = Self::inline(&w.c, s.len);
                let rest = s.len - inline;
                let read = w.c.peer_read;
                let fixed = wire::Layout::of(wire::Kind::LargeSend).fixed_bytes(read) as u32;
                let flags = if read { wire::flag::DESC } else { 0 };
                let w0 = hdr_word0(mid::LARGE_SEND, flags, r.bufs, fixed + inline);
                let w1 = hdr_word1(r.mseq, r.ack);
                let ext = s.len as u64;
                let d0 = s.addr + inline as u64;
                let d1 = w.c.tx_key as u64 | (rest as u64) << 32;
                let mut job = if read {
                    Self::job(conn, Some(r), &[w0, w1, ext, d0, d1])
                } else {
                    Self::job(conn, Some(r), &[w0, w1, ext])
                };
                job.pay_addr = s.addr;
                job.pay_len = inline;
                w.c.sent = inline;
                w.c.tx_x = if read { TxX::AwaitRead } else { TxX::AwaitSink };
                w.c.tx_xfer = r.mseq;
                w.fx.job = Some(job);
                w.c.tx_inflight += 1;
                Next::Apply(w)
            }
            ZCont::LargeAlloc => self.pump_fin(w),
            ZCont::DueAlloc if ok => {
                let m = if let Some(m) = w.c.tx_due.take() {
                    m
                } else {
                    w.c.rx_due.take().expect("a message is owed")
                };
                w.fx.job = Some(Self::xmsg_job(conn, r, &m));
                w.c.tx_inflight += 1;
                Next::Apply(w)
            }
            ZCont::DueAlloc => Next::Pool(pool(op::QUERY, conn), Cont::Queried, w),
            _ => unreachable!("not a pool step: {k:?}"),
        }
    }

    fn xmsg_job(conn: u8, r: &Resp, m: &XMsg) -> TxJob {
        let w1 = hdr_word1(r.mseq, r.ack);
        let ext_len = (HEADER_BYTES + wire::EXT_BYTES) as u32;
        match m.mid {
            mid::SINK_AVAIL => {
                let len = ext_len + wire::DESC_BYTES as u32;
                let w0 = hdr_word0(mid::SINK_AVAIL, wire::flag::DESC, r.bufs, len);
                let d1 = m.key as u64 | (m.bytes as u64) << 32;
                Self::job(conn, Some(r), &[w0, w1, (m.xfer as u64) << 32, m.addr, d1])
            }
            _ => {
                let w0 = hdr_word0(m.mid, 0, r.bufs, ext_len);
                Self::job(conn, Some(r), &[w0, w1, m.bytes as u64 | (m.xfer as u64) << 32])
            }
        }
    }

    /// The message's buffer back to the pool, if it is to be posted again, then apply.
    fn finish(&self, w: Work, repost: Option<u8>) -> Next {
        let conn = w.conn.expect("a connection");
        match repost {
            Some(buf) => Next::Pool(
                crate::blocks::pool::PoolIn { s_axis_req_buf: buf, ..pool(op::REPOST, conn) },
                Cont::Reposted { buf },
                w,
            ),
            None => Next::Apply(w),
        }
    }

    fn complete_head_send(w: &mut Work, r: Result<u32, WsaError>) {
        let conn = w.conn.expect("a connection");
        let s = w.c.sq.pop().expect("a send is queued");
        w.c.sent = 0;
        w.c.tx_x = TxX::None;
        w.fx.cpl = Some(cpl_of(conn, s.tag, Opcode::Send.code(), r));
    }

    /// A zero-copy message the pool took (sequence, acknowledgement and credits checked).
    pub(super) fn on_zmsg(&self, mut w: Work, buf: u8, m: u8, pay: u32, z: &ZHdr) -> Next {
        let conn = w.conn.expect("a message has a connection");
        let xfer = (z.ext >> 32) as u32;
        let bytes = z.ext as u32;
        let c = &mut w.c;
        match m {
            mid::LARGE_SEND => {
                let total = z.ext as u32;
                if c.fin_rcvd || c.rx_x != RxX::None || z.desc != self.p.rdma_read || total <= pay {
                    // Data after the end, a second transfer at once, the mode our Hello
                    // did not offer, or nothing left for a transfer.
                    return self.violation(w);
                }
                if c.closing {
                    return self.abort(w, WsaError::OperationAborted, true);
                }
                let rest = total - pay;
                let landing = c.held.is_empty()
                    && !c.dlv_busy
                    && c.rq.front().is_some_and(|q| q.len >= total);
                let repost = if pay > 0 {
                    c.held.push(Held { buf, len: pay, urgent: false, land: landing });
                    None
                } else {
                    Some(buf)
                };
                if !landing {
                    c.rx_due =
                        Some(XMsg { mid: mid::SEND_BY_COPY, xfer: z.mseq, ..XMsg::default() });
                    return self.finish(w, repost);
                }
                let q = *c.rq.front().expect("checked");
                c.rx_x = RxX::Reading;
                c.rx_xfer = z.mseq;
                c.rx_total = total;
                c.rx_inline = pay;
                c.rx_inline_due = pay > 0;
                let req = SequencerIn {
                    s_axis_cmd_access: if z.desc { access::LOCAL } else { access::REMOTE_WRITE },
                    s_axis_cmd_addr: q.addr + pay as u64,
                    s_axis_cmd_len: rest,
                    ..seq_cmd(cmd::REGISTER, conn)
                };
                let k = ZCont::LandReg { repost, saddr: z.daddr, skey: z.dkey, rest };
                Next::Seq(req, Cont::Z(k), w)
            }
            mid::SINK_AVAIL => {
                if c.tx_x != TxX::AwaitSink || xfer != c.tx_xfer {
                    return self.finish(w, Some(buf)); // stale: the transfer is over
                }
                let s = *c.sq.front().expect("a transfer has its send");
                if z.dlen != s.len - c.sent {
                    return self.violation(w);
                }
                let req = SequencerIn {
                    s_axis_cmd_xfer: xfer,
                    s_axis_cmd_addr: z.daddr,
                    s_axis_cmd_key: z.dkey,
                    s_axis_cmd_len: z.dlen,
                    s_axis_cmd_lkey: c.tx_key,
                    ..seq_cmd(cmd::START_WRITE, conn)
                };
                Next::Seq(req, Cont::Z(ZCont::WriteStarted { repost: Some(buf) }), w)
            }
            mid::READ_COMPLETE => {
                if c.tx_x != TxX::AwaitRead || xfer != c.tx_xfer {
                    return self.finish(w, Some(buf));
                }
                let s = *c.sq.front().expect("a transfer has its send");
                if bytes != s.len - c.sent {
                    return self.violation(w);
                }
                let k = ZCont::SrcDone { repost: Some(buf) };
                Next::Seq(dereg(conn, c.tx_key), Cont::Z(k), w)
            }
            mid::SEND_BY_COPY => {
                if !matches!(c.tx_x, TxX::AwaitRead | TxX::AwaitSink) || xfer != c.tx_xfer {
                    return self.finish(w, Some(buf));
                }
                let k = ZCont::SrcDropped { repost: Some(buf) };
                Next::Seq(dereg(conn, c.tx_key), Cont::Z(k), w)
            }
            mid::WRITE_COMPLETE => {
                if c.rx_x != RxX::AwaitWrite || xfer != c.rx_xfer {
                    return self.finish(w, Some(buf));
                }
                let k = if bytes == c.rx_total - c.rx_inline {
                    ZCont::LandDone { repost: Some(buf) }
                } else if bytes == 0 {
                    ZCont::LandFallback { repost: Some(buf), notify: false }
                } else {
                    return self.violation(w);
                };
                Next::Seq(dereg(conn, c.rx_key), Cont::Z(k), w)
            }
            _ => self.violation(w),
        }
    }

    /// The sequencer's completion request: a transfer ended (or was aborted).
    pub(super) fn on_xfer(&self, mut w: Work, x: &CplRec) -> Next {
        let conn = w.conn.expect("a transfer has a connection");
        let c = &mut w.c;
        c.op_live = false;
        let ok = x.status == 0;
        if !x.write && c.rx_x == RxX::Reading && x.xfer == c.rx_xfer {
            let k = if ok {
                c.rx_due = Some(XMsg {
                    mid: mid::READ_COMPLETE,
                    xfer: x.xfer,
                    bytes: x.bytes,
                    ..XMsg::default()
                });
                ZCont::LandDone { repost: None }
            } else {
                ZCont::LandFallback { repost: None, notify: true }
            };
            // The landing region of our own reads: posted.
            return Next::Seq(dereg(conn, c.rx_key), Cont::ZPosted(k), w);
        }
        if x.write && c.tx_x == TxX::Writing && x.xfer == c.tx_xfer {
            let bytes = if ok { x.bytes } else { 0 };
            c.tx_due =
                Some(XMsg { mid: mid::WRITE_COMPLETE, xfer: x.xfer, bytes, ..XMsg::default() });
            let k = if ok {
                ZCont::SrcDone { repost: None }
            } else {
                ZCont::SrcDropped { repost: None }
            };
            // The source of our own writes: posted.
            return Next::Seq(dereg(conn, c.tx_key), Cont::ZPosted(k), w);
        }
        // Aborted: the flush it holds may go now.
        Next::Apply(w)
    }

    /// After the sequencer answered a zero-copy step. A step that ends the event (no
    /// message buffer to post again) while the connection's next pump would send an owed
    /// message (the ReadComplete or WriteComplete a transfer's end owes, a SinkAvail, a
    /// SendByCopy) takes that pump step now (`PumpStep::Owed`: the message's buffer asked
    /// for), one event (a pick and a decision) sooner.
    pub(super) fn z_seq(&self, k: ZCont, w: Work, r: &RspRec) -> Next {
        match self.z_seq_step(k, w, r) {
            // The pump's own step, taken in this event.
            Next::Apply(w) if self.pump_step(&w.c) == super::PumpStep::Owed => self.pump(w),
            next => next,
        }
    }

    fn z_seq_step(&self, k: ZCont, mut w: Work, r: &RspRec) -> Next {
        let conn = w.conn.expect("a sequencer command has a connection");
        let ok = r.status == rsp_status::OK;
        let c = &mut w.c;
        match k {
            ZCont::SrcReg if ok => {
                c.tx_x = TxX::Registered;
                c.tx_key = r.key;
                Next::Pool(pool_alloc(conn, class::DATA), Cont::Z(ZCont::LargeAlloc), w)
            }
            ZCont::SrcReg => {
                // No registration for the source (table full): WSAENOBUFS, as the switch does.
                Self::complete_head_send(&mut w, Err(WsaError::NoBufs));
                Next::Apply(w)
            }
            ZCont::LandReg { repost, saddr, skey, rest } if ok => {
                c.rx_key = r.key;
                if self.p.rdma_read {
                    let req = SequencerIn {
                        s_axis_cmd_xfer: c.rx_xfer,
                        s_axis_cmd_addr: saddr,
                        s_axis_cmd_key: skey,
                        s_axis_cmd_len: rest,
                        s_axis_cmd_lkey: r.key,
                        ..seq_cmd(cmd::START_READ, conn)
                    };
                    return Next::Seq(req, Cont::Z(ZCont::ReadStarted { repost }), w);
                }
                let q = *c.rq.front().expect("the landing receive");
                c.rx_x = RxX::AwaitWrite;
                c.rx_due = Some(XMsg {
                    mid: mid::SINK_AVAIL,
                    xfer: c.rx_xfer,
                    bytes: rest,
                    addr: q.addr + c.rx_inline as u64,
                    key: r.key,
                });
                self.finish(w, repost)
            }
            ZCont::LandReg { repost, .. } => self.land_fallback(w, repost, true),
            ZCont::ReadStarted { repost } if ok => {
                c.op_live = true;
                self.finish(w, repost)
            }
            ZCont::ReadStarted { repost } => {
                // No op slot: give the landing region up.
                let key = c.rx_key;
                let k = ZCont::LandFallback { repost, notify: true };
                Next::Seq(dereg(conn, key), Cont::Z(k), w)
            }
            ZCont::WriteStarted { repost } if ok => {
                c.op_live = true;
                c.tx_x = TxX::Writing;
                self.finish(w, repost)
            }
            ZCont::WriteStarted { repost } => {
                c.tx_due =
                    Some(XMsg { mid: mid::WRITE_COMPLETE, xfer: c.tx_xfer, ..XMsg::default() });
                let key = c.tx_key;
                Next::Seq(dereg(conn, key), Cont::Z(ZCont::SrcDropped { repost }), w)
            }
            ZCont::SrcDone { repost } => {
                let len = c.sq.front().expect("a transfer has its send").len;
                Self::complete_head_send(&mut w, Ok(len));
                self.finish(w, repost)
            }
            ZCont::SrcDropped { repost } => {
                c.tx_x = TxX::None;
                self.finish(w, repost)
            }
            ZCont::LandDone { repost } => {
                if c.rx_inline_due {
                    c.rx_x = RxX::Landed;
                } else {
                    c.rx_x = RxX::None;
                    if let Some(q) = c.rq.pop() {
                        let total = c.rx_total;
                        w.fx.cpl = Some(cpl_of(conn, q.tag, Opcode::PostRecv.code(), Ok(total)));
                    }
                }
                self.finish(w, repost)
            }
            ZCont::LandFallback { repost, notify } => self.land_fallback(w, repost, notify),
            ZCont::Aborted => Next::Apply(w),
            ZCont::LargeAlloc | ZCont::DueAlloc => unreachable!("pool steps"),
        }
    }

    /// The incoming transfer will not land: SendByCopy, and the landing receive keeps what
    /// it has (its inline bytes, completed now if delivered; else delivered as Data's are).
    fn land_fallback(&self, mut w: Work, repost: Option<u8>, notify: bool) -> Next {
        let conn = w.conn.expect("a connection");
        let c = &mut w.c;
        c.rx_x = RxX::None;
        if notify {
            c.rx_due = Some(XMsg { mid: mid::SEND_BY_COPY, xfer: c.rx_xfer, ..XMsg::default() });
        }
        if c.rx_inline_due {
            if let Some(h) = c.held.front_mut()
                && h.land
            {
                h.land = false;
            }
        } else if c.rx_inline > 0
            && let Some(q) = c.rq.pop()
        {
            let n = c.rx_inline;
            w.fx.cpl = Some(cpl_of(conn, q.tag, Opcode::PostRecv.code(), Ok(n)));
        }
        self.finish(w, repost)
    }
}
