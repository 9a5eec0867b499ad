//! Where the parser is in the current message: the beat counter and what follows from it.
//!
//! # Ports
//! - `accept` (in): a beat is taken at the coming edge; `last` (in): it is the message's last.
//! - `keep` (in): the beat's byte enables (only the last beat's matter).
//! - `first5` (out, registered): one-hot, the beat is beat 0, 1, 2, 3 or 4 (all clear from
//!   beat 5 on), so no comparator sits in front of the parser's word and check selects.
//! - `part` (out): the beat holds fewer than 8 bytes (`keep[7]` clear).
//! - `got` (out): bytes of the message up to and including this beat, were it the last:
//!   `8 × beat + bytes`, a concatenation (a registered `beat + 1` for full beats), no adder.
//! - `keep_norm` (out): the beat's byte enables made contiguous from byte 0 (0xFF when full).
//! - `long` (out): the message is longer than the buffer: more than `buf_size / 8` beats
//!   came before this one, or exactly that many and this one keeps a byte (a last beat may
//!   keep none).
//!
//! The counter restarts at every `last` and saturates one beat past the longest legal
//! message (`ParserParams::max_beats`), so a message of any length leaves it in step.

use rust_hdl::prelude::*;
use sanswitch_model::params::{BEAT_BITS, ParserParams};

/// `BEAT_BITS` as a `usize` for const generics.
pub const BEAT_BITS_U: usize = BEAT_BITS as usize;

#[derive(LogicBlock)]
pub struct BeatTracker {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub accept: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub keep: Signal<In, Bits<8>>,
    pub first5: Signal<Out, Bits<5>>,
    pub part: Signal<Out, Bit>,
    pub got: Signal<Out, Bits<17>>,
    pub keep_norm: Signal<Out, Bits<8>>,
    pub long: Signal<Out, Bit>,
    beat: DFF<Bits<BEAT_BITS_U>>,
    /// Always `beat + 1`, so the byte count needs no adder.
    beat_p1: DFFWithInit<Bits<BEAT_BITS_U>>,
    onehot: DFFWithInit<Bits<5>>,
    long_r: DFF<Bit>,
    /// The beat is beat `buf_size / 8`: long if it keeps any byte.
    edge_r: DFF<Bit>,
    c_bs8: Constant<Bits<BEAT_BITS_U>>,
    c_max_beats: Constant<Bits<BEAT_BITS_U>>,
    c_one: Constant<Bits<8>>,
    /// Bytes of a partial last beat: the index of the highest kept byte plus one (0..=7).
    last_bytes: Signal<Local, Bits<3>>,
}

impl BeatTracker {
    pub fn new(p: &ParserParams) -> Self {
        BeatTracker {
            clock: Default::default(),
            reset: Default::default(),
            accept: Default::default(),
            last: Default::default(),
            keep: Default::default(),
            first5: Default::default(),
            part: Default::default(),
            got: Default::default(),
            keep_norm: Default::default(),
            long: Default::default(),
            beat: Default::default(),
            beat_p1: DFFWithInit::new(1.into()),
            onehot: DFFWithInit::new(1.into()),
            long_r: Default::default(),
            edge_r: Default::default(),
            c_bs8: Constant::new((p.buf_size as u64 / 8).into()),
            c_max_beats: Constant::new((p.max_beats() as u64).into()),
            c_one: Constant::new(1.into()),
            last_bytes: Default::default(),
        }
    }
}

impl Logic for BeatTracker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat, beat_p1, onehot, long_r, edge_r);
        self.part.next = !self.keep.val().get_bit(7);
        self.last_bytes.next = 0.into();
        // A priority encoder: the highest kept byte wins.
        if self.keep.val().get_bit(0) {
            self.last_bytes.next = 1.into();
        }
        if self.keep.val().get_bit(1) {
            self.last_bytes.next = 2.into();
        }
        if self.keep.val().get_bit(2) {
            self.last_bytes.next = 3.into();
        }
        if self.keep.val().get_bit(3) {
            self.last_bytes.next = 4.into();
        }
        if self.keep.val().get_bit(4) {
            self.last_bytes.next = 5.into();
        }
        if self.keep.val().get_bit(5) {
            self.last_bytes.next = 6.into();
        }
        if self.keep.val().get_bit(6) {
            self.last_bytes.next = 7.into();
        }
        self.keep_norm.next = 0xFF.into();
        if self.part.val() {
            self.keep_norm.next = (self.c_one.val() << self.last_bytes.val()) - self.c_one.val();
        }
        self.got.next = (bit_cast::<17, BEAT_BITS_U>(self.beat.q.val()) << 3)
            | bit_cast::<17, 3>(self.last_bytes.val());
        if !self.part.val() {
            self.got.next = bit_cast::<17, BEAT_BITS_U>(self.beat_p1.q.val()) << 3;
        }
        if self.accept.val() {
            if self.last.val() {
                self.beat.d.next = 0.into();
                self.beat_p1.d.next = 1.into();
                self.onehot.d.next = 1.into();
                self.long_r.d.next = false;
                self.edge_r.d.next = false;
            } else if self.beat.q.val() < self.c_max_beats.val() {
                self.beat.d.next = self.beat_p1.q.val();
                self.beat_p1.d.next = self.beat_p1.q.val() + 1;
                self.onehot.d.next = self.onehot.q.val() << 1;
                self.long_r.d.next = self.beat_p1.q.val() > self.c_bs8.val();
                self.edge_r.d.next = self.beat_p1.q.val() == self.c_bs8.val();
            }
        }
        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.beat_p1.d.next = 1.into();
            self.onehot.d.next = 1.into();
            self.long_r.d.next = false;
            self.edge_r.d.next = false;
        }
        self.first5.next = self.onehot.q.val();
        self.long.next = self.long_r.q.val() | (self.edge_r.q.val() & self.keep.val().any());
    }
}

/// A test of the tests, never hardware: the parser's Verilog `v` (as [`crate::verilog`]
/// writes it) with the reset of `beat_p1` left out of the beat tracker, so the register keeps
/// its power-up value (random under Verilator's `--x-initial unique`) until the first message
/// ends. The next message's byte count (`got`), and so its header record's `error`, then
/// depends on that value. The co-simulation builds this variant as `parser_noreset` and
/// checks that the lockstep catches it (`sim/tests/lockstep_parser.rs`). The default Verilog
/// is untouched: the flaw is applied to the text, and only here.
///
/// # Panics
/// If the reset block of `beat_p1` is not where it was when this was written (the edit must
/// remove exactly one line, or the test would prove nothing).
#[doc(hidden)]
pub fn drop_beat_p1_reset(v: &str) -> String {
    const MODULE: &str = "module parser$beat(";
    const RESET: &str = "if (reset) begin";
    const LINE: &str = "beat_p1$d = 32'h1;";
    let m = v.find(MODULE).expect("the beat tracker's module in the parser's Verilog");
    let end = m + v[m..].find("endmodule").expect("its end");
    let r = m + v[m..end].find(RESET).expect("its reset block");
    let block_end = r + v[r..end].find("\n        end\n").expect("the end of its reset block");
    let l = r + v[r..block_end].find(LINE).expect("beat_p1 in its reset block");
    let line_start = v[..l].rfind('\n').expect("a line") + 1;
    let line_end = l + v[l..].find('\n').expect("a line end") + 1;
    assert_eq!(v[line_start..line_end].trim(), LINE, "one whole line is removed");
    format!("{}{}", &v[..line_start], &v[line_end..])
}
