//! A control message's header as the builder sends it: two 64-bit words (the model's
//! `controller::hdr_word0` and `hdr_word1`, the wire format of `sanswitch_model::wire`),
//! combinational.
//!
//! # Ports
//! - `mid`, `flags`, `bufs`, `len` (in): word 0 (message id, flags, our posted receive
//!   buffers, the message's length in bytes).
//! - `mseq`, `ack` (in): word 1 (its sequence number, the last one received).
//! - `w0`, `w1` (out): the words.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct HdrWords {
    pub mid: Signal<In, Bits<8>>,
    pub flags: Signal<In, Bits<8>>,
    pub bufs: Signal<In, Bits<16>>,
    pub len: Signal<In, Bits<32>>,
    pub mseq: Signal<In, Bits<32>>,
    pub ack: Signal<In, Bits<32>>,
    pub w0: Signal<Out, Bits<64>>,
    pub w1: Signal<Out, Bits<64>>,
}

impl Logic for HdrWords {
    #[hdl_gen]
    fn update(&mut self) {
        self.w0.next = bit_cast::<64, 8>(self.mid.val())
            | (bit_cast::<64, 8>(self.flags.val()) << 8)
            | (bit_cast::<64, 16>(self.bufs.val()) << 16)
            | (bit_cast::<64, 32>(self.len.val()) << 32);
        self.w1.next =
            bit_cast::<64, 32>(self.mseq.val()) | (bit_cast::<64, 32>(self.ack.val()) << 32);
    }
}
