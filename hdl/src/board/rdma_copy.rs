//! One direction of the SAN loopback's RDMA: node `i`'s requests (the initiator) checked by
//! node `t` (the target) and carried out word by word between the two node memories. Model:
//! `sanswitch_model::blocks::san_loop::RdmaCopy`.
//!
//! # Ports
//! - `s_axis_rq_*` (in, the initiator's `m_axis_rq_*`), `m_axis_rs_*` (out, to its
//!   `s_axis_rs_*`): a request, and its response (`tag`, `status`).
//! - `m_axis_ac_*` (out, to the target's `s_axis_ac_*`), `s_axis_ck_*` (in, its
//!   `m_axis_ck_*`): the check, and its answer.
//! - `m_imem_*`, `m_tmem_*` (out: `valid`, `write`, `index`, `wdata`, `wmask`; in: `ready`,
//!   `rdata`): word ports on the initiator's and the target's memory (through a
//!   [`WordArb`](super::WordArb)); a read's word is taken from `rdata` the cycle after its
//!   grant. The `valid`s depend on registers only.
//! - `cnt_copies` (out): copies done; `cnt_oob` (out): granted ranges outside a memory
//!   (both 16 bits, wrapping); `idle` (out): in `Idle`.
//! - `reset` (in): synchronous.
//!
//! # Steps
//! `Idle` (takes a request) → `Check` (offers it to the target) → `Wait` (the answer: a
//! denial answers its reason, a grant of no bytes 0, a range outside either memory
//! `TRANSPORT`; else the copy is set up) → `Copy` → `Resp` (the response, until taken).
//!
//! # The copy
//! [`WordCopy`], started at `Wait`'s edge; its `done` ends `Copy`.

use rust_hdl::prelude::*;

use super::WordCopy;
use crate::widgets::{Param, param};

/// A copy unit's step.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum CopyState {
    Idle,
    Check,
    Wait,
    Copy,
    Resp,
}

#[derive(LogicBlock, Default)]
pub struct RdmaCopy {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_rq_tvalid: Signal<In, Bit>,
    pub s_axis_rq_tag: Signal<In, Bits<16>>,
    pub s_axis_rq_write: Signal<In, Bit>,
    pub s_axis_rq_conn: Signal<In, Bits<8>>,
    pub s_axis_rq_raddr: Signal<In, Bits<64>>,
    pub s_axis_rq_rkey: Signal<In, Bits<32>>,
    pub s_axis_rq_laddr: Signal<In, Bits<64>>,
    pub s_axis_rq_len: Signal<In, Bits<32>>,
    pub m_axis_rs_tready: Signal<In, Bit>,
    pub m_axis_ac_tready: Signal<In, Bit>,
    pub s_axis_ck_tvalid: Signal<In, Bit>,
    pub s_axis_ck_grant: Signal<In, Bit>,
    pub s_axis_ck_reason: Signal<In, Bits<3>>,
    pub m_imem_ready: Signal<In, Bit>,
    pub m_imem_rdata: Signal<In, Bits<64>>,
    pub m_tmem_ready: Signal<In, Bit>,
    pub m_tmem_rdata: Signal<In, Bits<64>>,
    pub s_axis_rq_tready: Signal<Out, Bit>,
    pub m_axis_rs_tvalid: Signal<Out, Bit>,
    pub m_axis_rs_tag: Signal<Out, Bits<16>>,
    pub m_axis_rs_status: Signal<Out, Bits<3>>,
    pub m_axis_ac_tvalid: Signal<Out, Bit>,
    pub m_axis_ac_conn: Signal<Out, Bits<8>>,
    pub m_axis_ac_key: Signal<Out, Bits<32>>,
    pub m_axis_ac_write: Signal<Out, Bit>,
    pub m_axis_ac_addr: Signal<Out, Bits<64>>,
    pub m_axis_ac_len: Signal<Out, Bits<32>>,
    pub s_axis_ck_tready: Signal<Out, Bit>,
    pub m_imem_valid: Signal<Out, Bit>,
    pub m_imem_write: Signal<Out, Bit>,
    pub m_imem_index: Signal<Out, Bits<16>>,
    pub m_imem_wdata: Signal<Out, Bits<64>>,
    pub m_imem_wmask: Signal<Out, Bits<8>>,
    pub m_tmem_valid: Signal<Out, Bit>,
    pub m_tmem_write: Signal<Out, Bit>,
    pub m_tmem_index: Signal<Out, Bits<16>>,
    pub m_tmem_wdata: Signal<Out, Bits<64>>,
    pub m_tmem_wmask: Signal<Out, Bits<8>>,
    pub cnt_copies: Signal<Out, Bits<16>>,
    pub cnt_oob: Signal<Out, Bits<16>>,
    pub idle: Signal<Out, Bit>,
    st: DFF<CopyState>,
    tag: DFF<Bits<16>>,
    write: DFF<Bit>,
    conn: DFF<Bits<8>>,
    raddr: DFF<Bits<64>>,
    rkey: DFF<Bits<32>>,
    laddr: DFF<Bits<64>>,
    len: DFF<Bits<32>>,
    status: DFF<Bits<3>>,
    copies: DFF<Bits<16>>,
    oob: DFF<Bits<16>>,
    copy: WordCopy,
    /// The copy's source and destination addresses and length; the range check.
    s: Signal<Local, Bits<64>>,
    d: Signal<Local, Bits<64>>,
    n: Signal<Local, Bits<64>>,
    outside: Signal<Local, Bit>,
    k_bytes: Param<Bits<64>>,
    k_transport: Param<Bits<3>>,
}

