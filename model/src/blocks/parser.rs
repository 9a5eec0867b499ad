//! Cycle-accurate model of the control-message parser (`hdl/src/parser.rs`).
//!
//! The parser takes the SAN receive stream, one 64-bit beat per cycle, and emits for each
//! message one **header record** (the decoded header, extension and descriptor, and a verdict)
//! and, for messages that carry data, the **payload beats** (toward the receive buffer).
//!
//! Timing, as the HDL does it (cycle `t` is between edges `t` and `t + 1`):
//! - `in_ready` depends only on registered state: it is low while either output's skid slot
//!   is occupied. No combinational path from any output `ready` to `in_ready`.
//! - A beat accepted at edge `t + 1` shows on the payload output during cycle `t + 1`; the
//!   header record of a message whose last beat is accepted at edge `t + 1` shows on the
//!   header output during cycle `t + 1` (latency 1), with the verdict.
//! - Each output has an output register and one skid register, so a stalled output absorbs
//!   the beat already in flight and input throughput stays at one beat per cycle while the
//!   outputs are ready.
//!
//! A malformed message is never delivered as good: its header record carries a non-zero
//! `error` (the `ParseError` counter index + 1) and, if any of its payload was forwarded,
//! its last payload beat carries `bad`, so the receive buffer is discarded. The same checks,
//! in the same order, as `wire::Frame::decode`.

use crate::params::{BEAT_BITS, ParserParams};
use crate::ports::{CycleModel, mask};
use crate::wire::{self, DescRule, Layout, PayloadRule, cap, flag, mid};

crate::ports! {
    /// Parser inputs.
    pub struct ParserIn {
        /// Synchronous reset: clears the message state, the outputs and the counters.
        reset: bool = 1,
        in_valid: bool = 1,
        /// Byte `i` of the beat in bits `[8i+7:8i]`.
        in_data: u64 = 64,
        /// Last beat of the message.
        in_last: bool = 1,
        /// Valid bytes of the last beat, 1 to 7; 0 means all 8. Ignored when `in_last` is low.
        in_last_bytes: u8 = 3,
        /// Connection the message belongs to; sampled with the message's first beat.
        in_conn: u8 = 8,
        hdr_ready: bool = 1,
        pay_ready: bool = 1,
    }
}

crate::ports! {
    /// Parser outputs.
    pub struct ParserOut {
        in_ready: bool = 1,
        /// Header record: one per message, after its last beat.
        hdr_valid: bool = 1,
        hdr_conn: u8 = 8,
        /// 0 for a good message, else `ParseError::index() + 1`.
        hdr_error: u8 = 4,
        hdr_mid: u8 = 8,
        hdr_flags: u8 = 8,
        hdr_bufs: u16 = 16,
        hdr_len: u32 = 32,
        hdr_mseq: u32 = 32,
        hdr_mseq_ack: u32 = 32,
        /// The extension beat, for kinds that have one; else 0.
        hdr_ext: u64 = 64,
        /// The descriptor, when the DESC flag is set on a kind that may carry one; else 0.
        hdr_desc_addr: u64 = 64,
        hdr_desc_key: u32 = 32,
        hdr_desc_len: u32 = 32,
        /// Payload beats of Data and LargeSend messages.
        pay_valid: bool = 1,
        pay_data: u64 = 64,
        pay_last: bool = 1,
        pay_last_bytes: u8 = 3,
        /// On the last payload beat: the message is malformed; discard the buffer.
        pay_bad: bool = 1,
        pay_conn: u8 = 8,
        /// Good messages parsed.
        cnt_good: u32 = 32,
        cnt_truncated: u32 = 32,
        cnt_length_mismatch: u32 = 32,
        cnt_unknown_kind: u32 = 32,
        cnt_reserved_bits: u32 = 32,
        cnt_descriptor_misplaced: u32 = 32,
        cnt_payload_misplaced: u32 = 32,
        cnt_too_long: u32 = 32,
        cnt_bad_field: u32 = 32,
    }
}

