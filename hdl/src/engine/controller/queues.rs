//! The controller's queue RAMs: every connection's queued sends, posted receives and
//! receive buffers holding payload (the model's `ConnCtl::sq`, `rq`, `held`), as rings in
//! LUT RAM whose head and count live in the connection's state word.
//!
//! A connection's ring is `depth` entries at `conn << log2(depth)`; an entry's address is
//! the ring's base with the index masked to the ring (the word's 4-bit pointers wrap on
//! their own only at depth 16).
//!
//! The send and receive rings are kept twice, written alike: one copy is read at the
//! heads of the word just read from the state RAM (an event's first decision, a flush),
//! the other at the heads of the word in hand (the decisions on an answer, the sequencer
//! command's operands). So the answer's decisions start at registers and one LUT-RAM
//! read, not at the state RAM's read, its address multiplexer and a second RAM read.
//!
//! # Ports
//! - `rd_conn`, `rd` (in): the connection read from the state RAM this cycle and its word
//!   (the head pointers); `sq_f`, `rq_f`, `held_f` (out): the heads, combinational (LUT
//!   RAM).
//! - `wr_conn`, `wr` (in): the connection in hand and its new word, which counts the
//!   appended entries: each goes to its ring's last place, `head + n - 1`; `sq_h`, `rq_h`
//!   (out): the heads of `wr`'s rings, combinational (the second copy).
//! - `sq_we`, `rq_we` (in): append the command in `cmd` (a send or a posted receive);
//!   `held_we`, `held` (in): append a held buffer.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use super::super::records::{CmdRec, ConnWord, HeldEnt, RqEnt, SqEnt};
use super::SendEntry;
use crate::widgets::{Param, Ram, param};

#[derive(LogicBlock, Default)]
pub struct CtlQueues {
    pub clock: Signal<In, Clock>,
    pub rd_conn: Signal<In, Bits<8>>,
    pub rd: Signal<In, ConnWord>,
    pub sq_f: Signal<Out, SqEnt>,
    pub rq_f: Signal<Out, RqEnt>,
    pub held_f: Signal<Out, HeldEnt>,
    pub sq_h: Signal<Out, SqEnt>,
    pub rq_h: Signal<Out, RqEnt>,
    pub wr_conn: Signal<In, Bits<8>>,
    pub wr: Signal<In, ConnWord>,
    pub cmd: Signal<In, CmdRec>,
    pub sq_we: Signal<In, Bit>,
    pub rq_we: Signal<In, Bit>,
    pub held_we: Signal<In, Bit>,
    pub held: Signal<In, HeldEnt>,
    sq_ram: Ram<SqEnt>,
    rq_ram: Ram<RqEnt>,
    held_ram: Ram<HeldEnt>,
    /// The copies read at the word in hand's heads.
    sq_ram_h: Ram<SqEnt>,
    rq_ram_h: Ram<RqEnt>,
    k_q_shift: Param<Bits<16>>,
    k_q_mask: Param<Bits<16>>,
    k_h_shift: Param<Bits<16>>,
    k_h_mask: Param<Bits<16>>,
    /// The entries a send or receive command appends: the command's own fields (a send's
    /// with its zero-copy bit).
    send: SendEntry,
    rq_w: Signal<Local, RqEnt>,
    sq_wa: Signal<Local, Bits<16>>,
    rq_wa: Signal<Local, Bits<16>>,
}

impl CtlQueues {
    pub fn new(p: &EngineParams) -> Self {
        let np2 = (p.connections as usize).next_power_of_two();
        let qd = p.queue_depth as usize;
        let hd = p.recv_slots();
        CtlQueues {
            sq_ram: Ram::new((np2 * qd).max(2), false),
            rq_ram: Ram::new((np2 * qd).max(2), false),
            held_ram: Ram::new((np2 * hd).max(2), false),
            sq_ram_h: Ram::new((np2 * qd).max(2), false),
            rq_ram_h: Ram::new((np2 * qd).max(2), false),
            k_q_shift: param(qd.trailing_zeros() as u64),
            k_q_mask: param(qd as u64 - 1),
            k_h_shift: param(hd.trailing_zeros() as u64),
            k_h_mask: param(hd as u64 - 1),
            send: SendEntry::new(p),
            ..Default::default()
        }
    }
}

