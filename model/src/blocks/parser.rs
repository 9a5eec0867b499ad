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

use super::widgets::{CounterBank, Skid};
use crate::params::{BEAT_BITS, CNT_INDEX_BITS, ParserParams};
use crate::ports::{CycleModel, mask};
use crate::wire::{self, DescRule, Layout, PayloadRule, cap, flag, mid};

crate::ports! {
    /// Parser inputs.
    pub struct ParserIn {
        /// Synchronous reset: clears the message state, the outputs and the counters.
        reset: bool = 1,
        /// Receive stream (AXI4-Stream): a beat is offered.
        s_axis_rx_tvalid: bool = 1,
        /// Byte `i` of the beat in bits `[8i+7:8i]`.
        s_axis_rx_tdata: u64 = 64,
        /// Byte enables. Every beat but the last is taken as full, whatever its `tkeep`; the
        /// last beat holds bytes `0..=h`, `h` its highest set bit (0 bytes when `tkeep` is 0;
        /// bits below `h` are not looked at: the SAN delivers contiguous bytes).
        s_axis_rx_tkeep: u8 = 8,
        /// Last beat of the message.
        s_axis_rx_tlast: bool = 1,
        /// `{buf[15:8], conn[7:0]}` ([`user`]): the message's connection and the receive
        /// buffer it landed in; sampled with the message's first beat.
        s_axis_rx_tuser: u16 = 16,
        m_axis_hdr_tready: bool = 1,
        m_axis_pay_tready: bool = 1,
        /// Counter bank read port: the counter to show on `cnt_rd_data` next cycle
        /// (index = [`code`]: 0 good messages, 1..=8 one per error kind).
        cnt_rd_index: u8 = CNT_INDEX_BITS,
    }
}

crate::ports! {
    /// Parser outputs.
    pub struct ParserOut {
        /// The parser takes the beat (from registers only).
        s_axis_rx_tready: bool = 1,
        /// Header record: one per message, after its last beat.
        m_axis_hdr_tvalid: bool = 1,
        /// `{buf[15:8], conn[7:0]}`, as sampled with the message's first beat.
        m_axis_hdr_tuser: u16 = 16,
        /// 0 for a good message, else `ParseError::index() + 1` ([`code`]).
        m_axis_hdr_error: u8 = 4,
        m_axis_hdr_mid: u8 = 8,
        m_axis_hdr_flags: u8 = 8,
        m_axis_hdr_bufs: u16 = 16,
        m_axis_hdr_len: u32 = 32,
        m_axis_hdr_mseq: u32 = 32,
        m_axis_hdr_mseq_ack: u32 = 32,
        /// The extension beat, for kinds that have one; else 0.
        m_axis_hdr_ext: u64 = 64,
        /// The descriptor, when the DESC flag is set on a kind that may carry one; else 0.
        m_axis_hdr_desc_addr: u64 = 64,
        m_axis_hdr_desc_key: u32 = 32,
        m_axis_hdr_desc_len: u32 = 32,
        /// Payload beats of Data and LargeSend messages (AXI4-Stream).
        m_axis_pay_tvalid: bool = 1,
        m_axis_pay_tdata: u64 = 64,
        /// 0xFF on every beat but the last; on the last, the bytes it holds (contiguous).
        m_axis_pay_tkeep: u8 = 8,
        m_axis_pay_tlast: bool = 1,
        /// `{bad[16], buf[15:8], conn[7:0]}`: `bad` on the last beat of a malformed message
        /// (discard the buffer).
        m_axis_pay_tuser: u32 = 17,
        /// Counter bank read port: the counter `cnt_rd_index` named the cycle before.
        cnt_rd_data: u32 = 32,
    }
}

/// The layout of the `tuser` side bands (receive stream, header records, payload beats).
pub mod user {
    /// Connection id, bits `[7:0]`.
    pub const CONN_SHIFT: u32 = 0;
    /// Receive-buffer id, bits `[15:8]`.
    pub const BUF_SHIFT: u32 = 8;
    /// Payload only: the message is malformed (bit 16, on the last beat).
    pub const BAD_BIT: u32 = 16;

    /// Pack a connection and a buffer id.
    pub const fn pack(conn: u8, buf: u8) -> u16 {
        ((buf as u16) << BUF_SHIFT) | ((conn as u16) << CONN_SHIFT)
    }
    pub const fn conn(u: u32) -> u8 {
        (u >> CONN_SHIFT) as u8
    }
    pub const fn buf(u: u32) -> u8 {
        (u >> BUF_SHIFT) as u8
    }
    pub const fn bad(u: u32) -> bool {
        u >> BAD_BIT & 1 != 0
    }
}

/// Counters in the parser's bank: good messages at index 0, then one per error kind at its
/// code (`ParseError::index() + 1`).
pub const COUNTERS: usize = 1 + wire::ParseError::COUNT;

/// Bytes of a last beat with byte enables `keep`: up to its highest set bit (0..=8).
pub const fn keep_bytes(keep: u8) -> u32 {
    8 - keep.leading_zeros()
}

/// Byte enables of a beat holding `n` bytes (0..=8) from byte 0.
pub const fn keep_of(n: u32) -> u8 {
    if n >= 8 { 0xFF } else { ((1u16 << n) - 1) as u8 }
}

