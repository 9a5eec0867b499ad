//! The submission ring's fetch: read requests for up to [`FETCH_BURST`] entries, entries
//! assembled from their four beats and checked, commands queued for the engine (the model:
//! `sanswitch_model::blocks::hostif`, "Submission ring").
//!
//! # Ports
//! - `run` (in): the ring is enabled and not stopped; `base`, `mask` (its size less one),
//!   `prod`, `cons` (in): its registers.
//! - `m_axis_fetch_*` (out, with `tready` in): the read request (bus address, bytes); shown
//!   until taken.
//! - `s_axis_fetch_*` (in, `tready` out): the data beats, ready while a fetch is owed beats.
//! - `m_axis_cmd_*` (out, `tready` in): the command FIFO's head, to the engine.
//! - `stop` (in): the host disables the ring at this edge: the fetch in flight, if any,
//!   is taken and dropped.
//! - `qp` (in): the queue pair whose ring this is, stamped into bits 31–29 of each
//!   command's tag (`host::TAG_QP_SHIFT`).
//! - `req_held` (out): a request shown earlier is still waiting to be taken.
//! - `took` (out): an entry arrived and was queued this edge (the consumer pointer moves);
//!   `bad` (out): it did not decode (reserved bits set, the tag's queue-pair bits included)
//!   and goes on as opcode 0.
//! - `reset` (in): synchronous.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::hostif::FETCH_BURST;
use sanswitch_model::host::TAG_QP_SHIFT;

use crate::engine::records::CmdRec;
use crate::widgets::{LutFifo, Param, param};

// The tag's split is written into the bit positions below.
const _: () = assert!(TAG_QP_SHIFT == 29);

#[derive(LogicBlock, Default)]
pub struct SqFetch {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub run: Signal<In, Bit>,
    pub base: Signal<In, Bits<64>>,
    pub mask: Signal<In, Bits<16>>,
    pub prod: Signal<In, Bits<16>>,
    pub cons: Signal<In, Bits<16>>,
    pub stop: Signal<In, Bit>,
    pub qp: Signal<In, Bits<3>>,
    pub m_axis_fetch_tready: Signal<In, Bit>,
    pub s_axis_fetch_tvalid: Signal<In, Bit>,
    pub s_axis_fetch_tdata: Signal<In, Bits<64>>,
    pub m_axis_cmd_tready: Signal<In, Bit>,
    pub m_axis_fetch_tvalid: Signal<Out, Bit>,
    pub m_axis_fetch_addr: Signal<Out, Bits<64>>,
    pub m_axis_fetch_len: Signal<Out, Bits<32>>,
    pub s_axis_fetch_tready: Signal<Out, Bit>,
    pub m_axis_cmd_tvalid: Signal<Out, Bit>,
    pub cmd: Signal<Out, CmdRec>,
    pub took: Signal<Out, Bit>,
    pub bad: Signal<Out, Bit>,
    pub req_held: Signal<Out, Bit>,
    cmds: LutFifo<CmdRec>,
    /// Commands queued (the FIFO's occupancy), entries owed by the fetch in flight, the beat
    /// of the entry arriving and its first three beats.
    level: DFF<Bits<4>>,
    left: DFF<Bits<4>>,
    beat: DFF<Bits<2>>,
    b0: DFF<Bits<64>>,
    b1: DFF<Bits<64>>,
    b2: DFF<Bits<64>>,
    /// A request shown and not yet taken (AXI4-Stream: it stays as it is until taken).
    req_v: DFF<Bit>,
    req_addr: DFF<Bits<64>>,
    req_n: DFF<Bits<4>>,
    drop: DFF<Bit>,
    k_burst: Param<Bits<16>>,
    k_no_cmd: Param<CmdRec>,
    pending: Signal<Local, Bits<16>>,
    to_end: Signal<Local, Bits<16>>,
    room: Signal<Local, Bits<16>>,
    n: Signal<Local, Bits<4>>,
    due: Signal<Local, Bit>,
    due_addr: Signal<Local, Bits<64>>,
    show_n: Signal<Local, Bits<4>>,
    entry: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    raw: Signal<Local, CmdRec>,
    left_next: Signal<Local, Bits<4>>,
}

impl SqFetch {
    pub fn new() -> Self {
        SqFetch {
            cmds: LutFifo::new(FETCH_BURST as usize),
            k_burst: param(u64::from(FETCH_BURST)),
            ..Default::default()
        }
    }
}

