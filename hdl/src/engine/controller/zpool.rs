//! The controller's decision on the pool's answer to a zero-copy step (the model's `z_pool`):
//! the LargeSend's buffer and credit (`cont` 12), or an owed message's (`cont` 13).
//! Combinational.
//!
//! # Ports
//! - `ck` (in): the continuation; `w_in` (in): the event so far; `resp` (in): the pool's
//!   answer; `sq_f`, `rq_f` (in): the heads of the send and receive queues.
//! - `w` (out), `act` (out): as [`super::start::CtlStart`]'s.
//!
//! The messages' layouts are `sanswitch_model::wire`'s: LargeSend is the header, the total
//! length, in read mode the descriptor of the rest, then the inline bytes; the other
//! messages are the header and one extension word (`bytes | xfer << 32`); SinkAvail adds the
//! descriptor of the landing region.

use rust_hdl::prelude::*;
use sanswitch_model::wire::{Kind, Layout, flag, mid};

use super::super::records::{Act, ConnWord, Fx, PoolReq, PoolResp, RqEnt, SqEnt, TxJob, Work};
use super::HdrWords;
use super::inline::CtlInline;
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CtlZPool {
    pub ck: Signal<In, Bits<4>>,
    pub w_in: Signal<In, Work>,
    pub resp: Signal<In, PoolResp>,
    pub sq_f: Signal<In, SqEnt>,
    pub rq_f: Signal<In, RqEnt>,
    pub w: Signal<Out, Work>,
    pub act: Signal<Out, Act>,
    /// The message job built, for the controller's job register.
    pub new_job_v: Signal<Out, Bit>,
    pub new_job: Signal<Out, TxJob>,
    k_zero_act: Param<Act>,
    k_zero_job: Param<TxJob>,
    k_zero_req: Param<PoolReq>,
    k_mid_ls: Param<Bits<8>>,
    k_mid_wc: Param<Bits<8>>,
    k_mid_sbc: Param<Bits<8>>,
    k_mid_rc: Param<Bits<8>>,
    k_mid_sink: Param<Bits<8>>,
    k_flag_desc: Param<Bits<8>>,
    /// An owed message's length (header and extension word); SinkAvail's, with its
    /// descriptor.
    k_len_owed: Param<Bits<32>>,
    k_len_sink: Param<Bits<32>>,
    hw: HdrWords,
    ci: Signal<Local, ConnWord>,
    c: Signal<Local, ConnWord>,
    a: Signal<Local, Act>,
    req: Signal<Local, PoolReq>,
    job: Signal<Local, TxJob>,
    wk: Signal<Local, Work>,
    fx: Signal<Local, Fx>,
    ok: Signal<Local, Bit>,
    /// The head send's inline bytes.
    inl: CtlInline,
    mid: Signal<Local, Bits<8>>,
    mflags: Signal<Local, Bits<8>>,
    mlen: Signal<Local, Bits<32>>,
    xfer: Signal<Local, Bits<32>>,
    bytes: Signal<Local, Bits<32>>,
    rest_rx: Signal<Local, Bits<32>>,
}

impl CtlZPool {
    pub fn new() -> Self {
        let sink = Layout::of(Kind::SinkAvail);
        let owed = Layout::of(Kind::WriteComplete).fixed_bytes(false);
        debug_assert!(
            owed == Layout::of(Kind::SendByCopy).fixed_bytes(false)
                && owed == Layout::of(Kind::ReadComplete).fixed_bytes(false)
        );
        CtlZPool {
            k_mid_ls: param(mid::LARGE_SEND as u64),
            k_mid_wc: param(mid::WRITE_COMPLETE as u64),
            k_mid_sbc: param(mid::SEND_BY_COPY as u64),
            k_mid_rc: param(mid::READ_COMPLETE as u64),
            k_mid_sink: param(mid::SINK_AVAIL as u64),
            k_flag_desc: param(flag::DESC as u64),
            k_len_owed: param(owed as u64),
            k_len_sink: param(sink.fixed_bytes(true) as u64),
            ..Default::default()
        }
    }
}

