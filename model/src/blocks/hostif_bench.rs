//! A bench for the host interface's cycle model: host memory (sparse bytes) answering its
//! fetches and taking its completion-ring writes, a stand-in engine that takes every command
//! and completes it successfully (`len` bytes) after a random delay, register accesses over
//! AXI4-Lite, and random backpressure on every port the block sees. Used by the model's own
//! tests and by the driver's (as a transport), so both exercise the same block the same way.
//! The stand-in engine is not the engine: it tests rings and registers, not the protocol.

use std::collections::{HashMap, VecDeque};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::hostif::{HostIf, HostIfIn, HostIfOut};
use crate::host::{COMMAND_BYTES, COMPLETION_BYTES, Command, Completion};
use crate::params::EngineParams;
use crate::ports::CycleModel;
use crate::regs::{self, HostParams, qp};

/// Where the bench's rings live in its host memory: queue pair `k`'s at these plus
/// `k` * [`QP_STRIDE`].
pub const SQ_BASE: u64 = 0x1_0000_1000;
pub const CQ_BASE: u64 = 0x2_0000_0000;
pub const QP_STRIDE: u64 = 0x10_0000;

/// The bench, around the host interface's model or anything with its ports (its Verilog).
pub struct HostIfBench<H = HostIf> {
    pub h: H,
    pub rng: ChaCha8Rng,
    /// Probability that a ready or valid the block sees is low in a cycle.
    pub stall: f64,
    pub mem: HashMap<u64, u8>,
    /// Read requests taken, beats owed: (address of the next beat, beats left).
    pub reads: VecDeque<(u64, u32)>,
    /// Commands the engine took, and the completions it owes (after a delay).
    pub took: Vec<Command>,
    pub owed: VecDeque<(u64, Completion)>,
    /// Completion-ring writes seen, by address.
    pub cq_writes: Vec<(u64, u64, bool)>,
    /// Beat index within the completion write burst.
    pub cq_beat: u64,
    pub events: u32,
    /// Events by queue pair (`cq_event`'s bits).
    pub events_by_qp: [u32; 8],
    pub cycle: u64,
    /// Queue pair 0's register block, and every queue pair's.
    pub qp: u32,
    pub qps: Vec<u32>,
    pub cnt_data: u32,
    /// The stand-in engine completes a command up to this many cycles after taking it.
    pub max_delay: u64,
    /// Cycles of handshakes, for figures: a fetch request taken, a command taken by the
    /// engine, a completion taken from the engine, a completion's last beat written.
    pub fetch_at: Vec<u64>,
    pub cmd_at: Vec<u64>,
    pub cpl_at: Vec<u64>,
    pub cq_done_at: Vec<u64>,
}

impl HostIfBench {
    pub fn new(seed: u64, stall: f64) -> Self {
        let h = HostIf::new(&EngineParams::default(), &HostParams::default());
        HostIfBench::with(h, seed, stall)
    }
}

impl<H: CycleModel<In = HostIfIn, Out = HostIfOut>> HostIfBench<H> {
    /// The bench around `h` (in its reset state), default host parameters.
    pub fn with(h: H, seed: u64, stall: f64) -> Self {
        let hp = HostParams::default();
        HostIfBench {
            h,
            rng: ChaCha8Rng::seed_from_u64(seed),
            stall,
            mem: HashMap::new(),
            reads: VecDeque::new(),
            took: Vec::new(),
            owed: VecDeque::new(),
            cq_writes: Vec::new(),
            cq_beat: 0,
            events: 0,
            events_by_qp: [0; 8],
            cycle: 0,
            qp: regs::layout(&hp)[2].0,
            qps: regs::layout(&hp)[2..].iter().map(|b| b.0).collect(),
            cnt_data: 0,
            max_delay: 20,
            fetch_at: Vec::new(),
            cmd_at: Vec::new(),
            cpl_at: Vec::new(),
            cq_done_at: Vec::new(),
        }
    }

    /// Sets up and enables queue pair 0's rings at [`SQ_BASE`] and [`CQ_BASE`].
    pub fn setup(&mut self, sq_log2: u32, cq_log2: u32) {
        self.setup_qp(0, sq_log2, cq_log2);
    }

