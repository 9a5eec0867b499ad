//! The NIC's host-memory multiplexer: the host interface (`h`: ring fetches, completion
//! writes) and the engine (`e`: send data, received data) on the one host-memory port,
//! steered by [`DmaArb`]'s grants. Same behaviour as the NIC model's port sharing
//! (`sanswitch_model::blocks::nic`).
//!
//! # Ports
//! - Read requests: `s_axis_hrd_*`, `s_axis_erd_*` (in: `tvalid`, `addr`, `len`; out:
//!   `tready`) onto `m_axis_dmard_*` (the granted one; zero when none is).
//! - Read data: `s_axis_dmard_tvalid`, `tlast` (in) and `tready` (out); its `tvalid` goes to
//!   the oldest outstanding read's owner (`m_axis_hrdd_tvalid` or `m_axis_erdd_tvalid`, whose
//!   `tready` is an input); the data, keep and last bits go to both unchanged (the NIC wires
//!   them), since only the owner sees `tvalid`.
//! - Writes: `s_axis_hwr_*`, `s_axis_ewr_*` (in: `tvalid`, `addr`, `tdata`, `tkeep`,
//!   `tlast`; out: `tready`) onto `m_axis_dmawr_*`, a burst at a time.
//!
//! # Timing
//! Combinational from the inputs and the arbiter's registered state; nothing adds a cycle.

use rust_hdl::prelude::*;

use super::DmaArb;

#[derive(LogicBlock, Default)]
pub struct DmaMux {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_hrd_tvalid: Signal<In, Bit>,
    pub s_axis_hrd_addr: Signal<In, Bits<64>>,
    pub s_axis_hrd_len: Signal<In, Bits<32>>,
    pub s_axis_erd_tvalid: Signal<In, Bit>,
    pub s_axis_erd_addr: Signal<In, Bits<64>>,
    pub s_axis_erd_len: Signal<In, Bits<32>>,
    pub m_axis_dmard_tready: Signal<In, Bit>,
    pub s_axis_dmard_tvalid: Signal<In, Bit>,
    pub s_axis_dmard_tlast: Signal<In, Bit>,
    pub m_axis_hrdd_tready: Signal<In, Bit>,
    pub m_axis_erdd_tready: Signal<In, Bit>,
    pub s_axis_hwr_tvalid: Signal<In, Bit>,
    pub s_axis_hwr_addr: Signal<In, Bits<64>>,
    pub s_axis_hwr_tdata: Signal<In, Bits<64>>,
    pub s_axis_hwr_tkeep: Signal<In, Bits<8>>,
    pub s_axis_hwr_tlast: Signal<In, Bit>,
    pub s_axis_ewr_tvalid: Signal<In, Bit>,
    pub s_axis_ewr_addr: Signal<In, Bits<64>>,
    pub s_axis_ewr_tdata: Signal<In, Bits<64>>,
    pub s_axis_ewr_tkeep: Signal<In, Bits<8>>,
    pub s_axis_ewr_tlast: Signal<In, Bit>,
    pub m_axis_dmawr_tready: Signal<In, Bit>,
    pub s_axis_hrd_tready: Signal<Out, Bit>,
    pub s_axis_erd_tready: Signal<Out, Bit>,
    pub m_axis_dmard_tvalid: Signal<Out, Bit>,
    pub m_axis_dmard_addr: Signal<Out, Bits<64>>,
    pub m_axis_dmard_len: Signal<Out, Bits<32>>,
    pub s_axis_dmard_tready: Signal<Out, Bit>,
    pub m_axis_hrdd_tvalid: Signal<Out, Bit>,
    pub m_axis_erdd_tvalid: Signal<Out, Bit>,
    pub s_axis_hwr_tready: Signal<Out, Bit>,
    pub s_axis_ewr_tready: Signal<Out, Bit>,
    pub m_axis_dmawr_tvalid: Signal<Out, Bit>,
    pub m_axis_dmawr_addr: Signal<Out, Bits<64>>,
    pub m_axis_dmawr_tdata: Signal<Out, Bits<64>>,
    pub m_axis_dmawr_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_dmawr_tlast: Signal<Out, Bit>,
    arb: DmaArb,
    /// The read data beat on the port is the engine's / the host interface's.
    rd_eng_data: Signal<Local, Bit>,
    rd_host_data: Signal<Local, Bit>,
}

