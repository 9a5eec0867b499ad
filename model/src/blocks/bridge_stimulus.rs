//! Random stimulus for the bridge's lockstep, and its check against the protocol's reference
//! behaviour ([`BridgeExec`]): a host sending random requests (register accesses inside and
//! beyond the register space, memory reads and writes at odd addresses and lengths, at the
//! memory's end and one past it, zero lengths, flushes, `NOP`s and headers the bridge does
//! not know); two register ports (AXI4-Lite slaves with random ready and response delays,
//! a refused hole at the top of the space); two memories with random ready and read latency;
//! random backpressure on the responses.
//!
//! Every response word taken is compared with what [`BridgeExec`] answers to the same request
//! words over a mirror of the registers and memories; after a reset the mirror is taken
//! again from the slaves (a request cut by the reset may have done part of its work).

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::bridge::{BridgeIn, BridgeOut};
use super::hostif::{RESP_OKAY, RESP_SLVERR};
use crate::bridge::{BridgeExec, BridgeTarget, NODES, Op, Request, header};
use crate::ports::Stimulus;
use crate::regs::SPACE_BYTES;

/// Offsets from here to the end of the register space answer `SLVERR` (the slaves' hole).
pub const HOLE: u32 = SPACE_BYTES - 0x100;

/// Both nodes' registers and memories.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nodes {
    pub regs: [Vec<u32>; NODES],
    pub mem: [Vec<u64>; NODES],
}

impl Nodes {
    fn new(mem_bytes: u32, rng: &mut ChaCha8Rng) -> Self {
        let words = (mem_bytes / 8) as usize;
        let mut mem = || (0..words).map(|_| rng.r#gen()).collect::<Vec<u64>>();
        let m = [mem(), mem()];
        Nodes {
            regs: [vec![0; (SPACE_BYTES / 4) as usize], vec![0; (SPACE_BYTES / 4) as usize]],
            mem: m,
        }
    }
}

/// A 64-bit word with the bytes of `mask` replaced by `v`'s.
pub fn merge(old: u64, v: u64, mask: u8) -> u64 {
    let m = (0..8).filter(|b| mask >> b & 1 != 0).fold(0u64, |a, b| a | 0xFF << (8 * b));
    old & !m | v & m
}

impl BridgeTarget for Nodes {
    fn reg_write(&mut self, node: usize, offset: u32, value: u32) -> u8 {
        if offset >= SPACE_BYTES {
            return RESP_SLVERR;
        }
        if offset >= HOLE {
            return RESP_SLVERR;
        }
        self.regs[node][(offset / 4) as usize] = value;
        RESP_OKAY
    }
    fn reg_read(&mut self, node: usize, offset: u32) -> (u32, u8) {
        if offset >= SPACE_BYTES {
            return (0, RESP_SLVERR);
        }
        if offset >= HOLE {
            return (0xDEAD_0000 | offset, RESP_SLVERR);
        }
        (self.regs[node][(offset / 4) as usize], RESP_OKAY)
    }
    fn mem_bytes(&self) -> u32 {
        (self.mem[0].len() * 8) as u32
    }
    fn mem_write(&mut self, node: usize, index: u32, v: u64, mask: u8) {
        let w = &mut self.mem[node][index as usize];
        *w = merge(*w, v, mask);
    }
    fn mem_read(&mut self, node: usize, index: u32) -> u64 {
        self.mem[node][index as usize]
    }
}

/// One AXI4-Lite slave's transaction in progress.
#[derive(Clone, Copy, Debug, Default)]
struct Slave {
    aw: Option<u16>,
    w: Option<u32>,
    /// Write response: cycles to wait, then shown until taken.
    b: Option<(u32, u8)>,
    ar: Option<u16>,
    r: Option<(u32, u32, u8)>,
}

/// What the stimulus counted over the run.
#[derive(Clone, Copy, Debug, Default)]
pub struct BridgeCounts {
    pub requests: [u64; 7],
    pub words_in: u64,
    pub words_out: u64,
    pub mem_reads: u64,
    pub mem_writes: u64,
    pub reg_writes: u64,
    pub reg_reads: u64,
    pub checked_words: u64,
}

/// The stimulus.
pub struct BridgeDriver {
    rng: ChaCha8Rng,
    mem_bytes: u32,
    /// Probability a valid or ready the stimulus drives is high in a cycle.
    pub rate: f64,
    /// Share of requests that are headers the bridge does not know.
    pub bad: f64,
    words: VecDeque<u16>,
    slaves: [Slave; NODES],
    nodes: Nodes,
    /// The reference: the mirror it runs on and the response words it expects.
    exec: BridgeExec,
    mirror: Nodes,
    expect: VecDeque<u16>,
    /// Memory read in flight: cycles left, word.
    mem_rd: Option<(u32, u64)>,
    pub counts: BridgeCounts,
}

impl BridgeDriver {
    pub fn new(seed: u64, mem_bytes: u32) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let nodes = Nodes::new(mem_bytes, &mut rng);
        BridgeDriver {
            rng,
            mem_bytes,
            rate: 0.8,
            bad: 0.05,
            words: VecDeque::new(),
            slaves: Default::default(),
            mirror: nodes.clone(),
            nodes,
            exec: BridgeExec::default(),
            expect: VecDeque::new(),
            mem_rd: None,
            counts: BridgeCounts::default(),
        }
    }