    /// Sets up and enables queue pair `k`'s rings.
    pub fn setup_qp(&mut self, k: usize, sq_log2: u32, cq_log2: u32) {
        let q = self.qps[k];
        let (sq, cq) = (SQ_BASE + k as u64 * QP_STRIDE, CQ_BASE + k as u64 * QP_STRIDE);
        for (r, v) in [
            (qp::SQ_BASE_LO, sq as u32),
            (qp::SQ_BASE_HI, (sq >> 32) as u32),
            (qp::SQ_LOG2_SIZE, sq_log2),
            (qp::CQ_BASE_LO, cq as u32),
            (qp::CQ_BASE_HI, (cq >> 32) as u32),
            (qp::CQ_LOG2_SIZE, cq_log2),
            (qp::SQ_CTRL, qp::CTRL_ENABLE),
            (qp::CQ_CTRL, qp::CTRL_ENABLE),
        ] {
            assert_eq!(self.write(q + r, v), super::hostif::RESP_OKAY);
        }
    }

    /// Writes submission entry `index` of queue pair 0's ring of `2^log2`.
    pub fn put_entry(&mut self, log2: u32, index: u32, bytes: &[u8; COMMAND_BYTES]) {
        self.put_entry_qp(0, log2, index, bytes);
    }

    /// Writes submission entry `index` of queue pair `k`'s ring of `2^log2`.
    pub fn put_entry_qp(&mut self, k: usize, log2: u32, index: u32, bytes: &[u8; COMMAND_BYTES]) {
        let at = SQ_BASE
            + k as u64 * QP_STRIDE
            + u64::from(index & ((1 << log2) - 1)) * COMMAND_BYTES as u64;
        for (k, b) in bytes.iter().enumerate() {
            self.mem.insert(at + k as u64, *b);
        }
    }

    /// Completion entry `index` of queue pair 0's ring of `2^log2`, as in host memory.
    pub fn cq_entry(&self, log2: u32, index: u32) -> [u8; COMPLETION_BYTES] {
        self.cq_entry_qp(0, log2, index)
    }

    /// Completion entry `index` of queue pair `k`'s ring of `2^log2`, as in host memory.
    pub fn cq_entry_qp(&self, k: usize, log2: u32, index: u32) -> [u8; COMPLETION_BYTES] {
        let at = CQ_BASE
            + k as u64 * QP_STRIDE
            + u64::from(index & ((1 << log2) - 1)) * COMPLETION_BYTES as u64;
        std::array::from_fn(|k| self.mem.get(&(at + k as u64)).copied().unwrap_or(0))
    }

    pub fn go(&mut self) -> bool {
        self.stall == 0.0 || !self.rng.gen_bool(self.stall)
    }

