//! One queue pair's registers (`regs::QUEUE_PAIR_BLOCK`): the rings' bases, sizes,
//! pointers, enables, the doorbell check, the arm and its event (the model:
//! `sanswitch_model::blocks::hostif`, "Doorbell", "Completion ring").
//!
//! # Ports
//! - `wr`, `off`, `wdata` (in): a register write at this edge, `off` inside this block.
//! - `took` (in): the fetch queued an entry (`sq_cons` moves); `done` (in): a completion
//!   entry was written (`cq_prod` moves; an armed ring raises `cq_event` and disarms).
//! - `state` (out): the registers (as reads see them); `sq`, `cq` (out): what the fetch and
//!   the completion writer need of them; `stop` (out): this write disables the submission ring;
//!   `sq_work` (out): the submission ring is enabled, not stopped and has entries to fetch.
//! - `ev_in` (in) / `ev_out` (out): the queue pairs' events, chained: `ev_out` is `ev_in`
//!   with this queue pair's bit set while its event is (the last link is `cq_event`).
//! - `doorbell`, `beyond`, `bad_cq_cons` (out): counted events of this write.
//!
//! A write wins over the edge's pointer moves; the checks see the pointers after them (a
//! doorbell against `sq_cons` with this edge's entry counted, `cq_cons` against `cq_prod`
//! likewise).

use rust_hdl::prelude::*;
use sanswitch_model::regs::qp;

use crate::widgets::{Param, param};

/// The queue pair's registers, as the read decoder and the ring units see them.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct QpState {
    pub sq_base: Bits<64>,
    pub sq_log2: Bits<4>,
    pub sq_prod: Bits<16>,
    pub sq_cons: Bits<16>,
    pub sq_en: Bit,
    /// Stopped by a doorbell beyond the ring (`qp::CTRL_ERR_DOORBELL`).
    pub sq_err: Bit,
    pub cq_base: Bits<64>,
    pub cq_log2: Bits<4>,
    pub cq_prod: Bits<16>,
    pub cq_cons: Bits<16>,
    pub cq_en: Bit,
    pub cq_arm: Bit,
}

/// What the fetch needs of a submission ring.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct SqState {
    /// Enabled and not stopped.
    pub run: Bit,
    pub base: Bits<64>,
    /// The ring's size less one (`2^log2 - 1`): kept beside `log2` in a register of its own,
    /// so the fetch's count starts at a register after the queue-pair multiplexer, not at a
    /// shift and a subtraction behind it.
    pub mask: Bits<16>,
    pub prod: Bits<16>,
    pub cons: Bits<16>,
}

/// What the completion writer needs of a completion ring.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct CqState {
    /// Enabled.
    pub run: Bit,
    pub base: Bits<64>,
    pub log2: Bits<4>,
    pub prod: Bits<16>,
    pub cons: Bits<16>,
}

#[derive(LogicBlock, Default)]
pub struct QpRegs {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub wr: Signal<In, Bit>,
    pub off: Signal<In, Bits<12>>,
    pub wdata: Signal<In, Bits<32>>,
    pub took: Signal<In, Bit>,
    pub done: Signal<In, Bit>,
    pub ev_in: Signal<In, Bits<8>>,
    pub state: Signal<Out, QpState>,
    pub sq: Signal<Out, SqState>,
    pub cq: Signal<Out, CqState>,
    pub stop: Signal<Out, Bit>,
    pub sq_work: Signal<Out, Bit>,
    pub ev_out: Signal<Out, Bits<8>>,
    pub doorbell: Signal<Out, Bit>,
    pub beyond: Signal<Out, Bit>,
    pub bad_cq_cons: Signal<Out, Bit>,
    sq_base: DFF<Bits<64>>,
    sq_log2: DFF<Bits<4>>,
    sq_mask: DFF<Bits<16>>,
    sq_prod: DFF<Bits<16>>,
    sq_cons: DFF<Bits<16>>,
    sq_en: DFF<Bit>,
    sq_err: DFF<Bit>,
    cq_base: DFF<Bits<64>>,
    cq_log2: DFF<Bits<4>>,
    cq_prod: DFF<Bits<16>>,
    cq_cons: DFF<Bits<16>>,
    cq_en: DFF<Bit>,
    cq_arm: DFF<Bit>,
    ev: DFF<Bit>,
    k_sq_base_lo: Param<Bits<12>>,
    k_sq_base_hi: Param<Bits<12>>,
    k_sq_log2_size: Param<Bits<12>>,
    k_sq_prod: Param<Bits<12>>,
    k_sq_ctrl: Param<Bits<12>>,
    k_cq_base_lo: Param<Bits<12>>,
    k_cq_base_hi: Param<Bits<12>>,
    k_cq_log2_size: Param<Bits<12>>,
    k_cq_cons: Param<Bits<12>>,
    k_cq_ctrl: Param<Bits<12>>,
    k_max_log2: Param<Bits<4>>,
    k_one: Param<Bits<16>>,
    /// This queue pair's bit of the event vector.
    k_bit: Param<Bits<8>>,
    wlog2: Signal<Local, Bits<4>>,
    w16: Signal<Local, Bits<16>>,
    sq_size: Signal<Local, Bits<16>>,
    cq_size: Signal<Local, Bits<16>>,
    sq_cons_next: Signal<Local, Bits<16>>,
    cq_prod_next: Signal<Local, Bits<16>>,
    /// A doorbell past the ring's end, against the consumer pointer as it is and as it is
    /// one entry on (this edge's `took` picks one: it comes late, from the fetch's beats,
    /// so it chooses between the two compares instead of entering one).
    sq_beyond0: Signal<Local, Bit>,
    sq_beyond1: Signal<Local, Bit>,
    sq_beyond: Signal<Local, Bit>,
}

