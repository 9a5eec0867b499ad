//! The controller's decision on a zero-copy message the pool took (the model's `on_zmsg`):
//! LargeSend, SinkAvail, ReadComplete, SendByCopy, WriteComplete. Combinational.
//!
//! # Ports
//! - `w_in` (in): the event so far; `kmid`, `kbuf`, `kpay` (in): the message's id, receive
//!   buffer and payload bytes; `hdr` (in): its header (the event's, kept by the controller);
//!   `rq_f` (in): the head of the receive queue; `rest` (in): what is known of the head
//!   send's rest (registered, see [`SendRest`]: whether a SinkAvail's or ReadComplete's
//!   length is it).
//! - `w` (out), `act` (out): as [`super::start::CtlStart`]'s.
//!
//! A message of a transfer that is over (stale, after a fallback or an abort) only posts its
//! buffer again; one that breaks the protocol (a second transfer at once, a length that is
//! not the send's rest, the mode our Hello did not offer) resets the connection.

use rust_hdl::prelude::*;

use crate::widgets::wsa;
use sanswitch_model::params::EngineParams;
use sanswitch_model::status::WsaError;

use super::super::records::{Act, ConnWord, HdrRec, HeldEnt, Pend, RqEnt, SendRest, Work};
use crate::widgets::{Param, param};
use sanswitch_model::wire::mid;

#[derive(LogicBlock, Default)]
pub struct CtlZMsg {
    pub w_in: Signal<In, Work>,
    pub kmid: Signal<In, Bits<8>>,
    pub kbuf: Signal<In, Bits<8>>,
    pub kpay: Signal<In, Bits<32>>,
    pub hdr: Signal<In, HdrRec>,
    pub rest: Signal<In, SendRest>,
    pub rq_f: Signal<In, RqEnt>,
    pub w: Signal<Out, Work>,
    pub act: Signal<Out, Act>,
    /// Our Hello offered RDMA reads: a LargeSend must carry a descriptor.
    k_read: Param<Bit>,
    k_mid_ls: Param<Bits<8>>,
    k_mid_sink: Param<Bits<8>>,
    k_mid_rc: Param<Bits<8>>,
    k_mid_sbc: Param<Bits<8>>,
    k_mid_wc: Param<Bits<8>>,
    k_zero_act: Param<Act>,
    ci: Signal<Local, ConnWord>,
    c: Signal<Local, ConnWord>,
    pend: Signal<Local, Pend>,
    held: Signal<Local, HeldEnt>,
    a: Signal<Local, Act>,
    wk: Signal<Local, Work>,
    ext: Signal<Local, Bits<64>>,
    xfer: Signal<Local, Bits<32>>,
    bytes: Signal<Local, Bits<32>>,
    flags: Signal<Local, Bits<8>>,
    desc: Signal<Local, Bit>,
    landing: Signal<Local, Bit>,
    /// `WSAECONNRESET` (`WsaError::ConnReset`).
    k_connreset: Param<Bits<16>>,
    /// `WSA_OPERATION_ABORTED` (`WsaError::OperationAborted`).
    k_aborted: Param<Bits<16>>,
}

impl CtlZMsg {
    pub fn new(p: &EngineParams) -> Self {
        CtlZMsg {
            k_read: Param::new(p.rdma_read),
            k_mid_ls: param(mid::LARGE_SEND as u64),
            k_mid_sink: param(mid::SINK_AVAIL as u64),
            k_mid_rc: param(mid::READ_COMPLETE as u64),
            k_mid_sbc: param(mid::SEND_BY_COPY as u64),
            k_mid_wc: param(mid::WRITE_COMPLETE as u64),
            k_connreset: wsa(WsaError::ConnReset),
            k_aborted: wsa(WsaError::OperationAborted),
            ..Default::default()
        }
    }
}

