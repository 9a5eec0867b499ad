//! The host-memory arbiter's decisions: which master's read request and write beat go to
//! the NIC's one host-memory port, and whose the returning read data is. [`super::DmaMux`]
//! does the multiplexing from these grants. Same decisions as
//! `sanswitch_model::blocks::dma_arb` (round robin between the host interface and the
//! engine; reads in request order through an owner queue of `RD_OUTSTANDING` entries; write
//! bursts never interleaved; a request or beat shown and not taken keeps its master's grant
//! while that master asks, so the port's `tvalid` and payload hold until `tready` takes
//! them, as AXI4-Stream requires).
//!
//! # Ports
//! - `host_rd`, `eng_rd` (in): the masters' read-request `tvalid`s; `rd_ready` (in): the
//!   port's `tready`. `rd_host`, `rd_eng` (out): the grant this cycle (at most one; none when
//!   the owner queue is full). A grant with `rd_ready` high is a request taken.
//! - `rd_owned` (out): a read is outstanding; `rd_owner_eng` (out): one is and the oldest is the
//!   engine's (low with none outstanding, so it alone steers the read data to the engine);
//!   `rd_done` (in): its last data beat was taken this cycle.
//! - `host_wr`, `eng_wr` (in): the masters' write `tvalid`s; `wr_host`, `wr_eng` (out): whose
//!   beat goes (held to the end of a burst); `wr_take`, `wr_last` (in): the granted beat was
//!   taken, and was its burst's last.
//!
//! # Timing
//! Grants are combinational from the `tvalid`s and the registered state (owner queue, burst
//! owner, the round-robin bits); nothing adds a cycle.

use rust_hdl::prelude::*;

use sanswitch_model::blocks::dma_arb::RD_OUTSTANDING;

use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct DmaArb {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub host_rd: Signal<In, Bit>,
    pub eng_rd: Signal<In, Bit>,
    pub rd_ready: Signal<In, Bit>,
    pub rd_done: Signal<In, Bit>,
    pub host_wr: Signal<In, Bit>,
    pub eng_wr: Signal<In, Bit>,
    pub wr_take: Signal<In, Bit>,
    pub wr_last: Signal<In, Bit>,
    pub rd_host: Signal<Out, Bit>,
    pub rd_eng: Signal<Out, Bit>,
    pub rd_owned: Signal<Out, Bit>,
    pub rd_owner_eng: Signal<Out, Bit>,
    pub wr_host: Signal<Out, Bit>,
    pub wr_eng: Signal<Out, Bit>,
    /// Owner bits (1: the engine) of the outstanding reads, a ring indexed by the pointers.
    owners: DFF<Bits<4>>,
    rd_ptr: DFF<Bits<2>>,
    wr_ptr: DFF<Bits<2>>,
    count: DFF<Bits<3>>,
    /// The last read / write grant went to the engine.
    rd_last_eng: DFF<Bit>,
    wr_last_eng: DFF<Bit>,
    /// A write burst is under way, and whose.
    wr_locked: DFF<Bit>,
    wr_lock_eng: DFF<Bit>,
    /// A read request / write beat was shown and not taken, and whose.
    rd_held: DFF<Bit>,
    rd_held_eng: DFF<Bit>,
    wr_held: DFF<Bit>,
    wr_held_eng: DFF<Bit>,
    k_full: Param<Bits<3>>,
    rd_full: Signal<Local, Bit>,
    rd_pick_eng: Signal<Local, Bit>,
    wr_pick_eng: Signal<Local, Bit>,
    rd_req: Signal<Local, Bit>,
    /// The owner ring turned so the oldest read's bit is bit 0.
    head: Signal<Local, Bits<4>>,
}

impl DmaArb {
    pub fn new() -> Self {
        const { assert!(RD_OUTSTANDING == 4, "the owner ring is 4 bits with 2-bit pointers") };
        DmaArb { k_full: param(RD_OUTSTANDING as u64), ..Default::default() }
    }
}