impl ParserOut {
    /// The error counters, by `ParseError::index`.
    pub fn error_counters(&self) -> [u32; wire::ParseError::COUNT] {
        [
            self.cnt_truncated,
            self.cnt_length_mismatch,
            self.cnt_unknown_kind,
            self.cnt_reserved_bits,
            self.cnt_descriptor_misplaced,
            self.cnt_payload_misplaced,
            self.cnt_too_long,
            self.cnt_bad_field,
        ]
    }
}

/// A header record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HdrRec {
    pub conn: u8,
    pub error: u8,
    pub mid: u8,
    pub flags: u8,
    pub bufs: u16,
    pub len: u32,
    pub mseq: u32,
    pub mseq_ack: u32,
    pub ext: u64,
    pub desc_addr: u64,
    pub desc_key: u32,
    pub desc_len: u32,
}

/// A payload beat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PayRec {
    pub data: u64,
    pub last: bool,
    pub last_bytes: u8,
    pub bad: bool,
    pub conn: u8,
}

/// An output register with one skid slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skid<T> {
    pub out_valid: bool,
    pub out: T,
    pub skid_valid: bool,
    pub skid: T,
}

impl<T: Copy> Skid<T> {
    /// Clock edge: `ready` is the consumer's, `push` a new entry (only when the skid is free).
    pub fn clock(&mut self, ready: bool, push: Option<T>) {
        if !self.out_valid || ready {
            if self.skid_valid {
                self.out = self.skid;
                self.skid_valid = false;
            } else {
                self.out_valid = push.is_some();
                if let Some(p) = push {
                    self.out = p;
                }
            }
        } else if let Some(p) = push {
            debug_assert!(!self.skid_valid, "in_ready keeps the skid slot free");
            self.skid = p;
            self.skid_valid = true;
        }
    }
}

/// What the wire format says about a message id: the facts the hardware decodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindInfo {
    pub known: bool,
    pub ext: bool,
    pub desc_allowed: bool,
    pub desc_required: bool,
    pub payload_allowed: bool,
    pub payload_required: bool,
    pub urgent_allowed: bool,
}

impl KindInfo {
    pub fn of(m: u8) -> KindInfo {
        match Layout::of_mid(m) {
            None => KindInfo::default(),
            Some(l) => KindInfo {
                known: true,
                ext: l.ext_beats == 1,
                desc_allowed: l.desc != DescRule::Forbidden,
                desc_required: l.desc == DescRule::Required,
                payload_allowed: l.payload != PayloadRule::None,
                payload_required: l.payload == PayloadRule::Required,
                urgent_allowed: l.urgent_allowed,
            },
        }
    }
}

/// The parser's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParserModel {
    p: ParserParams,
    /// Index of the next beat of the current message (saturating).
    pub beat: u32,
    pub conn: u8,
    /// Beats 0..=4 of the current message (cleared when beat 0 arrives).
    pub w: [u64; 5],
    /// LargeSend: total + fixed bytes (33 bits), from beat 2.
    pub tpf: u64,
    /// LargeSend with a descriptor: tpf - desc.len (34 bits), from beat 4.
    pub expect: u64,
    pub hdr: Skid<HdrRec>,
    pub pay: Skid<PayRec>,
    pub cnt_good: u32,
    pub cnt_err: [u32; wire::ParseError::COUNT],
}

const TPF_MASK: u64 = mask(33);
const EXPECT_MASK: u64 = mask(34);

/// Error codes (counter index + 1), in check order.
pub mod code {
    pub const GOOD: u8 = 0;
    pub const TRUNCATED: u8 = 1;
    pub const LENGTH_MISMATCH: u8 = 2;
    pub const UNKNOWN_KIND: u8 = 3;
    pub const RESERVED_BITS: u8 = 4;
    pub const DESCRIPTOR_MISPLACED: u8 = 5;
    pub const PAYLOAD_MISPLACED: u8 = 6;
    pub const TOO_LONG: u8 = 7;
    pub const BAD_FIELD: u8 = 8;
}

