//! Up to 32 event counters of 32 bits in LUT RAM, one increment per cycle, one read port.
//!
//! One adder serves the whole bank: the counter to bump is read from one copy of the RAM, its
//! successor written back at the edge, while a second copy (same writes, own read address)
//! serves the read port, as a dual-port distributed RAM does. A synchronous reset cannot
//! clear a RAM in one cycle, so each counter has a "live" flip-flop: a counter that is not
//! live reads 0 and its next increment writes 1.
//!
//! # Ports
//! - `inc`, `inc_index` (in): count one event of counter `inc_index`; an index at or past
//!   `len` is ignored. The event is registered first (so the block's deepest logic, often
//!   what decides which counter counts, does not run into the RAM and the adder): an event
//!   during cycle `t` is in the counter after edge `t + 2`.
//! - `rd_index` (in), `rd_data` (out, registered): during cycle `t + 1`, the value after edge
//!   `t` of the counter named during cycle `t` (an increment landing at edge `t + 1` shows a
//!   cycle later: no forwarding logic for a monitoring port); 0 for an index at or past `len`.
//! - `reset` (in): synchronous; every counter reads 0 afterwards.
//!
//! Model: `sanswitch_model::blocks::widgets::CounterBank`.

use rust_hdl::prelude::*;
use sanswitch_model::params::CNT_INDEX_BITS;

use super::{LutRam, Param, param};

/// `CNT_INDEX_BITS` as a `usize` for const generics.
pub const IDX: usize = CNT_INDEX_BITS as usize;

#[derive(LogicBlock, Default)]
pub struct CounterBank {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub inc: Signal<In, Bit>,
    pub inc_index: Signal<In, Bits<IDX>>,
    pub rd_index: Signal<In, Bits<IDX>>,
    pub rd_data: Signal<Out, Bits<32>>,
    count_ram: LutRam<Bits<32>, IDX>,
    read_ram: LutRam<Bits<32>, IDX>,
    live: DFF<Bits<32>>,
    rd: DFF<Bits<32>>,
    inc_r: DFF<Bit>,
    index_r: DFF<Bits<IDX>>,
    c_len: Param<Bits<6>>,
    c_live_mask: Param<Bits<32>>,
    bump: Signal<Local, Bit>,
    next: Signal<Local, Bits<32>>,
}

impl CounterBank {
    /// A bank of `len` counters (1..=32).
    pub fn new(len: usize) -> Self {
        assert!((1..=1 << IDX).contains(&len), "a counter bank has 1 to 32 counters");
        CounterBank {
            c_len: param(len as u64),
            c_live_mask: param(((1u64 << len) - 1) & 0xFFFF_FFFF),
            ..Default::default()
        }
    }
}

impl Logic for CounterBank {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live, rd, inc_r, index_r);
        self.inc_r.d.next = self.inc.val();
        self.index_r.d.next = self.inc_index.val();
        self.count_ram.write_clock.next = self.clock.val();
        self.read_ram.write_clock.next = self.clock.val();
        self.count_ram.read_address.next = self.index_r.q.val();
        self.read_ram.read_address.next = self.rd_index.val();

        self.bump.next =
            self.inc_r.q.val() & (bit_cast::<6, IDX>(self.index_r.q.val()) < self.c_len.val());
        self.next.next = 1.into();
        if self.live.q.val().get_bit(self.index_r.q.val().index()) {
            self.next.next = self.count_ram.read_data.val() + 1;
        }
        self.count_ram.write_address.next = self.index_r.q.val();
        self.count_ram.write_data.next = self.next.val();
        self.count_ram.write_enable.next = self.bump.val();
        self.read_ram.write_address.next = self.index_r.q.val();
        self.read_ram.write_data.next = self.next.val();
        self.read_ram.write_enable.next = self.bump.val();
        // Masked to the bank's size, so that the live bits of counters past `len` are
        // constant zero and synthesis removes them and their share of the multiplexers.
        if self.bump.val() {
            self.live.d.next = self.live.q.val().replace_bit(self.index_r.q.val().index(), true)
                & self.c_live_mask.val();
        }

        self.rd.d.next = 0.into();
        if self.live.q.val().get_bit(self.rd_index.val().index()) {
            self.rd.d.next = self.read_ram.read_data.val();
        }

        if self.reset.val() {
            self.live.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.inc_r.d.next = false;
            self.index_r.d.next = 0.into();
        }
        self.rd_data.next = self.rd.q.val();
    }
}