impl Logic for SqFetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, level, left, beat, b0, b1, b2, req_v, req_addr, req_n, drop);
        self.cmds.clock.next = self.clock.val();
        self.cmds.reset.next = self.reset.val();

        // The next fetch: as many entries as are pending, up to the ring's end and the room
        // left in the command FIFO: the least of the three, chosen by their three compares
        // side by side (not a chain of two minimums). Whether one is due needs none of them:
        // the ring's end is always at least one entry away, so the count is nonzero exactly
        // when entries are pending and the FIFO has room.
        self.pending.next = self.prod.val() - self.cons.val();
        self.to_end.next = (!self.cons.val() & self.mask.val()) + 1;
        self.room.next = self.k_burst.val() - bit_cast::<16, 4>(self.level.q.val());
        self.n.next = self.room.val().get_bits::<4>(0);
        if (self.pending.val() <= self.to_end.val()) & (self.pending.val() <= self.room.val()) {
            self.n.next = self.pending.val().get_bits::<4>(0);
        } else if (self.to_end.val() < self.pending.val()) & (self.to_end.val() <= self.room.val())
        {
            self.n.next = self.to_end.val().get_bits::<4>(0);
        }
        self.due.next = self.run.val()
            & (self.left.q.val() == 0)
            & !self.req_v.q.val()
            & (self.prod.val() != self.cons.val())
            & (self.room.val() != 0);
        self.due_addr.next =
            self.base.val() + (bit_cast::<64, 16>(self.cons.val() & self.mask.val()) << 5);
        self.m_axis_fetch_tvalid.next = self.req_v.q.val() | self.due.val();
        self.req_held.next = self.req_v.q.val();
        self.m_axis_fetch_addr.next = 0.into();
        self.show_n.next = 0.into();
        if self.req_v.q.val() {
            self.m_axis_fetch_addr.next = self.req_addr.q.val();
            self.show_n.next = self.req_n.q.val();
        } else if self.due.val() {
            self.m_axis_fetch_addr.next = self.due_addr.val();
            self.show_n.next = self.n.val();
        }
        self.m_axis_fetch_len.next = bit_cast::<32, 4>(self.show_n.val()) << 5;
        if self.m_axis_fetch_tvalid.val() {
            if self.m_axis_fetch_tready.val() {
                self.req_v.d.next = false;
            } else {
                self.req_v.d.next = true;
                self.req_addr.d.next = self.m_axis_fetch_addr.val();
                self.req_n.d.next = self.show_n.val();
            }
        }

        // The entries' beats.
        self.s_axis_fetch_tready.next = self.left.q.val() != 0;
        self.entry.next = false;
        if self.s_axis_fetch_tready.val() & self.s_axis_fetch_tvalid.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            if self.beat.q.val() == 0 {
                self.b0.d.next = self.s_axis_fetch_tdata.val();
            }
            if self.beat.q.val() == 1 {
                self.b1.d.next = self.s_axis_fetch_tdata.val();
            }
            if self.beat.q.val() == 2 {
                self.b2.d.next = self.s_axis_fetch_tdata.val();
            }
            self.entry.next = self.beat.q.val() == 3;
        }
        // The entry, as `host::COMMAND_FIELDS` places its fields.
        self.raw.next.opcode = self.b0.q.val().get_bits::<8>(0);
        self.raw.next.conn = self.b0.q.val().get_bits::<16>(16);
        self.raw.next.tag = bit_cast::<32, 29>(self.b0.q.val().get_bits::<29>(32))
            | (bit_cast::<32, 3>(self.qp.val()) << 29);
        self.raw.next.addr = self.b1.q.val();
        self.raw.next.len = self.b2.q.val().get_bits::<32>(0);
        self.raw.next.aux = self.s_axis_fetch_tdata.val();
        self.bad.next = self.entry.val()
            & !self.drop.q.val()
            & ((self.b0.q.val().get_bits::<8>(8) != 0)
                | (self.b0.q.val().get_bits::<3>(61) != 0)
                | (self.b2.q.val().get_bits::<32>(32) != 0));
        if self.bad.val() {
            self.raw.next.opcode = 0.into();
        }
        self.push.next = self.entry.val() & !self.drop.q.val();
        self.took.next = self.push.val();
        self.cmds.push.next = self.push.val();
        self.cmds.push_data.next = self.raw.val();

        self.left_next.next = self.left.q.val();
        if self.entry.val() {
            self.left_next.next = self.left.q.val() - 1;
        }
        if self.m_axis_fetch_tvalid.val() & self.m_axis_fetch_tready.val() {
            self.left_next.next = self.show_n.val();
        }
        self.left.d.next = self.left_next.val();
        if self.entry.val() & (self.left_next.val() == 0) {
            self.drop.d.next = false;
        }
        if self.stop.val() & ((self.left_next.val() != 0) | self.req_v.d.val()) {
            self.drop.d.next = true;
        }

        // The engine's side.
        self.m_axis_cmd_tvalid.next = self.cmds.valid.val();
        // Zero while empty, as the model shows it (the LUT-RAM FIFO's head is its RAM word).
        self.cmd.next = self.k_no_cmd.val();
        if self.cmds.valid.val() {
            self.cmd.next = self.cmds.head.val();
        }
        self.pop.next = self.cmds.valid.val() & self.m_axis_cmd_tready.val();
        self.cmds.pop.next = self.pop.val();
        if self.push.val() & !self.pop.val() {
            self.level.d.next = self.level.q.val() + 1;
        }
        if self.pop.val() & !self.push.val() {
            self.level.d.next = self.level.q.val() - 1;
        }

        if self.reset.val() {
            self.level.d.next = 0.into();
            self.left.d.next = 0.into();
            self.beat.d.next = 0.into();
            self.req_v.d.next = false;
            self.drop.d.next = false;
        }
    }
}
