//! The FrontPanel bridge's core, in the engine clock: request words in, response words out,
//! the two nodes' register ports and memories driven on the host's behalf. The protocol is
//! `sanswitch_model::bridge` (one definition, in `docs/BOARD.md`); ports and timing are the
//! cycle model's, `sanswitch_model::blocks::bridge`, which this block is checked against.
//!
//! # Ports
//! - `s_axis_req_*` (in, `tready` out): request words, 16 bits.
//! - `m_axis_rsp_*` (out, `tready` in): response words (the [`RspOut`] register).
//! - `m0_axil_*`, `m1_axil_*`: node 0's and node 1's register ports, AXI4-Lite masters:
//!   one access at a time, only the request's node sees a `valid` or `ready`; an offset beyond the register space is
//!   answered `SLVERR` here, without a bus access.
//! - `m_mem_*` (out, `m_mem_ready` in): a 64-bit word of node `m_mem_node`'s memory, read
//!   or written (`m_mem_wmask`: the bytes written); `s_mem_rvalid`/`s_mem_rdata` (in): a
//!   read's word, a cycle or more later (one read in flight).
//! - `errors` (out): headers answered with `ERROR` since reset; `busy` (out): inside a
//!   request.
//! - `reset` (in): synchronous.
//!
//! # Timing
//! One state per step of a request ([`BridgeState`]): a word taken per cycle in the states
//! that take words; a response word put per cycle when the output register is free. Response
//! words are queued (up to three) in `e0..e2` and sent by [`BridgeState::Emit`].

use rust_hdl::prelude::*;

use sanswitch_model::blocks::bridge::MAX_MEM_BYTES;
use sanswitch_model::bridge::{Op, header};

use super::{BridgeDecode, RspOut};
use crate::widgets::{Param, param};

/// The steps of a request, as `sanswitch_model::blocks::bridge::St` numbers them.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum BridgeState {
    Hdr,
    RwLo,
    RwHi,
    AxW,
    AxB,
    AxAr,
    AxR,
    AddrLo,
    AddrHi,
    Len,
    WData,
    MemW,
    MemR,
    MemWait,
    Words,
    Emit,
    Pad,
}

