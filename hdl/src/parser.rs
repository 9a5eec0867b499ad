//! The control-message parser.
//!
//! # Ports
//! The ports are `sanswitch_model::blocks::parser::{ParserIn, ParserOut}`, one signal per
//! field with the same name and width (`tests/ports.rs` checks the generated Verilog against
//! that table), plus `clock`.
//!
//! - **Receive stream in** (`in_*`): valid/ready, 64-bit beats, byte `i` in bits `[8i+7:8i]`,
//!   `in_last` on a message's final beat with `in_last_bytes` valid bytes (0 = 8),
//!   `in_conn` sampled with the first beat. Messages are not interleaved.
//! - **Header records out** (`hdr_*`): one per message, after its last beat, with
//!   `hdr_error` = 0 (good) or `ParseError::index() + 1`.
//! - **Payload beats out** (`pay_*`): the beats of Data and LargeSend payloads, toward the
//!   receive buffer; `pay_bad` on the last beat of a malformed message.
//! - **Counters** (`cnt_*`): good messages and one counter per error kind, 32-bit, wrapping.
//!
//! # Timing
//! Latency 1 on both outputs: a beat accepted at edge `t` is on `pay_*` in the cycle after;
//! a message's header record is on `hdr_*` in the cycle after its last beat is accepted.
//! Throughput: one beat per cycle, back-to-back messages with no idle cycle, while both
//! outputs are ready. `in_ready` comes from registers only (low while a skid slot is full),
//! so no combinational path runs from `hdr_ready`/`pay_ready` to `in_ready`.
//!
//! # How it checks
//! Beats 0 to 4 are captured as they arrive. The LargeSend sums that need adders are formed a
//! beat early (`tpf` = total + fixed bytes at beat 2, `want_got` = tpf − descriptor length at
//! beat 4), so the verdict at the last beat is compares and a priority encoder. The message-id
//! facts (extension, descriptor and payload rules) are tables built from
//! `sanswitch_model::wire::LAYOUTS`, the same table the model and the codec use.

use rust_hdl::prelude::*;
use sanswitch_model::params::{BEAT_BITS, ParserParams};
use sanswitch_model::wire::{self, DescRule, LAYOUTS, PayloadRule, cap, flag, mid};

const KINDS: usize = LAYOUTS.len();

/// A header record, as registered.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct HdrRec {
    pub conn: Bits<8>,
    pub error: Bits<4>,
    pub mid: Bits<8>,
    pub flags: Bits<8>,
    pub bufs: Bits<16>,
    pub len: Bits<32>,
    pub mseq: Bits<32>,
    pub mseq_ack: Bits<32>,
    pub ext: Bits<64>,
    pub desc_addr: Bits<64>,
    pub desc_key: Bits<32>,
    pub desc_len: Bits<32>,
}

/// A payload beat, as registered.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct PayRec {
    pub data: Bits<64>,
    pub last: Bit,
    pub last_bytes: Bits<3>,
    pub bad: Bit,
    pub conn: Bits<8>,
}

/// The control-message parser (see the module documentation).
#[derive(LogicBlock)]
pub struct ControlParser {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<64>>,
    pub in_last: Signal<In, Bit>,
    pub in_last_bytes: Signal<In, Bits<3>>,
    pub in_conn: Signal<In, Bits<8>>,
    pub hdr_ready: Signal<In, Bit>,
    pub pay_ready: Signal<In, Bit>,

    pub in_ready: Signal<Out, Bit>,
    pub hdr_valid: Signal<Out, Bit>,
    pub hdr_conn: Signal<Out, Bits<8>>,
    pub hdr_error: Signal<Out, Bits<4>>,
    pub hdr_mid: Signal<Out, Bits<8>>,
    pub hdr_flags: Signal<Out, Bits<8>>,
    pub hdr_bufs: Signal<Out, Bits<16>>,
    pub hdr_len: Signal<Out, Bits<32>>,
    pub hdr_mseq: Signal<Out, Bits<32>>,
    pub hdr_mseq_ack: Signal<Out, Bits<32>>,
    pub hdr_ext: Signal<Out, Bits<64>>,
    pub hdr_desc_addr: Signal<Out, Bits<64>>,
    pub hdr_desc_key: Signal<Out, Bits<32>>,
    pub hdr_desc_len: Signal<Out, Bits<32>>,
    pub pay_valid: Signal<Out, Bit>,
    pub pay_data: Signal<Out, Bits<64>>,
    pub pay_last: Signal<Out, Bit>,
    pub pay_last_bytes: Signal<Out, Bits<3>>,
    pub pay_bad: Signal<Out, Bit>,
    pub pay_conn: Signal<Out, Bits<8>>,
    pub cnt_good: Signal<Out, Bits<32>>,
    pub cnt_truncated: Signal<Out, Bits<32>>,
    pub cnt_length_mismatch: Signal<Out, Bits<32>>,
    pub cnt_unknown_kind: Signal<Out, Bits<32>>,
    pub cnt_reserved_bits: Signal<Out, Bits<32>>,
    pub cnt_descriptor_misplaced: Signal<Out, Bits<32>>,
    pub cnt_payload_misplaced: Signal<Out, Bits<32>>,
    pub cnt_too_long: Signal<Out, Bits<32>>,
    pub cnt_bad_field: Signal<Out, Bits<32>>,

