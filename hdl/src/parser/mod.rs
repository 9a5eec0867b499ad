//! The control-message parser.
//!
//! # Ports
//! The ports are `sanswitch_model::blocks::parser::{ParserIn, ParserOut}`, one signal per
//! field with the same name and width (the co-simulation build checks the generated Verilog
//! against those tables), plus `clock`.
//!
//! - **Receive stream in** (`s_axis_rx_*`, AXI4-Stream): 64-bit beats, byte `i` in bits
//!   `[8i+7:8i]`; `tlast` on a message's final beat, whose bytes run up to its highest `tkeep`
//!   bit; `tuser` = `{buf, conn}`, sampled with the first beat. Messages are not interleaved.
//! - **Header records out** (`m_axis_hdr_*`): one per message, after its last beat, with
//!   `error` = 0 (good) or `ParseError::index() + 1`; `tuser` = `{buf, conn}`.
//! - **Payload beats out** (`m_axis_pay_*`, AXI4-Stream): the beats of Data and LargeSend
//!   payloads, toward the receive buffer; `tuser` = `{bad, buf, conn}`, `bad` on the last beat
//!   of a malformed message.
//! - **Counter bank** (`cnt_rd_index` in, `cnt_rd_data` out one cycle later): good messages at
//!   index 0, one counter per error kind at its code.
//!
//! # Timing
//! Latency 1 on both outputs (a beat taken at edge `t` is on `m_axis_pay_*` during cycle
//! `t`; a message's header record is on `m_axis_hdr_*` during the cycle that begins at the
//! edge its last beat is taken). One beat per cycle, back-to-back messages with no idle
//! cycle, while both outputs are ready. `s_axis_rx_tready` comes from registers only (low
//! while a skid slot is full), so no combinational path runs from an output's `tready` to it.
//!
//! # Structure
//! [`beat::BeatTracker`] says where in the message a beat is; [`verdict::Verdict`] checks
//! it; this module captures beats 0 to 4, builds the records and feeds the header output
//! register, a [`SkidBuffer`] for payload beats and a [`CounterBank`]. The header output's
//! skid slot is virtual (a record that finds the output full is kept as the captured words
//! and rebuilt from them: 332 flip-flops and their multiplexers saved); the timing is the
//! same as with a real slot.

pub mod beat;
pub mod layout;
pub mod verdict;

use rust_hdl::prelude::*;
use sanswitch_model::blocks::parser::COUNTERS;
use sanswitch_model::params::{CNT_INDEX_BITS, ParserParams};

use crate::widgets::{CounterBank, Param, SkidBuffer};
use beat::BeatTracker;
use verdict::Verdict;

const IDX: usize = CNT_INDEX_BITS as usize;

/// A header record, as registered.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct HdrRec {
    pub user: Bits<16>,
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

/// The message as captured: its connection and buffer (`tuser` of its first beat) and
/// beats 0 to 4.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct MsgWords {
    pub user: Bits<16>,
    pub w0: Bits<64>,
    pub w1: Bits<64>,
    pub w2: Bits<64>,
    pub w3: Bits<64>,
    pub w4: Bits<64>,
}

/// A payload beat, as registered.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct PayRec {
    pub data: Bits<64>,
    pub keep: Bits<8>,
    pub last: Bit,
    pub user: Bits<17>,
}

/// The control-message parser (see the module documentation).
#[derive(LogicBlock)]
pub struct ControlParser {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_rx_tvalid: Signal<In, Bit>,
    pub s_axis_rx_tdata: Signal<In, Bits<64>>,
    pub s_axis_rx_tkeep: Signal<In, Bits<8>>,
    pub s_axis_rx_tlast: Signal<In, Bit>,
    pub s_axis_rx_tuser: Signal<In, Bits<16>>,
    pub m_axis_hdr_tready: Signal<In, Bit>,
    pub m_axis_pay_tready: Signal<In, Bit>,
    pub cnt_rd_index: Signal<In, Bits<IDX>>,

