//! The registration table: which regions of local memory the peer or this side may use.
//!
//! Each entry is split by who needs it when: `valid` and `conn` ([`RegTag`]) live in
//! flip-flops, so the free-slot search, an abort's release of every entry of a connection
//! and a check's connection test need no RAM port; key, access, base and length
//! ([`RegRec`]) live in a 32-word RAM read by the command unit (the remote-access checker
//! keeps its own copy, written through `we`/`wrec`).
//!
//! # Ports
//! - `index` (in) → `rec` (out): the RAM word the command unit reads, one edge later (a
//!   synchronous read).
//! - `tag_index` (in) → `tag` (out): an entry's flip-flop half, same cycle.
//! - `ck_index` (in) → `ck_tag` (out): the checker's look-up, same cycle.
//! - `free_any`, `free_slot` (out): whether an entry is free, and the lowest one.
//! - `reg`, `dereg`, `abort` (in) with `slot`, `w_conn`, `w_access`, `w_addr`, `w_len`:
//!   the command unit's writes, at the edge. A registration takes key `new_key`
//!   (out: `knext | slot`, where `knext` steps by the table size at every registration so
//!   that a key names its slot and a reused slot gets a new key); an abort frees every entry
//!   of connection `w_conn`.
//! - `we`, `wrec` (out): the RAM write of this cycle, for the checker's copy.
//! - `reset` (in): synchronous; every entry invalid, `knext` back to its first value. The
//!   RAM is not cleared (an invalid entry's word is never believed) and not written.

use rust_hdl::prelude::*;

use super::{RegRec, RegTag};
use crate::widgets::{Param, param};

#[derive(LogicBlock)]
pub struct RegTable {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub index: Signal<In, Bits<5>>,
    pub tag_index: Signal<In, Bits<5>>,
    pub ck_index: Signal<In, Bits<5>>,
    pub reg_en: Signal<In, Bit>,
    pub dereg_en: Signal<In, Bit>,
    pub abort_en: Signal<In, Bit>,
    pub slot: Signal<In, Bits<5>>,
    pub w_conn: Signal<In, Bits<8>>,
    pub w_access: Signal<In, Bits<2>>,
    pub w_addr: Signal<In, Bits<64>>,
    pub w_len: Signal<In, Bits<32>>,
    pub tag: Signal<Out, RegTag>,
    pub rec: Signal<Out, RegRec>,
    pub ck_tag: Signal<Out, RegTag>,
    pub free_any: Signal<Out, Bit>,
    pub free_slot: Signal<Out, Bits<5>>,
    pub new_key: Signal<Out, Bits<32>>,
    pub we: Signal<Out, Bit>,
    pub wrec: Signal<Out, RegRec>,
    valid: Vec<DFF<Bit>>,
    conn: Vec<DFF<Bits<8>>>,
    ram: RAM<RegRec, 5>,
    knext: DFFWithInit<Bits<32>>,
    k_step: Param<Bits<32>>,
    k_idx: Vec<Param<Bits<5>>>,
    k_tag_zero: Param<RegTag>,
    /// Some entry below `j` is free (the priority chain of the free-slot search).
    lower_free: Vec<Signal<Local, Bit>>,
}

impl RegTable {
    /// A table of `entries` entries (a power of two, at most 32).
    pub fn new(entries: usize) -> Self {
        RegTable {
            valid: (0..entries).map(|_| Default::default()).collect(),
            conn: (0..entries).map(|_| Default::default()).collect(),
            knext: DFFWithInit::new((entries as u64).into()),
            k_step: param(entries as u64),
            k_idx: (0..entries).map(|j| param(j as u64)).collect(),
            lower_free: (0..=entries).map(|_| Default::default()).collect(),
            clock: Default::default(),
            reset: Default::default(),
            index: Default::default(),
            tag_index: Default::default(),
            ck_index: Default::default(),
            reg_en: Default::default(),
            dereg_en: Default::default(),
            abort_en: Default::default(),
            slot: Default::default(),
            w_conn: Default::default(),
            w_access: Default::default(),
            w_addr: Default::default(),
            w_len: Default::default(),
            tag: Default::default(),
            rec: Default::default(),
            ck_tag: Default::default(),
            free_any: Default::default(),
            free_slot: Default::default(),
            new_key: Default::default(),
            we: Default::default(),
            wrec: Default::default(),
            ram: Default::default(),
            k_tag_zero: Default::default(),
        }
    }
}

/// A table of the largest size, 32 entries.
impl Default for RegTable {
    fn default() -> Self {
        Self::new(32)
    }
}

impl Logic for RegTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, knext);
        for j in 0..self.valid.len() {
            self.valid[j].clock.next = self.clock.val();
            self.valid[j].d.next = self.valid[j].q.val();
            self.conn[j].clock.next = self.clock.val();
            self.conn[j].d.next = self.conn[j].q.val();
        }
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();

        // Look-ups.
        self.ram.read_address.next = self.index.val();
        self.rec.next = self.ram.read_data.val();
        self.tag.next = self.k_tag_zero.val();
        self.ck_tag.next = self.k_tag_zero.val();
        self.lower_free[0].next = false;
        self.free_slot.next = 0.into();
        for j in 0..self.valid.len() {
            if self.tag_index.val() == self.k_idx[j].val() {
                self.tag.next.valid = self.valid[j].q.val();
                self.tag.next.conn = self.conn[j].q.val();
            }
            if self.ck_index.val() == self.k_idx[j].val() {
                self.ck_tag.next.valid = self.valid[j].q.val();
                self.ck_tag.next.conn = self.conn[j].q.val();
            }
            if !self.valid[j].q.val() & !self.lower_free[j].val() {
                self.free_slot.next = self.k_idx[j].val();
            }
            self.lower_free[j + 1].next = self.lower_free[j].val() | !self.valid[j].q.val();
        }
        self.free_any.next = false;
        for j in 0..self.valid.len() {
            self.free_any.next = self.lower_free[j + 1].val();
        }

        // Writes.
        self.new_key.next = self.knext.q.val() | bit_cast::<32, 5>(self.slot.val());
        self.wrec.next.key = self.new_key.val();
        self.wrec.next.access = self.w_access.val();
        self.wrec.next.addr = self.w_addr.val();
        self.wrec.next.len = self.w_len.val();
        self.we.next = self.reg_en.val() & !self.reset.val();
        self.ram.write_address.next = self.slot.val();
        self.ram.write_data.next = self.wrec.val();
        self.ram.write_enable.next = self.we.val();
        if self.reg_en.val() {
            self.knext.d.next = self.knext.q.val() + self.k_step.val();
        }
        for j in 0..self.valid.len() {
            if self.slot.val() == self.k_idx[j].val() {
                if self.reg_en.val() {
                    self.valid[j].d.next = true;
                    self.conn[j].d.next = self.w_conn.val();
                }
                if self.dereg_en.val() {
                    self.valid[j].d.next = false;
                }
            }
            if self.abort_en.val()
                & self.valid[j].q.val()
                & (self.conn[j].q.val() == self.w_conn.val())
            {
                self.valid[j].d.next = false;
            }
        }

        if self.reset.val() {
            self.knext.d.next = self.k_step.val();
            for j in 0..self.valid.len() {
                self.valid[j].d.next = false;
                self.conn[j].d.next = 0.into();
            }
        }
    }
}
