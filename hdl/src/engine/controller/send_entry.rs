//! A send command as its send-queue entry (the model's `SqEnt` made from a `Command`),
//! combinational: its fields, urgent from the opcode, and whether it goes zero-copy by
//! length. The threshold is compared here, as the send is queued, so that the pump's
//! choice after the queue RAM's read is a bit ([`SqEnt`]'s `big`), not a 32-bit compare on
//! the controller's deepest path.
//!
//! # Ports
//! - `cmd` (in): the command; `ent` (out): its entry.

use rust_hdl::prelude::*;
use sanswitch_model::host::Opcode;
use sanswitch_model::params::EngineParams;

use super::super::records::{CmdRec, SqEnt};
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct SendEntry {
    pub cmd: Signal<In, CmdRec>,
    pub ent: Signal<Out, SqEnt>,
    /// Sends longer than this go zero-copy (`u32::MAX`: none does).
    k_thresh: Param<Bits<32>>,
    k_urgent: Param<Bits<8>>,
    e: Signal<Local, SqEnt>,
}

impl SendEntry {
    pub fn new(p: &EngineParams) -> Self {
        SendEntry {
            k_thresh: param(p.rdma_threshold as u64),
            k_urgent: param(Opcode::SendUrgent.code() as u64),
            ..Default::default()
        }
    }
}

impl Logic for SendEntry {
    #[hdl_gen]
    fn update(&mut self) {
        self.e.next.tag = self.cmd.val().tag;
        self.e.next.addr = self.cmd.val().addr;
        self.e.next.len = self.cmd.val().len;
        self.e.next.urgent = self.cmd.val().opcode == self.k_urgent.val();
        self.e.next.big = self.cmd.val().len > self.k_thresh.val();
        self.ent.next = self.e.val();
    }
}
