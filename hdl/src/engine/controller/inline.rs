//! A LargeSend's inline bytes (the model's `endpoint::inline_len`), combinational: what one
//! of the peer's receive buffers takes after the LargeSend's fixed part, but never the whole
//! send (a zero-copy transfer always moves at least its last byte).
//!
//! # Ports
//! - `peer_read` (in): the peer reads (the fixed part carries the descriptor of the rest).
//! - `peer_buf` (in): the peer's receive-buffer size in bytes (from Hello).
//! - `len` (in): the send's length (at least 1: a zero-copy send is over the threshold).
//! - `fixed` (out): the LargeSend's fixed bytes (`wire::Layout::fixed_bytes`).
//! - `inline_len` (out): `min(peer_buf - fixed, len - 1)`, 0 when the buffer holds no more than
//!   the fixed part.

use rust_hdl::prelude::*;
use sanswitch_model::wire::{Kind, Layout};

use crate::widgets::{Param, param};

#[derive(LogicBlock)]
pub struct CtlInline {
    pub peer_read: Signal<In, Bit>,
    pub peer_buf: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<32>>,
    pub fixed: Signal<Out, Bits<32>>,
    pub inline_len: Signal<Out, Bits<32>>,
    k_fixed_copy: Param<Bits<32>>,
    k_fixed_read: Param<Bits<32>>,
    room: Signal<Local, Bits<32>>,
}

impl Default for CtlInline {
    fn default() -> Self {
        let fixed = |with_desc| param(Layout::of(Kind::LargeSend).fixed_bytes(with_desc) as u64);
        CtlInline {
            peer_read: Default::default(),
            peer_buf: Default::default(),
            len: Default::default(),
            fixed: Default::default(),
            inline_len: Default::default(),
            k_fixed_copy: fixed(false),
            k_fixed_read: fixed(true),
            room: Default::default(),
        }
    }
}

impl Logic for CtlInline {
    #[hdl_gen]
    fn update(&mut self) {
        self.fixed.next = self.k_fixed_copy.val();
        if self.peer_read.val() {
            self.fixed.next = self.k_fixed_read.val();
        }
        self.room.next = 0.into();
        if self.peer_buf.val() > self.fixed.val() {
            self.room.next = self.peer_buf.val() - self.fixed.val();
        }
        self.inline_len.next = self.len.val() - 1;
        if self.room.val() < self.inline_len.val() {
            self.inline_len.next = self.room.val();
        }
    }
}
