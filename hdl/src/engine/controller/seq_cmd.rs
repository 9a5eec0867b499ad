//! The sequencer command in flight, made at the port from the event's registers
//! (combinational). A decision names only the command (`act.sop`, `act.saccess`) and the
//! side its region is on (`act.srx`); its operands are all in what the event holds after
//! the decision: the connection word (keys, transfer ids, the landing region's sizes), the
//! event's header (the peer's descriptor) and the queue heads. So the ~190 operand bits do
//! not pass through every decision's multiplexer (what the model's `Next::Seq` carries).
//!
//! | `sop` | side | `addr` | `len` | `key` | `lkey` | `xfer` |
//! |---|---|---|---|---|---|---|
//! | 0 REGISTER | send | head send + its inline bytes | its length − inline | | | |
//! | 0 REGISTER | receive | head receive + `rx_inline` | `rx_total − rx_inline` | | | |
//! | 1 DEREGISTER | either | | | `tx_key` / `rx_key` | | |
//! | 2 START_READ | receive | `hdr.daddr` | `rx_total − rx_inline` | `hdr.dkey` | `rx_key` | `rx_xfer` |
//! | 3 START_WRITE | send | `hdr.daddr` | head send's length − inline | `hdr.dkey` | `tx_key` | `tx_xfer` |
//! | 4 ABORT | | | | | | |
//!
//! The fields a command does not use carry whatever the same formulas give; the sequencer
//! reads none of them (the model's commands have them zero).
//! Why each operand is there when the command goes: the decisions that ask set `rx_inline`,
//! `rx_total` and `rx_xfer` with the landing REGISTER and the new `rx_key` with START_READ;
//! a START_WRITE is made only when the SinkAvail's transfer id is `tx_xfer` and its length
//! the head send's rest (`sent` is its inline bytes since the LargeSend); the queue heads are
//! read from the word in hand in the Seq phase, and no decision moves them before asking.
//!
//! # Ports
//! - `act` (in): the step in hand (`sop`, `saccess`, `srx`).
//! - `w` (in): the event as decided (connection and new word).
//! - `hdr` (in): the event's header record.
//! - `sq_f`, `rq_f` (in): the connection's send and receive queue heads.
//! - `cmd` (out): the command (`nomem` 0: the engine's `fault_nomem` drives that port).

use rust_hdl::prelude::*;

use super::super::records::{Act, ConnWord, HdrRec, RqEnt, SeqCmd, SqEnt, Work};
use super::CtlInline;
use crate::widgets::Param;

#[derive(LogicBlock, Default)]
pub struct CtlSeqCmd {
    pub act: Signal<In, Act>,
    pub w: Signal<In, Work>,
    pub hdr: Signal<In, HdrRec>,
    pub sq_f: Signal<In, SqEnt>,
    pub rq_f: Signal<In, RqEnt>,
    pub cmd: Signal<Out, SeqCmd>,
    k_zero_seq: Param<SeqCmd>,
    c: Signal<Local, ConnWord>,
    sc: Signal<Local, SeqCmd>,
    /// The head send's inline bytes.
    inl: CtlInline,
}

impl Logic for CtlSeqCmd {
    #[hdl_gen]
    fn update(&mut self) {
        self.c.next = self.w.val().c;
        self.inl.peer_read.next = self.c.val().peer_read;
        self.inl.peer_room.next = self.c.val().peer_room;
        self.inl.len.next = self.sq_f.val().len;

        self.sc.next = self.k_zero_seq.val();
        self.sc.next.op = self.act.val().sop;
        self.sc.next.conn = self.w.val().conn;
        self.sc.next.access = self.act.val().saccess;
        // The send side's region: the head send past its inline bytes.
        self.sc.next.xfer = self.c.val().tx_xfer;
        self.sc.next.addr = self.sq_f.val().addr + bit_cast::<64, 32>(self.inl.inline_len.val());
        self.sc.next.len = self.sq_f.val().len - self.inl.inline_len.val();
        self.sc.next.key = self.c.val().tx_key;
        self.sc.next.lkey = self.c.val().tx_key;
        if self.act.val().srx {
            // The receive side's: the head receive past the inline bytes that landed.
            self.sc.next.xfer = self.c.val().rx_xfer;
            self.sc.next.addr = self.rq_f.val().addr + bit_cast::<64, 16>(self.c.val().rx_inline);
            self.sc.next.len = self.c.val().rx_total - bit_cast::<32, 16>(self.c.val().rx_inline);
            self.sc.next.key = self.c.val().rx_key;
            self.sc.next.lkey = self.c.val().rx_key;
        }
        if (self.act.val().sop == 2) | (self.act.val().sop == 3) {
            // A START: the peer's region, from the header's descriptor.
            self.sc.next.addr = self.hdr.val().daddr;
            self.sc.next.key = self.hdr.val().dkey;
        }
        self.cmd.next = self.sc.val();
    }
}