    /// One cycle with `axil` register inputs; returns the outputs shown.
    pub fn step(&mut self, axil: impl Fn(&mut HostIfIn)) -> HostIfOut {
        let mut i = HostIfIn { cnt_rd_data: self.cnt_data, ..HostIfIn::default() };
        axil(&mut i);
        i.m_axis_fetch_tready = self.go();
        if let Some(&(addr, _)) = self.reads.front() {
            if self.go() {
                i.s_axis_fetch_tvalid = true;
                let mut b = [0u8; 8];
                for (k, x) in b.iter_mut().enumerate() {
                    *x = self.mem.get(&(addr + k as u64)).copied().unwrap_or(0);
                }
                i.s_axis_fetch_tdata = u64::from_le_bytes(b);
            }
        }
        i.m_axis_cqwr_tready = self.go();
        i.m_axis_cmd_tready = self.go();
        if let Some(&(at, c)) = self.owed.front() {
            if at <= self.cycle && self.go() {
                i.s_axis_cpl_tvalid = true;
                i.s_axis_cpl_tag = c.tag;
                i.s_axis_cpl_bytes = c.bytes;
                i.s_axis_cpl_conn = c.conn;
                i.s_axis_cpl_status = c.status;
                i.s_axis_cpl_opcode = c.opcode;
                i.s_axis_cpl_urgent = c.urgent;
                i.s_axis_cpl_eof = c.eof;
            }
        }
        let o = self.h.outputs(&i);
        self.h.clock(&i);
        // The world's side of each handshake.
        if o.m_axis_fetch_tvalid && i.m_axis_fetch_tready {
            assert_eq!(o.m_axis_fetch_len % COMMAND_BYTES as u32, 0);
            self.reads.push_back((o.m_axis_fetch_addr, o.m_axis_fetch_len / 8));
            self.fetch_at.push(self.cycle);
        }
        if i.s_axis_fetch_tvalid && o.s_axis_fetch_tready {
            let (addr, left) = self.reads.pop_front().unwrap();
            if left > 1 {
                self.reads.push_front((addr + 8, left - 1));
            }
        }
        if o.m_axis_cqwr_tvalid && i.m_axis_cqwr_tready {
            assert_eq!(o.m_axis_cqwr_tkeep, 0xFF);
            // The burst's address is held; beat k goes to addr + 8k.
            let a = o.m_axis_cqwr_addr + 8 * self.cq_beat;
            for (k, b) in o.m_axis_cqwr_tdata.to_le_bytes().iter().enumerate() {
                self.mem.insert(a + k as u64, *b);
            }
            self.cq_writes.push((a, o.m_axis_cqwr_tdata, o.m_axis_cqwr_tlast));
            self.cq_beat = if o.m_axis_cqwr_tlast { 0 } else { self.cq_beat + 1 };
            if o.m_axis_cqwr_tlast {
                self.cq_done_at.push(self.cycle);
            }
        }
        if o.m_axis_cmd_tvalid && i.m_axis_cmd_tready {
            let c = Command {
                opcode: o.m_axis_cmd_opcode,
                flags: 0,
                conn: o.m_axis_cmd_conn,
                tag: o.m_axis_cmd_tag,
                addr: o.m_axis_cmd_addr,
                len: o.m_axis_cmd_len,
                aux: o.m_axis_cmd_aux,
            };
            self.took.push(c);
            self.cmd_at.push(self.cycle);
            let delay = self.rng.gen_range(0..self.max_delay);
            self.owed.push_back((self.cycle + delay, Completion::of(&c, Ok(c.len))));
        }
        if i.s_axis_cpl_tvalid && o.s_axis_cpl_tready {
            self.owed.pop_front();
            self.cpl_at.push(self.cycle);
        }
        if o.cq_event != 0 {
            self.events += o.cq_event.count_ones();
            for (k, n) in self.events_by_qp.iter_mut().enumerate() {
                *n += u32::from(o.cq_event >> k & 1);
            }
        }
        // The engine's counter port: registered, one cycle.
        self.cnt_data = 0xC000_0000 | u32::from(o.cnt_rd_index);
        self.cycle += 1;
        o
    }

    /// A register write over AXI4-Lite; its response, or `None` when none came in 100
    /// cycles.
    pub fn try_write(&mut self, off: u32, v: u32) -> Option<u8> {
        let mut sent = false;
        for _ in 0..100 {
            let o = self.step(|i| {
                if !sent {
                    i.s_axil_awvalid = true;
                    i.s_axil_awaddr = off as u16;
                    i.s_axil_wvalid = true;
                    i.s_axil_wdata = v;
                }
                i.s_axil_bready = true;
            });
            if o.s_axil_awready {
                assert!(o.s_axil_wready, "address and data are taken together");
                sent = true;
            } else if sent && o.s_axil_bvalid {
                return Some(o.s_axil_bresp);
            }
        }
        None
    }

    /// A register write that must be answered; its response.
    pub fn write(&mut self, off: u32, v: u32) -> u8 {
        self.try_write(off, v).unwrap_or_else(|| panic!("no write response for {off:#x}"))
    }

    /// A register read over AXI4-Lite: data and response, or `None` when no answer came
    /// in 100 cycles.
    pub fn try_read(&mut self, off: u32) -> Option<(u32, u8)> {
        let mut sent = false;
        for _ in 0..100 {
            let o = self.step(|i| {
                if !sent {
                    i.s_axil_arvalid = true;
                    i.s_axil_araddr = off as u16;
                }
                i.s_axil_rready = true;
            });
            if !sent && o.s_axil_arready {
                sent = true;
            } else if sent && o.s_axil_rvalid {
                return Some((o.s_axil_rdata, o.s_axil_rresp));
            }
        }
        None
    }

    /// A register read that must be answered.
    pub fn read(&mut self, off: u32) -> (u32, u8) {
        self.try_read(off).unwrap_or_else(|| panic!("no read response for {off:#x}"))
    }

    pub fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.step(|_| {});
        }
    }
}