impl Logic for CtlZPool {
    #[hdl_gen]
    fn update(&mut self) {
        self.ci.next = self.w_in.val().c;
        self.c.next = self.w_in.val().c;
        self.a.next = self.k_zero_act.val();
        self.req.next = self.k_zero_req.val();
        self.req.next.conn = self.w_in.val().conn;
        self.ok.next = self.resp.val().status == 0;
        self.mflags.next = 0.into();
        if self.ci.val().peer_read {
            self.mflags.next = self.k_flag_desc.val();
        }
        self.inl.peer_read.next = self.ci.val().peer_read;
        self.inl.peer_room.next = self.ci.val().peer_room;
        self.inl.len.next = self.sq_f.val().len;
        self.rest_rx.next = self.ci.val().rx_total - bit_cast::<32, 16>(self.ci.val().rx_inline);
        self.job.next = self.k_zero_job.val();
        self.new_job_v.next = false;
        self.job.next.conn = self.w_in.val().conn;
        self.job.next.buf = self.resp.val().buf;
        self.job.next.pooled = true;
        self.mid.next = self.k_mid_ls.val();
        self.mlen.next = self.inl.fixed.val() + self.inl.inline_len.val();
        self.xfer.next = self.ci.val().tx_xfer;
        self.bytes.next = self.ci.val().tx_due_bytes;
        self.job.next.nwords = 3.into();

        if self.ck.val() == 12 {
            // LargeSend: the total, the rest's descriptor in read mode, the inline bytes.
            self.job.next.w2 = bit_cast::<64, 32>(self.sq_f.val().len);
            self.job.next.w3 = self.sq_f.val().addr + bit_cast::<64, 32>(self.inl.inline_len.val());
            self.job.next.w4 = bit_cast::<64, 32>(self.ci.val().tx_key)
                | (bit_cast::<64, 32>(self.sq_f.val().len - self.inl.inline_len.val()) << 32);
            if self.ci.val().peer_read {
                self.job.next.nwords = 5.into();
            }
            self.job.next.pay_addr = self.sq_f.val().addr;
            self.job.next.pay_len = self.inl.inline_len.val();
            if self.ok.val() {
                self.c.next.sent = self.inl.inline_len.val();
                self.c.next.tx_x = 3.into();
                if self.ci.val().peer_read {
                    self.c.next.tx_x = 2.into();
                }
                self.c.next.tx_xfer = self.resp.val().mseq;
            } else {
                self.a.next.code = 4.into();
            }
        } else {
            // An owed message: the sender's WriteComplete first, else the receiver's.
            self.mflags.next = 0.into();
            self.mlen.next = self.k_len_owed.val();
            if self.ci.val().tx_due {
                self.mid.next = self.k_mid_wc.val();
                self.c.next.tx_due = false;
            } else {
                self.xfer.next = self.ci.val().rx_due_xfer;
                self.c.next.rx_due = 0.into();
                if self.ci.val().rx_due == 1 {
                    self.mid.next = self.k_mid_sbc.val();
                    self.bytes.next = 0.into();
                } else if self.ci.val().rx_due == 2 {
                    self.mid.next = self.k_mid_rc.val();
                    self.bytes.next = self.rest_rx.val();
                } else {
                    // SinkAvail: the landing region, right after the inline bytes.
                    self.mid.next = self.k_mid_sink.val();
                    self.mflags.next = self.k_flag_desc.val();
                    self.mlen.next = self.k_len_sink.val();
                    self.bytes.next = 0.into();
                    self.job.next.nwords = 5.into();
                }
            }
            self.job.next.w2 =
                bit_cast::<64, 32>(self.bytes.val()) | (bit_cast::<64, 32>(self.xfer.val()) << 32);
            self.job.next.w3 = self.rq_f.val().addr + bit_cast::<64, 16>(self.ci.val().rx_inline);
            self.job.next.w4 = bit_cast::<64, 32>(self.ci.val().rx_key)
                | (bit_cast::<64, 32>(self.rest_rx.val()) << 32);
            if !self.ok.val() {
                self.c.next = self.ci.val();
                self.a.next.code = 1.into();
                self.req.next.op = 6.into();
                self.a.next.cont = 10.into();
            }
        }
        self.hw.mid.next = self.mid.val();
        self.hw.flags.next = self.mflags.val();
        self.hw.len.next = self.mlen.val();
        self.hw.bufs.next = self.resp.val().bufs;
        self.hw.mseq.next = self.resp.val().mseq;
        self.hw.ack.next = self.resp.val().ack;
        self.job.next.w0 = self.hw.w0.val();
        self.job.next.w1 = self.hw.w1.val();
        self.wk.next = self.w_in.val();
        self.fx.next = self.w_in.val().fx;
        if self.ok.val() {
            self.c.next.tx_inflight = self.ci.val().tx_inflight + 1;
            self.new_job_v.next = true;
        }
        self.wk.next.fx = self.fx.val();
        self.a.next.req = self.req.val();
        self.wk.next.c = self.c.val();
        self.w.next = self.wk.val();
        self.act.next = self.a.val();
        self.new_job.next = self.job.val();
    }
}
