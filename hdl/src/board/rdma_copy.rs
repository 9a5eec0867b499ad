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
//! - `done` (out): a copy's last word written this cycle; `oob` (out): a granted range
//!   outside a memory answered this cycle; `idle` (out): in `Idle`.
//! - `reset` (in): synchronous.
//!
//! # Steps
//! `Idle` (takes a request) → `Check` (offers it to the target) → `Wait` (the answer: a
//! denial answers its reason, a grant of no bytes 0, a range outside either memory
//! `TRANSPORT`; else the copy is set up) → `Copy` → `Resp` (the response, until taken).
//!
//! # The copy
//! Source `s`, destination `d`, `n` bytes: destination word `w` is bytes `shift..shift + 8`
//! of the source words `k`, `k + 1` side by side (`shift = (s - d) mod 8`), so the source
//! words are read in order from the one holding byte `s - d mod 8` (a first read only
//! primes `prev`), each making the next destination word, written with the bytes of
//! `d..d + n` in its mask. A word is read, arrives, is written: three cycles a word while
//! the ports are free.

use rust_hdl::prelude::*;

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
    pub done: Signal<Out, Bit>,
    pub oob: Signal<Out, Bit>,
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
    src: DFF<Bits<16>>,
    dst: DFF<Bits<16>>,
    left: DFF<Bits<16>>,
    shift: DFF<Bits<3>>,
    first: DFF<Bit>,
    mask_lo: DFF<Bits<8>>,
    mask_hi: DFF<Bits<8>>,
    primed: DFF<Bit>,
    prev: DFF<Bits<64>>,
    pend: DFF<Bits<64>>,
    pend_v: DFF<Bit>,
    rd_fly: DFF<Bit>,
    /// The copy's source and destination addresses, length, last byte; the range checks.
    s: Signal<Local, Bits<64>>,
    d: Signal<Local, Bits<64>>,
    n: Signal<Local, Bits<64>>,
    last_byte: Signal<Local, Bits<64>>,
    d0: Signal<Local, Bits<3>>,
    s0: Signal<Local, Bits<3>>,
    e0: Signal<Local, Bits<3>>,
    outside: Signal<Local, Bit>,
    /// The word port requests of this cycle, before they go to the memory they are for.
    rd_req: Signal<Local, Bit>,
    wr_req: Signal<Local, Bit>,
    wr_mask: Signal<Local, Bits<8>>,
    src_grant: Signal<Local, Bit>,
    dst_grant: Signal<Local, Bit>,
    rdata: Signal<Local, Bits<64>>,
    both: Signal<Local, Bits<128>>,
    sh: Signal<Local, Bits<128>>,
    made: Signal<Local, Bits<128>>,
    k_bytes: Param<Bits<64>>,
    k_index_mask: Param<Bits<16>>,
    k_ff: Param<Bits<8>>,
    k_seven: Param<Bits<3>>,
    k_transport: Param<Bits<3>>,
}