    pub s_axis_rx_tready: Signal<Out, Bit>,
    pub m_axis_hdr_tvalid: Signal<Out, Bit>,
    pub m_axis_hdr_tuser: Signal<Out, Bits<16>>,
    pub m_axis_hdr_error: Signal<Out, Bits<4>>,
    pub m_axis_hdr_mid: Signal<Out, Bits<8>>,
    pub m_axis_hdr_flags: Signal<Out, Bits<8>>,
    pub m_axis_hdr_bufs: Signal<Out, Bits<16>>,
    pub m_axis_hdr_len: Signal<Out, Bits<32>>,
    pub m_axis_hdr_mseq: Signal<Out, Bits<32>>,
    pub m_axis_hdr_mseq_ack: Signal<Out, Bits<32>>,
    pub m_axis_hdr_ext: Signal<Out, Bits<64>>,
    pub m_axis_hdr_desc_addr: Signal<Out, Bits<64>>,
    pub m_axis_hdr_desc_key: Signal<Out, Bits<32>>,
    pub m_axis_hdr_desc_len: Signal<Out, Bits<32>>,
    pub m_axis_pay_tvalid: Signal<Out, Bit>,
    pub m_axis_pay_tdata: Signal<Out, Bits<64>>,
    pub m_axis_pay_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_pay_tlast: Signal<Out, Bit>,
    pub m_axis_pay_tuser: Signal<Out, Bits<17>>,
    pub cnt_rd_data: Signal<Out, Bits<32>>,

    beat: BeatTracker,
    verdict: Verdict,
    /// The header output register. Its "skid slot" is virtual: a record that finds the
    /// output full is held as the captured words themselves (`held`, with its verdict in
    /// `held_err`), and the parser takes no beat until it has moved out, so the words stay.
    hdr_out: DFF<HdrRec>,
    hdr_out_v: DFF<Bit>,
    held: DFF<Bit>,
    held_err: DFF<Bits<4>>,
    pay: SkidBuffer<PayRec>,
    counters: CounterBank,
    /// The message's words so far.
    words: DFF<MsgWords>,

    accept: Signal<Local, Bit>,
    /// The words as they stand after this beat (for the records).
    cur: Signal<Local, MsgWords>,
    cur_w0: Signal<Local, Bits<64>>,
    cur_w1: Signal<Local, Bits<64>>,
    cur_w4: Signal<Local, Bits<64>>,
    held_w2_lo: Signal<Local, Bits<32>>,
    keep_norm: Signal<Local, Bits<8>>,
    /// Where the beat is, as the record sees it: nothing arrives while a record is held.
    live5: Signal<Local, Bits<5>>,
    push_hdr: Signal<Local, Bit>,
    rec: Signal<Local, HdrRec>,
    c_hdr_zero: Param<HdrRec>,
    c_words_zero: Param<MsgWords>,
    prec: Signal<Local, PayRec>,
}