    // --- message state ---
    beat: DFF<Bits<BEAT_BITS_U>>,
    /// Always `beat + 1`, so the byte count needs no adder.
    beat_p1: DFFWithInit<Bits<BEAT_BITS_U>>,
    /// One-hot: the next beat is beat 0, 1, 2, 3 or 4 (all clear from beat 5 on).
    first5: DFFWithInit<Bits<5>>,
    /// The message is already longer than the buffer.
    long: DFF<Bit>,
    /// Beat 2's checks, kept for the verdict at a later last beat.
    x_hello_res: DFF<Bit>,
    x_hello_bad: DFF<Bit>,
    x_lo_nz: DFF<Bit>,
    x_hi_nz: DFF<Bit>,
    conn: DFF<Bits<8>>,
    w0: DFF<Bits<64>>,
    w1: DFF<Bits<64>>,
    w2: DFF<Bits<64>>,
    w3: DFF<Bits<64>>,
    w4: DFF<Bits<64>>,
    tpf: DFF<Bits<33>>,
    want_got: DFF<Bits<34>>,
    // --- outputs with skid slots ---
    hdr_out: DFF<HdrRec>,
    hdr_out_valid: DFF<Bit>,
    hdr_skid: DFF<HdrRec>,
    hdr_skid_valid: DFF<Bit>,
    pay_out: DFF<PayRec>,
    pay_out_valid: DFF<Bit>,
    pay_skid: DFF<PayRec>,
    pay_skid_valid: DFF<Bit>,
    good: DFF<Bits<32>>,
    errs: [DFF<Bits<32>>; wire::ParseError::COUNT],

    // --- the wire format's facts ---
    lay_mid: [Constant<Bits<8>>; KINDS],
    lay_ext: [Constant<Bit>; KINDS],
    lay_desc_allowed: [Constant<Bit>; KINDS],
    lay_desc_required: [Constant<Bit>; KINDS],
    lay_pay_allowed: [Constant<Bit>; KINDS],
    lay_pay_required: [Constant<Bit>; KINDS],
    lay_urgent: [Constant<Bit>; KINDS],
    c_err_code: [Constant<Bits<4>>; wire::ParseError::COUNT],
    c_hdr_zero: Constant<HdrRec>,
    c_pay_zero: Constant<PayRec>,
    c_bs8: Constant<Bits<BEAT_BITS_U>>,
    c_max_beats: Constant<Bits<BEAT_BITS_U>>,
    c_ls_fixed_desc: Constant<Bits<33>>,
    c_ls_fixed_nodesc: Constant<Bits<33>>,
    c_flag_reserved: Constant<Bits<8>>,
    c_cap_reserved: Constant<Bits<8>>,
    c_version: Constant<Bits<8>>,
    c_min_buf: Constant<Bits<32>>,
    c_max_buf: Constant<Bits<32>>,
    c_min_posted: Constant<Bits<16>>,
    c_mid_hello: Constant<Bits<8>>,
    c_mid_hello_ack: Constant<Bits<8>>,
    c_mid_send_by_copy: Constant<Bits<8>>,
    c_mid_sink_avail: Constant<Bits<8>>,
    c_mid_large_send: Constant<Bits<8>>,