impl ParserOut {
    pub fn hdr_conn(&self) -> u8 {
        user::conn(self.m_axis_hdr_tuser as u32)
    }
    pub fn hdr_buf(&self) -> u8 {
        user::buf(self.m_axis_hdr_tuser as u32)
    }
    pub fn pay_conn(&self) -> u8 {
        user::conn(self.m_axis_pay_tuser)
    }
    pub fn pay_buf(&self) -> u8 {
        user::buf(self.m_axis_pay_tuser)
    }
    pub fn pay_bad(&self) -> bool {
        user::bad(self.m_axis_pay_tuser)
    }
}

/// A header record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HdrRec {
    pub conn: u8,
    pub buf: u8,
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
    pub keep: u8,
    pub last: bool,
    pub bad: bool,
    pub conn: u8,
    pub buf: u8,
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
    pub buf: u8,
    /// Beats 0..=4 of the current message (cleared when beat 0 arrives).
    pub w: [u64; 5],
    /// LargeSend: total + fixed bytes (33 bits), from beat 2.
    pub tpf: u64,
    /// LargeSend with a descriptor: tpf - desc.len (34 bits), from beat 4.
    pub expect: u64,
    pub hdr: Skid<HdrRec>,
    pub pay: Skid<PayRec>,
    /// Good messages at index 0, then one counter per error code.
    pub counters: CounterBank,
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
            buf: 0,
            w: [0; 5],
            tpf: 0,
            expect: 0,
            hdr: Skid::default(),
            pay: Skid::default(),
            counters: CounterBank::new(COUNTERS),
        }
    }

    pub fn params(&self) -> &ParserParams {
        &self.p
    }

    fn in_ready(&self) -> bool {
        self.hdr.can_push() && self.pay.can_push()
    }

    /// Good messages parsed so far.
    pub fn good(&self) -> u32 {
        self.counters.get(code::GOOD as usize)
    }

    /// The error counters, by `ParseError::index`.
    pub fn error_counters(&self) -> [u32; wire::ParseError::COUNT] {
        std::array::from_fn(|k| self.counters.get(k + 1))
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
        ParserOut {
            s_axis_rx_tready: self.in_ready(),
            m_axis_hdr_tvalid: self.hdr.out_valid,
            m_axis_hdr_tuser: user::pack(h.conn, h.buf),
            m_axis_hdr_error: h.error,
            m_axis_hdr_mid: h.mid,
            m_axis_hdr_flags: h.flags,
            m_axis_hdr_bufs: h.bufs,
            m_axis_hdr_len: h.len,
            m_axis_hdr_mseq: h.mseq,
            m_axis_hdr_mseq_ack: h.mseq_ack,
            m_axis_hdr_ext: h.ext,
            m_axis_hdr_desc_addr: h.desc_addr,
            m_axis_hdr_desc_key: h.desc_key,
            m_axis_hdr_desc_len: h.desc_len,
            m_axis_pay_tvalid: self.pay.out_valid,
            m_axis_pay_tdata: p.data,
            m_axis_pay_tkeep: p.keep,
            m_axis_pay_tlast: p.last,
            m_axis_pay_tuser: (p.bad as u32) << user::BAD_BIT | user::pack(p.conn, p.buf) as u32,
            cnt_rd_data: self.counters.rd_data(),
        }
    }

    fn clock(&mut self, i: &ParserIn) {
        if i.reset {
            *self = ParserModel::new(self.p);
            return;
        }
        let accept = i.s_axis_rx_tvalid && self.in_ready();
        let mut push_hdr = None;
        let mut push_pay = None;
        let mut count = None;
        if accept {
            let b = self.beat;
            let word = i.s_axis_rx_tdata;
            // The current message's words as they stand after this beat.
            let mut w = if b == 0 { [0; 5] } else { self.w };
            if b < 5 {
                w[b as usize] = word;
            }
            let (conn, buf) = if b == 0 {
                (user::conn(i.s_axis_rx_tuser as u32), user::buf(i.s_axis_rx_tuser as u32))
            } else {
                (self.conn, self.buf)
            };
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
            if i.s_axis_rx_tlast {
                let lb = keep_bytes(i.s_axis_rx_tkeep);
                let err = verdict(self.p.buf_size, b, lb, &w, tpf, expect);
                count = Some(err as usize);
                push_hdr = Some(HdrRec {
                    conn,
                    buf,
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
                        keep: keep_of(lb),
                        last: true,
                        bad: err != code::GOOD,
                        conn,
                        buf,
                    });
                }
            } else if is_pay {
                push_pay =
                    Some(PayRec { data: word, keep: 0xFF, last: false, bad: false, conn, buf });
            }
            self.w = w;
            self.conn = conn;
            self.buf = buf;
            self.tpf = tpf;
            self.expect = expect;
            self.beat = if i.s_axis_rx_tlast { 0 } else { u32::min(b + 1, self.p.max_beats()) };
            debug_assert!(self.beat < 1 << BEAT_BITS);
        }
        self.hdr.clock(i.m_axis_hdr_tready, push_hdr);
        self.pay.clock(i.m_axis_pay_tready, push_pay);
        self.counters.clock(count, i.cnt_rd_index as usize);
    }
}
