//! The parser's verdict: every rule of `docs/PROTOCOL.md` ("Malformed messages") in the order
//! `wire::Frame::decode` checks them, evaluated on each beat as if it were the last.
//!
//! # Ports
//! - `first5`, `part`, `got`, `long` (in): where the beat stands ([`super::beat`]).
//! - `data` (in): the beat on the wire; `w0`, `w2` (in): the message's registered beats 0
//!   and 2. The kind is decoded from the registered beat 0: a message whose last beat is beat 0
//!   is truncated whatever it says, so the verdict never needs beat 0 unregistered.
//! - `accept` (in): the beat is taken at the coming edge (the checks on beat 2 and the sums
//!   on beats 2 and 4 are kept then).
//! - `err` (out): 0 good, else `ParseError::index() + 1`; `bad` (out): `err != 0` as one OR,
//!   for the payload's bad mark (valid on payload beats only).
//! - `ext`, `desc_present`, `is_pay` (out): the kind has an extension beat; the descriptor is
//!   present; the beat is a payload beat.
//!
//! # How the verdict stays shallow
//! Beat 2's extension checks are made on the wire word and kept; the LargeSend sums
//! (`tpf` = total + fixed bytes at beat 2, `want_got` = tpf − descriptor length at beat 4)
//! are formed a beat or more before the last beat, so the verdict is compares and a priority
//! encoder. The message-id facts are tables built from `sanswitch_model::wire::LAYOUTS`, the
//! table the model and the codec use.

use rust_hdl::prelude::*;
use sanswitch_model::wire::{self, cap, flag, mid};

use super::layout::Layout;

#[derive(LogicBlock)]
pub struct Verdict {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub accept: Signal<In, Bit>,
    pub first5: Signal<In, Bits<5>>,
    pub part: Signal<In, Bit>,
    pub got: Signal<In, Bits<17>>,
    pub long: Signal<In, Bit>,
    pub data: Signal<In, Bits<64>>,
    pub w0: Signal<In, Bits<64>>,
    /// Beat 2's low word (a LargeSend's total).
    pub w2_lo: Signal<In, Bits<32>>,
    pub err: Signal<Out, Bits<4>>,
    pub bad: Signal<Out, Bit>,
    pub ext: Signal<Out, Bit>,
    pub desc_present: Signal<Out, Bit>,
    pub is_pay: Signal<Out, Bit>,

    // Beat 2's checks and the LargeSend sums, kept for a later last beat.
    x_hello_res: DFF<Bit>,
    x_hello_bad: DFF<Bit>,
    x_lo_nz: DFF<Bit>,
    x_hi_nz: DFF<Bit>,
    tpf: DFF<Bits<33>>,
    want_got: DFF<Bits<34>>,

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

    at0: Signal<Local, Bit>,
    at1: Signal<Local, Bit>,
    at2: Signal<Local, Bit>,
    at4: Signal<Local, Bit>,
    m: Signal<Local, Bits<8>>,
    flags: Signal<Local, Bits<8>>,
    known: Signal<Local, Bit>,
    k_desc_allowed: Signal<Local, Bit>,
    k_desc_required: Signal<Local, Bit>,
    k_pay_allowed: Signal<Local, Bit>,
    k_pay_required: Signal<Local, Bit>,
    k_urgent: Signal<Local, Bit>,
    has_desc: Signal<Local, Bit>,
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
    short: Signal<Local, Bit>,
    layout: Layout,
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

impl Default for Verdict {
    fn default() -> Self {
        let ls = wire::Layout::of(wire::Kind::LargeSend);
        Verdict {
            clock: Default::default(),
            reset: Default::default(),
            accept: Default::default(),
            first5: Default::default(),
            part: Default::default(),
            got: Default::default(),
            long: Default::default(),
            data: Default::default(),
            w0: Default::default(),
            w2_lo: Default::default(),
            err: Default::default(),
            bad: Default::default(),
            ext: Default::default(),
            desc_present: Default::default(),
            is_pay: Default::default(),
            x_hello_res: Default::default(),
            x_hello_bad: Default::default(),
            x_lo_nz: Default::default(),
            x_hi_nz: Default::default(),
            tpf: Default::default(),
            want_got: Default::default(),
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
            at0: Default::default(),
            at1: Default::default(),
            at2: Default::default(),
            at4: Default::default(),
            m: Default::default(),
            flags: Default::default(),
            known: Default::default(),
            k_desc_allowed: Default::default(),
            k_desc_required: Default::default(),
            k_pay_allowed: Default::default(),
            k_pay_required: Default::default(),
            k_urgent: Default::default(),
            has_desc: Default::default(),
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
            short: Default::default(),
            layout: Default::default(),
        }
    }
}

impl Logic for Verdict {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, x_hello_res, x_hello_bad, x_lo_nz, x_hi_nz, tpf, want_got);
        self.at0.next = self.first5.val().get_bit(0);
        self.at1.next = self.first5.val().get_bit(1);
        self.at2.next = self.first5.val().get_bit(2);
        self.at4.next = self.first5.val().get_bit(4);

