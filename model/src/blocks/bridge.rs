//! Cycle model of the FrontPanel bridge's core: the board's host side, in the engine clock.
//! It runs the requests of [`crate::bridge`] (the protocol's one definition) word by word:
//! request words in from the pipe-in FIFO, response words out to the pipe-out FIFO, each
//! node's register port driven as an AXI4-Lite master, each node's on-chip memory through a
//! word port. What it must do request by request is [`BridgeExec`](crate::bridge::BridgeExec);
//! this model adds the timing, and `hdl/src/board/bridge.rs` is checked against it cycle by
//! cycle.
//!
//! # Ports
//! - `s_axis_req_*`: request words (16 bits), taken while `s_axis_req_tready`.
//! - `m_axis_rsp_*`: response words; one output register (`tvalid` until taken).
//! - `m_axil_*_0`, `m_axil_*_1`: node 0's and node 1's register ports (AXI4-Lite master, 12-bit
//!   addresses, no `wstrb`: the NIC's registers are written whole). A request for an offset at
//!   or beyond [`SPACE_BYTES`] is answered `SLVERR` by the bridge without a bus access.
//! - `m_mem_*`: one 64-bit word of a node's memory per request (`m_mem_node` picks the
//!   node), `m_mem_wmask` the bytes a write changes; taken while `m_mem_ready`. A read's word
//!   comes back on `s_mem_rvalid`/`s_mem_rdata` a cycle or more later; one read is in flight
//!   at a time, so the memory needs no ready on that side.
//! - `errors`: headers answered with `ERROR` since reset (wraps); `busy`: inside a request.
//!
//! # Timing
//! A state machine with one register per step: a header, a register value's half, an
//! address half, a length or a data word is taken per cycle; a response word is written to
//! the output register in the cycle its state is reached when the register is free or being
//! taken. A memory read costs its request cycle, the memory's latency and four output
//! cycles; a write its four data words and its request cycle. At 125 MHz that is far beyond
//! the 48 MHz, 16-bit pipe (the FIFOs between them take the difference).

use crate::blocks::hostif::RESP_SLVERR;
use crate::bridge::{BLOCK_WORDS, MemStatus, Op, header, split};
use crate::ports::CycleModel;
use crate::regs::SPACE_BYTES;

crate::ports! {
    /// Bridge inputs.
    pub struct BridgeIn {
        /// Synchronous reset: back to waiting for a header, the output register empty.
        reset: bool = 1,
        s_axis_req_tvalid: bool = 1,
        s_axis_req_tdata: u16 = 16,
        m_axis_rsp_tready: bool = 1,
        m_axil_awready_0: bool = 1,
        m_axil_awready_1: bool = 1,
        m_axil_wready_0: bool = 1,
        m_axil_wready_1: bool = 1,
        m_axil_bvalid_0: bool = 1,
        m_axil_bvalid_1: bool = 1,
        m_axil_bresp_0: u8 = 2,
        m_axil_bresp_1: u8 = 2,
        m_axil_arready_0: bool = 1,
        m_axil_arready_1: bool = 1,
        m_axil_rvalid_0: bool = 1,
        m_axil_rvalid_1: bool = 1,
        m_axil_rdata_0: u32 = 32,
        m_axil_rdata_1: u32 = 32,
        m_axil_rresp_0: u8 = 2,
        m_axil_rresp_1: u8 = 2,
        m_mem_ready: bool = 1,
        s_mem_rvalid: bool = 1,
        s_mem_rdata: u64 = 64,
    }
}

crate::ports! {
    /// Bridge outputs.
    pub struct BridgeOut {
        s_axis_req_tready: bool = 1,
        m_axis_rsp_tvalid: bool = 1,
        m_axis_rsp_tdata: u16 = 16,
        m_axil_awvalid_0: bool = 1,
        m_axil_awvalid_1: bool = 1,
        m_axil_awaddr_0: u16 = 12,
        m_axil_awaddr_1: u16 = 12,
        m_axil_wvalid_0: bool = 1,
        m_axil_wvalid_1: bool = 1,
        m_axil_wdata_0: u32 = 32,
        m_axil_wdata_1: u32 = 32,
        m_axil_bready_0: bool = 1,
        m_axil_bready_1: bool = 1,
        m_axil_arvalid_0: bool = 1,
        m_axil_arvalid_1: bool = 1,
        m_axil_araddr_0: u16 = 12,
        m_axil_araddr_1: u16 = 12,
        m_axil_rready_0: bool = 1,
        m_axil_rready_1: bool = 1,
        m_mem_valid: bool = 1,
        m_mem_node: bool = 1,
        m_mem_write: bool = 1,
        /// The 64-bit word's index in the node's memory.
        m_mem_index: u16 = 16,
        m_mem_wdata: u64 = 64,
        m_mem_wmask: u8 = 8,
        errors: u16 = 16,
        busy: bool = 1,
    }
}