    // --- combinational ---
    accept: Signal<Local, Bit>,
    at0: Signal<Local, Bit>,
    at1: Signal<Local, Bit>,
    at2: Signal<Local, Bit>,
    at3: Signal<Local, Bit>,
    at4: Signal<Local, Bit>,
    ge2: Signal<Local, Bit>,
    ge3: Signal<Local, Bit>,
    ge4: Signal<Local, Bit>,
    ge5: Signal<Local, Bit>,
    part: Signal<Local, Bit>,
    lt_fixed: Signal<Local, Bit>,
    has_payload: Signal<Local, Bit>,
    e_hello_res: Signal<Local, Bit>,
    e_hello_bad: Signal<Local, Bit>,
    e_lo_nz: Signal<Local, Bit>,
    e_hi_nz: Signal<Local, Bit>,
    c_hello_res: Signal<Local, Bit>,
    c_hello_bad: Signal<Local, Bit>,
    c_lo_nz: Signal<Local, Bit>,
    c_hi_nz: Signal<Local, Bit>,
    c_len: Signal<Local, Bit>,
    c_flags: Signal<Local, Bit>,
    c_desc: Signal<Local, Bit>,
    c_pay: Signal<Local, Bit>,
    is_hello: Signal<Local, Bit>,
    is_sbc: Signal<Local, Bit>,
    is_ls: Signal<Local, Bit>,
    bufs_low: Signal<Local, Bit>,
    ls_bad: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    ready: Signal<Local, Bit>,
    cur_w0: Signal<Local, Bits<64>>,
    cur_w1: Signal<Local, Bits<64>>,
    cur_w2: Signal<Local, Bits<64>>,
    cur_w3: Signal<Local, Bits<64>>,
    cur_w4: Signal<Local, Bits<64>>,
    cur_conn: Signal<Local, Bits<8>>,
    cur_tpf: Signal<Local, Bits<33>>,
    cur_want_got: Signal<Local, Bits<34>>,
    m: Signal<Local, Bits<8>>,
    flags: Signal<Local, Bits<8>>,
    known: Signal<Local, Bit>,
    k_ext: Signal<Local, Bit>,
    k_desc_allowed: Signal<Local, Bit>,
    k_desc_required: Signal<Local, Bit>,
    k_pay_allowed: Signal<Local, Bit>,
    k_pay_required: Signal<Local, Bit>,
    k_urgent: Signal<Local, Bit>,
    has_desc: Signal<Local, Bit>,
    desc_present: Signal<Local, Bit>,
    is_pay: Signal<Local, Bit>,
    got: Signal<Local, Bits<17>>,
    err: Signal<Local, Bits<4>>,
    push_hdr: Signal<Local, Bit>,
    push_pay: Signal<Local, Bit>,
    rec: Signal<Local, HdrRec>,
    prec: Signal<Local, PayRec>,
}

/// `BEAT_BITS` as a `usize` for const generics.
const BEAT_BITS_U: usize = BEAT_BITS as usize;