impl Logic for DmaArb {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            owners,
            rd_ptr,
            wr_ptr,
            count,
            rd_last_eng,
            wr_last_eng,
            wr_locked,
            wr_lock_eng,
            rd_held,
            rd_held_eng,
            wr_held,
            wr_held_eng
        );
        // Round robin: the engine unless only the host asks or the engine went last.
        self.rd_pick_eng.next =
            self.eng_rd.val() & (!self.host_rd.val() | !self.rd_last_eng.q.val());
        // A request shown and not taken keeps the port while its master asks.
        if self.rd_held.q.val()
            & ((self.rd_held_eng.q.val() & self.eng_rd.val())
                | (!self.rd_held_eng.q.val() & self.host_rd.val()))
        {
            self.rd_pick_eng.next = self.rd_held_eng.q.val();
        }
        self.rd_full.next = self.count.q.val() == self.k_full.val();
        self.rd_host.next = !self.rd_full.val() & self.host_rd.val() & !self.rd_pick_eng.val();
        self.rd_eng.next = !self.rd_full.val() & self.rd_pick_eng.val();
        self.rd_owned.next = self.count.q.val() != 0;
        self.head.next = self.owners.q.val() >> self.rd_ptr.q.val();
        self.rd_owner_eng.next = self.rd_owned.val() & self.head.val().get_bit(0);

        self.wr_pick_eng.next =
            self.eng_wr.val() & (!self.host_wr.val() | !self.wr_last_eng.q.val());
        if self.wr_held.q.val()
            & ((self.wr_held_eng.q.val() & self.eng_wr.val())
                | (!self.wr_held_eng.q.val() & self.host_wr.val()))
        {
            self.wr_pick_eng.next = self.wr_held_eng.q.val();
        }
        self.wr_host.next = self.host_wr.val() & !self.wr_pick_eng.val();
        self.wr_eng.next = self.wr_pick_eng.val();
        if self.wr_locked.q.val() {
            self.wr_host.next = !self.wr_lock_eng.q.val();
            self.wr_eng.next = self.wr_lock_eng.q.val();
        }

        // The owner ring: the oldest leaves with its last beat, the new request joins.
        self.rd_req.next = (self.rd_host.val() | self.rd_eng.val()) & self.rd_ready.val();
        if self.rd_done.val() {
            self.rd_ptr.d.next = self.rd_ptr.q.val() + 1;
        }
        if self.rd_req.val() {
            self.owners.d.next = self.owners.q.val() & !(bits::<4>(1) << self.wr_ptr.q.val());
            if self.rd_eng.val() {
                self.owners.d.next = self.owners.q.val() | (bits::<4>(1) << self.wr_ptr.q.val());
            }
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
            self.rd_last_eng.d.next = self.rd_eng.val();
        }
        if self.rd_req.val() & !self.rd_done.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        if !self.rd_req.val() & self.rd_done.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
        self.rd_held.d.next = (self.rd_host.val() | self.rd_eng.val()) & !self.rd_ready.val();
        self.rd_held_eng.d.next = self.rd_eng.val();
        self.wr_held.d.next = ((self.wr_host.val() & self.host_wr.val())
            | (self.wr_eng.val() & self.eng_wr.val()))
            & !self.wr_take.val();
        self.wr_held_eng.d.next = self.wr_eng.val();
        if self.wr_take.val() {
            self.wr_last_eng.d.next = self.wr_eng.val();
            self.wr_locked.d.next = !self.wr_last.val();
            self.wr_lock_eng.d.next = self.wr_eng.val();
        }
        if self.reset.val() {
            self.owners.d.next = 0.into();
            self.rd_ptr.d.next = 0.into();
            self.wr_ptr.d.next = 0.into();
            self.count.d.next = 0.into();
            self.rd_last_eng.d.next = false;
            self.wr_last_eng.d.next = false;
            self.wr_locked.d.next = false;
            self.wr_lock_eng.d.next = false;
            self.rd_held.d.next = false;
            self.wr_held.d.next = false;
        }
    }
}