/// The largest per-node memory the word index reaches (16 bits of 64-bit words).
pub const MAX_MEM_BYTES: u32 = 8 << 16;

/// The steps of a request (the HDL's `st` register holds the same numbers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum St {
    /// Waiting for a header.
    #[default]
    Hdr = 0,
    /// `REG_WRITE`: the value's low and high halves.
    RwLo = 1,
    RwHi = 2,
    /// `REG_WRITE` on the bus: address and data handshakes, then the response.
    AxW = 3,
    AxB = 4,
    /// `REG_READ` on the bus: the address, then the data.
    AxAr = 5,
    AxR = 6,
    /// Memory requests: address halves and length.
    AddrLo = 7,
    AddrHi = 8,
    Len = 9,
    /// `MEM_WRITE`: a data word's four halves, then (when in range) its memory write.
    WData = 10,
    MemW = 11,
    /// `MEM_READ`: a word's request, its data, its four output words.
    MemR = 12,
    MemWait = 13,
    Words = 14,
    /// Up to three queued response words ([`Emit`]).
    Emit = 15,
    /// `FLUSH`: `NOP` words to the end of the response block.
    Pad = 16,
}

/// The bridge's registers.
#[derive(Clone, Debug)]
pub struct BridgeModel {
    mem_bytes: u32,
    st: St,
    /// The request's header fields.
    node: bool,
    arg: u16,
    /// `REG_WRITE`'s value; a memory request's address and length.
    value: u32,
    addr: u32,
    len: u16,
    /// Memory request: a write; in range; words spanned; the word at hand; the half at hand.
    write: bool,
    ok: bool,
    nwords: u16,
    k: u16,
    j: u8,
    /// A write's data word being assembled, a read's word being sent.
    word: u64,
    aw_done: bool,
    w_done: bool,
    /// Response words queued for [`St::Emit`] (first in `emit[0]`), their count, and the
    /// step after them.
    emit: [u16; 3],
    emit_n: u8,
    after: St,
    out_v: bool,
    out: u16,
    /// Words written to the output since the last block boundary.
    in_block: u16,
    errors: u16,
}

impl BridgeModel {
    /// A bridge in front of two memories of `mem_bytes` each (a multiple of 8, at most
    /// [`MAX_MEM_BYTES`]).
    pub fn new(mem_bytes: u32) -> Self {
        assert!(
            mem_bytes % 8 == 0 && (8..=MAX_MEM_BYTES).contains(&mem_bytes),
            "memory of {mem_bytes} bytes"
        );
        BridgeModel {
            mem_bytes,
            st: St::Hdr,
            node: false,
            arg: 0,
            value: 0,
            addr: 0,
            len: 0,
            write: false,
            ok: false,
            nwords: 0,
            k: 0,
            j: 0,
            word: 0,
            aw_done: false,
            w_done: false,
            emit: [0; 3],
            emit_n: 0,
            after: St::Hdr,
            out_v: false,
            out: 0,
            in_block: 0,
            errors: 0,
        }
    }

    /// The output register is free for a word this cycle.
    fn can_emit(&self, i: &BridgeIn) -> bool {
        !self.out_v || i.m_axis_rsp_tready
    }

    fn node_idx(&self) -> usize {
        usize::from(self.node)
    }

    /// The register offset is inside the register space (else the bridge answers).
    fn reg_in_space(&self) -> bool {
        u32::from(self.arg) * 4 < SPACE_BYTES
    }

    /// The byte mask of data word `k` of the memory request at hand.
    fn mask(&self) -> u8 {
        let first = if self.k == 0 { 0xFFu8 << (self.addr & 7) } else { 0xFF };
        let end = (self.addr.wrapping_add(u32::from(self.len)).wrapping_sub(1)) & 7;
        let last = if self.k + 1 == self.nwords { 0xFFu8 >> (7 - end) } else { 0xFF };
        first & last
    }