impl Logic for CtlQueues {
    #[hdl_gen]
    fn update(&mut self) {
        self.sq_ram.write_clock.next = self.clock.val();
        self.rq_ram.write_clock.next = self.clock.val();
        self.held_ram.write_clock.next = self.clock.val();
        self.sq_ram_h.write_clock.next = self.clock.val();
        self.rq_ram_h.write_clock.next = self.clock.val();
        self.sq_ram.read_address.next = (bit_cast::<16, 8>(self.rd_conn.val())
            << self.k_q_shift.val())
            | (bit_cast::<16, 4>(self.rd.val().sq_head) & self.k_q_mask.val());
        self.rq_ram.read_address.next = (bit_cast::<16, 8>(self.rd_conn.val())
            << self.k_q_shift.val())
            | (bit_cast::<16, 4>(self.rd.val().rq_head) & self.k_q_mask.val());
        self.held_ram.read_address.next = (bit_cast::<16, 8>(self.rd_conn.val())
            << self.k_h_shift.val())
            | (bit_cast::<16, 4>(self.rd.val().held_head) & self.k_h_mask.val());
        self.sq_f.next = self.sq_ram.read_data.val();
        self.rq_f.next = self.rq_ram.read_data.val();
        self.held_f.next = self.held_ram.read_data.val();
        self.sq_ram_h.read_address.next = (bit_cast::<16, 8>(self.wr_conn.val())
            << self.k_q_shift.val())
            | (bit_cast::<16, 4>(self.wr.val().sq_head) & self.k_q_mask.val());
        self.rq_ram_h.read_address.next = (bit_cast::<16, 8>(self.wr_conn.val())
            << self.k_q_shift.val())
            | (bit_cast::<16, 4>(self.wr.val().rq_head) & self.k_q_mask.val());
        self.sq_h.next = self.sq_ram_h.read_data.val();
        self.rq_h.next = self.rq_ram_h.read_data.val();

        self.sq_ram.write_enable.next = self.sq_we.val();
        self.sq_wa.next = (bit_cast::<16, 8>(self.wr_conn.val()) << self.k_q_shift.val())
            | (bit_cast::<16, 4>(self.wr.val().sq_head + bit_cast::<4, 5>(self.wr.val().sq_n) - 1)
                & self.k_q_mask.val());
        self.send.cmd.next = self.cmd.val();
        self.sq_ram.write_data.next = self.send.ent.val();
        self.sq_ram.write_address.next = self.sq_wa.val();
        self.sq_ram_h.write_enable.next = self.sq_we.val();
        self.sq_ram_h.write_address.next = self.sq_wa.val();
        self.sq_ram_h.write_data.next = self.send.ent.val();
        self.rq_ram.write_enable.next = self.rq_we.val();
        self.rq_wa.next = (bit_cast::<16, 8>(self.wr_conn.val()) << self.k_q_shift.val())
            | (bit_cast::<16, 4>(self.wr.val().rq_head + bit_cast::<4, 5>(self.wr.val().rq_n) - 1)
                & self.k_q_mask.val());
        self.rq_w.next.tag = self.cmd.val().tag;
        self.rq_w.next.addr = self.cmd.val().addr;
        self.rq_w.next.len = self.cmd.val().len;
        self.rq_ram.write_data.next = self.rq_w.val();
        self.rq_ram.write_address.next = self.rq_wa.val();
        self.rq_ram_h.write_enable.next = self.rq_we.val();
        self.rq_ram_h.write_address.next = self.rq_wa.val();
        self.rq_ram_h.write_data.next = self.rq_w.val();
        self.held_ram.write_enable.next = self.held_we.val();
        self.held_ram.write_address.next = (bit_cast::<16, 8>(self.wr_conn.val())
            << self.k_h_shift.val())
            | (bit_cast::<16, 4>(
                self.wr.val().held_head + bit_cast::<4, 5>(self.wr.val().held_n) - 1,
            ) & self.k_h_mask.val());
        self.held_ram.write_data.next = self.held.val();
    }
}
