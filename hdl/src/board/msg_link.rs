//! One direction of the SAN loopback's messages: node `a`'s beats and teardowns, in the
//! order it hands them over, to node `b`. Model: `sanswitch_model::blocks::san_loop::MsgLink`.
//!
//! # Ports
//! - `s_axis_tx_*` (in, node `a`'s `m_axis_tx_*`), `s_axis_down_*` (its `m_axis_down_*`):
//!   a beat is taken whenever the link has room; a teardown only in a cycle with no beat
//!   offered (a beat and a teardown offered together go beat first, as the fabric model
//!   orders them).
//! - `m_axis_rx_*`, `m_axis_down_*` (out, to node `b`'s `s_axis_rx_*` / `s_axis_down_*`):
//!   the link's head, a beat or a teardown; fields are zero while nothing is offered.
//! - `busy` (out): an entry is in the link.
//! - `reset` (in): synchronous.
//!
//! # Timing
//! A [`SkidBuffer`] of [`LinkEntry`]s: an entry taken at an edge is offered from the next
//! cycle, one a cycle while node `b` takes them.

use rust_hdl::prelude::*;

use crate::widgets::SkidBuffer;

/// A beat, or a teardown of `conn`.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct LinkEntry {
    pub down: Bit,
    pub conn: Bits<8>,
    pub data: Bits<64>,
    pub keep: Bits<8>,
    pub last: Bit,
}

#[derive(LogicBlock, Default)]
pub struct MsgLink {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_tx_tvalid: Signal<In, Bit>,
    pub s_axis_tx_tdata: Signal<In, Bits<64>>,
    pub s_axis_tx_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tx_tlast: Signal<In, Bit>,
    pub s_axis_tx_tuser: Signal<In, Bits<8>>,
    pub s_axis_down_tvalid: Signal<In, Bit>,
    pub s_axis_down_conn: Signal<In, Bits<8>>,
    pub m_axis_rx_tready: Signal<In, Bit>,
    pub m_axis_down_tready: Signal<In, Bit>,
    pub s_axis_tx_tready: Signal<Out, Bit>,
    pub s_axis_down_tready: Signal<Out, Bit>,
    pub m_axis_rx_tvalid: Signal<Out, Bit>,
    pub m_axis_rx_tdata: Signal<Out, Bits<64>>,
    pub m_axis_rx_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_rx_tlast: Signal<Out, Bit>,
    pub m_axis_rx_tuser: Signal<Out, Bits<8>>,
    pub m_axis_down_tvalid: Signal<Out, Bit>,
    pub m_axis_down_conn: Signal<Out, Bits<8>>,
    pub busy: Signal<Out, Bit>,
    fifo: SkidBuffer<LinkEntry>,
    entry: Signal<Local, LinkEntry>,
    head: Signal<Local, LinkEntry>,
}

impl Logic for MsgLink {
    #[hdl_gen]
    fn update(&mut self) {
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();
        self.s_axis_tx_tready.next = self.fifo.can_push.val();
        self.s_axis_down_tready.next = self.fifo.can_push.val() & !self.s_axis_tx_tvalid.val();
        self.entry.next.down = !self.s_axis_tx_tvalid.val();
        self.entry.next.conn = self.s_axis_down_conn.val();
        self.entry.next.data = 0.into();
        self.entry.next.keep = 0.into();
        self.entry.next.last = false;
        if self.s_axis_tx_tvalid.val() {
            self.entry.next.conn = self.s_axis_tx_tuser.val();
            self.entry.next.data = self.s_axis_tx_tdata.val();
            self.entry.next.keep = self.s_axis_tx_tkeep.val();
            self.entry.next.last = self.s_axis_tx_tlast.val();
        }
        self.fifo.push.next = self.fifo.can_push.val()
            & (self.s_axis_tx_tvalid.val() | self.s_axis_down_tvalid.val());
        self.fifo.push_data.next = self.entry.val();
        // The head, shown on the port its kind goes to.
        self.head.next = self.fifo.out_data.val();
        self.m_axis_rx_tvalid.next = false;
        self.m_axis_rx_tdata.next = 0.into();
        self.m_axis_rx_tkeep.next = 0.into();
        self.m_axis_rx_tlast.next = false;
        self.m_axis_rx_tuser.next = 0.into();
        self.m_axis_down_tvalid.next = false;
        self.m_axis_down_conn.next = 0.into();
        self.fifo.out_ready.next = false;
        if self.fifo.out_valid.val() {
            if self.head.val().down {
                self.m_axis_down_tvalid.next = true;
                self.m_axis_down_conn.next = self.head.val().conn;
                self.fifo.out_ready.next = self.m_axis_down_tready.val();
            } else {
                self.m_axis_rx_tvalid.next = true;
                self.m_axis_rx_tdata.next = self.head.val().data;
                self.m_axis_rx_tkeep.next = self.head.val().keep;
                self.m_axis_rx_tlast.next = self.head.val().last;
                self.m_axis_rx_tuser.next = self.head.val().conn;
                self.fifo.out_ready.next = self.m_axis_rx_tready.val();
            }
        }
        self.busy.next = self.fifo.out_valid.val();
    }
}