impl ParserModel {
    pub fn new(p: ParserParams) -> Self {
        p.validate().expect("valid parser parameters");
        ParserModel {
            p,
            beat: 0,
            conn: 0,
            w: [0; 5],
            tpf: 0,
            expect: 0,
            hdr: Skid::default(),
            pay: Skid::default(),
            cnt_good: 0,
            cnt_err: [0; wire::ParseError::COUNT],
        }
    }

    pub fn params(&self) -> &ParserParams {
        &self.p
    }

    fn in_ready(&self) -> bool {
        !self.hdr.skid_valid && !self.pay.skid_valid
    }
}

/// Fixed bytes of a LargeSend by descriptor flag: what `tpf` adds to `total`.
fn large_fixed(has_desc: bool) -> u64 {
    Layout::of(wire::Kind::LargeSend).fixed_bytes(has_desc) as u64
}

/// The verdict on a message whose last beat is beat `b` with `lb` bytes (1..=8), given its
/// captured words and precomputed sums. The check order is `wire::Frame::decode`'s.
pub fn verdict(buf_size: u32, b: u32, lb: u32, w: &[u64; 5], tpf: u64, expect: u64) -> u8 {
    let got = (b as u64) * 8 + lb as u64;
    let m = w[0] as u8;
    let flags = (w[0] >> 8) as u8;
    let bufs = (w[0] >> 16) as u16;
    let len = (w[0] >> 32) as u32;
    let k = KindInfo::of(m);
    let has_desc = flags & flag::DESC != 0;
    if got > buf_size as u64 {
        return code::TOO_LONG;
    }
    if got < wire::HEADER_BYTES as u64 {
        return code::TRUNCATED;
    }
    if len as u64 != got {
        return code::LENGTH_MISMATCH;
    }
    if !k.known {
        return code::UNKNOWN_KIND;
    }
    if flags & flag::RESERVED != 0 || (flags & flag::URGENT != 0 && !k.urgent_allowed) {
        return code::RESERVED_BITS;
    }
    if (has_desc && !k.desc_allowed) || (!has_desc && k.desc_required) {
        return code::DESCRIPTOR_MISPLACED;
    }
    let fixed = 16 + if k.ext { 8 } else { 0 } + if has_desc { 16 } else { 0 };
    if got < fixed {
        return code::TRUNCATED;
    }
    let has_payload = got > fixed;
    if (has_payload && !k.payload_allowed) || (!has_payload && k.payload_required) {
        return code::PAYLOAD_MISPLACED;
    }
    let e = w[2];
    let (ext_lo, ext_hi) = (e as u32, (e >> 32) as u32);
    match m {
        mid::HELLO | mid::HELLO_ACK => {
            let [ver, caps, r2, r3, ..] = e.to_le_bytes();
            if caps & cap::RESERVED != 0 || r2 != 0 || r3 != 0 {
                return code::RESERVED_BITS;
            }
            if ver != wire::VERSION
                || !(wire::MIN_BUF_SIZE..=wire::MAX_BUF_SIZE).contains(&ext_hi)
                || bufs < wire::MIN_POSTED
            {
                return code::BAD_FIELD;
            }
        }
        mid::SEND_BY_COPY | mid::SINK_AVAIL if ext_lo != 0 => return code::RESERVED_BITS,
        mid::LARGE_SEND => {
            if ext_hi != 0 {
                return code::RESERVED_BITS;
            }
            if tpf <= got || (has_desc && expect != got) {
                return code::BAD_FIELD;
            }
        }
        _ => {}
    }
    code::GOOD
}

impl CycleModel for ParserModel {
    type In = ParserIn;
    type Out = ParserOut;