#[derive(LogicBlock, Default)]
pub struct Bridge {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_req_tvalid: Signal<In, Bit>,
    pub s_axis_req_tdata: Signal<In, Bits<16>>,
    pub m_axis_rsp_tready: Signal<In, Bit>,
    pub m0_axil_awready: Signal<In, Bit>,
    pub m0_axil_wready: Signal<In, Bit>,
    pub m0_axil_bvalid: Signal<In, Bit>,
    pub m0_axil_bresp: Signal<In, Bits<2>>,
    pub m0_axil_arready: Signal<In, Bit>,
    pub m0_axil_rvalid: Signal<In, Bit>,
    pub m0_axil_rdata: Signal<In, Bits<32>>,
    pub m0_axil_rresp: Signal<In, Bits<2>>,
    pub m1_axil_awready: Signal<In, Bit>,
    pub m1_axil_wready: Signal<In, Bit>,
    pub m1_axil_bvalid: Signal<In, Bit>,
    pub m1_axil_bresp: Signal<In, Bits<2>>,
    pub m1_axil_arready: Signal<In, Bit>,
    pub m1_axil_rvalid: Signal<In, Bit>,
    pub m1_axil_rdata: Signal<In, Bits<32>>,
    pub m1_axil_rresp: Signal<In, Bits<2>>,
    pub m_mem_ready: Signal<In, Bit>,
    pub s_mem_rvalid: Signal<In, Bit>,
    pub s_mem_rdata: Signal<In, Bits<64>>,
    pub s_axis_req_tready: Signal<Out, Bit>,
    pub m_axis_rsp_tvalid: Signal<Out, Bit>,
    pub m_axis_rsp_tdata: Signal<Out, Bits<16>>,
    pub m0_axil_awvalid: Signal<Out, Bit>,
    pub m0_axil_awaddr: Signal<Out, Bits<12>>,
    pub m0_axil_wvalid: Signal<Out, Bit>,
    pub m0_axil_wdata: Signal<Out, Bits<32>>,
    pub m0_axil_bready: Signal<Out, Bit>,
    pub m0_axil_arvalid: Signal<Out, Bit>,
    pub m0_axil_araddr: Signal<Out, Bits<12>>,
    pub m0_axil_rready: Signal<Out, Bit>,
    pub m1_axil_awvalid: Signal<Out, Bit>,
    pub m1_axil_awaddr: Signal<Out, Bits<12>>,
    pub m1_axil_wvalid: Signal<Out, Bit>,
    pub m1_axil_wdata: Signal<Out, Bits<32>>,
    pub m1_axil_bready: Signal<Out, Bit>,
    pub m1_axil_arvalid: Signal<Out, Bit>,
    pub m1_axil_araddr: Signal<Out, Bits<12>>,
    pub m1_axil_rready: Signal<Out, Bit>,
    pub m_mem_valid: Signal<Out, Bit>,
    pub m_mem_node: Signal<Out, Bit>,
    pub m_mem_write: Signal<Out, Bit>,
    pub m_mem_index: Signal<Out, Bits<16>>,
    pub m_mem_wdata: Signal<Out, Bits<64>>,
    pub m_mem_wmask: Signal<Out, Bits<8>>,
    pub errors: Signal<Out, Bits<16>>,
    pub busy: Signal<Out, Bit>,
    /// The chosen node's handshakes.
    awready: Signal<Local, Bit>,
    wready: Signal<Local, Bit>,
    bvalid: Signal<Local, Bit>,
    bresp: Signal<Local, Bits<2>>,
    arready: Signal<Local, Bit>,
    rvalid: Signal<Local, Bit>,
    rdata: Signal<Local, Bits<32>>,
    rresp: Signal<Local, Bits<2>>,
    awvalid: Signal<Local, Bit>,
    wvalid: Signal<Local, Bit>,
    rsp: RspOut,
    dec: BridgeDecode,
    st: DFF<BridgeState>,
    after: DFF<BridgeState>,
    node: DFF<Bit>,
    arg: DFF<Bits<11>>,
    value: DFF<Bits<32>>,
    addr: DFF<Bits<32>>,
    len: DFF<Bits<16>>,
    write: DFF<Bit>,
    ok: DFF<Bit>,
    nwords: DFF<Bits<16>>,
    k: DFF<Bits<16>>,
    j: DFF<Bits<2>>,
    word: DFF<Bits<64>>,
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    e0: DFF<Bits<16>>,
    e1: DFF<Bits<16>>,
    e2: DFF<Bits<16>>,
    emit_n: DFF<Bits<2>>,
    errs: DFF<Bits<16>>,
    take: Signal<Local, Bit>,
    /// Queue response words for `Emit` (`q0` first), then go to `q_after`.
    q_load: Signal<Local, Bit>,
    q0: Signal<Local, Bits<16>>,
    q1: Signal<Local, Bits<16>>,
    q2: Signal<Local, Bits<16>>,
    q_n: Signal<Local, Bits<2>>,
    q_after: Signal<Local, BridgeState>,
    c_one16: Param<Bits<16>>,
    c_one2: Param<Bits<2>>,
    c_three2: Param<Bits<2>>,
    h_error: Param<Bits<16>>,
    h_rw: Param<Bits<16>>,
    h_rr: Param<Bits<16>>,
    h_mw: Param<Bits<16>>,
    h_mr: Param<Bits<16>>,
}

impl Bridge {
    /// A bridge in front of two memories of `mem_bytes` each (a multiple of 8, at most
    /// `MAX_MEM_BYTES`), as the model's `BridgeModel::new`.
    pub fn new(mem_bytes: u32) -> Self {
        assert!(mem_bytes % 8 == 0 && (8..=MAX_MEM_BYTES).contains(&mem_bytes));
        let h = |op: Op| param::<16>(header(op, 0, 0).into());
        Bridge {
            rsp: RspOut::new(),
            dec: BridgeDecode::new(mem_bytes),
            c_one16: param(1),
            c_one2: param(1),
            c_three2: param(3),
            h_error: h(Op::Error),
            h_rw: h(Op::RegWrite),
            h_rr: h(Op::RegRead),
            h_mw: h(Op::MemWrite),
            h_mr: h(Op::MemRead),
            ..Default::default()
        }
    }
}