impl ControlParser {
    pub fn new(p: &ParserParams) -> Self {
        p.validate().expect("valid parser parameters");
        ControlParser {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_rx_tvalid: Default::default(),
            s_axis_rx_tdata: Default::default(),
            s_axis_rx_tkeep: Default::default(),
            s_axis_rx_tlast: Default::default(),
            s_axis_rx_tuser: Default::default(),
            m_axis_hdr_tready: Default::default(),
            m_axis_pay_tready: Default::default(),
            cnt_rd_index: Default::default(),
            s_axis_rx_tready: Default::default(),
            m_axis_hdr_tvalid: Default::default(),
            m_axis_hdr_tuser: Default::default(),
            m_axis_hdr_error: Default::default(),
            m_axis_hdr_mid: Default::default(),
            m_axis_hdr_flags: Default::default(),
            m_axis_hdr_bufs: Default::default(),
            m_axis_hdr_len: Default::default(),
            m_axis_hdr_mseq: Default::default(),
            m_axis_hdr_mseq_ack: Default::default(),
            m_axis_hdr_ext: Default::default(),
            m_axis_hdr_desc_addr: Default::default(),
            m_axis_hdr_desc_key: Default::default(),
            m_axis_hdr_desc_len: Default::default(),
            m_axis_pay_tvalid: Default::default(),
            m_axis_pay_tdata: Default::default(),
            m_axis_pay_tkeep: Default::default(),
            m_axis_pay_tlast: Default::default(),
            m_axis_pay_tuser: Default::default(),
            cnt_rd_data: Default::default(),
            beat: BeatTracker::new(p),
            verdict: Default::default(),
            hdr_out: Default::default(),
            hdr_out_v: Default::default(),
            held: Default::default(),
            held_err: Default::default(),
            pay: Default::default(),
            counters: CounterBank::new(COUNTERS),
            accept: Default::default(),
            keep_norm: Default::default(),
            live5: Default::default(),
            push_hdr: Default::default(),
            rec: Default::default(),
            c_hdr_zero: Default::default(),
            c_words_zero: Default::default(),
            words: Default::default(),
            cur: Default::default(),
            cur_w0: Default::default(),
            cur_w1: Default::default(),
            cur_w4: Default::default(),
            held_w2_lo: Default::default(),
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
        dff_setup!(self, clock, words, hdr_out, hdr_out_v, held, held_err);
        clock!(self, clock, beat, verdict, pay, counters);
        self.beat.reset.next = self.reset.val();
        self.verdict.reset.next = self.reset.val();
        self.pay.reset.next = self.reset.val();
        self.counters.reset.next = self.reset.val();

        // Registered-only ready: no record held, a free skid slot on the payload output.
        self.accept.next =
            self.s_axis_rx_tvalid.val() & !self.held.q.val() & self.pay.can_push.val();
        self.beat.accept.next = self.accept.val();
        self.beat.last.next = self.s_axis_rx_tlast.val();
        self.beat.keep.next = self.s_axis_rx_tkeep.val();

        // The message's words as they stand after this beat (for the records).
        self.cur.next = self.words.q.val();
        self.live5.next = self.beat.first5.val();
        if self.held.q.val() {
            self.live5.next = 0.into();
        }
        if self.live5.val().get_bit(0) {
            self.cur.next = self.c_words_zero.val();
            self.cur.next.w0 = self.s_axis_rx_tdata.val();
            self.cur.next.user = self.s_axis_rx_tuser.val();
        }
        if self.live5.val().get_bit(1) {
            self.cur.next.w1 = self.s_axis_rx_tdata.val();
        }
        if self.live5.val().get_bit(2) {
            self.cur.next.w2 = self.s_axis_rx_tdata.val();
        }
        if self.live5.val().get_bit(3) {
            self.cur.next.w3 = self.s_axis_rx_tdata.val();
        }
        if self.live5.val().get_bit(4) {
            self.cur.next.w4 = self.s_axis_rx_tdata.val();
        }
        if self.accept.val() {
            self.words.d.next = self.cur.val();
        }

        self.verdict.accept.next = self.accept.val();
        self.verdict.first5.next = self.beat.first5.val();
        self.verdict.part.next = self.beat.part.val();
        self.verdict.got.next = self.beat.got.val();
        self.verdict.long.next = self.beat.long.val();
        self.verdict.data.next = self.s_axis_rx_tdata.val();
        self.held_w2_lo.next = bit_cast::<32, 64>(self.words.q.val().w2);
        self.verdict.w0.next = self.words.q.val().w0;
        self.verdict.w2_lo.next = self.held_w2_lo.val();

        // The header record of a message ending with this beat (fields of a struct field
        // are sliced from a plain signal: Yosys cannot slice a slice).
        self.cur_w0.next = self.cur.val().w0;
        self.cur_w1.next = self.cur.val().w1;
        self.cur_w4.next = self.cur.val().w4;
        self.rec.next.user = self.cur.val().user;
        self.rec.next.error = self.verdict.err.val();
        if self.held.q.val() {
            self.rec.next.error = self.held_err.q.val();
        }
        self.rec.next.mid = self.cur_w0.val().get_bits::<8>(0);
        self.rec.next.flags = self.cur_w0.val().get_bits::<8>(8);
        self.rec.next.bufs = self.cur_w0.val().get_bits::<16>(16);
        self.rec.next.len = self.cur_w0.val().get_bits::<32>(32);
        self.rec.next.mseq = self.cur_w1.val().get_bits::<32>(0);
        self.rec.next.mseq_ack = self.cur_w1.val().get_bits::<32>(32);
        self.rec.next.ext = 0.into();
        if self.verdict.ext.val() {
            self.rec.next.ext = self.cur.val().w2;
        }
        self.rec.next.desc_addr = 0.into();
        self.rec.next.desc_key = 0.into();
        self.rec.next.desc_len = 0.into();
        if self.verdict.desc_present.val() {
            self.rec.next.desc_addr = self.cur.val().w3;
            self.rec.next.desc_key = self.cur_w4.val().get_bits::<32>(0);
            self.rec.next.desc_len = self.cur_w4.val().get_bits::<32>(32);
        }
        self.push_hdr.next = self.accept.val() & self.s_axis_rx_tlast.val();
        if !self.hdr_out_v.q.val() | self.m_axis_hdr_tready.val() {
            if self.held.q.val() {
                self.hdr_out.d.next = self.rec.val();
                self.held.d.next = false;
            } else {
                self.hdr_out_v.d.next = self.push_hdr.val();
                if self.push_hdr.val() {
                    self.hdr_out.d.next = self.rec.val();
                }
            }
        } else if self.push_hdr.val() {
            self.held.d.next = true;
            self.held_err.d.next = self.verdict.err.val();
        }

        // The payload beat: full unless last; a last beat's enables made contiguous.
        self.keep_norm.next = 0xFF.into();
        if self.s_axis_rx_tlast.val() {
            self.keep_norm.next = self.beat.keep_norm.val();
        }
        self.prec.next.data = self.s_axis_rx_tdata.val();
        self.prec.next.keep = self.keep_norm.val();
        self.prec.next.last = self.s_axis_rx_tlast.val();
        self.prec.next.user = bit_cast::<17, 16>(self.cur.val().user);
        if self.s_axis_rx_tlast.val() & self.verdict.bad.val() {
            self.prec.next.user = bit_cast::<17, 16>(self.cur.val().user).replace_bit(16, true);
        }
        self.pay.push.next = self.accept.val() & self.verdict.is_pay.val();
        self.pay.push_data.next = self.prec.val();
        self.pay.out_ready.next = self.m_axis_pay_tready.val();

        // One count per message: good at index 0, else at its error code.
        self.counters.inc.next = self.accept.val() & self.s_axis_rx_tlast.val();
        self.counters.inc_index.next = bit_cast::<IDX, 4>(self.verdict.err.val());
        self.counters.rd_index.next = self.cnt_rd_index.val();

        if self.reset.val() {
            self.hdr_out.d.next = self.c_hdr_zero.val();
            self.hdr_out_v.d.next = false;
            self.held.d.next = false;
            self.held_err.d.next = 0.into();
            self.words.d.next = self.c_words_zero.val();
        }

        // Outputs, all from registers.
        self.s_axis_rx_tready.next = !self.held.q.val() & self.pay.can_push.val();
        self.m_axis_hdr_tvalid.next = self.hdr_out_v.q.val();
        self.m_axis_hdr_tuser.next = self.hdr_out.q.val().user;
        self.m_axis_hdr_error.next = self.hdr_out.q.val().error;
        self.m_axis_hdr_mid.next = self.hdr_out.q.val().mid;
        self.m_axis_hdr_flags.next = self.hdr_out.q.val().flags;
        self.m_axis_hdr_bufs.next = self.hdr_out.q.val().bufs;
        self.m_axis_hdr_len.next = self.hdr_out.q.val().len;
        self.m_axis_hdr_mseq.next = self.hdr_out.q.val().mseq;
        self.m_axis_hdr_mseq_ack.next = self.hdr_out.q.val().mseq_ack;
        self.m_axis_hdr_ext.next = self.hdr_out.q.val().ext;
        self.m_axis_hdr_desc_addr.next = self.hdr_out.q.val().desc_addr;
        self.m_axis_hdr_desc_key.next = self.hdr_out.q.val().desc_key;
        self.m_axis_hdr_desc_len.next = self.hdr_out.q.val().desc_len;
        self.m_axis_pay_tvalid.next = self.pay.out_valid.val();
        self.m_axis_pay_tdata.next = self.pay.out_data.val().data;
        self.m_axis_pay_tkeep.next = self.pay.out_data.val().keep;
        self.m_axis_pay_tlast.next = self.pay.out_data.val().last;
        self.m_axis_pay_tuser.next = self.pay.out_data.val().user;
        self.cnt_rd_data.next = self.counters.rd_data.val();
    }
}