fn bit_table(f: impl Fn(&wire::Layout) -> bool) -> [Constant<Bit>; KINDS] {
    std::array::from_fn(|i| Constant::new(f(&LAYOUTS[i])))
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

impl ControlParser {
    pub fn new(p: &ParserParams) -> Self {
        p.validate().expect("valid parser parameters");
        let ls = wire::Layout::of(wire::Kind::LargeSend);
        ControlParser {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_last: Default::default(),
            in_last_bytes: Default::default(),
            in_conn: Default::default(),
            hdr_ready: Default::default(),
            pay_ready: Default::default(),
            in_ready: Default::default(),
            hdr_valid: Default::default(),
            hdr_conn: Default::default(),
            hdr_error: Default::default(),
            hdr_mid: Default::default(),
            hdr_flags: Default::default(),
            hdr_bufs: Default::default(),
            hdr_len: Default::default(),
            hdr_mseq: Default::default(),
            hdr_mseq_ack: Default::default(),
            hdr_ext: Default::default(),
            hdr_desc_addr: Default::default(),
            hdr_desc_key: Default::default(),
            hdr_desc_len: Default::default(),
            pay_valid: Default::default(),
            pay_data: Default::default(),
            pay_last: Default::default(),
            pay_last_bytes: Default::default(),
            pay_bad: Default::default(),
            pay_conn: Default::default(),
            cnt_good: Default::default(),
            cnt_truncated: Default::default(),
            cnt_length_mismatch: Default::default(),
            cnt_unknown_kind: Default::default(),
            cnt_reserved_bits: Default::default(),
            cnt_descriptor_misplaced: Default::default(),
            cnt_payload_misplaced: Default::default(),
            cnt_too_long: Default::default(),
            cnt_bad_field: Default::default(),
            beat: Default::default(),
            beat_p1: DFFWithInit::new(1.into()),
            first5: DFFWithInit::new(1.into()),
            long: Default::default(),
            x_hello_res: Default::default(),
            x_hello_bad: Default::default(),
            x_lo_nz: Default::default(),
            x_hi_nz: Default::default(),
            conn: Default::default(),
            w0: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            w3: Default::default(),
            w4: Default::default(),
            tpf: Default::default(),
            want_got: Default::default(),
            hdr_out: Default::default(),
            hdr_out_valid: Default::default(),
            hdr_skid: Default::default(),
            hdr_skid_valid: Default::default(),
            pay_out: Default::default(),
            pay_out_valid: Default::default(),
            pay_skid: Default::default(),
            pay_skid_valid: Default::default(),
            good: Default::default(),
            errs: Default::default(),
            lay_mid: std::array::from_fn(|i| c(LAYOUTS[i].mid as u64)),
            lay_ext: bit_table(|l| l.ext_beats == 1),
            lay_desc_allowed: bit_table(|l| l.desc != DescRule::Forbidden),
            lay_desc_required: bit_table(|l| l.desc == DescRule::Required),
            lay_pay_allowed: bit_table(|l| l.payload != PayloadRule::None),
            lay_pay_required: bit_table(|l| l.payload == PayloadRule::Required),
            lay_urgent: bit_table(|l| l.urgent_allowed),
            c_err_code: std::array::from_fn(|i| c(i as u64 + 1)),
            c_hdr_zero: Constant::new(HdrRec::default()),
            c_pay_zero: Constant::new(PayRec::default()),
            c_bs8: c(p.buf_size as u64 / 8),
            c_max_beats: c(p.max_beats() as u64),
            c_ls_fixed_desc: c(ls.fixed_bytes(true) as u64),
            c_ls_fixed_nodesc: c(ls.fixed_bytes(false) as u64),
            c_flag_reserved: c(flag::RESERVED as u64),
            c_cap_reserved: c(cap::RESERVED as u64),
            c_version: c(wire::VERSION as u64),
            c_min_buf: c(wire::MIN_BUF_SIZE as u64),
            c_max_buf: c(wire::MAX_BUF_SIZE as u64),
            c_min_posted: c(wire::MIN_POSTED as u64),
            c_mid_hello: c(mid::HELLO as u64),
            c_mid_hello_ack: c(mid::HELLO_ACK as u64),
            c_mid_send_by_copy: c(mid::SEND_BY_COPY as u64),
            c_mid_sink_avail: c(mid::SINK_AVAIL as u64),
            c_mid_large_send: c(mid::LARGE_SEND as u64),
            accept: Default::default(),
            at0: Default::default(),
            at1: Default::default(),
            at2: Default::default(),
            at3: Default::default(),
            at4: Default::default(),
            ge2: Default::default(),
            ge3: Default::default(),
            ge4: Default::default(),
            ge5: Default::default(),
            part: Default::default(),
            lt_fixed: Default::default(),
            has_payload: Default::default(),
            e_hello_res: Default::default(),
            e_hello_bad: Default::default(),
            e_lo_nz: Default::default(),
            e_hi_nz: Default::default(),
            c_hello_res: Default::default(),
            c_hello_bad: Default::default(),
            c_lo_nz: Default::default(),
            c_hi_nz: Default::default(),
            c_len: Default::default(),
            c_flags: Default::default(),
            c_desc: Default::default(),
            c_pay: Default::default(),
            is_hello: Default::default(),
            is_sbc: Default::default(),
            is_ls: Default::default(),
            bufs_low: Default::default(),
            ls_bad: Default::default(),
            bad: Default::default(),
            ready: Default::default(),
            cur_w0: Default::default(),
            cur_w1: Default::default(),
            cur_w2: Default::default(),
            cur_w3: Default::default(),
            cur_w4: Default::default(),
            cur_conn: Default::default(),
            cur_tpf: Default::default(),
            cur_want_got: Default::default(),
            m: Default::default(),
            flags: Default::default(),
            known: Default::default(),
            k_ext: Default::default(),
            k_desc_allowed: Default::default(),
            k_desc_required: Default::default(),
            k_pay_allowed: Default::default(),
            k_pay_required: Default::default(),
            k_urgent: Default::default(),
            has_desc: Default::default(),
            desc_present: Default::default(),
            is_pay: Default::default(),
            got: Default::default(),
            err: Default::default(),
            push_hdr: Default::default(),
            push_pay: Default::default(),
            rec: Default::default(),
            prec: Default::default(),
        }
    }
}

impl Default for ControlParser {
    fn default() -> Self {
        Self::new(&ParserParams::default())
    }
}

impl Logic for ControlParser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat,
            beat_p1,
            first5,
            long,
            x_hello_res,
            x_hello_bad,
            x_lo_nz,
            x_hi_nz,
            conn,
            w0,
            w1,
            w2,
            w3,
            w4,
            tpf,
            want_got,
            hdr_out,
            hdr_out_valid,
            hdr_skid,
            hdr_skid_valid,
            pay_out,
            pay_out_valid,
            pay_skid,
            pay_skid_valid,
            good
        );
        for i in 0..wire::ParseError::COUNT {
            self.errs[i].clock.next = self.clock.val();
            self.errs[i].d.next = self.errs[i].q.val();
        }

        // Registered-only ready: a free skid slot on both outputs.
        self.ready.next = !self.hdr_skid_valid.q.val() & !self.pay_skid_valid.q.val();
        self.accept.next = self.in_valid.val() & self.ready.val();

        // Where in the message this beat is: one-hot flags for beats 0 to 4 (all clear from
        // beat 5 on), so no comparator sits in front of the word and check selects.
        self.at0.next = self.first5.q.val().get_bit(0);
        self.at1.next = self.first5.q.val().get_bit(1);
        self.at2.next = self.first5.q.val().get_bit(2);
        self.at3.next = self.first5.q.val().get_bit(3);
        self.at4.next = self.first5.q.val().get_bit(4);
        self.ge2.next = !self.at0.val() & !self.at1.val();
        self.ge3.next = self.ge2.val() & !self.at2.val();
        self.ge4.next = self.ge3.val() & !self.at3.val();
        self.ge5.next = self.ge4.val() & !self.at4.val();
        // The last beat is partial (in_last_bytes 0 means all 8 bytes).
        self.part.next = self.in_last_bytes.val().any();

        // The message's words as they stand after this beat (for the records).
        self.cur_w0.next = self.w0.q.val();
        self.cur_w1.next = self.w1.q.val();
        self.cur_w2.next = self.w2.q.val();
        self.cur_w3.next = self.w3.q.val();
        self.cur_w4.next = self.w4.q.val();
        self.cur_conn.next = self.conn.q.val();
        if self.at0.val() {
            self.cur_w0.next = self.in_data.val();
            self.cur_w1.next = 0.into();
            self.cur_w2.next = 0.into();
            self.cur_w3.next = 0.into();
            self.cur_w4.next = 0.into();
            self.cur_conn.next = self.in_conn.val();
        }
        if self.at1.val() {
            self.cur_w1.next = self.in_data.val();
        }
        if self.at2.val() {
            self.cur_w2.next = self.in_data.val();
        }
        if self.at3.val() {
            self.cur_w3.next = self.in_data.val();
        }
        if self.at4.val() {
            self.cur_w4.next = self.in_data.val();
        }

        // The kind, from the registered beat 0: a message whose last beat is beat 0 is
        // truncated whatever it says, so the verdict never needs beat 0 unregistered.
        self.m.next = self.w0.q.val().get_bits::<8>(0);
        self.flags.next = self.w0.q.val().get_bits::<8>(8);
        self.known.next = false;
        self.k_ext.next = false;
        self.k_desc_allowed.next = false;
        self.k_desc_required.next = false;
        self.k_pay_allowed.next = false;
        self.k_pay_required.next = false;
        self.k_urgent.next = false;
        for i in 0..KINDS {
            if self.m.val() == self.lay_mid[i].val() {
                self.known.next = true;
                self.k_ext.next = self.lay_ext[i].val();
                self.k_desc_allowed.next = self.lay_desc_allowed[i].val();
                self.k_desc_required.next = self.lay_desc_required[i].val();
                self.k_pay_allowed.next = self.lay_pay_allowed[i].val();
                self.k_pay_required.next = self.lay_pay_required[i].val();
                self.k_urgent.next = self.lay_urgent[i].val();
            }
        }
        self.has_desc.next = self.flags.val().get_bit(1);
        self.desc_present.next = self.has_desc.val() & self.k_desc_allowed.val();
        // Payload beats start after the fixed part: beat 2, 3 or 5.
        self.is_pay.next = false;
        if self.k_pay_allowed.val() {
            if !self.k_ext.val() {
                self.is_pay.next = self.ge2.val();
            } else if self.desc_present.val() {
                self.is_pay.next = self.ge5.val();
            } else {
                self.is_pay.next = self.ge3.val();
            }
        }
        // Against the fixed part (F beats, F = 2 + ext + 2 * DESC): fewer bytes than it
        // (truncated), or more (a payload).
        self.lt_fixed.next = self.at0.val() | (self.at1.val() & self.part.val());
        self.has_payload.next = self.ge2.val();
        if self.k_ext.val() & self.has_desc.val() {
            self.lt_fixed.next = self.at0.val()
                | self.at1.val()
                | self.at2.val()
                | self.at3.val()
                | (self.at4.val() & self.part.val());
            self.has_payload.next = self.ge5.val();
        } else if self.has_desc.val() {
            self.lt_fixed.next = self.at0.val()
                | self.at1.val()
                | self.at2.val()
                | (self.at3.val() & self.part.val());
            self.has_payload.next = self.ge4.val();
        } else if self.k_ext.val() {
            self.lt_fixed.next =
                self.at0.val() | self.at1.val() | (self.at2.val() & self.part.val());
            self.has_payload.next = self.ge3.val();
        }

        // Extension checks on beat 2, made on the wire word as it arrives and kept.
        self.e_hello_res.next = (self.in_data.val().get_bits::<8>(8) & self.c_cap_reserved.val())
            .any()
            | self.in_data.val().get_bits::<16>(16).any();
        self.e_hello_bad.next = (self.in_data.val().get_bits::<8>(0) != self.c_version.val())
            | (self.in_data.val().get_bits::<32>(32) < self.c_min_buf.val())
            | (self.in_data.val().get_bits::<32>(32) > self.c_max_buf.val());
        self.e_lo_nz.next = self.in_data.val().get_bits::<32>(0).any();
        self.e_hi_nz.next = self.in_data.val().get_bits::<32>(32).any();
        self.c_hello_res.next = self.x_hello_res.q.val();
        self.c_hello_bad.next = self.x_hello_bad.q.val();
        self.c_lo_nz.next = self.x_lo_nz.q.val();
        self.c_hi_nz.next = self.x_hi_nz.q.val();
        if self.at2.val() {
            self.c_hello_res.next = self.e_hello_res.val();
            self.c_hello_bad.next = self.e_hello_bad.val();
            self.c_lo_nz.next = self.e_lo_nz.val();
            self.c_hi_nz.next = self.e_hi_nz.val();
        }

        // LargeSend sums, formed a beat before they are needed.
        self.cur_tpf.next = self.tpf.q.val();
        if self.at2.val() {
            self.cur_tpf.next = bit_cast::<33, 32>(self.in_data.val().get_bits::<32>(0))
                + self.c_ls_fixed_nodesc.val();
            if self.has_desc.val() {
                self.cur_tpf.next = bit_cast::<33, 32>(self.in_data.val().get_bits::<32>(0))
                    + self.c_ls_fixed_desc.val();
            }
        }
        self.cur_want_got.next = self.want_got.q.val();
        if self.at4.val() {
            self.cur_want_got.next = bit_cast::<34, 33>(self.tpf.q.val())
                - bit_cast::<34, 32>(self.in_data.val().get_bits::<32>(32));
        }

        // Bytes received, the last beat included: beat * 8 + bytes, without an adder.
        self.got.next = (bit_cast::<17, BEAT_BITS_U>(self.beat.q.val()) << 3)
            | bit_cast::<17, 3>(self.in_last_bytes.val());
        if !self.part.val() {
            self.got.next = bit_cast::<17, BEAT_BITS_U>(self.beat_p1.q.val()) << 3;
        }

        // The conditions, each on registers or on one level of the incoming beat.
        self.c_len.next = self.w0.q.val().get_bits::<32>(32) != bit_cast::<32, 17>(self.got.val());
        self.c_flags.next = (self.flags.val() & self.c_flag_reserved.val()).any()
            | (self.flags.val().get_bit(0) & !self.k_urgent.val());
        self.c_desc.next = (self.has_desc.val() & !self.k_desc_allowed.val())
            | (!self.has_desc.val() & self.k_desc_required.val());
        self.c_pay.next = (self.has_payload.val() & !self.k_pay_allowed.val())
            | (!self.has_payload.val() & self.k_pay_required.val());
        self.is_hello.next =
            (self.m.val() == self.c_mid_hello.val()) | (self.m.val() == self.c_mid_hello_ack.val());
        self.is_sbc.next = (self.m.val() == self.c_mid_send_by_copy.val())
            | (self.m.val() == self.c_mid_sink_avail.val());
        self.is_ls.next = self.m.val() == self.c_mid_large_send.val();
        self.bufs_low.next = self.w0.q.val().get_bits::<16>(16) < self.c_min_posted.val();
        // LargeSend: total above the inline bytes, and (with a descriptor) equal to them plus
        // the descriptor's length. When the fixed part ends the message, that is total != 0
        // and total == descriptor length, checked on the words themselves.
        self.ls_bad.next = (self.tpf.q.val() <= bit_cast::<33, 17>(self.got.val()))
            | (self.has_desc.val() & (self.want_got.q.val() != bit_cast::<34, 17>(self.got.val())));
        if (self.at2.val() & !self.has_desc.val()) | (self.at4.val() & self.has_desc.val()) {
            self.ls_bad.next = !self.c_lo_nz.val()
                | (self.has_desc.val()
                    & (self.w2.q.val().get_bits::<32>(0) != self.in_data.val().get_bits::<32>(32)));
        }

        // The verdict, in wire::Frame::decode's order.
        self.err.next = 0.into();
        if self.long.q.val() {
            self.err.next = 7.into();
        } else if self.at0.val() | (self.at1.val() & self.part.val()) {
            self.err.next = 1.into();
        } else if self.c_len.val() {
            self.err.next = 2.into();
        } else if !self.known.val() {
            self.err.next = 3.into();
        } else if self.c_flags.val() {
            self.err.next = 4.into();
        } else if self.c_desc.val() {
            self.err.next = 5.into();
        } else if self.lt_fixed.val() {
            self.err.next = 1.into();
        } else if self.c_pay.val() {
            self.err.next = 6.into();
        } else if self.is_hello.val() {
            if self.c_hello_res.val() {
                self.err.next = 4.into();
            } else if self.c_hello_bad.val() | self.bufs_low.val() {
                self.err.next = 8.into();
            }
        } else if self.is_sbc.val() {
            if self.c_lo_nz.val() {
                self.err.next = 4.into();
            }
        } else if self.is_ls.val() {
            if self.c_hi_nz.val() {
                self.err.next = 4.into();
            } else if self.ls_bad.val() {
                self.err.next = 8.into();
            }
        }
        // The same verdict as one OR (err != 0), for the payload's bad mark.
        self.bad.next = self.long.q.val()
            | self.at0.val()
            | (self.at1.val() & self.part.val())
            | self.c_len.val()
            | !self.known.val()
            | self.c_flags.val()
            | self.c_desc.val()
            | self.lt_fixed.val()
            | self.c_pay.val()
            | (self.is_hello.val()
                & (self.c_hello_res.val() | self.c_hello_bad.val() | self.bufs_low.val()))
            | (self.is_sbc.val() & self.c_lo_nz.val())
            | (self.is_ls.val() & (self.c_hi_nz.val() | self.ls_bad.val()));

        // The records.
        self.push_hdr.next = self.accept.val() & self.in_last.val();
        self.push_pay.next = self.accept.val() & self.is_pay.val();
        self.rec.next.conn = self.cur_conn.val();
        self.rec.next.error = self.err.val();
        self.rec.next.mid = self.cur_w0.val().get_bits::<8>(0);
        self.rec.next.flags = self.cur_w0.val().get_bits::<8>(8);
        self.rec.next.bufs = self.cur_w0.val().get_bits::<16>(16);
        self.rec.next.len = self.cur_w0.val().get_bits::<32>(32);
        self.rec.next.mseq = self.cur_w1.val().get_bits::<32>(0);
        self.rec.next.mseq_ack = self.cur_w1.val().get_bits::<32>(32);
        self.rec.next.ext = 0.into();
        if self.k_ext.val() {
            self.rec.next.ext = self.cur_w2.val();
        }
        self.rec.next.desc_addr = 0.into();
        self.rec.next.desc_key = 0.into();
        self.rec.next.desc_len = 0.into();
        if self.desc_present.val() {
            self.rec.next.desc_addr = self.cur_w3.val();
            self.rec.next.desc_key = self.cur_w4.val().get_bits::<32>(0);
            self.rec.next.desc_len = self.cur_w4.val().get_bits::<32>(32);
        }
        self.prec.next.data = self.in_data.val();
        self.prec.next.last = self.in_last.val();
        self.prec.next.last_bytes = 0.into();
        if self.in_last.val() {
            self.prec.next.last_bytes = self.in_last_bytes.val();
        }
        self.prec.next.bad = self.in_last.val() & self.bad.val();
        self.prec.next.conn = self.cur_conn.val();

        // Message state.
        if self.accept.val() {
            self.w0.d.next = self.cur_w0.val();
            self.w1.d.next = self.cur_w1.val();
            self.w2.d.next = self.cur_w2.val();
            self.w3.d.next = self.cur_w3.val();
            self.w4.d.next = self.cur_w4.val();
            self.conn.d.next = self.cur_conn.val();
            self.tpf.d.next = self.cur_tpf.val();
            self.want_got.d.next = self.cur_want_got.val();
            if self.at2.val() {
                self.x_hello_res.d.next = self.e_hello_res.val();
                self.x_hello_bad.d.next = self.e_hello_bad.val();
                self.x_lo_nz.d.next = self.e_lo_nz.val();
                self.x_hi_nz.d.next = self.e_hi_nz.val();
            }
            if self.in_last.val() {
                self.beat.d.next = 0.into();
                self.beat_p1.d.next = 1.into();
                self.first5.d.next = 1.into();
                self.long.d.next = false;
            } else if self.beat.q.val() < self.c_max_beats.val() {
                self.beat.d.next = self.beat_p1.q.val();
                self.beat_p1.d.next = self.beat_p1.q.val() + 1;
                self.first5.d.next = self.first5.q.val() << 1;
                self.long.d.next = self.beat_p1.q.val() >= self.c_bs8.val();
            }
        }
        if self.push_hdr.val() {
            if self.err.val() == 0 {
                self.good.d.next = self.good.q.val() + 1;
            }
            for i in 0..wire::ParseError::COUNT {
                if self.err.val() == self.c_err_code[i].val() {
                    self.errs[i].d.next = self.errs[i].q.val() + 1;
                }
            }
        }

        // Output registers with one skid slot each.
        if !self.hdr_out_valid.q.val() | self.hdr_ready.val() {
            if self.hdr_skid_valid.q.val() {
                self.hdr_out.d.next = self.hdr_skid.q.val();
                self.hdr_skid_valid.d.next = false;
            } else {
                self.hdr_out_valid.d.next = self.push_hdr.val();
                if self.push_hdr.val() {
                    self.hdr_out.d.next = self.rec.val();
                }
            }
        } else if self.push_hdr.val() {
            self.hdr_skid.d.next = self.rec.val();
            self.hdr_skid_valid.d.next = true;
        }
        if !self.pay_out_valid.q.val() | self.pay_ready.val() {
            if self.pay_skid_valid.q.val() {
                self.pay_out.d.next = self.pay_skid.q.val();
                self.pay_skid_valid.d.next = false;
            } else {
                self.pay_out_valid.d.next = self.push_pay.val();
                if self.push_pay.val() {
                    self.pay_out.d.next = self.prec.val();
                }
            }
        } else if self.push_pay.val() {
            self.pay_skid.d.next = self.prec.val();
            self.pay_skid_valid.d.next = true;
        }

        if self.reset.val() {
            self.beat.d.next = 0.into();
            self.beat_p1.d.next = 1.into();
            self.first5.d.next = 1.into();
            self.long.d.next = false;
            self.x_hello_res.d.next = false;
            self.x_hello_bad.d.next = false;
            self.x_lo_nz.d.next = false;
            self.x_hi_nz.d.next = false;
            self.conn.d.next = 0.into();
            self.w0.d.next = 0.into();
            self.w1.d.next = 0.into();
            self.w2.d.next = 0.into();
            self.w3.d.next = 0.into();
            self.w4.d.next = 0.into();
            self.tpf.d.next = 0.into();
            self.want_got.d.next = 0.into();
            self.hdr_out.d.next = self.c_hdr_zero.val();
            self.hdr_out_valid.d.next = false;
            self.hdr_skid.d.next = self.c_hdr_zero.val();
            self.hdr_skid_valid.d.next = false;
            self.pay_out.d.next = self.c_pay_zero.val();
            self.pay_out_valid.d.next = false;
            self.pay_skid.d.next = self.c_pay_zero.val();
            self.pay_skid_valid.d.next = false;
            self.good.d.next = 0.into();
            for i in 0..wire::ParseError::COUNT {
                self.errs[i].d.next = 0.into();
            }
        }

        // Outputs, all from registers.
        self.in_ready.next = self.ready.val();
        self.hdr_valid.next = self.hdr_out_valid.q.val();
        self.hdr_conn.next = self.hdr_out.q.val().conn;
        self.hdr_error.next = self.hdr_out.q.val().error;
        self.hdr_mid.next = self.hdr_out.q.val().mid;
        self.hdr_flags.next = self.hdr_out.q.val().flags;
        self.hdr_bufs.next = self.hdr_out.q.val().bufs;
        self.hdr_len.next = self.hdr_out.q.val().len;
        self.hdr_mseq.next = self.hdr_out.q.val().mseq;
        self.hdr_mseq_ack.next = self.hdr_out.q.val().mseq_ack;
        self.hdr_ext.next = self.hdr_out.q.val().ext;
        self.hdr_desc_addr.next = self.hdr_out.q.val().desc_addr;
        self.hdr_desc_key.next = self.hdr_out.q.val().desc_key;
        self.hdr_desc_len.next = self.hdr_out.q.val().desc_len;
        self.pay_valid.next = self.pay_out_valid.q.val();
        self.pay_data.next = self.pay_out.q.val().data;
        self.pay_last.next = self.pay_out.q.val().last;
        self.pay_last_bytes.next = self.pay_out.q.val().last_bytes;
        self.pay_bad.next = self.pay_out.q.val().bad;
        self.pay_conn.next = self.pay_out.q.val().conn;
        self.cnt_good.next = self.good.q.val();
        self.cnt_truncated.next = self.errs[0].q.val();
        self.cnt_length_mismatch.next = self.errs[1].q.val();
        self.cnt_unknown_kind.next = self.errs[2].q.val();
        self.cnt_reserved_bits.next = self.errs[3].q.val();
        self.cnt_descriptor_misplaced.next = self.errs[4].q.val();
        self.cnt_payload_misplaced.next = self.errs[5].q.val();
        self.cnt_too_long.next = self.errs[6].q.val();
        self.cnt_bad_field.next = self.errs[7].q.val();
    }
}
