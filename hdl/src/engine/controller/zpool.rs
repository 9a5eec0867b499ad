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

use super::super::records::{Act, ConnWord, Fx, PoolReq, PoolResp, RqEnt, SqEnt, TxJob, Work};
use super::inline::CtlInline;
use crate::widgets::Param;

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
            self.mflags.next = 2.into();
        }
        self.inl.peer_read.next = self.ci.val().peer_read;
        self.inl.peer_buf.next = self.ci.val().peer_buf;
        self.inl.len.next = self.sq_f.val().len;
        self.rest_rx.next = self.ci.val().rx_total - self.ci.val().rx_inline;
        self.job.next = self.k_zero_job.val();
        self.new_job_v.next = false;
        self.job.next.conn = self.w_in.val().conn;
        self.job.next.buf = self.resp.val().buf;
        self.job.next.pooled = true;
        self.job.next.w1 = bit_cast::<64, 32>(self.resp.val().mseq)
            | (bit_cast::<64, 32>(self.resp.val().ack) << 32);
        self.mid.next = 0xFE.into();
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
            self.mlen.next = 24.into();
            if self.ci.val().tx_due {
                self.mid.next = 0x05.into();
                self.c.next.tx_due = false;
            } else {
                self.xfer.next = self.ci.val().rx_due_xfer;
                self.c.next.rx_due = 0.into();
                if self.ci.val().rx_due == 1 {
                    self.mid.next = 0x04.into();
                    self.bytes.next = 0.into();
                } else if self.ci.val().rx_due == 2 {
                    self.mid.next = 0x06.into();
                    self.bytes.next = self.rest_rx.val();
                } else {
                    // SinkAvail: the landing region, right after the inline bytes.
                    self.mid.next = 0xFD.into();
                    self.mflags.next = 2.into();
                    self.mlen.next = 40.into();
                    self.bytes.next = 0.into();
                    self.job.next.nwords = 5.into();
                }
            }
            self.job.next.w2 =
                bit_cast::<64, 32>(self.bytes.val()) | (bit_cast::<64, 32>(self.xfer.val()) << 32);
            self.job.next.w3 = self.rq_f.val().addr + bit_cast::<64, 32>(self.ci.val().rx_inline);
            self.job.next.w4 = bit_cast::<64, 32>(self.ci.val().rx_key)
                | (bit_cast::<64, 32>(self.rest_rx.val()) << 32);
            if !self.ok.val() {
                self.c.next = self.ci.val();
                self.a.next.code = 1.into();
                self.req.next.op = 6.into();
                self.a.next.cont = 10.into();
            }
        }
        self.job.next.w0 = bit_cast::<64, 8>(self.mid.val())
            | (bit_cast::<64, 8>(self.mflags.val()) << 8)
            | (bit_cast::<64, 16>(self.resp.val().bufs) << 16)
            | (bit_cast::<64, 32>(self.mlen.val()) << 32);
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
