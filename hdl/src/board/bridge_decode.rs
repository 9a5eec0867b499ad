//! The bridge's arithmetic, apart from its sequencing: what the word offered is (as a
//! header, as a memory request's length) and where the memory request at hand stands.
//!
//! # Ports (all combinational)
//! - `d` (in): the request word offered. `is_nop`, `is_rw`, `is_rr`, `is_mem`, `is_mw`,
//!   `is_flush` (out): as a header (`NOP` and `FLUSH` only as the exact words 0x0000 and
//!   0xF000); `d_node_bit` (out): its node bit in place; `d_in_space` (out): its register
//!   offset is inside the register space.
//! - `arg`, `node` (in): the registered header's argument and node; `in_space`, `node_bit`,
//!   `reg_addr` (out): its register offset inside the space, the node bit of a response
//!   header, the 12-bit AXI4-Lite address.
//! - `addr`, `len`, `k`, `nwords`, `ok` (in): the memory request (`k` the word at hand).
//!   `len_ok`, `len_words`, `len_st` (out): with `d` as its length, whether it lies in the
//!   memory, the words it spans, the status header bits; `mem_st` (out): the status bits
//!   of the registered `ok`; `index`, `mask` (out): word `k`'s index in the memory and the
//!   bytes of it the request covers; `last` (out): `k` is the last word.

use rust_hdl::prelude::*;

use sanswitch_model::blocks::hostif::RESP_SLVERR;
use sanswitch_model::bridge::{MemStatus, Op, header};
use sanswitch_model::regs::SPACE_BYTES;

use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct BridgeDecode {
    pub d: Signal<In, Bits<16>>,
    pub arg: Signal<In, Bits<11>>,
    pub node: Signal<In, Bit>,
    pub addr: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<16>>,
    pub k: Signal<In, Bits<16>>,
    pub nwords: Signal<In, Bits<16>>,
    pub ok: Signal<In, Bit>,
    pub is_nop: Signal<Out, Bit>,
    pub is_rw: Signal<Out, Bit>,
    pub is_rr: Signal<Out, Bit>,
    pub is_mem: Signal<Out, Bit>,
    pub is_mw: Signal<Out, Bit>,
    pub is_flush: Signal<Out, Bit>,
    pub d_node_bit: Signal<Out, Bits<16>>,
    pub d_in_space: Signal<Out, Bit>,
    pub in_space: Signal<Out, Bit>,
    pub node_bit: Signal<Out, Bits<16>>,
    pub reg_addr: Signal<Out, Bits<12>>,
    pub len_ok: Signal<Out, Bit>,
    pub len_words: Signal<Out, Bits<16>>,
    pub len_st: Signal<Out, Bits<16>>,
    pub mem_st: Signal<Out, Bits<16>>,
    pub index: Signal<Out, Bits<16>>,
    pub mask: Signal<Out, Bits<8>>,
    pub last: Signal<Out, Bit>,
    /// The status bits of a refused memory request, and `SLVERR`, in a header.
    pub slverr: Signal<Out, Bits<16>>,
    code: Signal<Local, Bits<4>>,
    spanned: Signal<Local, Bits<17>>,
    end3: Signal<Local, Bits<16>>,
    first: Signal<Local, Bits<8>>,
    last_mask: Signal<Local, Bits<8>>,
    c_zero16: Param<Bits<16>>,
    c_one16: Param<Bits<16>>,
    c_seven: Param<Bits<17>>,
    c_seven16: Param<Bits<16>>,
    c_ff: Param<Bits<8>>,
    c_mem_bytes: Param<Bits<33>>,
    c_space_words: Param<Bits<11>>,
    c_rw: Param<Bits<4>>,
    c_rr: Param<Bits<4>>,
    c_mw: Param<Bits<4>>,
    c_mr: Param<Bits<4>>,
    c_flush: Param<Bits<16>>,
    c_node: Param<Bits<16>>,
    c_out_of_range: Param<Bits<16>>,
    c_slverr: Param<Bits<16>>,
}

