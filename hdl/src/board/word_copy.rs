//! The SAN loopback's copy of a byte range between two node memories, word by word through
//! their word ports: the part of [`RdmaCopy`](super::RdmaCopy)'s `Copy` step. Model: the
//! `Copy` arm of `sanswitch_model::blocks::san_loop::RdmaCopy`.
//!
//! # Ports
//! - `start` (in): take a copy at this edge: source `s`, destination `d`, `n` bytes (`n` > 0,
//!   both ranges inside the memories: the caller checks), `write` (the source is the
//!   initiator's memory, the destination the target's; else the other way).
//! - `m_imem_*`, `m_tmem_*` (out: `valid`, `write`, `index`, `wdata`, `wmask`; in: `ready`,
//!   `rdata`): the word ports, as `RdmaCopy`'s. The `valid`s depend on registers only.
//! - `done` (out): the copy's last word is written this cycle (combinational from the
//!   destination's `ready`).
//! - `reset` (in): synchronous; no copy.
//!
//! # How
//! Destination word `w` is bytes `shift..shift + 8` of the source words `k`, `k + 1` side
//! by side (`shift = (s - d) mod 8`): the source words are read in order from the one
//! holding byte `s - d mod 8` (the first read only primes `prev`; a word outside the
//! memory, whose bytes are all masked out, wraps inside), each making the next destination
//! word, written with the bytes of `d..d + n` in its mask. A word is read, arrives (the
//! memory answers a cycle after the grant), is written: three cycles a word while the ports
//! are free.

use rust_hdl::prelude::*;

use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct WordCopy {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub s: Signal<In, Bits<64>>,
    pub d: Signal<In, Bits<64>>,
    pub n: Signal<In, Bits<64>>,
    pub write: Signal<In, Bit>,
    pub m_imem_ready: Signal<In, Bit>,
    pub m_imem_rdata: Signal<In, Bits<64>>,
    pub m_tmem_ready: Signal<In, Bit>,
    pub m_tmem_rdata: Signal<In, Bits<64>>,
    pub m_imem_valid: Signal<Out, Bit>,
    pub m_imem_write: Signal<Out, Bit>,
    pub m_imem_index: Signal<Out, Bits<16>>,
    pub m_imem_wdata: Signal<Out, Bits<64>>,
    pub m_imem_wmask: Signal<Out, Bits<8>>,
    pub m_tmem_valid: Signal<Out, Bit>,
    pub m_tmem_write: Signal<Out, Bit>,
    pub m_tmem_index: Signal<Out, Bits<16>>,
    pub m_tmem_wdata: Signal<Out, Bits<64>>,
    pub m_tmem_wmask: Signal<Out, Bits<8>>,
    pub done: Signal<Out, Bit>,
    /// Copying; its direction.
    active: DFF<Bit>,
    to_t: DFF<Bit>,
    /// The next source word to read, the next destination word to write, the destination
    /// words not yet made, the byte shift, the first and last words' masks, whether the
    /// first read is in, the word read before, the word made and not yet written, a read
    /// granted last cycle.
    src: DFF<Bits<16>>,
    dst: DFF<Bits<16>>,
    left: DFF<Bits<16>>,
    shift: DFF<Bits<3>>,
    first: DFF<Bit>,
    mask_lo: DFF<Bits<8>>,
    mask_hi: DFF<Bits<8>>,
    primed: DFF<Bit>,
    prev: DFF<Bits<64>>,
    pend: DFF<Bits<64>>,
    pend_v: DFF<Bit>,
    rd_fly: DFF<Bit>,
    last_byte: Signal<Local, Bits<64>>,
    d0: Signal<Local, Bits<3>>,
    s0: Signal<Local, Bits<3>>,
    e0: Signal<Local, Bits<3>>,
    /// This cycle's requests, before they go to the memory they are for.
    rd_req: Signal<Local, Bit>,
    wr_req: Signal<Local, Bit>,
    wr_mask: Signal<Local, Bits<8>>,
    src_grant: Signal<Local, Bit>,
    dst_grant: Signal<Local, Bit>,
    rdata: Signal<Local, Bits<64>>,
    both: Signal<Local, Bits<128>>,
    sh: Signal<Local, Bits<8>>,
    made: Signal<Local, Bits<128>>,
    k_index_mask: Param<Bits<16>>,
    k_ff: Param<Bits<8>>,
    k_seven: Param<Bits<3>>,
}

impl WordCopy {
    /// A copy between memories of `words` 64-bit words (a power of two, at most 32768).
    pub fn new(words: usize) -> Self {
        assert!(words.is_power_of_two() && words <= 1 << 15);
        WordCopy {
            k_index_mask: param(words as u64 - 1),
            k_ff: param(0xFF),
            k_seven: param(7),
            ..Default::default()
        }
    }
}