    /// The slaves' registers and memories.
    pub fn nodes(&self) -> &Nodes {
        &self.nodes
    }

    /// Response words the reference still expects.
    pub fn owed(&self) -> usize {
        self.expect.len()
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.gen_bool(p)
    }

    /// A memory request's address and length: mostly inside, some at the end and one past
    /// it, some of zero length, some far outside.
    fn mem_span(&mut self) -> (u32, u32) {
        let m = self.mem_bytes;
        let len = match self.rng.gen_range(0..10) {
            0 => self.rng.gen_range(0..=600),
            1 => 0,
            _ => self.rng.gen_range(1..=40),
        };
        let addr = match self.rng.gen_range(0..12) {
            0 => m.saturating_sub(len),
            1 => (m + 1).saturating_sub(len),
            2 => self.rng.r#gen(),
            _ => self.rng.gen_range(0..m),
        };
        (addr, len)
    }

    /// Queue the words of a random request.
    fn queue_request(&mut self) {
        let node = self.rng.gen_range(0..NODES);
        let offset = if self.chance(0.2) {
            4 * self.rng.gen_range(0..0x800u32)
        } else {
            4 * self.rng.gen_range(0..SPACE_BYTES / 4)
        };
        let kind = self.rng.gen_range(0..100);
        let req = if self.chance(self.bad) {
            // A header the bridge does not know: opcodes 5..=14, or 0 and 15 with stray bits.
            let w = match self.rng.gen_range(0..3) {
                0 => header(Op::Nop, node, self.rng.gen_range(1..0x800)),
                1 => (self.rng.gen_range(5..15u16) << 12) | self.rng.gen_range(0..0x1000),
                _ => header(Op::Flush, node, self.rng.gen_range(0..0x800)).max(0xF001),
            };
            self.words.push_back(w);
            self.counts.requests[6] += 1;
            return;
        } else if kind < 15 {
            Request::RegWrite { node, offset, value: self.rng.r#gen() }
        } else if kind < 30 {
            Request::RegRead { node, offset }
        } else if kind < 60 {
            let (addr, len) = self.mem_span();
            if len == 0 {
                // The encoder refuses a zero length: build the words by hand.
                self.words.extend([
                    header(Op::MemWrite, node, 0),
                    addr as u16,
                    (addr >> 16) as u16,
                    0,
                ]);
                self.counts.requests[2] += 1;
                return;
            }
            let data = (0..len).map(|_| self.rng.r#gen()).collect();
            Request::MemWrite { node, addr, data }
        } else if kind < 90 {
            let (addr, len) = self.mem_span();
            if len == 0 {
                self.words.extend([
                    header(Op::MemRead, node, 0),
                    addr as u16,
                    (addr >> 16) as u16,
                    0,
                ]);
                self.counts.requests[3] += 1;
                return;
            }
            Request::MemRead { node, addr, len }
        } else if kind < 95 {
            Request::Flush
        } else {
            self.words.push_back(0);
            self.counts.requests[5] += 1;
            return;
        };
        let k = match req {
            Request::RegWrite { .. } => 0,
            Request::RegRead { .. } => 1,
            Request::MemWrite { .. } => 2,
            Request::MemRead { .. } => 3,
            Request::Flush => 4,
        };
        self.counts.requests[k] += 1;
        let mut w = Vec::new();
        req.encode(&mut w).expect("the generator makes valid requests");
        self.words.extend(w);
    }

    fn slave_inputs(&mut self, i: &mut BridgeIn, node: usize) {
        let rate = self.rate;
        let s = self.slaves[node];
        let awready = s.aw.is_none() && self.chance(rate);
        let wready = s.w.is_none() && self.chance(rate);
        let arready = s.ar.is_none() && s.r.is_none() && self.chance(rate);
        let (bvalid, bresp) = match s.b {
            Some((0, r)) => (true, r),
            _ => (false, 0),
        };
        let (rvalid, rdata, rresp) = match s.r {
            Some((0, d, r)) => (true, d, r),
            _ => (false, self.rng.r#gen(), 0),
        };
        if node == 0 {
            i.m_axil_awready_0 = awready;
            i.m_axil_wready_0 = wready;
            i.m_axil_bvalid_0 = bvalid;
            i.m_axil_bresp_0 = bresp;
            i.m_axil_arready_0 = arready;
            i.m_axil_rvalid_0 = rvalid;
            i.m_axil_rdata_0 = rdata;
            i.m_axil_rresp_0 = rresp;
        } else {
            i.m_axil_awready_1 = awready;
            i.m_axil_wready_1 = wready;
            i.m_axil_bvalid_1 = bvalid;
            i.m_axil_bresp_1 = bresp;
            i.m_axil_arready_1 = arready;
            i.m_axil_rvalid_1 = rvalid;
            i.m_axil_rdata_1 = rdata;
            i.m_axil_rresp_1 = rresp;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn slave_observe(
        &mut self,
        node: usize,
        (awvalid, awready, awaddr): (bool, bool, u16),
        (wvalid, wready, wdata): (bool, bool, u32),
        (bvalid, bready): (bool, bool),
        (arvalid, arready, araddr): (bool, bool, u16),
        (rvalid, rready): (bool, bool),
    ) {
        let delay = self.rng.gen_range(0..4);
        let s = &mut self.slaves[node];
        if awvalid && awready {
            s.aw = Some(awaddr);
        }
        if wvalid && wready {
            s.w = Some(wdata);
        }
        if bvalid && bready {
            s.b = None;
        }
        if let Some((n, r)) = s.b {
            s.b = Some((n.saturating_sub(1), r));
        }
        if let (Some(a), Some(d), None) = (s.aw, s.w, s.b) {
            let r = self.nodes.reg_write(node, u32::from(a), d);
            self.counts.reg_writes += 1;
            let s = &mut self.slaves[node];
            s.aw = None;
            s.w = None;
            s.b = Some((delay, r));
        }
        let s = &mut self.slaves[node];
        if rvalid && rready {
            s.r = None;
        }
        if let Some((n, d, r)) = s.r {
            s.r = Some((n.saturating_sub(1), d, r));
        }
        if arvalid && arready {
            let (d, r) = self.nodes.reg_read(node, u32::from(araddr));
            self.counts.reg_reads += 1;
            self.slaves[node].r = Some((delay, d, r));
        }
    }
}

impl Stimulus<BridgeIn, BridgeOut> for BridgeDriver {
    fn next(&mut self) -> BridgeIn {
        while self.words.len() < 8 {
            self.queue_request();
        }
        let mut i = BridgeIn {
            s_axis_req_tvalid: self.chance(self.rate),
            s_axis_req_tdata: self.words[0],
            m_axis_rsp_tready: self.chance(self.rate),
            m_mem_ready: self.chance(self.rate),
            ..Default::default()
        };
        self.slave_inputs(&mut i, 0);
        self.slave_inputs(&mut i, 1);
        if let Some((0, d)) = self.mem_rd {
            i.s_mem_rvalid = true;
            i.s_mem_rdata = d;
        } else {
            i.s_mem_rdata = self.rng.r#gen();
        }
        i
    }

    fn observe(&mut self, i: &BridgeIn, o: &BridgeOut) {
        if i.reset {
            return;
        }
        if i.s_axis_req_tvalid && o.s_axis_req_tready {
            let w = self.words.pop_front().expect("a word was offered");
            self.counts.words_in += 1;
            let out = self.exec.run(&[w], &mut self.mirror);
            self.expect.extend(out);
        }
        if o.m_axis_rsp_tvalid && i.m_axis_rsp_tready {
            self.counts.words_out += 1;
            let want = self.expect.pop_front();
            assert_eq!(
                Some(o.m_axis_rsp_tdata),
                want,
                "response word {} differs from the protocol's reference",
                self.counts.words_out
            );
            self.counts.checked_words += 1;
        }
        // Memory: a read's word comes back after 1 to 3 cycles.
        match self.mem_rd {
            Some((0, _)) => self.mem_rd = None,
            Some((n, d)) => self.mem_rd = Some((n - 1, d)),
            None => {}
        }
        if o.m_mem_valid && i.m_mem_ready {
            let node = usize::from(o.m_mem_node);
            let idx = u32::from(o.m_mem_index);
            assert!(idx < self.mem_bytes / 8, "memory word {idx} is outside the memory");
            if o.m_mem_write {
                self.nodes.mem_write(node, idx, o.m_mem_wdata, o.m_mem_wmask);
                self.counts.mem_writes += 1;
            } else {
                assert!(self.mem_rd.is_none(), "a second memory read in flight");
                let lat = self.rng.gen_range(0..3);
                self.mem_rd = Some((lat, self.nodes.mem_read(node, idx)));
                self.counts.mem_reads += 1;
            }
        }
        self.slave_observe(
            0,
            (o.m_axil_awvalid_0, i.m_axil_awready_0, o.m_axil_awaddr_0),
            (o.m_axil_wvalid_0, i.m_axil_wready_0, o.m_axil_wdata_0),
            (i.m_axil_bvalid_0, o.m_axil_bready_0),
            (o.m_axil_arvalid_0, i.m_axil_arready_0, o.m_axil_araddr_0),
            (i.m_axil_rvalid_0, o.m_axil_rready_0),
        );
        self.slave_observe(
            1,
            (o.m_axil_awvalid_1, i.m_axil_awready_1, o.m_axil_awaddr_1),
            (o.m_axil_wvalid_1, i.m_axil_wready_1, o.m_axil_wdata_1),
            (i.m_axil_bvalid_1, o.m_axil_bready_1),
            (o.m_axil_arvalid_1, i.m_axil_arready_1, o.m_axil_araddr_1),
            (i.m_axil_rvalid_1, o.m_axil_rready_1),
        );
    }

    fn reset(&mut self) {
        // Whatever was in flight is gone; the reference starts again from the slaves'
        // state, at a block boundary, with no words pending.
        self.slaves = Default::default();
        self.mem_rd = None;
        self.mirror = self.nodes.clone();
        self.exec = BridgeExec::default();
        self.expect.clear();
        // The word being offered may have been taken in the reset cycle: not by a bridge
        // in reset. Drop the rest of the request it belongs to by starting a new one.
        self.words.clear();
    }
}