impl BridgeDecode {
    pub fn new(mem_bytes: u32) -> Self {
        BridgeDecode {
            c_one16: param(1),
            c_seven: param(7),
            c_seven16: param(7),
            c_ff: param(0xFF),
            c_mem_bytes: param(mem_bytes.into()),
            c_space_words: param((SPACE_BYTES / 4).into()),
            c_rw: param(Op::RegWrite as u64),
            c_rr: param(Op::RegRead as u64),
            c_mw: param(Op::MemWrite as u64),
            c_mr: param(Op::MemRead as u64),
            c_flush: param(header(Op::Flush, 0, 0).into()),
            c_node: param(header(Op::Nop, 1, 0).into()),
            c_out_of_range: param(MemStatus::OutOfRange as u64),
            c_slverr: param(RESP_SLVERR.into()),
            ..Default::default()
        }
    }
}

impl Logic for BridgeDecode {
    #[hdl_gen]
    fn update(&mut self) {
        self.code.next = self.d.val().get_bits::<4>(12);
        self.is_nop.next = self.d.val() == self.c_zero16.val();
        self.is_rw.next = self.code.val() == self.c_rw.val();
        self.is_rr.next = self.code.val() == self.c_rr.val();
        self.is_mw.next = self.code.val() == self.c_mw.val();
        self.is_mem.next = self.is_mw.val() | (self.code.val() == self.c_mr.val());
        self.is_flush.next = self.d.val() == self.c_flush.val();
        self.d_node_bit.next = self.d.val() & self.c_node.val();
        self.d_in_space.next = self.d.val().get_bits::<11>(0) < self.c_space_words.val();
        self.in_space.next = self.arg.val() < self.c_space_words.val();
        self.node_bit.next = 0.into();
        if self.node.val() {
            self.node_bit.next = self.c_node.val();
        }
        self.reg_addr.next = bit_cast::<12, 11>(self.arg.val()) << 2;
        self.slverr.next = self.c_slverr.val();
        // With `d` as the length: in the memory, and the words spanned,
        // ((addr mod 8) + len + 7) / 8 (none for a zero length).
        self.len_ok.next = (self.d.val() != self.c_zero16.val())
            & ((bit_cast::<33, 32>(self.addr.val()) + bit_cast::<33, 16>(self.d.val()))
                <= self.c_mem_bytes.val());
        self.spanned.next = (bit_cast::<17, 3>(self.addr.val().get_bits::<3>(0))
            + bit_cast::<17, 16>(self.d.val())
            + self.c_seven.val())
            >> 3;
        self.len_words.next = bit_cast::<16, 17>(self.spanned.val());
        if self.d.val() == self.c_zero16.val() {
            self.len_words.next = 0.into();
        }
        self.len_st.next = 0.into();
        if !self.len_ok.val() {
            self.len_st.next = self.c_out_of_range.val();
        }
        self.mem_st.next = 0.into();
        if !self.ok.val() {
            self.mem_st.next = self.c_out_of_range.val();
        }
        self.index.next = bit_cast::<16, 32>(self.addr.val() >> 3) + self.k.val();
        self.last.next = (self.k.val() + self.c_one16.val()) == self.nwords.val();
        // Word k's bytes: from addr mod 8 in the first, to (addr + len - 1) mod 8 in the last.
        self.first.next = self.c_ff.val();
        if self.k.val() == self.c_zero16.val() {
            self.first.next = self.c_ff.val() << bit_cast::<8, 3>(self.addr.val().get_bits::<3>(0));
        }
        self.end3.next = (bit_cast::<16, 32>(self.addr.val()) + self.len.val()
            - self.c_one16.val())
            & self.c_seven16.val();
        self.last_mask.next = self.c_ff.val();
        if self.last.val() {
            self.last_mask.next =
                self.c_ff.val() >> bit_cast::<8, 16>(self.c_seven16.val() - self.end3.val());
        }
        self.mask.next = self.first.val() & self.last_mask.val();
    }
}