impl Logic for WordCopy {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, active, to_t, src, dst, left, shift, first, mask_lo, mask_hi, primed,
            prev, pend, pend_v, rd_fly
        );
        self.last_byte.next = self.d.val() + self.n.val() - 1;
        self.d0.next = self.d.val().get_bits::<3>(0);
        self.s0.next = self.s.val().get_bits::<3>(0);
        self.e0.next = self.last_byte.val().get_bits::<3>(0);
        // A made word first, else the next source word.
        self.wr_req.next = self.active.q.val() & self.pend_v.q.val();
        self.rd_req.next = self.active.q.val()
            & !self.pend_v.q.val()
            & !self.rd_fly.q.val()
            & self.left.q.val().any();
        self.wr_mask.next = self.k_ff.val();
        if self.first.q.val() {
            self.wr_mask.next = self.mask_lo.q.val();
        }
        if !self.left.q.val().any() {
            self.wr_mask.next = self.wr_mask.val() & self.mask_hi.q.val();
        }
        self.m_imem_valid.next = false;
        self.m_imem_write.next = false;
        self.m_imem_index.next = 0.into();
        self.m_imem_wdata.next = 0.into();
        self.m_imem_wmask.next = 0.into();
        self.m_tmem_valid.next = false;
        self.m_tmem_write.next = false;
        self.m_tmem_index.next = 0.into();
        self.m_tmem_wdata.next = 0.into();
        self.m_tmem_wmask.next = 0.into();
        if self.to_t.q.val() {
            // Initiator to target (an RDMA write).
            if self.rd_req.val() {
                self.m_imem_valid.next = true;
                self.m_imem_index.next = self.src.q.val() & self.k_index_mask.val();
            }
            if self.wr_req.val() {
                self.m_tmem_valid.next = true;
                self.m_tmem_write.next = true;
                self.m_tmem_index.next = self.dst.q.val();
                self.m_tmem_wdata.next = self.pend.q.val();
                self.m_tmem_wmask.next = self.wr_mask.val();
            }
            self.src_grant.next = self.m_imem_ready.val();
            self.dst_grant.next = self.m_tmem_ready.val();
            self.rdata.next = self.m_imem_rdata.val();
        } else {
            if self.rd_req.val() {
                self.m_tmem_valid.next = true;
                self.m_tmem_index.next = self.src.q.val() & self.k_index_mask.val();
            }
            if self.wr_req.val() {
                self.m_imem_valid.next = true;
                self.m_imem_write.next = true;
                self.m_imem_index.next = self.dst.q.val();
                self.m_imem_wdata.next = self.pend.q.val();
                self.m_imem_wmask.next = self.wr_mask.val();
            }
            self.src_grant.next = self.m_tmem_ready.val();
            self.dst_grant.next = self.m_imem_ready.val();
            self.rdata.next = self.m_tmem_rdata.val();
        }
        self.both.next =
            (bit_cast::<128, 64>(self.rdata.val()) << 64) | bit_cast::<128, 64>(self.prev.q.val());
        self.sh.next = bit_cast::<8, 3>(self.shift.q.val()) << 3;
        self.made.next = self.both.val() >> self.sh.val();
        self.done.next = false;
        if self.active.q.val() {
            if self.rd_fly.q.val() {
                self.rd_fly.d.next = false;
                if self.primed.q.val() {
                    self.pend.d.next = self.made.val().get_bits::<64>(0);
                    self.pend_v.d.next = true;
                    self.left.d.next = self.left.q.val() - 1;
                }
                self.primed.d.next = true;
                self.prev.d.next = self.rdata.val();
            } else if self.pend_v.q.val() {
                if self.dst_grant.val() {
                    self.pend_v.d.next = false;
                    self.first.d.next = false;
                    self.dst.d.next = self.dst.q.val() + 1;
                    if !self.left.q.val().any() {
                        self.active.d.next = false;
                        self.done.next = true;
                    }
                }
            } else if self.left.q.val().any() & self.src_grant.val() {
                self.rd_fly.d.next = true;
                self.src.d.next = self.src.q.val() + 1;
            }
        }
        if self.start.val() {
            self.active.d.next = true;
            self.to_t.d.next = self.write.val();
            self.src.d.next = self.s.val().get_bits::<16>(3)
                - bit_cast::<16, 1>((self.s0.val() < self.d0.val()).into());
            self.dst.d.next = self.d.val().get_bits::<16>(3);
            self.left.d.next =
                self.last_byte.val().get_bits::<16>(3) - self.d.val().get_bits::<16>(3) + 1;
            self.shift.d.next = self.s0.val() - self.d0.val();
            self.first.d.next = true;
            self.mask_lo.d.next = self.k_ff.val() << bit_cast::<8, 3>(self.d0.val());
            self.mask_hi.d.next =
                self.k_ff.val() >> bit_cast::<8, 3>(self.k_seven.val() - self.e0.val());
            self.primed.d.next = false;
            self.pend_v.d.next = false;
            self.rd_fly.d.next = false;
        }
        if self.reset.val() {
            self.active.d.next = false;
            self.pend_v.d.next = false;
            self.rd_fly.d.next = false;
        }
    }
}
