//! Two NIC tops (host interface + engine, [`NicModel`](crate::blocks::nic::NicModel) or their
//! Verilog) joined by the cycle-level SAN ([`SanFabric`]), each with a host memory
//! ([`HostMem`]) and a register port driven over AXI4-Lite: what the driver's `Model` and
//! `Sim` transports run. Unlike the engine pair, no host lives here: the driver is the host,
//! it writes its rings and buffers into host memory and rings doorbells through
//! [`NicPair::reg_write`], and time passes only when it waits for the device.
//!
//! - Both NICs and the SAN advance together, one clock cycle per [`NicPair::cycle`].
//! - Host memory answers reads after `PairConfig::dma_latency` cycles, one beat per cycle;
//!   every access the NIC makes is checked against the DMA memory the driver allocated
//!   (allocations are lent read-write; accesses outside any are violations).
//! - Optional random backpressure (`PairConfig::stall`) on every host-memory and SAN ready
//!   the NICs see, and RDMA transport errors (`PairConfig::rdma_errors`).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::axis_hold::{AxisHold, nic_streams};
use crate::blocks::engine::{Beat, EngineIn, EngineOut};
use crate::blocks::nic::{NicIn, NicOut};
use crate::engine_pair::PairConfig;
use crate::host_mem::{HostMem, HostPort};
use crate::ports::CycleModel;
use crate::san_fabric::SanFabric;
use crate::{copy_fields, san_fields};

/// Cycles a register access may take before it counts as unanswered.
pub const AXIL_TIMEOUT: u64 = 1000;

/// A register access that got no answer.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[error("node {node}: register {offset:#x} gave no answer in {AXIL_TIMEOUT} cycles")]
pub struct NoAnswer {
    pub node: usize,
    pub offset: u32,
}

/// A register access in progress on one node's AXI4-Lite port.
#[derive(Clone, Copy, Debug)]
enum Axil {
    Write { off: u32, value: u32, sent: bool },
    Read { off: u32, sent: bool },
}

/// What the host side of a pair counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NicPairStats {
    pub reg_reads: u64,
    pub reg_writes: u64,
    /// Completion events (`cq_event` bits high, one per queue pair and cycle).
    pub events: u64,
}

struct Node<N> {
    nic: N,
    mem: HostMem,
    port: HostPort,
    axil: Option<Axil>,
    /// The answer to the access just finished: data and response.
    answer: Option<(u32, u8)>,
    next_addr: u64,
    stats: NicPairStats,
}

/// Two NICs over the SAN.
pub struct NicPair<N> {
    cfg: PairConfig,
    nodes: [Node<N>; 2],
    pub fabric: SanFabric,
    rng: ChaCha8Rng,
    pub cycle: u64,
    /// Messages each NIC sent on the SAN.
    pub messages: [u64; 2],
    /// Each NIC's output streams checked against AXI4-Stream's hold rule, and what broke it.
    axis: [AxisHold; 2],
    axis_problems: Vec<String>,
}

impl<N: CycleModel<In = NicIn, Out = NicOut>> NicPair<N> {
    /// The pair after one reset cycle of both NICs (not counted in `cycle`).
    pub fn new(cfg: PairConfig, nics: [N; 2]) -> Self {
        let [mut a, mut b] = nics;
        let reset = NicIn { reset: true, ..NicIn::default() };
        for n in [&mut a, &mut b] {
            n.outputs(&reset);
            n.clock(&reset);
        }
        let node = |nic, k: u64| Node {
            nic,
            mem: HostMem::default(),
            port: HostPort::default(),
            axil: None,
            answer: None,
            next_addr: 0x1_0000_0000 * (k + 1),
            stats: NicPairStats::default(),
        };
        NicPair {
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            fabric: SanFabric::new(cfg.san_latency),
            nodes: [node(a, 0), node(b, 1)],
            cycle: 0,
            messages: [0; 2],
            axis: Default::default(),
            axis_problems: Vec::new(),
            cfg,
        }
    }

