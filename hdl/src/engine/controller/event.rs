//! The controller's event in hand: [`CtlPick`] chooses the event an idle controller takes,
//! this block takes it (the `take_*` pops) and keeps it in registers for the phases that
//! follow.
//!
//! # Ports
//! - `enable` (in): the controller is idle (not sweeping), or ends an Apply this cycle
//!   without a flush, and may take an event this cycle.
//! - `*_valid` with `sent`, `dlv`, `xfer`, `cmd`, `hdr` (records) or `ovr_conn`,
//!   `down_conn` (in): the events waiting, each a FIFO's head or the parser's header.
//! - `take_*` (out): the event taken this cycle, one at most (pops its FIFO).
//! - `taken` (out): an event was taken this cycle (the controller moves to Decide).
//! - `ev` (out): the event in hand, registered: loaded at the edge after `taken` (kind and
//!   connection always, the taken kind's record only; a pump or an overrun has none).
//! - `set_v`, `set_conn`, `set_work` (in): Apply writes the applied connection's work bit
//!   (`CtlPick`'s, read by the pump).
//! - `reset` (in): synchronous; `CtlPick`'s state cleared (the event registers are not: no
//!   one reads them before an event is taken).
//!
//! Timing: `take_*` and `taken` are combinational from the inputs through `CtlPick`'s
//! priority chain; `ev` is registers only.

use rust_hdl::prelude::*;

use super::super::records::{CmdRec, DlvJob, EvRec, HdrRec, SentRec, XferRec};
use super::CtlPick;

#[derive(LogicBlock, Default)]
pub struct CtlEvent {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub ovr_valid: Signal<In, Bit>,
    pub ovr_conn: Signal<In, Bits<8>>,
    pub down_valid: Signal<In, Bit>,
    pub down_conn: Signal<In, Bits<8>>,
    pub hdr_valid: Signal<In, Bit>,
    pub hdr: Signal<In, HdrRec>,
    pub sent_valid: Signal<In, Bit>,
    pub sent: Signal<In, SentRec>,
    pub dlv_valid: Signal<In, Bit>,
    pub dlv: Signal<In, DlvJob>,
    pub cmd_valid: Signal<In, Bit>,
    pub cmd: Signal<In, CmdRec>,
    pub xfer_valid: Signal<In, Bit>,
    pub xfer: Signal<In, XferRec>,
    pub set_v: Signal<In, Bit>,
    pub set_conn: Signal<In, Bits<8>>,
    pub set_work: Signal<In, Bit>,
    pub take_ovr: Signal<Out, Bit>,
    pub take_down: Signal<Out, Bit>,
    pub take_hdr: Signal<Out, Bit>,
    pub take_sent: Signal<Out, Bit>,
    pub take_dlv: Signal<Out, Bit>,
    pub take_cmd: Signal<Out, Bit>,
    pub take_xfer: Signal<Out, Bit>,
    pub taken: Signal<Out, Bit>,
    pub ev: Signal<Out, EvRec>,
    pick: CtlPick,
    kind: DFF<Bits<3>>,
    conn: DFF<Bits<8>>,
    r_hdr: DFF<HdrRec>,
    r_sent: DFF<SentRec>,
    r_dlv: DFF<DlvJob>,
    r_cmd: DFF<CmdRec>,
    r_xfer: DFF<XferRec>,
    tuser: Signal<Local, Bits<16>>,
    conn16: Signal<Local, Bits<16>>,
}

impl CtlEvent {
    /// The event pick over `connections` connections' work bits.
    pub fn new(connections: usize) -> Self {
        CtlEvent { pick: CtlPick::new(connections), ..Default::default() }
    }
}

impl Logic for CtlEvent {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, kind, conn, r_hdr, r_sent, r_dlv, r_cmd, r_xfer);
        self.pick.clock.next = self.clock.val();
        self.pick.reset.next = self.reset.val();
        self.pick.enable.next = self.enable.val();
        self.tuser.next = self.hdr.val().tuser;
        self.conn16.next = self.cmd.val().conn;
        self.pick.sent_valid.next = self.sent_valid.val();
        self.pick.sent_conn.next = self.sent.val().conn;
        self.pick.dlv_valid.next = self.dlv_valid.val();
        self.pick.dlv_conn.next = self.dlv.val().conn;
        self.pick.xfer_valid.next = self.xfer_valid.val();
        self.pick.xfer_conn.next = self.xfer.val().conn;
        self.pick.cmd_valid.next = self.cmd_valid.val();
        self.pick.cmd_conn.next = self.conn16.val().get_bits::<8>(0);
        self.pick.ovr_valid.next = self.ovr_valid.val();
        self.pick.ovr_conn.next = self.ovr_conn.val();
        self.pick.down_valid.next = self.down_valid.val();
        self.pick.down_conn.next = self.down_conn.val();
        self.pick.hdr_valid.next = self.hdr_valid.val();
        self.pick.hdr_conn.next = self.tuser.val().get_bits::<8>(0);
        self.pick.set_v.next = self.set_v.val();
        self.pick.set_conn.next = self.set_conn.val();
        self.pick.set_work.next = self.set_work.val();
        self.take_sent.next = self.pick.take_sent.val();
        self.take_dlv.next = self.pick.take_dlv.val();
        self.take_xfer.next = self.pick.take_xfer.val();
        self.take_cmd.next = self.pick.take_cmd.val();
        self.take_ovr.next = self.pick.take_ovr.val();
        self.take_down.next = self.pick.take_down.val();
        self.take_hdr.next = self.pick.take_hdr.val();
        self.taken.next = self.pick.any.val();

        // `CtlPick` takes nothing unless enabled, so its outputs are the loads' enables.
        if self.pick.any.val() {
            self.kind.d.next = self.pick.kind.val();
            self.conn.d.next = self.pick.conn.val();
        }
        if self.pick.take_sent.val() {
            self.r_sent.d.next = self.sent.val();
        }
        if self.pick.take_dlv.val() {
            self.r_dlv.d.next = self.dlv.val();
        }
        if self.pick.take_xfer.val() {
            self.r_xfer.d.next = self.xfer.val();
        }
        if self.pick.take_cmd.val() {
            self.r_cmd.d.next = self.cmd.val();
        }
        if self.pick.take_hdr.val() {
            self.r_hdr.d.next = self.hdr.val();
        }
        self.ev.next.kind = self.kind.q.val();
        self.ev.next.conn = self.conn.q.val();
        self.ev.next.hdr = self.r_hdr.q.val();
        self.ev.next.sent = self.r_sent.q.val();
        self.ev.next.dlv = self.r_dlv.q.val();
        self.ev.next.cmd = self.r_cmd.q.val();
        self.ev.next.xfer = self.r_xfer.q.val();
    }
}
