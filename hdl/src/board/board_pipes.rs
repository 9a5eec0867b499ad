//! The board's logic below FrontPanel's endpoints: the pipe FIFOs ([`PipeFifos`], across
//! from FrontPanel's clock) in front of [`BoardCore`] (the bridge, two NICs with their
//! memories, the SAN loopback). The XEM7010 top puts `okHost`, the two block-throttled pipe
//! endpoints, the clocking, the reset and the LEDs around it; a simulation drives its
//! endpoint side as FrontPanel's pipes do (`sanswitch_driver::pipe_sim`).
//!
//! # Ports
//! - `clock` (in): the engine clock; `reset` (in): synchronous, the board core's (the FIFOs
//!   have none: they start empty).
//! - `ti_clk` (in): FrontPanel's clock (48 MHz on USB 2.0 boards), asynchronous to `clock`.
//! - `pi_write`, `pi_data` (in), `pi_ready` (out): the `okBTPipeIn` endpoint's `ep_write`,
//!   `ep_dataout` and `ep_ready`; `po_read` (in), `po_data`, `po_ready` (out): the
//!   `okBTPipeOut` endpoint's `ep_read`, `ep_datain`, `ep_ready` ([`PipeFifos`] gives their
//!   timing).
//! - `busy`, `errors`, `oob` (out, engine clock): [`BoardCore`]'s, for the LEDs; `lost`
//!   (out, `ti_clk`, sticky): [`PipeFifos`]'s (a word written into a full FIFO or taken from
//!   an empty one).

use rust_hdl::prelude::*;

use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

use super::{BoardCore, PipeFifos};

#[derive(LogicBlock)]
pub struct BoardPipes<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ti_clk: Signal<In, Clock>,
    pub pi_write: Signal<In, Bit>,
    pub pi_data: Signal<In, Bits<16>>,
    pub po_read: Signal<In, Bit>,
    pub pi_ready: Signal<Out, Bit>,
    pub po_data: Signal<Out, Bits<16>>,
    pub po_ready: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    pub errors: Signal<Out, Bits<16>>,
    pub oob: Signal<Out, Bit>,
    pub lost: Signal<Out, Bit>,
    pub pipes: PipeFifos,
    pub core: BoardCore<A>,
}

impl<const A: usize> BoardPipes<A> {
    /// The pipe FIFOs before a board core of NICs of `p` and `h`, memories of `mem_bytes`.
    pub fn new(p: &EngineParams, h: &HostParams, mem_bytes: u32) -> Self {
        BoardPipes {
            clock: Default::default(),
            reset: Default::default(),
            ti_clk: Default::default(),
            pi_write: Default::default(),
            pi_data: Default::default(),
            po_read: Default::default(),
            pi_ready: Default::default(),
            po_data: Default::default(),
            po_ready: Default::default(),
            busy: Default::default(),
            errors: Default::default(),
            oob: Default::default(),
            lost: Default::default(),
            pipes: PipeFifos::new(),
            core: BoardCore::new(p, h, mem_bytes),
        }
    }
}

impl<const A: usize> Logic for BoardPipes<A> {
    #[hdl_gen]
    fn update(&mut self) {
        self.pipes.ti_clk.next = self.ti_clk.val();
        self.pipes.eng_clk.next = self.clock.val();
        self.pipes.pi_write.next = self.pi_write.val();
        self.pipes.pi_data.next = self.pi_data.val();
        self.pi_ready.next = self.pipes.pi_ready.val();
        self.pipes.po_read.next = self.po_read.val();
        self.po_data.next = self.pipes.po_data.val();
        self.po_ready.next = self.pipes.po_ready.val();
        self.core.clock.next = self.clock.val();
        self.core.reset.next = self.reset.val();
        self.core.s_axis_req_tvalid.next = self.pipes.m_axis_req_tvalid.val();
        self.core.s_axis_req_tdata.next = self.pipes.m_axis_req_tdata.val();
        self.pipes.m_axis_req_tready.next = self.core.s_axis_req_tready.val();
        self.pipes.s_axis_rsp_tvalid.next = self.core.m_axis_rsp_tvalid.val();
        self.pipes.s_axis_rsp_tdata.next = self.core.m_axis_rsp_tdata.val();
        self.core.m_axis_rsp_tready.next = self.pipes.s_axis_rsp_tready.val();
        self.busy.next = self.core.busy.val();
        self.errors.next = self.core.errors.val();
        self.oob.next = self.core.oob.val();
        self.lost.next = self.pipes.lost.val();
    }
}