impl DmaMux {
    pub fn new() -> Self {
        DmaMux { arb: DmaArb::new(), ..Default::default() }
    }
}

impl Logic for DmaMux {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, arb);
        self.arb.reset.next = self.reset.val();
        // Read requests: the granted one out.
        self.arb.host_rd.next = self.s_axis_hrd_tvalid.val();
        self.arb.eng_rd.next = self.s_axis_erd_tvalid.val();
        self.arb.rd_ready.next = self.m_axis_dmard_tready.val();
        self.s_axis_hrd_tready.next = self.m_axis_dmard_tready.val() & self.arb.rd_host.val();
        self.s_axis_erd_tready.next = self.m_axis_dmard_tready.val() & self.arb.rd_eng.val();
        self.m_axis_dmard_tvalid.next = self.arb.rd_host.val() | self.arb.rd_eng.val();
        self.m_axis_dmard_addr.next = 0.into();
        self.m_axis_dmard_len.next = 0.into();
        if self.arb.rd_host.val() {
            self.m_axis_dmard_addr.next = self.s_axis_hrd_addr.val();
            self.m_axis_dmard_len.next = self.s_axis_hrd_len.val();
        }
        if self.arb.rd_eng.val() {
            self.m_axis_dmard_addr.next = self.s_axis_erd_addr.val();
            self.m_axis_dmard_len.next = self.s_axis_erd_len.val();
        }
        // Read data: to the oldest outstanding read's owner.
        self.rd_eng_data.next = self.arb.rd_owner_eng.val();
        self.rd_host_data.next = self.arb.rd_owned.val() & !self.arb.rd_owner_eng.val();
        self.m_axis_hrdd_tvalid.next = self.s_axis_dmard_tvalid.val() & self.rd_host_data.val();
        self.m_axis_erdd_tvalid.next = self.s_axis_dmard_tvalid.val() & self.rd_eng_data.val();
        self.s_axis_dmard_tready.next = (self.rd_host_data.val() & self.m_axis_hrdd_tready.val())
            | (self.rd_eng_data.val() & self.m_axis_erdd_tready.val());
        self.arb.rd_done.next = self.s_axis_dmard_tready.val()
            & self.s_axis_dmard_tvalid.val()
            & self.s_axis_dmard_tlast.val();

        // Writes: the granted master's beat, whole bursts.
        self.arb.host_wr.next = self.s_axis_hwr_tvalid.val();
        self.arb.eng_wr.next = self.s_axis_ewr_tvalid.val();
        self.s_axis_hwr_tready.next = self.m_axis_dmawr_tready.val() & self.arb.wr_host.val();
        self.s_axis_ewr_tready.next = self.m_axis_dmawr_tready.val() & self.arb.wr_eng.val();
        self.m_axis_dmawr_tvalid.next = false;
        self.m_axis_dmawr_addr.next = 0.into();
        self.m_axis_dmawr_tdata.next = 0.into();
        self.m_axis_dmawr_tkeep.next = 0.into();
        self.m_axis_dmawr_tlast.next = false;
        if self.arb.wr_host.val() {
            self.m_axis_dmawr_tvalid.next = self.s_axis_hwr_tvalid.val();
            self.m_axis_dmawr_addr.next = self.s_axis_hwr_addr.val();
            self.m_axis_dmawr_tdata.next = self.s_axis_hwr_tdata.val();
            self.m_axis_dmawr_tkeep.next = self.s_axis_hwr_tkeep.val();
            self.m_axis_dmawr_tlast.next = self.s_axis_hwr_tlast.val();
        }
        if self.arb.wr_eng.val() {
            self.m_axis_dmawr_tvalid.next = self.s_axis_ewr_tvalid.val();
            self.m_axis_dmawr_addr.next = self.s_axis_ewr_addr.val();
            self.m_axis_dmawr_tdata.next = self.s_axis_ewr_tdata.val();
            self.m_axis_dmawr_tkeep.next = self.s_axis_ewr_tkeep.val();
            self.m_axis_dmawr_tlast.next = self.s_axis_ewr_tlast.val();
        }
        self.arb.wr_take.next = self.m_axis_dmawr_tvalid.val() & self.m_axis_dmawr_tready.val();
        self.arb.wr_last.next = self.m_axis_dmawr_tlast.val();
    }
}