impl QpRegs {
    /// Queue pair `index`'s registers.
    pub fn new(max_log2_size: u8, index: usize) -> Self {
        let k = |r: u32| param(u64::from(r));
        QpRegs {
            k_sq_base_lo: k(qp::SQ_BASE_LO),
            k_sq_base_hi: k(qp::SQ_BASE_HI),
            k_sq_log2_size: k(qp::SQ_LOG2_SIZE),
            k_sq_prod: k(qp::SQ_PROD),
            k_sq_ctrl: k(qp::SQ_CTRL),
            k_cq_base_lo: k(qp::CQ_BASE_LO),
            k_cq_base_hi: k(qp::CQ_BASE_HI),
            k_cq_log2_size: k(qp::CQ_LOG2_SIZE),
            k_cq_cons: k(qp::CQ_CONS),
            k_cq_ctrl: k(qp::CQ_CTRL),
            k_max_log2: param(u64::from(max_log2_size)),
            k_one: param(1),
            k_bit: param(1 << index),
            ..Default::default()
        }
    }
}

impl Logic for QpRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, sq_base, sq_log2, sq_mask, sq_prod, sq_cons, sq_en, sq_err, cq_base,
            cq_log2, cq_prod, cq_cons, cq_en, cq_arm, ev
        );
        self.state.next.sq_base = self.sq_base.q.val();
        self.state.next.sq_log2 = self.sq_log2.q.val();
        self.state.next.sq_prod = self.sq_prod.q.val();
        self.state.next.sq_cons = self.sq_cons.q.val();
        self.state.next.sq_en = self.sq_en.q.val();
        self.state.next.sq_err = self.sq_err.q.val();
        self.state.next.cq_base = self.cq_base.q.val();
        self.state.next.cq_log2 = self.cq_log2.q.val();
        self.state.next.cq_prod = self.cq_prod.q.val();
        self.state.next.cq_cons = self.cq_cons.q.val();
        self.state.next.cq_en = self.cq_en.q.val();
        self.state.next.cq_arm = self.cq_arm.q.val();
        self.sq.next.run = self.sq_en.q.val() & !self.sq_err.q.val();
        self.sq.next.base = self.sq_base.q.val();
        self.sq.next.mask = self.sq_mask.q.val();
        self.sq.next.prod = self.sq_prod.q.val();
        self.sq.next.cons = self.sq_cons.q.val();
        self.cq.next.run = self.cq_en.q.val();
        self.cq.next.base = self.cq_base.q.val();
        self.cq.next.log2 = self.cq_log2.q.val();
        self.cq.next.prod = self.cq_prod.q.val();
        self.cq.next.cons = self.cq_cons.q.val();
        self.ev_out.next = self.ev_in.val();
        if self.ev.q.val() {
            self.ev_out.next = self.ev_in.val() | self.k_bit.val();
        }
        self.sq_work.next = self.sq_en.q.val()
            & !self.sq_err.q.val()
            & (self.sq_prod.q.val() != self.sq_cons.q.val());
        self.sq_size.next = self.k_one.val() << bit_cast::<16, 4>(self.sq_log2.q.val());
        self.cq_size.next = self.k_one.val() << bit_cast::<16, 4>(self.cq_log2.q.val());

        // The edge's pointer moves.
        self.sq_cons_next.next = self.sq_cons.q.val();
        if self.took.val() {
            self.sq_cons_next.next = self.sq_cons.q.val() + 1;
        }
        self.sq_cons.d.next = self.sq_cons_next.val();
        self.cq_prod_next.next = self.cq_prod.q.val();
        self.ev.d.next = false;
        if self.done.val() {
            self.cq_prod_next.next = self.cq_prod.q.val() + 1;
            if self.cq_arm.q.val() {
                self.cq_arm.d.next = false;
                self.ev.d.next = true;
            }
        }
        self.cq_prod.d.next = self.cq_prod_next.val();

        // The write. A ring's setup is ignored while it runs; sizes are clamped to 1..=max.
        self.w16.next = self.wdata.val().get_bits::<16>(0);
        self.sq_beyond0.next = (self.w16.val() - self.sq_cons.q.val()) > self.sq_size.val();
        self.sq_beyond1.next = (self.w16.val() + !self.sq_cons.q.val()) > self.sq_size.val();
        self.sq_beyond.next = self.sq_beyond0.val();
        if self.took.val() {
            self.sq_beyond.next = self.sq_beyond1.val();
        }
        self.wlog2.next = self.wdata.val().get_bits::<4>(0);
        if self.wdata.val() > bit_cast::<32, 4>(self.k_max_log2.val()) {
            self.wlog2.next = self.k_max_log2.val();
        }
        if self.wdata.val() == 0 {
            self.wlog2.next = 1.into();
        }
        self.stop.next = false;
        self.doorbell.next = false;
        self.beyond.next = false;
        self.bad_cq_cons.next = false;
        if self.wr.val() {
            if (self.off.val() == self.k_sq_base_lo.val()) & !self.sq_en.q.val() {
                self.sq_base.d.next = bit_cast::<64, 32>(self.wdata.val())
                    | (bit_cast::<64, 32>(self.sq_base.q.val().get_bits::<32>(32)) << 32);
            }
            if (self.off.val() == self.k_sq_base_hi.val()) & !self.sq_en.q.val() {
                self.sq_base.d.next = bit_cast::<64, 32>(self.sq_base.q.val().get_bits::<32>(0))
                    | (bit_cast::<64, 32>(self.wdata.val()) << 32);
            }
            if (self.off.val() == self.k_sq_log2_size.val()) & !self.sq_en.q.val() {
                self.sq_log2.d.next = self.wlog2.val();
                self.sq_mask.d.next =
                    (self.k_one.val() << bit_cast::<16, 4>(self.wlog2.val())) - self.k_one.val();
            }
            if (self.off.val() == self.k_sq_prod.val()) & self.sq_en.q.val() & !self.sq_err.q.val()
            {
                self.doorbell.next = true;
                if self.sq_beyond.val() {
                    self.sq_err.d.next = true;
                    self.beyond.next = true;
                } else {
                    self.sq_prod.d.next = self.w16.val();
                }
            }
            if self.off.val() == self.k_sq_ctrl.val() {
                self.sq_en.d.next = self.wdata.val().get_bit(0);
                if !self.wdata.val().get_bit(0) {
                    self.stop.next = true;
                    self.sq_prod.d.next = 0.into();
                    self.sq_cons.d.next = 0.into();
                    self.sq_err.d.next = false;
                }
            }
            if (self.off.val() == self.k_cq_base_lo.val()) & !self.cq_en.q.val() {
                self.cq_base.d.next = bit_cast::<64, 32>(self.wdata.val())
                    | (bit_cast::<64, 32>(self.cq_base.q.val().get_bits::<32>(32)) << 32);
            }
            if (self.off.val() == self.k_cq_base_hi.val()) & !self.cq_en.q.val() {
                self.cq_base.d.next = bit_cast::<64, 32>(self.cq_base.q.val().get_bits::<32>(0))
                    | (bit_cast::<64, 32>(self.wdata.val()) << 32);
            }
            if (self.off.val() == self.k_cq_log2_size.val()) & !self.cq_en.q.val() {
                self.cq_log2.d.next = self.wlog2.val();
            }
            if (self.off.val() == self.k_cq_cons.val()) & self.cq_en.q.val() {
                if (self.cq_prod_next.val() - self.w16.val()) > self.cq_size.val() {
                    self.bad_cq_cons.next = true;
                } else {
                    self.cq_cons.d.next = self.w16.val();
                }
            }
            if self.off.val() == self.k_cq_ctrl.val() {
                self.cq_en.d.next = self.wdata.val().get_bit(0);
                self.cq_arm.d.next = self.wdata.val().get_bit(1);
                if !self.wdata.val().get_bit(0) {
                    self.cq_prod.d.next = 0.into();
                    self.cq_cons.d.next = 0.into();
                }
            }
        }
        if self.reset.val() {
            self.sq_base.d.next = 0.into();
            self.sq_log2.d.next = 0.into();
            self.sq_mask.d.next = 0.into();
            self.sq_prod.d.next = 0.into();
            self.sq_cons.d.next = 0.into();
            self.sq_en.d.next = false;
            self.sq_err.d.next = false;
            self.cq_base.d.next = 0.into();
            self.cq_log2.d.next = 0.into();
            self.cq_prod.d.next = 0.into();
            self.cq_cons.d.next = 0.into();
            self.cq_en.d.next = false;
            self.cq_arm.d.next = false;
            self.ev.d.next = false;
        }
    }
}
