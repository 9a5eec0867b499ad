//! The register space's address decoder: the value at a read address (constants of the
//! block chain and the ID block, the counter block, a queue pair's registers) and whether
//! a write address holds a register (`regs::layout`, `regs::id_values`; the model's
//! `HostIf::read_reg`). Combinational.
//!
//! # Ports
//! - `rd_off` (in) / `rd_val`, `rd_hit` (out): the read; `rd_qp` (out): the queue pair
//!   whose registers `st` (in) must give.
//! - `wr_off` (in) / `wr_hit` (out), `wr_qp` (out): the write's address holds a register;
//!   it is one of queue pair `wr_qp_idx`'s (out), at offset `wr_qp_off` (out) in its block.
//! - `wr_cnt_index` (out): the write is to the counter block's `index`.
//! - `st`, `cnt_index`, `cnt_val` (in): the registers read.
//!
//! Queue pair blocks are 64 bytes (asserted), so an offset's queue pair is bits 8–6 of its
//! distance from the first block.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::{self, BlockType, HostParams, qp};

use super::QpState;
use crate::widgets::{Param, param};

#[derive(LogicBlock, Default)]
pub struct RegDecode {
    pub rd_off: Signal<In, Bits<12>>,
    pub wr_off: Signal<In, Bits<12>>,
    pub st: Signal<In, QpState>,
    pub cnt_index: Signal<In, Bits<8>>,
    pub cnt_val: Signal<In, Bits<32>>,
    pub rd_val: Signal<Out, Bits<32>>,
    pub rd_hit: Signal<Out, Bit>,
    pub wr_hit: Signal<Out, Bit>,
    pub wr_qp: Signal<Out, Bit>,
    pub wr_qp_off: Signal<Out, Bits<12>>,
    pub wr_qp_idx: Signal<Out, Bits<3>>,
    pub rd_qp: Signal<Out, Bits<3>>,
    pub wr_cnt_index: Signal<Out, Bit>,
    /// Every constant register: its offset and value.
    k_off: Vec<Param<Bits<12>>>,
    k_val: Vec<Param<Bits<32>>>,
    k_cnt_index: Param<Bits<12>>,
    k_cnt_data: Param<Bits<12>>,
    k_qp: Param<Bits<12>>,
    k_qp_bytes: Param<Bits<12>>,
    k_sq_base_lo: Param<Bits<12>>,
    k_sq_base_hi: Param<Bits<12>>,
    k_sq_log2_size: Param<Bits<12>>,
    k_sq_prod: Param<Bits<12>>,
    k_sq_cons: Param<Bits<12>>,
    k_sq_ctrl: Param<Bits<12>>,
    k_cq_base_lo: Param<Bits<12>>,
    k_cq_base_hi: Param<Bits<12>>,
    k_cq_log2_size: Param<Bits<12>>,
    k_cq_prod: Param<Bits<12>>,
    k_cq_cons: Param<Bits<12>>,
    k_cq_ctrl: Param<Bits<12>>,
    k_ctrl_en: Param<Bits<32>>,
    k_ctrl_arm: Param<Bits<32>>,
    k_ctrl_err: Param<Bits<32>>,
    qp_rd: Signal<Local, Bits<12>>,
    rd_rel: Signal<Local, Bits<12>>,
    wr_rel: Signal<Local, Bits<12>>,
    sq_base: Signal<Local, Bits<64>>,
    cq_base: Signal<Local, Bits<64>>,
    sq_ctrl: Signal<Local, Bits<32>>,
    sq_err: Signal<Local, Bits<32>>,
    cq_ctrl: Signal<Local, Bits<32>>,
    cq_arm: Signal<Local, Bits<32>>,
}

impl RegDecode {
    pub fn new(p: &EngineParams, h: &HostParams) -> Self {
        let layout = regs::layout(h);
        let mut map: Vec<(u32, u32)> = Vec::new();
        for (k, (base, def)) in layout.iter().enumerate() {
            map.push((base + regs::HDR_TYPE, def.kind as u32));
            map.push((base + regs::HDR_VERSION, def.version));
            map.push((base + regs::HDR_NEXT, layout.get(k + 1).map_or(0, |n| n.0)));
            if def.kind == BlockType::Id {
                map.extend(regs::id_values(p, h));
            }
        }
        let qp_base = layout[2].0;
        assert_eq!(regs::QUEUE_PAIR_BLOCK.bytes, 0x40, "queue pair blocks of 64 bytes");
        fn k<const N: usize>(r: u32) -> Param<Bits<N>> {
            param(u64::from(r))
        }
        RegDecode {
            k_off: map.iter().map(|m| k(m.0)).collect(),
            k_val: map.iter().map(|m| k(m.1)).collect(),
            k_cnt_index: k(layout[1].0 + regs::cnt::INDEX),
            k_cnt_data: k(layout[1].0 + regs::cnt::DATA),
            k_qp: k(qp_base),
            k_qp_bytes: k(u32::from(h.queue_pairs) * regs::QUEUE_PAIR_BLOCK.bytes),
            k_sq_base_lo: k(qp::SQ_BASE_LO),
            k_sq_base_hi: k(qp::SQ_BASE_HI),
            k_sq_log2_size: k(qp::SQ_LOG2_SIZE),
            k_sq_prod: k(qp::SQ_PROD),
            k_sq_cons: k(qp::SQ_CONS),
            k_sq_ctrl: k(qp::SQ_CTRL),
            k_cq_base_lo: k(qp::CQ_BASE_LO),
            k_cq_base_hi: k(qp::CQ_BASE_HI),
            k_cq_log2_size: k(qp::CQ_LOG2_SIZE),
            k_cq_prod: k(qp::CQ_PROD),
            k_cq_cons: k(qp::CQ_CONS),
            k_cq_ctrl: k(qp::CQ_CTRL),
            k_ctrl_en: k(qp::CTRL_ENABLE),
            k_ctrl_arm: k(qp::CTRL_ARM),
            k_ctrl_err: k(qp::CTRL_ERR_DOORBELL),
            ..Default::default()
        }
    }
}