        // The kind's facts and the message's geometry.
        self.layout.first5.next = self.first5.val();
        self.layout.part.next = self.part.val();
        self.m.next = self.w0.val().get_bits::<8>(0);
        self.flags.next = self.w0.val().get_bits::<8>(8);
        self.has_desc.next = self.flags.val().get_bit(1);
        self.layout.mid.next = self.m.val();
        self.layout.has_desc.next = self.has_desc.val();
        self.known.next = self.layout.known.val();
        self.k_desc_allowed.next = self.layout.desc_allowed.val();
        self.k_desc_required.next = self.layout.desc_required.val();
        self.k_pay_allowed.next = self.layout.pay_allowed.val();
        self.k_pay_required.next = self.layout.pay_required.val();
        self.k_urgent.next = self.layout.urgent.val();
        self.ext.next = self.layout.ext.val();
        self.desc_present.next = self.layout.desc_present.val();
        self.is_pay.next = self.layout.is_pay.val();
        self.lt_fixed.next = self.layout.lt_fixed.val();
        self.has_payload.next = self.layout.has_payload.val();
        self.short.next = self.at0.val() | (self.at1.val() & self.part.val());

        // Extension checks on beat 2, made on the wire word as it arrives and kept.
        self.e_hello_res.next = (self.data.val().get_bits::<8>(8) & self.c_cap_reserved.val())
            .any()
            | self.data.val().get_bits::<16>(16).any();
        self.e_hello_bad.next = (self.data.val().get_bits::<8>(0) != self.c_version.val())
            | (self.data.val().get_bits::<32>(32) < self.c_min_buf.val())
            | (self.data.val().get_bits::<32>(32) > self.c_max_buf.val());
        self.e_lo_nz.next = self.data.val().get_bits::<32>(0).any();
        self.e_hi_nz.next = self.data.val().get_bits::<32>(32).any();
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
        if self.accept.val() & self.at2.val() {
            self.x_hello_res.d.next = self.e_hello_res.val();
            self.x_hello_bad.d.next = self.e_hello_bad.val();
            self.x_lo_nz.d.next = self.e_lo_nz.val();
            self.x_hi_nz.d.next = self.e_hi_nz.val();
            self.tpf.d.next = bit_cast::<33, 32>(self.data.val().get_bits::<32>(0))
                + self.c_ls_fixed_nodesc.val();
            if self.has_desc.val() {
                self.tpf.d.next = bit_cast::<33, 32>(self.data.val().get_bits::<32>(0))
                    + self.c_ls_fixed_desc.val();
            }
        }
        if self.accept.val() & self.at4.val() {
            self.want_got.d.next = bit_cast::<34, 33>(self.tpf.q.val())
                - bit_cast::<34, 32>(self.data.val().get_bits::<32>(32));
        }

        // The conditions, each on registers or on one level of the incoming beat.
        self.c_len.next = self.w0.val().get_bits::<32>(32) != bit_cast::<32, 17>(self.got.val());
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
        self.bufs_low.next = self.w0.val().get_bits::<16>(16) < self.c_min_posted.val();
        // LargeSend: total above the inline bytes, and (with a descriptor) equal to them plus
        // the descriptor's length. When the fixed part ends the message, that is total != 0
        // and total == descriptor length, checked on the words themselves.
        self.ls_bad.next = (self.tpf.q.val() <= bit_cast::<33, 17>(self.got.val()))
            | (self.has_desc.val() & (self.want_got.q.val() != bit_cast::<34, 17>(self.got.val())));
        if (self.at2.val() & !self.has_desc.val()) | (self.at4.val() & self.has_desc.val()) {
            self.ls_bad.next = !self.c_lo_nz.val()
                | (self.has_desc.val() & (self.w2_lo.val() != self.data.val().get_bits::<32>(32)));
        }

        // The verdict, in wire::Frame::decode's order.
        self.err.next = 0.into();
        if self.long.val() {
            self.err.next = 7.into();
        } else if self.short.val() {
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
        // The same verdict as one OR (err != 0), for the payload's bad mark, which only a
        // payload beat carries: of a Data or LargeSend message (known kinds that allow a
        // payload), at or past its fixed part. There the kind is known and the message is
        // not short of its fixed part, a misplaced payload implies a misplaced descriptor,
        // and only LargeSend has fields left to check: the other terms of `err` cannot be
        // set (cargo mutants found them unobservable).
        self.bad.next = self.long.val()
            | self.c_len.val()
            | self.c_flags.val()
            | self.c_desc.val()
            | (self.is_ls.val() & (self.c_hi_nz.val() | self.ls_bad.val()));

        if self.reset.val() {
            self.x_hello_res.d.next = false;
            self.x_hello_bad.d.next = false;
            self.x_lo_nz.d.next = false;
            self.x_hi_nz.d.next = false;
            self.tpf.d.next = 0.into();
            self.want_got.d.next = 0.into();
        }
    }
}
