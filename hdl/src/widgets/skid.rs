//! An output register with one skid slot: the stream output stage of every block.
//!
//! # Ports
//! - `push`/`push_data` (in): the producer offers an entry this cycle; only while `can_push`.
//! - `can_push` (out, registered): the skid slot is free.
//! - `out_valid`/`out_data` (out, registered) and `out_ready` (in): the consumer's handshake;
//!   an entry moves at an edge where both valid and ready are high.
//! - `reset` (in): synchronous; both registers empty and cleared.
//!
//! # Timing
//! An entry pushed during cycle `t` is on `out_*` during cycle `t + 1` when the output was
//! free or taken; otherwise it waits in the slot and `can_push` is low from cycle `t + 1`
//! until the slot drains. One entry per cycle while the consumer is ready. Model:
//! `sanswitch_model::blocks::widgets::Skid`.

use rust_hdl::prelude::*;

use super::Param;

#[derive(LogicBlock, Default)]
pub struct SkidBuffer<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_data: Signal<In, T>,
    pub can_push: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_data: Signal<Out, T>,
    pub out_ready: Signal<In, Bit>,
    out: DFF<T>,
    out_v: DFF<Bit>,
    skid: DFF<T>,
    skid_v: DFF<Bit>,
    zero: Param<T>,
}

impl<T: Synth> Logic for SkidBuffer<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out, out_v, skid, skid_v);
        if !self.out_v.q.val() | self.out_ready.val() {
            if self.skid_v.q.val() {
                self.out.d.next = self.skid.q.val();
                self.skid_v.d.next = false;
            } else {
                self.out_v.d.next = self.push.val();
                if self.push.val() {
                    self.out.d.next = self.push_data.val();
                }
            }
        } else if self.push.val() {
            self.skid.d.next = self.push_data.val();
            self.skid_v.d.next = true;
        }
        if self.reset.val() {
            self.out.d.next = self.zero.val();
            self.out_v.d.next = false;
            self.skid.d.next = self.zero.val();
            self.skid_v.d.next = false;
        }
        self.can_push.next = !self.skid_v.q.val();
        self.out_valid.next = self.out_v.q.val();
        self.out_data.next = self.out.q.val();
    }
}
