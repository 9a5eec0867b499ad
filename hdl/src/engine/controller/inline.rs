//! A LargeSend's inline bytes (the model's `endpoint::inline_len`), combinational: what one
//! of the peer's receive buffers takes after the LargeSend's fixed part, but never the whole
//! send (a zero-copy transfer always moves at least its last byte).
//!
//! # Ports
//! - `peer_read` (in): the peer reads (the fixed part carries the descriptor of the rest).
//! - `peer_room` (in): what a Data message's payload may fill of the peer's receive
//!   buffers (`ConnWord::peer_room`: the size from Hello less a Data message's fixed
//!   bytes, 0 if no more). A LargeSend's fixed part is at least a Data message's, so its
//!   room is `peer_room` less the difference, and 0 exactly where the size's would be.
//! - `len` (in): the send's length (at least 1: a zero-copy send is over the threshold).
//! - `fixed` (out): the LargeSend's fixed bytes (`wire::Layout::fixed_bytes`).
//! - `inline_len` (out): `min(size - fixed, len - 1)`, 0 when the buffer holds no more than
//!   the fixed part.

use rust_hdl::prelude::*;
use sanswitch_model::wire::{Kind, Layout};

use crate::widgets::{Param, param};

#[derive(LogicBlock)]
pub struct CtlInline {
    pub peer_read: Signal<In, Bit>,
    pub peer_room: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<32>>,
    pub fixed: Signal<Out, Bits<32>>,
    pub inline_len: Signal<Out, Bits<32>>,
    k_fixed_copy: Param<Bits<32>>,
    k_fixed_read: Param<Bits<32>>,
    /// The LargeSend's fixed bytes less a Data message's, without and with the descriptor.
    k_more_copy: Param<Bits<32>>,
    k_more_read: Param<Bits<32>>,
    more: Signal<Local, Bits<32>>,
    room: Signal<Local, Bits<32>>,
}

impl Default for CtlInline {
    fn default() -> Self {
        let ls = |with_desc| Layout::of(Kind::LargeSend).fixed_bytes(with_desc) as u64;
        let data = Layout::of(Kind::Data).fixed_bytes(false) as u64;
        let fixed = |with_desc| param(ls(with_desc));
        let more = |with_desc| {
            param(
                ls(with_desc)
                    .checked_sub(data)
                    .expect("a LargeSend's fixed part is at least a Data message's"),
            )
        };
        CtlInline {
            peer_read: Default::default(),
            peer_room: Default::default(),
            len: Default::default(),
            fixed: Default::default(),
            inline_len: Default::default(),
            k_fixed_copy: fixed(false),
            k_fixed_read: fixed(true),
            k_more_copy: more(false),
            k_more_read: more(true),
            more: Default::default(),
            room: Default::default(),
        }
    }
}

impl Logic for CtlInline {
    #[hdl_gen]
    fn update(&mut self) {
        self.fixed.next = self.k_fixed_copy.val();
        self.more.next = self.k_more_copy.val();
        if self.peer_read.val() {
            self.fixed.next = self.k_fixed_read.val();
            self.more.next = self.k_more_read.val();
        }
        self.room.next = 0.into();
        if self.peer_room.val() > self.more.val() {
            self.room.next = self.peer_room.val() - self.more.val();
        }
        self.inline_len.next = self.len.val() - 1;
        if self.room.val() < self.inline_len.val() {
            self.inline_len.next = self.room.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sanswitch_model::endpoint::inline_len;

    /// The inline length from the kept room equals the model's from the buffer size, at
    /// every size from none to past both fixed parts and at the lengths around each room.
    #[test]
    fn inline_len_from_the_kept_room_is_the_models_from_the_size() {
        let mut b = CtlInline::default();
        b.connect_all();
        let data = Layout::of(Kind::Data).fixed_bytes(false) as u32;
        let top = Layout::of(Kind::LargeSend).fixed_bytes(true) as u32 + 4;
        for read in [false, true] {
            let fixed = Layout::of(Kind::LargeSend).fixed_bytes(read) as u32;
            for size in 0..=top {
                let room = size.saturating_sub(fixed);
                for len in [1, 2, room, room + 1, room + 2, 1 << 20] {
                    if len == 0 {
                        continue;
                    }
                    b.peer_read.next = read;
                    b.peer_room.next = (size.saturating_sub(data) as u64).into();
                    b.len.next = (len as u64).into();
                    assert!(simulate(&mut b, 100));
                    let want = inline_len(read, size, len as usize) as u64;
                    let got = b.inline_len.val().index() as u64;
                    assert_eq!(got, want, "read {read} size {size} len {len}");
                    assert_eq!(b.fixed.val().index() as u32, fixed);
                }
            }
        }
    }
}