    fn axil(i: &BridgeIn, node: bool) -> (bool, bool, bool, u8, bool, bool, u32, u8) {
        if node {
            (
                i.m_axil_awready_1,
                i.m_axil_wready_1,
                i.m_axil_bvalid_1,
                i.m_axil_bresp_1,
                i.m_axil_arready_1,
                i.m_axil_rvalid_1,
                i.m_axil_rdata_1,
                i.m_axil_rresp_1,
            )
        } else {
            (
                i.m_axil_awready_0,
                i.m_axil_wready_0,
                i.m_axil_bvalid_0,
                i.m_axil_bresp_0,
                i.m_axil_arready_0,
                i.m_axil_rvalid_0,
                i.m_axil_rdata_0,
                i.m_axil_rresp_0,
            )
        }
    }

    /// Queue response words and the step after them.
    fn queue(&mut self, words: &[u16], after: St) {
        self.emit = [0; 3];
        self.emit[..words.len()].copy_from_slice(words);
        self.emit_n = words.len() as u8;
        self.after = after;
        self.st = St::Emit;
    }

    /// Put a word in the output register (the caller checked [`Self::can_emit`]).
    fn put(&mut self, w: u16) {
        self.out_v = true;
        self.out = w;
        self.in_block = (self.in_block + 1) % BLOCK_WORDS as u16;
    }

    fn mem_header(&self, op: Op) -> u16 {
        let st = if self.ok { MemStatus::Ok } else { MemStatus::OutOfRange };
        header(op, self.node_idx(), st as u16)
    }
}

impl CycleModel for BridgeModel {
    type In = BridgeIn;
    type Out = BridgeOut;

    fn outputs(&self, _i: &BridgeIn) -> BridgeOut {
        let reg = (self.arg & 0x3FF) << 2;
        let aw = self.st == St::AxW && !self.aw_done;
        let w = self.st == St::AxW && !self.w_done;
        let b = self.st == St::AxB;
        let ar = self.st == St::AxAr;
        let r = self.st == St::AxR;
        let (n0, n1) = (!self.node, self.node);
        let mem_w = self.st == St::MemW;
        let mem_r = self.st == St::MemR;
        BridgeOut {
            s_axis_req_tready: matches!(
                self.st,
                St::Hdr | St::RwLo | St::RwHi | St::AddrLo | St::AddrHi | St::Len | St::WData
            ),
            m_axis_rsp_tvalid: self.out_v,
            m_axis_rsp_tdata: self.out,
            m_axil_awvalid_0: aw && n0,
            m_axil_awaddr_0: reg,
            m_axil_wvalid_0: w && n0,
            m_axil_wdata_0: self.value,
            m_axil_bready_0: b && n0,
            m_axil_arvalid_0: ar && n0,
            m_axil_araddr_0: reg,
            m_axil_rready_0: r && n0,
            m_axil_awvalid_1: aw && n1,
            m_axil_awaddr_1: reg,
            m_axil_wvalid_1: w && n1,
            m_axil_wdata_1: self.value,
            m_axil_bready_1: b && n1,
            m_axil_arvalid_1: ar && n1,
            m_axil_araddr_1: reg,
            m_axil_rready_1: r && n1,
            m_mem_valid: mem_w || mem_r,
            m_mem_node: self.node,
            m_mem_write: mem_w,
            m_mem_index: ((self.addr >> 3) as u16).wrapping_add(self.k),
            m_mem_wdata: self.word,
            m_mem_wmask: self.mask(),
            errors: self.errors,
            busy: self.st != St::Hdr,
        }
    }