impl Logic for CtlZMsg {
    #[hdl_gen]
    fn update(&mut self) {
        self.ci.next = self.w_in.val().c;
        self.c.next = self.w_in.val().c;
        self.pend.next = self.w_in.val().pend;
        self.a.next = self.k_zero_act.val();
        self.ext.next = self.hdr.val().ext;
        self.xfer.next = self.ext.val().get_bits::<32>(32);
        self.bytes.next = self.ext.val().get_bits::<32>(0);
        self.flags.next = self.hdr.val().flags;
        self.desc.next = self.flags.val().get_bit(1);
        self.held.next.buf = self.kbuf.val();
        self.held.next.len = self.kpay.val();
        self.held.next.urgent = false;
        self.landing.next = (self.ci.val().held_n == 0)
            & !self.ci.val().dlv_busy
            & (self.ci.val().rq_n != 0)
            & (self.rq_f.val().len >= self.bytes.val());
        // Defaults: the buffer posted again, the sequencer's answer continues with it.
        self.a.next.code = 3.into();
        self.a.next.kbuf = self.kbuf.val();
        self.a.next.zrep = true;
        self.a.next.sop = 1.into();

        if self.kmid.val() == self.k_mid_ls.val() {
            // LargeSend: `bytes` is the transfer's total.
            if self.ci.val().fin_rcvd
                | (self.ci.val().rx_x != 0)
                | (self.desc.val() != self.k_read.val())
                | (self.bytes.val() <= self.kpay.val())
            {
                self.a.next.code = 2.into();
                self.a.next.kerr = self.k_connreset.val();
                self.a.next.notify = true;
            } else if self.ci.val().closing {
                self.a.next.code = 2.into();
                self.a.next.kerr = self.k_aborted.val();
                self.a.next.notify = true;
            } else {
                if self.kpay.val() != 0 {
                    // The inline bytes are held (delivered to the landing receive's start,
                    // or as Data's are); the buffer is posted again once they are out.
                    self.pend.next.held_v = true;
                    self.pend.next.held = self.held.val();
                    self.c.next.held_n = self.ci.val().held_n + 1;
                    self.c.next.held_land = self.landing.val();
                    self.a.next.code = 0.into();
                    self.a.next.zrep = false;
                }
                if !self.landing.val() {
                    self.c.next.rx_due = 1.into();
                    self.c.next.rx_due_xfer = self.hdr.val().mseq;
                } else {
                    self.c.next.rx_x = 1.into();
                    self.c.next.rx_xfer = self.hdr.val().mseq;
                    self.c.next.rx_total = self.bytes.val();
                    self.c.next.rx_inline = bit_cast::<16, 32>(self.kpay.val());
                    self.c.next.rx_inline_due = self.kpay.val() != 0;
                    self.a.next.code = 6.into();
                    self.a.next.zk = 1.into();
                    // REGISTER the landing region: past the inline bytes
                    // (`rx_inline`) of the head receive, `rx_total - rx_inline` long.
                    self.a.next.sop = 0.into();
                    self.a.next.srx = true;
                    self.a.next.saccess = 2.into();
                    if self.desc.val() {
                        self.a.next.saccess = 0.into();
                    }
                }
            }
        } else if self.kmid.val() == self.k_mid_sink.val() {
            // SinkAvail: start the RDMA writes into the peer's sink.
            if (self.ci.val().tx_x != 3) | (self.xfer.val() != self.ci.val().tx_xfer) {
            } else if !self.rest.val().dlen_eq {
                self.a.next.code = 2.into();
                self.a.next.kerr = self.k_connreset.val();
                self.a.next.notify = true;
            } else {
                self.a.next.code = 6.into();
                self.a.next.zk = 3.into();
                // START_WRITE: `xfer` is `tx_xfer` and `dlen` the rest (both checked).
                self.a.next.sop = 3.into();
            }
        } else if self.kmid.val() == self.k_mid_rc.val() {
            // ReadComplete: the source deregistered, then the send completes.
            if (self.ci.val().tx_x != 2) | (self.xfer.val() != self.ci.val().tx_xfer) {
            } else if !self.rest.val().bytes_eq {
                self.a.next.code = 2.into();
                self.a.next.kerr = self.k_connreset.val();
                self.a.next.notify = true;
            } else {
                self.a.next.code = 6.into();
                self.a.next.zk = 4.into();
            }
        } else if self.kmid.val() == self.k_mid_sbc.val() {
            // SendByCopy: the source deregistered, the rest goes as Data.
            if ((self.ci.val().tx_x == 2) | (self.ci.val().tx_x == 3))
                & (self.xfer.val() == self.ci.val().tx_xfer)
            {
                self.a.next.code = 6.into();
                self.a.next.zk = 5.into();
            }
        } else if self.kmid.val() == self.k_mid_wc.val() {
            // WriteComplete: all of the rest landed, or none (it comes as Data).
            if (self.ci.val().rx_x != 2) | (self.xfer.val() != self.ci.val().rx_xfer) {
            } else if self.bytes.val()
                == self.ci.val().rx_total - bit_cast::<32, 16>(self.ci.val().rx_inline)
            {
                self.a.next.code = 6.into();
                self.a.next.zk = 6.into();
                self.a.next.srx = true;
            } else if self.bytes.val() == 0 {
                self.a.next.code = 6.into();
                self.a.next.zk = 7.into();
                self.a.next.znotify = false;
                self.a.next.srx = true;
            } else {
                self.a.next.code = 2.into();
                self.a.next.kerr = self.k_connreset.val();
                self.a.next.notify = true;
            }
        } else {
            self.a.next.code = 2.into();
            self.a.next.kerr = self.k_connreset.val();
            self.a.next.notify = true;
        }
        self.wk.next = self.w_in.val();
        self.wk.next.c = self.c.val();
        self.wk.next.pend = self.pend.val();
        self.w.next = self.wk.val();
        self.act.next = self.a.val();
    }
}