    pub fn config(&self) -> &PairConfig {
        &self.cfg
    }

    pub fn nic(&self, node: usize) -> &N {
        &self.nodes[node].nic
    }

    pub fn stats(&self, node: usize) -> NicPairStats {
        self.nodes[node].stats
    }

    pub fn mem(&self, node: usize) -> &HostMem {
        &self.nodes[node].mem
    }

    pub fn mem_mut(&mut self, node: usize) -> &mut HostMem {
        &mut self.nodes[node].mem
    }

    /// `len` bytes of zeroed host memory on `node`, aligned to `align` (a power of two, at
    /// most 4096), lent to the NIC for reads and writes. Never reused.
    pub fn alloc(&mut self, node: usize, len: usize, align: usize) -> u64 {
        let n = &mut self.nodes[node];
        let a = n.next_addr.next_multiple_of(align.max(1) as u64);
        n.next_addr = a + (len as u64).next_multiple_of(4096).max(4096);
        n.mem.lend(a, len as u64, true);
        a
    }

    /// Takes back what [`alloc`](Self::alloc) lent at `addr`: later accesses are violations.
    pub fn free(&mut self, node: usize, addr: u64) {
        self.nodes[node].mem.take_back(addr);
    }

    /// Everything that went wrong: host memory touched outside what was lent, SAN problems.
    pub fn problems(&self) -> Vec<String> {
        let mut p = self.fabric.problems.clone();
        p.extend(self.axis_problems.iter().cloned());
        for n in &self.nodes {
            p.extend(n.mem.violations.iter().cloned());
        }
        p
    }

    fn ready(&mut self) -> bool {
        self.cfg.stall <= 0.0 || !self.rng.gen_bool(self.cfg.stall)
    }

    /// A register write on `node`; its AXI4-Lite response (0 OKAY, 2 SLVERR).
    pub fn reg_write(&mut self, node: usize, offset: u32, value: u32) -> Result<u8, NoAnswer> {
        self.nodes[node].stats.reg_writes += 1;
        self.access(node, Axil::Write { off: offset, value, sent: false }).map(|(_, r)| r)
    }

    /// A register read on `node`: data and response.
    pub fn reg_read(&mut self, node: usize, offset: u32) -> Result<(u32, u8), NoAnswer> {
        self.nodes[node].stats.reg_reads += 1;
        self.access(node, Axil::Read { off: offset, sent: false })
    }

    fn access(&mut self, node: usize, op: Axil) -> Result<(u32, u8), NoAnswer> {
        let offset = match op {
            Axil::Write { off, .. } | Axil::Read { off, .. } => off,
        };
        self.nodes[node].axil = Some(op);
        for _ in 0..AXIL_TIMEOUT {
            self.cycle();
            if let Some(a) = self.nodes[node].answer.take() {
                return Ok(a);
            }
        }
        self.nodes[node].axil = None;
        Err(NoAnswer { node, offset })
    }