    fn outputs(&self, _i: &ParserIn) -> ParserOut {
        let h = &self.hdr.out;
        let p = &self.pay.out;
        let c = &self.cnt_err;
        ParserOut {
            in_ready: self.in_ready(),
            hdr_valid: self.hdr.out_valid,
            hdr_conn: h.conn,
            hdr_error: h.error,
            hdr_mid: h.mid,
            hdr_flags: h.flags,
            hdr_bufs: h.bufs,
            hdr_len: h.len,
            hdr_mseq: h.mseq,
            hdr_mseq_ack: h.mseq_ack,
            hdr_ext: h.ext,
            hdr_desc_addr: h.desc_addr,
            hdr_desc_key: h.desc_key,
            hdr_desc_len: h.desc_len,
            pay_valid: self.pay.out_valid,
            pay_data: p.data,
            pay_last: p.last,
            pay_last_bytes: p.last_bytes,
            pay_bad: p.bad,
            pay_conn: p.conn,
            cnt_good: self.cnt_good,
            cnt_truncated: c[0],
            cnt_length_mismatch: c[1],
            cnt_unknown_kind: c[2],
            cnt_reserved_bits: c[3],
            cnt_descriptor_misplaced: c[4],
            cnt_payload_misplaced: c[5],
            cnt_too_long: c[6],
            cnt_bad_field: c[7],
        }
    }

    fn clock(&mut self, i: &ParserIn) {
        if i.reset {
            *self = ParserModel::new(self.p);
            return;
        }
        let accept = i.in_valid && self.in_ready();
        let mut push_hdr = None;
        let mut push_pay = None;
        if accept {
            let b = self.beat;
            let word = i.in_data;
            // The current message's words as they stand after this beat.
            let mut w = if b == 0 { [0; 5] } else { self.w };
            if b < 5 {
                w[b as usize] = word;
            }
            let conn = if b == 0 { i.in_conn } else { self.conn };
            let m = w[0] as u8;
            let flags = (w[0] >> 8) as u8;
            let k = KindInfo::of(m);
            let desc_present = flags & flag::DESC != 0 && k.desc_allowed;
            let fixed_beats = 2 + k.ext as u32 + 2 * desc_present as u32;
            let tpf = if b == 2 {
                ((word & 0xFFFF_FFFF) + large_fixed(flags & flag::DESC != 0)) & TPF_MASK
            } else {
                self.tpf
            };
            let expect =
                if b == 4 { tpf.wrapping_sub(word >> 32) & EXPECT_MASK } else { self.expect };
            let is_pay = k.payload_allowed && b >= fixed_beats;
            let lb = if i.in_last_bytes & 7 == 0 { 8 } else { (i.in_last_bytes & 7) as u32 };
            if i.in_last {
                let err = verdict(self.p.buf_size, b, lb, &w, tpf, expect);
                if err == code::GOOD {
                    self.cnt_good = self.cnt_good.wrapping_add(1);
                } else {
                    let c = &mut self.cnt_err[err as usize - 1];
                    *c = c.wrapping_add(1);
                }
                push_hdr = Some(HdrRec {
                    conn,
                    error: err,
                    mid: m,
                    flags,
                    bufs: (w[0] >> 16) as u16,
                    len: (w[0] >> 32) as u32,
                    mseq: w[1] as u32,
                    mseq_ack: (w[1] >> 32) as u32,
                    ext: if k.ext { w[2] } else { 0 },
                    desc_addr: if desc_present { w[3] } else { 0 },
                    desc_key: if desc_present { w[4] as u32 } else { 0 },
                    desc_len: if desc_present { (w[4] >> 32) as u32 } else { 0 },
                });
                if is_pay {
                    push_pay = Some(PayRec {
                        data: word,
                        last: true,
                        last_bytes: i.in_last_bytes & 7,
                        bad: err != code::GOOD,
                        conn,
                    });
                }
            } else if is_pay {
                push_pay =
                    Some(PayRec { data: word, last: false, last_bytes: 0, bad: false, conn });
            }
            self.w = w;
            self.conn = conn;
            self.tpf = tpf;
            self.expect = expect;
            self.beat = if i.in_last { 0 } else { u32::min(b + 1, self.p.max_beats()) };
            debug_assert!(self.beat < 1 << BEAT_BITS);
        }
        self.hdr.clock(i.hdr_ready, push_hdr);
        self.pay.clock(i.pay_ready, push_pay);
    }
}