impl RdmaCopy {
    /// A unit between memories of `words` 64-bit words (a power of two, at most 32768).
    pub fn new(words: usize) -> Self {
        assert!(words.is_power_of_two() && words <= 1 << 15);
        RdmaCopy {
            copy: WordCopy::new(words),
            k_bytes: param(8 * words as u64),
            k_transport: param(sanswitch_model::status::fault::TRANSPORT as u64),
            ..Default::default()
        }
    }
}

impl Logic for RdmaCopy {
    // rust-hdl takes no match guards, so a step's condition stays an `if` inside its arm.
    #[allow(clippy::collapsible_match)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, st, tag, write, conn, raddr, rkey, laddr, len, status, copies, oob);
        self.copy.clock.next = self.clock.val();
        self.copy.reset.next = self.reset.val();
        // A read moves from the target to the initiator, a write the other way.
        self.s.next = self.raddr.q.val();
        self.d.next = self.laddr.q.val();
        if self.write.q.val() {
            self.s.next = self.laddr.q.val();
            self.d.next = self.raddr.q.val();
        }
        self.n.next = bit_cast::<64, 32>(self.len.q.val());
        self.outside.next = (self.s.val() >= self.k_bytes.val())
            | (self.n.val() > self.k_bytes.val() - self.s.val())
            | (self.d.val() >= self.k_bytes.val())
            | (self.n.val() > self.k_bytes.val() - self.d.val());
        // The handshakes of each step.
        self.idle.next = self.st.q.val() == CopyState::Idle;
        self.s_axis_rq_tready.next = self.st.q.val() == CopyState::Idle;
        self.m_axis_ac_tvalid.next = self.st.q.val() == CopyState::Check;
        self.m_axis_ac_conn.next = 0.into();
        self.m_axis_ac_key.next = 0.into();
        self.m_axis_ac_write.next = false;
        self.m_axis_ac_addr.next = 0.into();
        self.m_axis_ac_len.next = 0.into();
        if self.st.q.val() == CopyState::Check {
            self.m_axis_ac_conn.next = self.conn.q.val();
            self.m_axis_ac_key.next = self.rkey.q.val();
            self.m_axis_ac_write.next = self.write.q.val();
            self.m_axis_ac_addr.next = self.raddr.q.val();
            self.m_axis_ac_len.next = self.len.q.val();
        }
        self.s_axis_ck_tready.next = self.st.q.val() == CopyState::Wait;
        self.m_axis_rs_tvalid.next = self.st.q.val() == CopyState::Resp;
        self.m_axis_rs_tag.next = 0.into();
        self.m_axis_rs_status.next = 0.into();
        if self.st.q.val() == CopyState::Resp {
            self.m_axis_rs_tag.next = self.tag.q.val();
            self.m_axis_rs_status.next = self.status.q.val();
        }
        // The copy itself, on the two memories' word ports.
        self.copy.s.next = self.s.val();
        self.copy.d.next = self.d.val();
        self.copy.n.next = self.n.val();
        self.copy.write.next = self.write.q.val();
        self.copy.start.next = false;
        self.copy.m_imem_ready.next = self.m_imem_ready.val();
        self.copy.m_tmem_ready.next = self.m_tmem_ready.val();
        self.copy.m_imem_rdata.next = self.m_imem_rdata.val();
        self.copy.m_tmem_rdata.next = self.m_tmem_rdata.val();
        self.m_imem_valid.next = self.copy.m_imem_valid.val();
        self.m_imem_write.next = self.copy.m_imem_write.val();
        self.m_imem_index.next = self.copy.m_imem_index.val();
        self.m_imem_wdata.next = self.copy.m_imem_wdata.val();
        self.m_imem_wmask.next = self.copy.m_imem_wmask.val();
        self.m_tmem_valid.next = self.copy.m_tmem_valid.val();
        self.m_tmem_write.next = self.copy.m_tmem_write.val();
        self.m_tmem_index.next = self.copy.m_tmem_index.val();
        self.m_tmem_wdata.next = self.copy.m_tmem_wdata.val();
        self.m_tmem_wmask.next = self.copy.m_tmem_wmask.val();
        self.cnt_copies.next = self.copies.q.val();
        self.cnt_oob.next = self.oob.q.val();
        match self.st.q.val() {
            CopyState::Idle => {
                if self.s_axis_rq_tvalid.val() {
                    self.tag.d.next = self.s_axis_rq_tag.val();
                    self.write.d.next = self.s_axis_rq_write.val();
                    self.conn.d.next = self.s_axis_rq_conn.val();
                    self.raddr.d.next = self.s_axis_rq_raddr.val();
                    self.rkey.d.next = self.s_axis_rq_rkey.val();
                    self.laddr.d.next = self.s_axis_rq_laddr.val();
                    self.len.d.next = self.s_axis_rq_len.val();
                    self.st.d.next = CopyState::Check;
                }
            }
            CopyState::Check => {
                if self.m_axis_ac_tready.val() {
                    self.st.d.next = CopyState::Wait;
                }
            }
            CopyState::Wait => {
                if self.s_axis_ck_tvalid.val() {
                    self.st.d.next = CopyState::Resp;
                    self.status.d.next = 0.into();
                    if !self.s_axis_ck_grant.val() {
                        self.status.d.next = self.s_axis_ck_reason.val();
                    } else if !self.len.q.val().any() {
                    } else if self.outside.val() {
                        self.status.d.next = self.k_transport.val();
                        self.oob.d.next = self.oob.q.val() + 1;
                    } else {
                        self.st.d.next = CopyState::Copy;
                        self.copy.start.next = true;
                    }
                }
            }
            CopyState::Copy => {
                if self.copy.done.val() {
                    self.st.d.next = CopyState::Resp;
                    self.copies.d.next = self.copies.q.val() + 1;
                }
            }
            CopyState::Resp => {
                if self.m_axis_rs_tready.val() {
                    self.st.d.next = CopyState::Idle;
                }
            }
            _ => {}
        }
        if self.reset.val() {
            self.st.d.next = CopyState::Idle;
            self.copies.d.next = 0.into();
            self.oob.d.next = 0.into();
        }
    }
}