impl Logic for Bridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, after, node, arg, value, addr, len, write, ok, nwords, k, j, word,
            aw_done, w_done, e0, e1, e2, emit_n, errs
        );
        self.rsp.clock.next = self.clock.val();
        self.rsp.reset.next = self.reset.val();
        self.rsp.m_axis_rsp_tready.next = self.m_axis_rsp_tready.val();
        self.m_axis_rsp_tvalid.next = self.rsp.m_axis_rsp_tvalid.val();
        self.m_axis_rsp_tdata.next = self.rsp.m_axis_rsp_tdata.val();
        self.dec.d.next = self.s_axis_req_tdata.val();
        self.dec.arg.next = self.arg.q.val();
        self.dec.node.next = self.node.q.val();
        self.dec.addr.next = self.addr.q.val();
        self.dec.len.next = self.len.q.val();
        self.dec.k.next = self.k.q.val();
        self.dec.nwords.next = self.nwords.q.val();
        self.dec.ok.next = self.ok.q.val();
        // Words are taken in the states that read them.
        self.s_axis_req_tready.next = (self.st.q.val() == BridgeState::Hdr)
            | (self.st.q.val() == BridgeState::RwLo)
            | (self.st.q.val() == BridgeState::RwHi)
            | (self.st.q.val() == BridgeState::AddrLo)
            | (self.st.q.val() == BridgeState::AddrHi)
            | (self.st.q.val() == BridgeState::Len)
            | (self.st.q.val() == BridgeState::WData);
        self.take.next = self.s_axis_req_tvalid.val() & self.s_axis_req_tready.val();
        // The register ports: one access at a time, on the request's node.
        self.awvalid.next = (self.st.q.val() == BridgeState::AxW) & !self.aw_done.q.val();
        self.wvalid.next = (self.st.q.val() == BridgeState::AxW) & !self.w_done.q.val();
        self.m0_axil_awvalid.next = self.awvalid.val() & !self.node.q.val();
        self.m0_axil_wvalid.next = self.wvalid.val() & !self.node.q.val();
        self.m0_axil_bready.next = (self.st.q.val() == BridgeState::AxB) & !self.node.q.val();
        self.m0_axil_arvalid.next = (self.st.q.val() == BridgeState::AxAr) & !self.node.q.val();
        self.m0_axil_rready.next = (self.st.q.val() == BridgeState::AxR) & !self.node.q.val();
        self.m1_axil_awvalid.next = self.awvalid.val() & self.node.q.val();
        self.m1_axil_wvalid.next = self.wvalid.val() & self.node.q.val();
        self.m1_axil_bready.next = (self.st.q.val() == BridgeState::AxB) & self.node.q.val();
        self.m1_axil_arvalid.next = (self.st.q.val() == BridgeState::AxAr) & self.node.q.val();
        self.m1_axil_rready.next = (self.st.q.val() == BridgeState::AxR) & self.node.q.val();
        self.m0_axil_awaddr.next = self.dec.reg_addr.val();
        self.m0_axil_araddr.next = self.dec.reg_addr.val();
        self.m0_axil_wdata.next = self.value.q.val();
        self.m1_axil_awaddr.next = self.dec.reg_addr.val();
        self.m1_axil_araddr.next = self.dec.reg_addr.val();
        self.m1_axil_wdata.next = self.value.q.val();
        self.awready.next = self.m0_axil_awready.val();
        self.wready.next = self.m0_axil_wready.val();
        self.bvalid.next = self.m0_axil_bvalid.val();
        self.bresp.next = self.m0_axil_bresp.val();
        self.arready.next = self.m0_axil_arready.val();
        self.rvalid.next = self.m0_axil_rvalid.val();
        self.rdata.next = self.m0_axil_rdata.val();
        self.rresp.next = self.m0_axil_rresp.val();
        if self.node.q.val() {
            self.awready.next = self.m1_axil_awready.val();
            self.wready.next = self.m1_axil_wready.val();
            self.bvalid.next = self.m1_axil_bvalid.val();
            self.bresp.next = self.m1_axil_bresp.val();
            self.arready.next = self.m1_axil_arready.val();
            self.rvalid.next = self.m1_axil_rvalid.val();
            self.rdata.next = self.m1_axil_rdata.val();
            self.rresp.next = self.m1_axil_rresp.val();
        }
        // The memory port.
        self.m_mem_write.next = self.st.q.val() == BridgeState::MemW;
        self.m_mem_valid.next = self.m_mem_write.val() | (self.st.q.val() == BridgeState::MemR);
        self.m_mem_node.next = self.node.q.val();
        self.m_mem_index.next = self.dec.index.val();
        self.m_mem_wdata.next = self.word.q.val();
        self.m_mem_wmask.next = self.dec.mask.val();
        self.errors.next = self.errs.q.val();
        self.busy.next = self.st.q.val() != BridgeState::Hdr;
        self.rsp.put.next = false;
        self.rsp.word.next = 0.into();
        self.q_load.next = false;
        self.q0.next = 0.into();
        self.q1.next = 0.into();
        self.q2.next = 0.into();
        self.q_n.next = self.c_one2.val();
        self.q_after.next = BridgeState::Hdr;
        match self.st.q.val() {
            BridgeState::Hdr => {
                if self.take.val() {
                    self.node.d.next = self.s_axis_req_tdata.val().get_bit(11);
                    self.arg.d.next = self.s_axis_req_tdata.val().get_bits::<11>(0);
                    if self.dec.is_nop.val() {
                    } else if self.dec.is_rw.val() {
                        self.st.d.next = BridgeState::RwLo;
                    } else if self.dec.is_rr.val() & self.dec.d_in_space.val() {
                        self.st.d.next = BridgeState::AxAr;
                    } else if self.dec.is_rr.val() {
                        self.q_load.next = true;
                        self.q0.next =
                            self.h_rr.val() | self.dec.d_node_bit.val() | self.dec.slverr.val();
                        self.q_n.next = self.c_three2.val();
                    } else if self.dec.is_mem.val() {
                        self.write.d.next = self.dec.is_mw.val();
                        self.st.d.next = BridgeState::AddrLo;
                    } else if self.dec.is_flush.val() {
                        self.st.d.next = BridgeState::Pad;
                    } else {
                        self.errs.d.next = self.errs.q.val() + self.c_one16.val();
                        self.q_load.next = true;
                        self.q0.next = self.h_error.val();
                        self.q1.next = self.s_axis_req_tdata.val();
                        self.q_n.next = self.c_one2.val() + self.c_one2.val();
                    }
                }
            }
            BridgeState::RwLo => {
                if self.take.val() {
                    self.value.d.next = bit_cast::<32, 16>(self.s_axis_req_tdata.val());
                    self.st.d.next = BridgeState::RwHi;
                }
            }
            BridgeState::RwHi => {
                if self.take.val() {
                    self.value.d.next = self.value.q.val()
                        | (bit_cast::<32, 16>(self.s_axis_req_tdata.val()) << 16);
                    self.aw_done.d.next = false;
                    self.w_done.d.next = false;
                    if self.dec.in_space.val() {
                        self.st.d.next = BridgeState::AxW;
                    } else {
                        self.q_load.next = true;
                        self.q0.next =
                            self.h_rw.val() | self.dec.node_bit.val() | self.dec.slverr.val();
                    }
                }
            }
            BridgeState::AxW => {
                self.aw_done.d.next = self.aw_done.q.val() | self.awready.val();
                self.w_done.d.next = self.w_done.q.val() | self.wready.val();
                if (self.aw_done.q.val() | self.awready.val())
                    & (self.w_done.q.val() | self.wready.val())
                {
                    self.st.d.next = BridgeState::AxB;
                }
            }
            BridgeState::AxB => {
                if self.bvalid.val() {
                    self.q_load.next = true;
                    self.q0.next = self.h_rw.val()
                        | self.dec.node_bit.val()
                        | bit_cast::<16, 2>(self.bresp.val());
                }
            }
            BridgeState::AxAr => {
                if self.arready.val() {
                    self.st.d.next = BridgeState::AxR;
                }
            }
            BridgeState::AxR => {
                if self.rvalid.val() {
                    self.q_load.next = true;
                    self.q0.next = self.h_rr.val()
                        | self.dec.node_bit.val()
                        | bit_cast::<16, 2>(self.rresp.val());
                    self.q1.next = self.rdata.val().get_bits::<16>(0);
                    self.q2.next = self.rdata.val().get_bits::<16>(16);
                    self.q_n.next = self.c_three2.val();
                }
            }
            BridgeState::AddrLo => {
                if self.take.val() {
                    self.addr.d.next = bit_cast::<32, 16>(self.s_axis_req_tdata.val());
                    self.st.d.next = BridgeState::AddrHi;
                }
            }
            BridgeState::AddrHi => {
                if self.take.val() {
                    self.addr.d.next =
                        self.addr.q.val() | (bit_cast::<32, 16>(self.s_axis_req_tdata.val()) << 16);
                    self.st.d.next = BridgeState::Len;
                }
            }
            BridgeState::Len => {
                if self.take.val() {
                    self.len.d.next = self.s_axis_req_tdata.val();
                    self.ok.d.next = self.dec.len_ok.val();
                    self.nwords.d.next = self.dec.len_words.val();
                    self.k.d.next = 0.into();
                    self.j.d.next = 0.into();
                    if self.write.q.val() & self.dec.len_words.val().any() {
                        self.st.d.next = BridgeState::WData;
                    } else if self.write.q.val() {
                        self.q_load.next = true;
                        self.q0.next =
                            self.h_mw.val() | self.dec.node_bit.val() | self.dec.len_st.val();
                    } else {
                        self.q_load.next = true;
                        self.q0.next =
                            self.h_mr.val() | self.dec.node_bit.val() | self.dec.len_st.val();
                        self.q_n.next = self.c_one2.val() + self.c_one2.val();
                        if self.dec.len_ok.val() {
                            self.q1.next = self.dec.len_words.val();
                            self.q_after.next = BridgeState::MemR;
                        }
                    }
                }
            }
            BridgeState::WData => {
                if self.take.val() {
                    self.word.d.next = (self.word.q.val() >> 16)
                        | (bit_cast::<64, 16>(self.s_axis_req_tdata.val()) << 48);
                    self.j.d.next = self.j.q.val() + self.c_one2.val();
                    if (self.j.q.val() == self.c_three2.val()) & self.ok.q.val() {
                        self.st.d.next = BridgeState::MemW;
                    } else if self.j.q.val() == self.c_three2.val() {
                        self.k.d.next = self.k.q.val() + self.c_one16.val();
                        if self.dec.last.val() {
                            self.q_load.next = true;
                            self.q0.next =
                                self.h_mw.val() | self.dec.node_bit.val() | self.dec.mem_st.val();
                        }
                    }
                }
            }
            BridgeState::MemW => {
                if self.m_mem_ready.val() {
                    self.k.d.next = self.k.q.val() + self.c_one16.val();
                    self.st.d.next = BridgeState::WData;
                    if self.dec.last.val() {
                        self.q_load.next = true;
                        self.q0.next =
                            self.h_mw.val() | self.dec.node_bit.val() | self.dec.mem_st.val();
                    }
                }
            }
            BridgeState::MemR => {
                if self.m_mem_ready.val() {
                    self.st.d.next = BridgeState::MemWait;
                }
            }
            BridgeState::MemWait => {
                if self.s_mem_rvalid.val() {
                    self.word.d.next = self.s_mem_rdata.val();
                    self.j.d.next = 0.into();
                    self.st.d.next = BridgeState::Words;
                }
            }
            BridgeState::Words => {
                if self.rsp.can_put.val() {
                    self.rsp.put.next = true;
                    self.rsp.word.next = self.word.q.val().get_bits::<16>(0);
                    self.word.d.next = self.word.q.val() >> 16;
                    self.j.d.next = self.j.q.val() + self.c_one2.val();
                    if self.j.q.val() == self.c_three2.val() {
                        self.k.d.next = self.k.q.val() + self.c_one16.val();
                        self.st.d.next = BridgeState::MemR;
                        if self.dec.last.val() {
                            self.st.d.next = BridgeState::Hdr;
                        }
                    }
                }
            }
            BridgeState::Emit => {
                if self.rsp.can_put.val() {
                    self.rsp.put.next = true;
                    self.rsp.word.next = self.e0.q.val();
                    self.e0.d.next = self.e1.q.val();
                    self.e1.d.next = self.e2.q.val();
                    self.e2.d.next = 0.into();
                    self.emit_n.d.next = self.emit_n.q.val() - self.c_one2.val();
                    if self.emit_n.q.val() == self.c_one2.val() {
                        self.st.d.next = self.after.q.val();
                    }
                }
            }
            BridgeState::Pad => {
                if self.rsp.at_block_start.val() {
                    self.st.d.next = BridgeState::Hdr;
                } else if self.rsp.can_put.val() {
                    self.rsp.put.next = true;
                }
            }
        }
        if self.q_load.val() {
            self.e0.d.next = self.q0.val();
            self.e1.d.next = self.q1.val();
            self.e2.d.next = self.q2.val();
            self.emit_n.d.next = self.q_n.val();
            self.after.d.next = self.q_after.val();
            self.st.d.next = BridgeState::Emit;
        }
        // Every register, as the model's reset (the data registers show on the ports).
        if self.reset.val() {
            self.st.d.next = BridgeState::Hdr;
            self.after.d.next = BridgeState::Hdr;
            self.node.d.next = false;
            self.arg.d.next = 0.into();
            self.value.d.next = 0.into();
            self.addr.d.next = 0.into();
            self.len.d.next = 0.into();
            self.write.d.next = false;
            self.ok.d.next = false;
            self.nwords.d.next = 0.into();
            self.k.d.next = 0.into();
            self.j.d.next = 0.into();
            self.word.d.next = 0.into();
            self.aw_done.d.next = false;
            self.w_done.d.next = false;
            self.e0.d.next = 0.into();
            self.e1.d.next = 0.into();
            self.e2.d.next = 0.into();
            self.emit_n.d.next = 0.into();
            self.errs.d.next = 0.into();
        }
    }
}