impl Logic for RegDecode {
    #[hdl_gen]
    fn update(&mut self) {
        self.sq_base.next = self.st.val().sq_base;
        self.cq_base.next = self.st.val().cq_base;
        self.sq_ctrl.next = 0.into();
        if self.st.val().sq_en {
            self.sq_ctrl.next = self.k_ctrl_en.val();
        }
        self.sq_err.next = 0.into();
        if self.st.val().sq_err {
            self.sq_err.next = self.k_ctrl_err.val();
        }
        self.cq_ctrl.next = 0.into();
        if self.st.val().cq_en {
            self.cq_ctrl.next = self.k_ctrl_en.val();
        }
        self.cq_arm.next = 0.into();
        if self.st.val().cq_arm {
            self.cq_arm.next = self.k_ctrl_arm.val();
        }

        // The read.
        self.rd_hit.next = false;
        self.rd_val.next = 0.into();
        for i in 0..self.k_off.len() {
            if self.rd_off.val() == self.k_off[i].val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.k_val[i].val();
            }
        }
        if self.rd_off.val() == self.k_cnt_index.val() {
            self.rd_hit.next = true;
            self.rd_val.next = bit_cast::<32, 8>(self.cnt_index.val());
        }
        if self.rd_off.val() == self.k_cnt_data.val() {
            self.rd_hit.next = true;
            self.rd_val.next = self.cnt_val.val();
        }
        self.rd_rel.next = self.rd_off.val() - self.k_qp.val();
        self.rd_qp.next = self.rd_rel.val().get_bits::<3>(6);
        self.qp_rd.next = bit_cast::<12, 6>(self.rd_rel.val().get_bits::<6>(0));
        if (self.rd_off.val() >= self.k_qp.val()) & (self.rd_rel.val() < self.k_qp_bytes.val()) {
            if self.qp_rd.val() == self.k_sq_base_lo.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.sq_base.val().get_bits::<32>(0);
            }
            if self.qp_rd.val() == self.k_sq_base_hi.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.sq_base.val().get_bits::<32>(32);
            }
            if self.qp_rd.val() == self.k_sq_log2_size.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 4>(self.st.val().sq_log2);
            }
            if self.qp_rd.val() == self.k_sq_prod.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 16>(self.st.val().sq_prod);
            }
            if self.qp_rd.val() == self.k_sq_cons.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 16>(self.st.val().sq_cons);
            }
            if self.qp_rd.val() == self.k_sq_ctrl.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.sq_ctrl.val() | self.sq_err.val();
            }
            if self.qp_rd.val() == self.k_cq_base_lo.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.cq_base.val().get_bits::<32>(0);
            }
            if self.qp_rd.val() == self.k_cq_base_hi.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.cq_base.val().get_bits::<32>(32);
            }
            if self.qp_rd.val() == self.k_cq_log2_size.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 4>(self.st.val().cq_log2);
            }
            if self.qp_rd.val() == self.k_cq_prod.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 16>(self.st.val().cq_prod);
            }
            if self.qp_rd.val() == self.k_cq_cons.val() {
                self.rd_hit.next = true;
                self.rd_val.next = bit_cast::<32, 16>(self.st.val().cq_cons);
            }
            if self.qp_rd.val() == self.k_cq_ctrl.val() {
                self.rd_hit.next = true;
                self.rd_val.next = self.cq_ctrl.val() | self.cq_arm.val();
            }
        }

        // The write's address.
        self.wr_hit.next = false;
        for i in 0..self.k_off.len() {
            if self.wr_off.val() == self.k_off[i].val() {
                self.wr_hit.next = true;
            }
        }
        self.wr_cnt_index.next = self.wr_off.val() == self.k_cnt_index.val();
        if self.wr_cnt_index.val() | (self.wr_off.val() == self.k_cnt_data.val()) {
            self.wr_hit.next = true;
        }
        self.wr_rel.next = self.wr_off.val() - self.k_qp.val();
        self.wr_qp_idx.next = self.wr_rel.val().get_bits::<3>(6);
        self.wr_qp_off.next = bit_cast::<12, 6>(self.wr_rel.val().get_bits::<6>(0));
        self.wr_qp.next = (self.wr_off.val() >= self.k_qp.val())
            & (self.wr_rel.val() < self.k_qp_bytes.val())
            & (self.wr_qp_off.val() >= self.k_sq_base_lo.val())
            & (self.wr_qp_off.val() <= self.k_cq_ctrl.val());
        if self.wr_qp.val() {
            self.wr_hit.next = true;
        }
    }
}