    /// Runs `cycles` cycles.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.cycle();
        }
    }

    /// One clock cycle of both NICs, their hosts' memory ports and the SAN.
    pub fn cycle(&mut self) {
        for n in 0..2 {
            self.node_cycle(n);
        }
        self.cycle += 1;
    }

    fn node_cycle(&mut self, n: usize) {
        let now = self.cycle;
        // The SAN's inputs, in the engine's port shape the fabric speaks.
        let mut si = EngineIn::default();
        self.fabric.inputs(n, now, &mut si);
        si.m_axis_tx_tready = self.ready();
        si.m_axis_down_tready = self.ready();
        si.m_axis_rq_tready = self.ready();
        si.m_axis_ck_tready = self.ready();
        si.fault_nomem = self.cfg.nomem > 0.0 && self.rng.gen_bool(self.cfg.nomem);
        let mut i = NicIn::default();
        san_fields!(inputs, copy_fields!(i, si));
        i.m_axis_dmard_tready = self.ready();
        i.m_axis_dmawr_tready = self.ready();
        if let Some(b) = self.nodes[n].port.data_beat(now, &self.nodes[n].mem)
            && self.ready()
        {
            i.s_axis_dmard_tvalid = true;
            i.s_axis_dmard_tdata = b.data;
            i.s_axis_dmard_tkeep = b.keep;
            i.s_axis_dmard_tlast = b.last;
        }
        match self.nodes[n].axil {
            Some(Axil::Write { off, value, sent }) => {
                i.s_axil_awvalid = !sent;
                i.s_axil_wvalid = !sent;
                i.s_axil_awaddr = off as u16;
                i.s_axil_wdata = value;
                i.s_axil_bready = true;
            }
            Some(Axil::Read { off, sent }) => {
                i.s_axil_arvalid = !sent;
                i.s_axil_araddr = off as u16;
                i.s_axil_rready = true;
            }
            None => {}
        }

        let o = self.nodes[n].nic.outputs(&i);
        for w in self.axis[n].check(&nic_streams(&i, &o)) {
            self.axis_problems.push(format!("node {n}, cycle {now}: {w}"));
        }
        let node = &mut self.nodes[n];
        // The register port.
        match &mut node.axil {
            Some(Axil::Write { sent, .. }) => {
                if !*sent && o.s_axil_awready && o.s_axil_wready {
                    *sent = true;
                } else if *sent && o.s_axil_bvalid {
                    node.answer = Some((0, o.s_axil_bresp));
                    node.axil = None;
                }
            }
            Some(Axil::Read { sent, .. }) => {
                if !*sent && o.s_axil_arready {
                    *sent = true;
                } else if *sent && o.s_axil_rvalid {
                    node.answer = Some((o.s_axil_rdata, o.s_axil_rresp));
                    node.axil = None;
                }
            }
            None => {}
        }
        // Host memory.
        if o.m_axis_dmard_tvalid && i.m_axis_dmard_tready {
            let lat = self.cfg.dma_latency;
            let (a, l) = (o.m_axis_dmard_addr, o.m_axis_dmard_len);
            node.port.read_request(n, now, lat, a, l, &mut node.mem);
        }
        if i.s_axis_dmard_tvalid && o.s_axis_dmard_tready {
            node.port.data_taken(i.s_axis_dmard_tlast);
        }
        if o.m_axis_dmawr_tvalid && i.m_axis_dmawr_tready {
            let b = Beat {
                data: o.m_axis_dmawr_tdata,
                keep: o.m_axis_dmawr_tkeep,
                last: o.m_axis_dmawr_tlast,
            };
            node.port.write_beat(n, o.m_axis_dmawr_addr, b, &mut node.mem);
        }
        if o.cq_event != 0 {
            node.stats.events += u64::from(o.cq_event.count_ones());
        }
        // The SAN.
        let mut so = EngineOut::default();
        san_fields!(outputs, copy_fields!(so, o));
        if so.m_axis_tx_tvalid && si.m_axis_tx_tready {
            let b = Beat {
                data: so.m_axis_tx_tdata,
                keep: so.m_axis_tx_tkeep,
                last: so.m_axis_tx_tlast,
            };
            if b.last {
                self.messages[n] += 1;
            }
            self.fabric.send_beat(n, now, so.m_axis_tx_tuser, b);
        }
        if (si.s_axis_rx_tvalid && so.s_axis_rx_tready)
            || (si.s_axis_down_tvalid && so.s_axis_down_tready)
        {
            self.fabric.take_rx(n);
        }
        if so.m_axis_down_tvalid && si.m_axis_down_tready {
            self.fabric.send_down(n, now, so.m_axis_down_conn);
        }
        let [a, b] = &mut self.nodes;
        let mem = [&mut a.mem, &mut b.mem];
        self.fabric.rdma(n, now, &si, &so, mem, &mut self.rng, self.cfg.rdma_errors);
        self.nodes[n].nic.clock(&i);
    }
}
