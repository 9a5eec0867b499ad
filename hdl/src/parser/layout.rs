//! The message's layout, as far as the verdict and the records need it: the facts of its
//! kind (from `sanswitch_model::wire::LAYOUTS`, the table the model and the codec use) and
//! where its fixed part ends, for the beat at hand.
//!
//! Purely combinational. Inputs: `mid` and `has_desc` (from the registered beat 0), `first5`
//! (one-hot: the beat is beat 0 to 4), `part` (it holds fewer than 8 bytes). Outputs: the
//! kind's facts (`known`, `ext`, `desc_allowed`, `desc_required`, `pay_allowed`,
//! `pay_required`, `urgent`), `desc_present` (DESC set on a kind that may carry one),
//! `is_pay` (the beat is past the fixed part of a kind with a payload: beat 2, 3 or 5 on),
//! `lt_fixed` (ending here, the message is shorter than its fixed part of
//! `2 + ext + 2 × DESC` beats) and `has_payload` (ending here, it is longer).

use rust_hdl::prelude::*;
use sanswitch_model::wire::{DescRule, LAYOUTS, PayloadRule};

const KINDS: usize = LAYOUTS.len();

#[derive(LogicBlock)]
pub struct Layout {
    pub mid: Signal<In, Bits<8>>,
    pub has_desc: Signal<In, Bit>,
    pub first5: Signal<In, Bits<5>>,
    pub part: Signal<In, Bit>,
    pub known: Signal<Out, Bit>,
    pub ext: Signal<Out, Bit>,
    pub desc_allowed: Signal<Out, Bit>,
    pub desc_required: Signal<Out, Bit>,
    pub pay_allowed: Signal<Out, Bit>,
    pub pay_required: Signal<Out, Bit>,
    pub urgent: Signal<Out, Bit>,
    pub desc_present: Signal<Out, Bit>,
    pub is_pay: Signal<Out, Bit>,
    pub lt_fixed: Signal<Out, Bit>,
    pub has_payload: Signal<Out, Bit>,
    lay_mid: [Constant<Bits<8>>; KINDS],
    lay_ext: [Constant<Bit>; KINDS],
    lay_desc_allowed: [Constant<Bit>; KINDS],
    lay_desc_required: [Constant<Bit>; KINDS],
    lay_pay_allowed: [Constant<Bit>; KINDS],
    lay_pay_required: [Constant<Bit>; KINDS],
    lay_urgent: [Constant<Bit>; KINDS],
    at0: Signal<Local, Bit>,
    at1: Signal<Local, Bit>,
    at2: Signal<Local, Bit>,
    at3: Signal<Local, Bit>,
    at4: Signal<Local, Bit>,
    ge2: Signal<Local, Bit>,
    ge3: Signal<Local, Bit>,
    ge4: Signal<Local, Bit>,
    ge5: Signal<Local, Bit>,
}

fn bit_table(f: impl Fn(&sanswitch_model::wire::Layout) -> bool) -> [Constant<Bit>; KINDS] {
    std::array::from_fn(|i| Constant::new(f(&LAYOUTS[i])))
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            mid: Default::default(),
            has_desc: Default::default(),
            first5: Default::default(),
            part: Default::default(),
            known: Default::default(),
            ext: Default::default(),
            desc_allowed: Default::default(),
            desc_required: Default::default(),
            pay_allowed: Default::default(),
            pay_required: Default::default(),
            urgent: Default::default(),
            desc_present: Default::default(),
            is_pay: Default::default(),
            lt_fixed: Default::default(),
            has_payload: Default::default(),
            lay_mid: std::array::from_fn(|i| Constant::new((LAYOUTS[i].mid as u64).into())),
            lay_ext: bit_table(|l| l.ext_beats == 1),
            lay_desc_allowed: bit_table(|l| l.desc != DescRule::Forbidden),
            lay_desc_required: bit_table(|l| l.desc == DescRule::Required),
            lay_pay_allowed: bit_table(|l| l.payload != PayloadRule::None),
            lay_pay_required: bit_table(|l| l.payload == PayloadRule::Required),
            lay_urgent: bit_table(|l| l.urgent_allowed),
            at0: Default::default(),
            at1: Default::default(),
            at2: Default::default(),
            at3: Default::default(),
            at4: Default::default(),
            ge2: Default::default(),
            ge3: Default::default(),
            ge4: Default::default(),
            ge5: Default::default(),
        }
    }
}

impl Logic for Layout {
    #[hdl_gen]
    fn update(&mut self) {
        self.known.next = false;
        self.ext.next = false;
        self.desc_allowed.next = false;
        self.desc_required.next = false;
        self.pay_allowed.next = false;
        self.pay_required.next = false;
        self.urgent.next = false;
        for i in 0..KINDS {
            if self.mid.val() == self.lay_mid[i].val() {
                self.known.next = true;
                self.ext.next = self.lay_ext[i].val();
                self.desc_allowed.next = self.lay_desc_allowed[i].val();
                self.desc_required.next = self.lay_desc_required[i].val();
                self.pay_allowed.next = self.lay_pay_allowed[i].val();
                self.pay_required.next = self.lay_pay_required[i].val();
                self.urgent.next = self.lay_urgent[i].val();
            }
        }
        self.desc_present.next = self.has_desc.val() & self.desc_allowed.val();

        self.at0.next = self.first5.val().get_bit(0);
        self.at1.next = self.first5.val().get_bit(1);
        self.at2.next = self.first5.val().get_bit(2);
        self.at3.next = self.first5.val().get_bit(3);
        self.at4.next = self.first5.val().get_bit(4);
        self.ge2.next = !self.at0.val() & !self.at1.val();
        self.ge3.next = self.ge2.val() & !self.at2.val();
        self.ge4.next = self.ge3.val() & !self.at3.val();
        self.ge5.next = self.ge4.val() & !self.at4.val();
        // Payload beats start after the fixed part: beat 2, 3 or 5.
        self.is_pay.next = false;
        if self.pay_allowed.val() {
            if !self.ext.val() {
                self.is_pay.next = self.ge2.val();
            } else if self.desc_present.val() {
                self.is_pay.next = self.ge5.val();
            } else {
                self.is_pay.next = self.ge3.val();
            }
        }
        self.lt_fixed.next = self.at0.val() | (self.at1.val() & self.part.val());
        self.has_payload.next = self.ge2.val();
        if self.ext.val() & self.has_desc.val() {
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
        } else if self.ext.val() {
            self.lt_fixed.next =
                self.at0.val() | self.at1.val() | (self.at2.val() & self.part.val());
            self.has_payload.next = self.ge3.val();
        }
    }
}
