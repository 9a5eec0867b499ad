//! The engine's queues at its edges: the command FIFO (host commands in), the completion
//! FIFO (completions out), and the two FIFOs of connection events from and to the SAN
//! (`down`: a connection gone). Sizes as the model's (`CMD_FIFO`, `CPL_FIFO`, two entries
//! each way for `down`).
//!
//! # Ports
//! - `s_axis_cmd_*` (in, `tready` out): the command stream, one field per signal; `cmd_valid`,
//!   `cmd` (out) / `take_cmd` (in): its head as a record, for the controller.
//! - `cpl_push`, `cpl` (in) / `cpl_can_push` (out): the controller's completions;
//!   `m_axis_cpl_*` (out, `tready` in): the completion stream, all zero while empty (as the
//!   model's port; the LUT-RAM FIFO's head is whatever word its read pointer names).
//! - `s_axis_down_*` (in, `tready` out) / `down_valid`, `down_conn` (out), `take_down` (in):
//!   the SAN's connection events; `down_push`, `down_push_conn` (in) / `down_can_push` (out),
//!   `m_axis_down_*` (out, `tready` in): the teardowns the controller sends.
//! - `reset` (in): synchronous, every FIFO empty.
//!
//! # Timing
//! The FIFOs': a pushed entry is at the head the next cycle.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::engine::{CMD_FIFO, CPL_FIFO};

use super::records::{CmdRec, CplRec};
use crate::widgets::{Fifo, LutFifo, Param};

#[derive(LogicBlock, Default)]
pub struct HostQueues {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_cmd_tvalid: Signal<In, Bit>,
    pub s_axis_cmd_opcode: Signal<In, Bits<8>>,
    pub s_axis_cmd_conn: Signal<In, Bits<16>>,
    pub s_axis_cmd_tag: Signal<In, Bits<32>>,
    pub s_axis_cmd_addr: Signal<In, Bits<64>>,
    pub s_axis_cmd_len: Signal<In, Bits<32>>,
    pub s_axis_cmd_aux: Signal<In, Bits<64>>,
    pub take_cmd: Signal<In, Bit>,
    pub cpl_push: Signal<In, Bit>,
    pub cpl: Signal<In, CplRec>,
    pub m_axis_cpl_tready: Signal<In, Bit>,
    pub s_axis_down_tvalid: Signal<In, Bit>,
    pub s_axis_down_conn: Signal<In, Bits<8>>,
    pub take_down: Signal<In, Bit>,
    pub down_push: Signal<In, Bit>,
    pub down_push_conn: Signal<In, Bits<8>>,
    pub m_axis_down_tready: Signal<In, Bit>,
    pub s_axis_cmd_tready: Signal<Out, Bit>,
    pub cmd_valid: Signal<Out, Bit>,
    pub cmd: Signal<Out, CmdRec>,
    pub cpl_can_push: Signal<Out, Bit>,
    pub m_axis_cpl_tvalid: Signal<Out, Bit>,
    pub m_axis_cpl_tag: Signal<Out, Bits<32>>,
    pub m_axis_cpl_bytes: Signal<Out, Bits<32>>,
    pub m_axis_cpl_conn: Signal<Out, Bits<16>>,
    pub m_axis_cpl_status: Signal<Out, Bits<16>>,
    pub m_axis_cpl_opcode: Signal<Out, Bits<8>>,
    pub m_axis_cpl_urgent: Signal<Out, Bit>,
    pub m_axis_cpl_eof: Signal<Out, Bit>,
    pub s_axis_down_tready: Signal<Out, Bit>,
    pub down_valid: Signal<Out, Bit>,
    pub down_conn: Signal<Out, Bits<8>>,
    pub down_can_push: Signal<Out, Bit>,
    pub m_axis_down_tvalid: Signal<Out, Bit>,
    pub m_axis_down_conn: Signal<Out, Bits<8>>,
    cmdq: LutFifo<CmdRec>,
    cplq: LutFifo<CplRec>,
    down_in: Fifo<Bits<8>>,
    down_out: Fifo<Bits<8>>,
    cmd_rec: Signal<Local, CmdRec>,
    cpl_head: Signal<Local, CplRec>,
    k_no_cpl: Param<CplRec>,
}