    fn clock(&mut self, i: &BridgeIn) {
        if i.reset {
            *self = BridgeModel::new(self.mem_bytes);
            return;
        }
        let take = i.s_axis_req_tvalid && self.outputs(i).s_axis_req_tready;
        let d = i.s_axis_req_tdata;
        let can_emit = self.can_emit(i);
        // The output register empties when taken; a state below may fill it again.
        if self.out_v && i.m_axis_rsp_tready {
            self.out_v = false;
        }
        let (awready, wready, bvalid, bresp, arready, rvalid, rdata, rresp) =
            Self::axil(i, self.node);
        match self.st {
            St::Hdr if take => {
                let (code, node, arg) = split(d);
                self.node = node == 1;
                self.arg = arg;
                match Op::from_code(code) {
                    Some(Op::Nop) if d == 0 => {}
                    Some(Op::RegWrite) => self.st = St::RwLo,
                    Some(Op::RegRead) if self.reg_in_space() => self.st = St::AxAr,
                    Some(Op::RegRead) => {
                        self.queue(&[header(Op::RegRead, node, RESP_SLVERR.into()), 0, 0], St::Hdr)
                    }
                    Some(Op::MemWrite) | Some(Op::MemRead) => {
                        self.write = code == Op::MemWrite as u16;
                        self.st = St::AddrLo;
                    }
                    Some(Op::Flush) if d == header(Op::Flush, 0, 0) => self.st = St::Pad,
                    _ => {
                        self.errors = self.errors.wrapping_add(1);
                        self.queue(&[header(Op::Error, 0, 0), d], St::Hdr);
                    }
                }
            }
            St::RwLo if take => {
                self.value = u32::from(d);
                self.st = St::RwHi;
            }
            St::RwHi if take => {
                self.value |= u32::from(d) << 16;
                if self.reg_in_space() {
                    self.aw_done = false;
                    self.w_done = false;
                    self.st = St::AxW;
                } else {
                    let h = header(Op::RegWrite, self.node_idx(), RESP_SLVERR.into());
                    self.queue(&[h], St::Hdr);
                }
            }
            St::AxW => {
                let aw = self.aw_done || awready;
                let w = self.w_done || wready;
                if aw && w {
                    self.st = St::AxB;
                } else {
                    self.aw_done = aw;
                    self.w_done = w;
                }
            }
            St::AxB if bvalid => {
                self.queue(&[header(Op::RegWrite, self.node_idx(), bresp.into())], St::Hdr)
            }
            St::AxAr if arready => self.st = St::AxR,
            St::AxR if rvalid => {
                let h = header(Op::RegRead, self.node_idx(), rresp.into());
                self.queue(&[h, rdata as u16, (rdata >> 16) as u16], St::Hdr);
            }
            St::AddrLo if take => {
                self.addr = u32::from(d);
                self.st = St::AddrHi;
            }
            St::AddrHi if take => {
                self.addr |= u32::from(d) << 16;
                self.st = St::Len;
            }
            St::Len if take => {
                self.len = d;
                self.ok = d > 0 && u64::from(self.addr) + u64::from(d) <= u64::from(self.mem_bytes);
                // Words spanned (0 for a zero length): ((addr mod 8) + len + 7) / 8.
                self.nwords =
                    if d == 0 { 0 } else { (((self.addr & 7) + u32::from(d) + 7) >> 3) as u16 };
                self.k = 0;
                self.j = 0;
                if self.write {
                    if self.nwords == 0 {
                        let h = self.mem_header(Op::MemWrite);
                        self.queue(&[h], St::Hdr);
                    } else {
                        self.st = St::WData;
                    }
                } else {
                    let h = self.mem_header(Op::MemRead);
                    let n = if self.ok { self.nwords } else { 0 };
                    let next = if self.ok { St::MemR } else { St::Hdr };
                    self.queue(&[h, n], next);
                }
            }
            St::WData if take => {
                self.word = self.word >> 16 | u64::from(d) << 48;
                if self.j == 3 {
                    self.j = 0;
                    if self.ok {
                        self.st = St::MemW;
                    } else {
                        self.k += 1;
                        if self.k == self.nwords {
                            let h = self.mem_header(Op::MemWrite);
                            self.queue(&[h], St::Hdr);
                        }
                    }
                } else {
                    self.j += 1;
                }
            }
            St::MemW if i.m_mem_ready => {
                self.k += 1;
                if self.k == self.nwords {
                    let h = self.mem_header(Op::MemWrite);
                    self.queue(&[h], St::Hdr);
                } else {
                    self.st = St::WData;
                }
            }
            St::MemR if i.m_mem_ready => self.st = St::MemWait,
            St::MemWait if i.s_mem_rvalid => {
                self.word = i.s_mem_rdata;
                self.j = 0;
                self.st = St::Words;
            }
            St::Words if can_emit => {
                self.put(self.word as u16);
                self.word >>= 16;
                if self.j == 3 {
                    self.j = 0;
                    self.k += 1;
                    self.st = if self.k == self.nwords { St::Hdr } else { St::MemR };
                } else {
                    self.j += 1;
                }
            }
            St::Emit if can_emit => {
                self.put(self.emit[0]);
                self.emit = [self.emit[1], self.emit[2], 0];
                self.emit_n -= 1;
                if self.emit_n == 0 {
                    self.st = self.after;
                }
            }
            St::Pad if self.in_block == 0 => self.st = St::Hdr,
            St::Pad if can_emit => self.put(0),
            _ => {}
        }
    }
}