impl RdmaCopy {
    /// A unit between memories of `words` 64-bit words (a power of two, at most 32768).
    pub fn new(words: usize) -> Self {
        assert!(words.is_power_of_two() && words <= 1 << 15);
        RdmaCopy {
            k_bytes: param(8 * words as u64),
            k_index_mask: param(words as u64 - 1),
            k_ff: param(0xFF),
            k_seven: param(7),
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
        dff_setup!(
            self, clock, st, tag, write, conn, raddr, rkey, laddr, len, status, src, dst, left,
            shift, first, mask_lo, mask_hi, primed, prev, pend, pend_v, rd_fly
        );
        // A read moves from the target to the initiator, a write the other way.
        self.s.next = self.raddr.q.val();
        self.d.next = self.laddr.q.val();
        if self.write.q.val() {
            self.s.next = self.laddr.q.val();
            self.d.next = self.raddr.q.val();
        }
        self.n.next = bit_cast::<64, 32>(self.len.q.val());
        self.last_byte.next = self.d.val() + self.n.val() - 1;
        self.d0.next = self.d.val().get_bits::<3>(0);
        self.s0.next = self.s.val().get_bits::<3>(0);
        self.e0.next = self.last_byte.val().get_bits::<3>(0);
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
        // The copy's word requests: a made word first, else the next source word.
        self.wr_req.next = (self.st.q.val() == CopyState::Copy) & self.pend_v.q.val();
        self.rd_req.next = (self.st.q.val() == CopyState::Copy)
            & !self.pend_v.q.val()
            & !self.rd_fly.q.val()
            & self.left.q.val().any();
        self.wr_mask.next = self.k_ff.val();
        if self.first.q.val() {
            self.wr_mask.next = self.mask_lo.q.val();
        }
        if !self.left.q.val().any() {
            self.wr_mask.next = self.wr_mask.val() & self.mask_hi.q.val();
        }
        self.m_imem_valid.next = false;
        self.m_imem_write.next = false;
        self.m_imem_index.next = 0.into();
        self.m_imem_wdata.next = 0.into();
        self.m_imem_wmask.next = 0.into();
        self.m_tmem_valid.next = false;
        self.m_tmem_write.next = false;
        self.m_tmem_index.next = 0.into();
        self.m_tmem_wdata.next = 0.into();
        self.m_tmem_wmask.next = 0.into();
        // Source: the initiator's memory for a write; destination: the target's.
        if self.write.q.val() {
            if self.rd_req.val() {
                self.m_imem_valid.next = true;
                self.m_imem_index.next = self.src.q.val() & self.k_index_mask.val();
            }
            if self.wr_req.val() {
                self.m_tmem_valid.next = true;
                self.m_tmem_write.next = true;
                self.m_tmem_index.next = self.dst.q.val();
                self.m_tmem_wdata.next = self.pend.q.val();
                self.m_tmem_wmask.next = self.wr_mask.val();
            }
            self.src_grant.next = self.m_imem_ready.val();
            self.dst_grant.next = self.m_tmem_ready.val();
            self.rdata.next = self.m_imem_rdata.val();
        } else {
            if self.rd_req.val() {
                self.m_tmem_valid.next = true;
                self.m_tmem_index.next = self.src.q.val() & self.k_index_mask.val();
            }
            if self.wr_req.val() {
                self.m_imem_valid.next = true;
                self.m_imem_write.next = true;
                self.m_imem_index.next = self.dst.q.val();
                self.m_imem_wdata.next = self.pend.q.val();
                self.m_imem_wmask.next = self.wr_mask.val();
            }
            self.src_grant.next = self.m_tmem_ready.val();
            self.dst_grant.next = self.m_imem_ready.val();
            self.rdata.next = self.m_tmem_rdata.val();
        }
        self.both.next =
            (bit_cast::<128, 64>(self.rdata.val()) << 64) | bit_cast::<128, 64>(self.prev.q.val());
        self.sh.next = bit_cast::<128, 3>(self.shift.q.val()) << 3;
        self.made.next = self.both.val() >> self.sh.val();
        self.done.next = false;
        self.oob.next = false;
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
                        self.oob.next = true;
                    } else {
                        self.st.d.next = CopyState::Copy;
                        self.src.d.next = self.s.val().get_bits::<16>(3)
                            - bit_cast::<16, 1>((self.s0.val() < self.d0.val()).into());
                        self.dst.d.next = self.d.val().get_bits::<16>(3);
                        self.left.d.next = self.last_byte.val().get_bits::<16>(3)
                            - self.d.val().get_bits::<16>(3)
                            + 1;
                        self.shift.d.next = self.s0.val() - self.d0.val();
                        self.first.d.next = true;
                        self.mask_lo.d.next = self.k_ff.val() << bit_cast::<8, 3>(self.d0.val());
                        self.mask_hi.d.next =
                            self.k_ff.val() >> bit_cast::<8, 3>(self.k_seven.val() - self.e0.val());
                        self.primed.d.next = false;
                        self.pend_v.d.next = false;
                        self.rd_fly.d.next = false;
                    }
                }
            }
            CopyState::Copy => {
                if self.rd_fly.q.val() {
                    self.rd_fly.d.next = false;
                    if self.primed.q.val() {
                        self.pend.d.next = self.made.val().get_bits::<64>(0);
                        self.pend_v.d.next = true;
                        self.left.d.next = self.left.q.val() - 1;
                    }
                    self.primed.d.next = true;
                    self.prev.d.next = self.rdata.val();
                } else if self.pend_v.q.val() {
                    if self.dst_grant.val() {
                        self.pend_v.d.next = false;
                        self.first.d.next = false;
                        self.dst.d.next = self.dst.q.val() + 1;
                        if !self.left.q.val().any() {
                            self.st.d.next = CopyState::Resp;
                            self.done.next = true;
                        }
                    }
                } else if self.left.q.val().any() & self.src_grant.val() {
                    self.rd_fly.d.next = true;
                    self.src.d.next = self.src.q.val() + 1;
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
            self.pend_v.d.next = false;
            self.rd_fly.d.next = false;
        }
    }
}