impl HostQueues {
    pub fn new() -> Self {
        HostQueues {
            cmdq: LutFifo::new(CMD_FIFO),
            cplq: LutFifo::new(CPL_FIFO),
            down_in: Fifo::new(2),
            down_out: Fifo::new(2),
            ..Default::default()
        }
    }
}

impl Logic for HostQueues {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, cmdq, cplq, down_in, down_out);
        self.cmdq.reset.next = self.reset.val();
        self.cplq.reset.next = self.reset.val();
        self.down_in.reset.next = self.reset.val();
        self.down_out.reset.next = self.reset.val();
        // Commands in.
        self.cmd_rec.next.opcode = self.s_axis_cmd_opcode.val();
        self.cmd_rec.next.conn = self.s_axis_cmd_conn.val();
        self.cmd_rec.next.tag = self.s_axis_cmd_tag.val();
        self.cmd_rec.next.addr = self.s_axis_cmd_addr.val();
        self.cmd_rec.next.len = self.s_axis_cmd_len.val();
        self.cmd_rec.next.aux = self.s_axis_cmd_aux.val();
        self.cmdq.push.next = self.s_axis_cmd_tvalid.val() & self.cmdq.can_push.val();
        self.cmdq.push_data.next = self.cmd_rec.val();
        self.cmdq.pop.next = self.take_cmd.val();
        self.s_axis_cmd_tready.next = self.cmdq.can_push.val();
        self.cmd_valid.next = self.cmdq.valid.val();
        self.cmd.next = self.cmdq.head.val();
        // Completions out, zero while empty.
        self.cplq.push.next = self.cpl_push.val();
        self.cplq.push_data.next = self.cpl.val();
        self.cpl_can_push.next = self.cplq.can_push.val();
        self.cplq.pop.next = self.m_axis_cpl_tready.val() & self.cplq.valid.val();
        self.cpl_head.next = self.k_no_cpl.val();
        if self.cplq.valid.val() {
            self.cpl_head.next = self.cplq.head.val();
        }
        self.m_axis_cpl_tvalid.next = self.cplq.valid.val();
        self.m_axis_cpl_tag.next = self.cpl_head.val().tag;
        self.m_axis_cpl_bytes.next = self.cpl_head.val().bytes;
        self.m_axis_cpl_conn.next = self.cpl_head.val().conn;
        self.m_axis_cpl_status.next = self.cpl_head.val().status;
        self.m_axis_cpl_opcode.next = self.cpl_head.val().opcode;
        self.m_axis_cpl_urgent.next = self.cpl_head.val().urgent;
        self.m_axis_cpl_eof.next = self.cpl_head.val().eof;
        // Connection events in, teardowns out.
        self.down_in.push.next = self.s_axis_down_tvalid.val() & self.down_in.can_push.val();
        self.down_in.push_data.next = self.s_axis_down_conn.val();
        self.down_in.pop.next = self.take_down.val();
        self.s_axis_down_tready.next = self.down_in.can_push.val();
        self.down_valid.next = self.down_in.valid.val();
        self.down_conn.next = self.down_in.head.val();
        self.down_out.push.next = self.down_push.val();
        self.down_out.push_data.next = self.down_push_conn.val();
        self.down_can_push.next = self.down_out.can_push.val();
        self.down_out.pop.next = self.m_axis_down_tready.val() & self.down_out.valid.val();
        self.m_axis_down_tvalid.next = self.down_out.valid.val();
        self.m_axis_down_conn.next = self.down_out.head.val();
    }
}
