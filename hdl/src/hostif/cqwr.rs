//! The completion ring's writer: the engine's completion taken while the ring has room and
//! written as two beats with its phase bit (the model: `sanswitch_model::blocks::hostif`,
//! "Completion ring"; the entry is `host::COMPLETION_FIELDS`'s).
//!
//! # Ports
//! - `run` (in): the ring is enabled; `base`, `log2`, `prod`, `cons` (in): its registers.
//! - `s_axis_cpl_tready` (out), `cpl_valid`, `cpl` (in): the engine's completion stream.
//! - `m_axis_cqwr_*` (out, `tready` in): the write beats (the entry's address held for both, as on the engine's `m_axis_dmawr_*`: beat `k` goes to `addr + 8k`).
//! - `discard` (in): the completion offered is for no queue pair: taken when idle, not
//!   written; `dropped` (out): one was, at this edge.
//! - `done` (out): the entry's last beat is taken at this edge (the producer pointer moves).
//! - `reset` (in): synchronous.

use rust_hdl::prelude::*;

use crate::engine::records::CplRec;
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct CqWriter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub run: Signal<In, Bit>,
    pub base: Signal<In, Bits<64>>,
    pub log2: Signal<In, Bits<4>>,
    pub prod: Signal<In, Bits<16>>,
    pub cons: Signal<In, Bits<16>>,
    pub cpl_valid: Signal<In, Bit>,
    pub discard: Signal<In, Bit>,
    pub cpl: Signal<In, CplRec>,
    pub m_axis_cqwr_tready: Signal<In, Bit>,
    pub s_axis_cpl_tready: Signal<Out, Bit>,
    pub m_axis_cqwr_tvalid: Signal<Out, Bit>,
    pub m_axis_cqwr_addr: Signal<Out, Bits<64>>,
    pub m_axis_cqwr_tdata: Signal<Out, Bits<64>>,
    pub m_axis_cqwr_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_cqwr_tlast: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub dropped: Signal<Out, Bit>,
    busy: DFF<Bit>,
    beat: DFF<Bit>,
    addr: DFF<Bits<64>>,
    w0: DFF<Bits<64>>,
    w1: DFF<Bits<64>>,
    k_one: Param<Bits<16>>,
    /// The flag bits of the entry's second word (`host::COMPLETION_FIELDS`).
    k_urg: Param<Bits<64>>,
    k_eof: Param<Bits<64>>,
    k_phase: Param<Bits<64>>,
    f_urg: Signal<Local, Bits<64>>,
    f_eof: Signal<Local, Bits<64>>,
    f_phase: Signal<Local, Bits<64>>,
    size: Signal<Local, Bits<16>>,
    mask: Signal<Local, Bits<16>>,
    phase: Signal<Local, Bit>,
}

impl CqWriter {
    pub fn new() -> Self {
        let bit = |name: &str| {
            let f = sanswitch_model::host::COMPLETION_FIELDS.iter().find(|f| f.name == name);
            param(1u64 << (f.expect("a completion field").lsb - 64))
        };
        CqWriter {
            k_one: param(1),
            k_urg: bit("urgent"),
            k_eof: bit("eof"),
            k_phase: bit("phase"),
            ..Default::default()
        }
    }
}

impl Logic for CqWriter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, beat, addr, w0, w1);
        self.size.next = self.k_one.val() << bit_cast::<16, 4>(self.log2.val());
        self.mask.next = self.size.val() - 1;
        self.s_axis_cpl_tready.next = !self.busy.q.val()
            & (self.discard.val()
                | (self.run.val() & ((self.prod.val() - self.cons.val()) < self.size.val())));
        self.dropped.next =
            self.s_axis_cpl_tready.val() & self.cpl_valid.val() & self.discard.val();
        // Phase 1 on the ring's even laps.
        self.phase.next =
            ((self.prod.val() >> bit_cast::<16, 4>(self.log2.val())) & self.k_one.val()) == 0;
        self.f_urg.next = 0.into();
        if self.cpl.val().urgent {
            self.f_urg.next = self.k_urg.val();
        }
        self.f_eof.next = 0.into();
        if self.cpl.val().eof {
            self.f_eof.next = self.k_eof.val();
        }
        self.f_phase.next = 0.into();
        if self.phase.val() {
            self.f_phase.next = self.k_phase.val();
        }
        if self.s_axis_cpl_tready.val() & self.cpl_valid.val() & !self.discard.val() {
            self.busy.d.next = true;
            self.beat.d.next = false;
            self.addr.d.next =
                self.base.val() + (bit_cast::<64, 16>(self.prod.val() & self.mask.val()) << 4);
            self.w0.d.next = bit_cast::<64, 32>(self.cpl.val().tag)
                | (bit_cast::<64, 32>(self.cpl.val().bytes) << 32);
            self.w1.d.next = bit_cast::<64, 16>(self.cpl.val().conn)
                | (bit_cast::<64, 16>(self.cpl.val().status) << 16)
                | (bit_cast::<64, 8>(self.cpl.val().opcode) << 32)
                | self.f_urg.val()
                | self.f_eof.val()
                | self.f_phase.val();
        }
        self.m_axis_cqwr_tvalid.next = self.busy.q.val();
        self.m_axis_cqwr_addr.next = 0.into();
        self.m_axis_cqwr_tdata.next = 0.into();
        self.m_axis_cqwr_tkeep.next = 0.into();
        self.m_axis_cqwr_tlast.next = false;
        if self.busy.q.val() {
            self.m_axis_cqwr_addr.next = self.addr.q.val();
            self.m_axis_cqwr_tdata.next = self.w0.q.val();
            self.m_axis_cqwr_tkeep.next = 0xFF.into();
            if self.beat.q.val() {
                self.m_axis_cqwr_tdata.next = self.w1.q.val();
                self.m_axis_cqwr_tlast.next = true;
            }
        }
        self.done.next = self.busy.q.val() & self.beat.q.val() & self.m_axis_cqwr_tready.val();
        if self.busy.q.val() & self.m_axis_cqwr_tready.val() {
            self.beat.d.next = true;
            if self.beat.q.val() {
                self.busy.d.next = false;
            }
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.beat.d.next = false;
        }
    }
}
