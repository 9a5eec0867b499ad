//! Two engines joined by a cycle-level SAN, each with a host memory model and a host that
//! submits commands and reaps completions: a [`Backend`] that runs the same workloads as the
//! sans-IO endpoints over the fabric model.
//!
//! The engines are anything with the engine's ports ([`EngineModel`], or the Verilated
//! engine in `sim/`), stepped together one clock cycle at a time.
//!
//! - **SAN**: per direction, a pipe of message beats with a latency in cycles and a
//!   bandwidth of one beat per cycle; connection `c` of node 0 is connection `c` of node 1.
//!   An engine that resets a connection tears it down; the other engine is told, in order
//!   after the beats sent before. Optionally it makes messages malformed.
//! - **Host memory**: sparse bytes per node. Every access the engine makes through its host
//!   memory port is checked against what the host lent it: reads only inside a send's buffer
//!   still outstanding, writes only inside a posted receive's buffer still outstanding.
//!   Anything else is reported as a problem of the run. Reads answer after a latency, one
//!   beat per cycle.
//! - **Hosts**: each side's requests become command entries (OPEN then CONNECT or LISTEN per
//!   connection, SEND with the data written to a fresh buffer, POST_RECV, SHUTDOWN), and each
//!   completion the answer the workload expects; a connection is known to be aborted when a
//!   completion says it was reset or aborted.
//! - Random backpressure (`PairConfig::stall`) on every host and SAN ready the engine sees.

use std::collections::{BTreeMap, HashMap, VecDeque};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::blocks::engine::{Beat, EngineIn, EngineModel, EngineOut};
use crate::endpoint::{Action, Config, Event, Received, ReqId, Stats};
use crate::fabric::AppOutput;
use crate::host::{Completion, Opcode};
use crate::params::EngineParams;
use crate::ports::CycleModel;
use crate::status::WsaError;
use crate::workload::Backend;

/// How the two engines are joined.
#[derive(Clone, Debug, PartialEq)]
pub struct PairConfig {
    pub params: EngineParams,
    /// SAN latency: cycles from a beat leaving one engine to its arrival at the other.
    pub san_latency: u64,
    /// Host memory read latency in cycles.
    pub dma_latency: u64,
    /// Probability that a ready the engine sees (host and SAN) is low in a cycle.
    pub stall: f64,
    /// Clock frequency, for the time in nanoseconds.
    pub clock_mhz: f64,
    pub seed: u64,
    /// Cycles with requests outstanding and nothing moving before the run counts as stuck.
    pub stuck_cycles: u64,
    /// Probability that the SAN makes a message malformed (a reserved flag set, an unknown
    /// kind, or a length that disagrees with the bytes): the receiving engine must reset the
    /// connection, and the workload's checker accepts what an aborted connection loses.
    pub malformed: f64,
    /// Probability per cycle and node that the host submits a command the engine must refuse
    /// (an unknown opcode: WSAEINVAL; a connection it does not have: WSAENOTSOCK), checked
    /// to complete with exactly that status.
    pub junk_cmds: f64,
}

impl Default for PairConfig {
    fn default() -> Self {
        PairConfig {
            params: EngineParams::default(),
            san_latency: 32,
            dma_latency: 16,
            stall: 0.0,
            clock_mhz: 125.0,
            seed: 1,
            stuck_cycles: 200_000,
            malformed: 0.0,
            junk_cmds: 0.0,
        }
    }
}

/// Host memory: sparse pages, and the regions the engine may touch.
#[derive(Clone, Debug, Default)]
pub struct HostMem {
    pages: HashMap<u64, Box<[u8; 4096]>>,
    /// Lent regions: start -> (end, writable).
    lent: BTreeMap<u64, (u64, bool)>,
    pub reads: u64,
    pub writes: u64,
    pub violations: Vec<String>,
}

impl HostMem {
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        for (k, b) in data.iter().enumerate() {
            let a = addr + k as u64;
            self.pages.entry(a >> 12).or_insert_with(|| Box::new([0; 4096]))[(a & 4095) as usize] =
                *b;
        }
    }

    pub fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|k| {
                let a = addr + k;
                self.pages.get(&(a >> 12)).map_or(0, |p| p[(a & 4095) as usize])
            })
            .collect()
    }

    fn lend(&mut self, addr: u64, len: u64, writable: bool) {
        self.lent.insert(addr, (addr + len, writable));
    }

    fn take_back(&mut self, addr: u64) {
        if let Some((end, _)) = self.lent.remove(&addr) {
            for p in addr >> 12..=end.saturating_sub(1) >> 12 {
                self.pages.remove(&p);
            }
        }
    }

    /// Whether `[addr, addr + len)` lies in one lent region (writable, for a write).
    fn allowed(&self, addr: u64, len: u64, write: bool) -> bool {
        self.lent
            .range(..=addr)
            .next_back()
            .is_some_and(|(_, &(end, w))| addr + len <= end && (w || !write))
    }

    fn check(&mut self, node: usize, addr: u64, len: u64, write: bool) {
        if !self.allowed(addr, len, write) && self.violations.len() < 16 {
            let what = if write { "write" } else { "read" };
            self.violations.push(format!(
                "node {node}: host memory {what} of {len} bytes at {addr:#x} outside what the \
                 host lent"
            ));
        }
    }
}

/// A command entry (its tag is set when submitted).
fn cmd(op: Opcode, conn: usize, addr: u64, len: u32, aux: u64) -> crate::host::Command {
    crate::host::Command { opcode: op.code(), flags: 0, conn: conn as u16, tag: 0, addr, len, aux }
}

/// What a command's tag stands for.
#[derive(Clone, Copy, Debug)]
enum Pending {
    Send {
        conn: usize,
        req: ReqId,
        addr: u64,
    },
    Recv {
        conn: usize,
        req: ReqId,
        addr: u64,
    },
    Control {
        conn: usize,
    },
    /// A command the engine must refuse with this status.
    Junk {
        expect: WsaError,
    },
}

#[derive(Clone, Copy, Debug)]
struct ReadJob {
    addr: u64,
    len: u32,
    beat: u32,
    ready_at: u64,
}

struct Node<E> {
    eng: E,
    mem: HostMem,
    cmds: VecDeque<crate::host::Command>,
    pending: HashMap<u32, Pending>,
    next_tag: u32,
    next_addr: u64,
    reads: VecDeque<ReadJob>,
    /// Beat index within the current write burst.
    wr_beat: u64,
}

/// Two engines over a cycle-level SAN.
pub struct EnginePair<E> {
    cfg: PairConfig,
    nodes: [Node<E>; 2],
    /// What is on the wire toward node `n`: arrival cycle, connection, and a beat (or `None`:
    /// the connection went down, told in order after every beat sent before).
    san: [VecDeque<(u64, u8, Option<Beat>)>; 2],
    rng: ChaCha8Rng,
    pub cycle: u64,
    idle_cycles: u64,
    outputs: Vec<AppOutput>,
    conns: usize,
    aborted: Vec<[bool; 2]>,
    stats: Vec<[Stats; 2]>,
    problems: Vec<String>,
    /// Beats each engine sent on the SAN.
    pub san_beats: [u64; 2],
    /// The next beat each engine sends starts a message.
    tx_first: [bool; 2],
    /// Messages the SAN made malformed, commands the hosts made up to be refused.
    pub malformed_injected: u64,
    pub junk_injected: u64,
    /// Connections torn down on the SAN.
    pub downs: u64,
}

impl EnginePair<EngineModel> {
    /// Two engine cycle models.
    pub fn models(cfg: PairConfig) -> Self {
        let p = cfg.params;
        Self::new(cfg, [EngineModel::new(p), EngineModel::new(p)])
    }
}

impl<E: CycleModel<In = EngineIn, Out = EngineOut>> EnginePair<E> {
    pub fn new(cfg: PairConfig, engines: [E; 2]) -> Self {
        let [e0, e1] = engines;
        let node = |eng, n: u64| Node {
            eng,
            mem: HostMem::default(),
            cmds: VecDeque::new(),
            pending: HashMap::new(),
            next_tag: 1,
            next_addr: 0x1_0000_0000 * (n + 1),
            reads: VecDeque::new(),
            wr_beat: 0,
        };
        EnginePair {
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            nodes: [node(e0, 0), node(e1, 1)],
            san: [VecDeque::new(), VecDeque::new()],
            cycle: 0,
            idle_cycles: 0,
            outputs: Vec::new(),
            conns: 0,
            aborted: Vec::new(),
            stats: Vec::new(),
            problems: Vec::new(),
            san_beats: [0; 2],
            tx_first: [true; 2],
            malformed_injected: 0,
            junk_injected: 0,
            downs: 0,
            cfg,
        }
    }

    pub fn engine(&self, node: usize) -> &E {
        &self.nodes[node].eng
    }

    pub fn host_memory(&self, node: usize) -> &HostMem {
        &self.nodes[node].mem
    }

    fn submit(&mut self, node: usize, cmd: crate::host::Command, p: Pending) {
        let n = &mut self.nodes[node];
        let tag = n.next_tag;
        n.next_tag = n.next_tag.wrapping_add(1).max(1);
        n.pending.insert(tag, p);
        n.cmds.push_back(crate::host::Command { tag, ..cmd });
    }

    /// A fresh host buffer of `len` bytes (4 KiB aligned, never reused).
    fn alloc(&mut self, node: usize, len: usize) -> u64 {
        let n = &mut self.nodes[node];
        let a = n.next_addr;
        n.next_addr += (len as u64).div_ceil(4096).max(1) * 4096;
        a
    }

    /// Requests outstanding, or beats still on the wire.
    pub fn busy(&self) -> bool {
        self.nodes.iter().any(|n| !n.pending.is_empty() || !n.cmds.is_empty())
            || self.san.iter().any(|s| !s.is_empty())
    }

    fn ready(&mut self) -> bool {
        self.cfg.stall <= 0.0 || !self.rng.gen_bool(self.cfg.stall)
    }

    /// A reset cycle for both engines; the SAN, the hosts and their memories start afresh
    /// (what was outstanding is forgotten, as the hardware forgets it), so the next workload
    /// starts from connection 0.
    pub fn reset(&mut self) {
        let i = EngineIn { reset: true, ..EngineIn::default() };
        for n in &mut self.nodes {
            n.eng.outputs(&i);
            n.eng.clock(&i);
            n.mem = HostMem::default();
            n.cmds.clear();
            n.pending.clear();
            n.reads.clear();
            n.wr_beat = 0;
        }
        self.san = [VecDeque::new(), VecDeque::new()];
        self.tx_first = [true; 2];
        self.outputs.clear();
        self.conns = 0;
        self.aborted.clear();
        self.stats.clear();
        self.idle_cycles = 0;
        self.cycle += 1;
    }

    /// A made-up command the engine must refuse.
    fn junk(&mut self, node: usize) {
        let conns = self.cfg.params.connections;
        let (c, expect) = match self.rng.gen_range(0..3) {
            0 => (cmd(Opcode::Send, 0, 0, 8, 0), WsaError::Inval),
            1 => (cmd(Opcode::Send, conns as usize, 0, 8, 0), WsaError::NotSock),
            _ => (cmd(Opcode::PostRecv, 0xFFFF, 0, 8, 0), WsaError::NotSock),
        };
        let c = if expect == WsaError::Inval {
            let op = if self.rng.gen_bool(0.5) { 0 } else { self.rng.gen_range(10..=255) };
            crate::host::Command { opcode: op, ..c }
        } else {
            c
        };
        self.junk_injected += 1;
        self.submit(node, c, Pending::Junk { expect });
    }

    /// Make the first beat of a message malformed, one of three ways.
    fn malform(&mut self, b: &mut Beat) {
        self.malformed_injected += 1;
        match self.rng.gen_range(0..3) {
            // A reserved flag bit.
            0 => b.data |= 0x80 << 8,
            // A kind that does not exist.
            1 => b.data = (b.data & !0xFF) | 0x55,
            // A length eight bytes more than the message has.
            _ => b.data = b.data.wrapping_add(8 << 32),
        }
    }

    /// One clock cycle of both engines, the SAN and the hosts. Returns whether anything moved.
    pub fn cycle(&mut self) -> bool {
        let mut moved = false;
        for n in 0..2 {
            if self.cfg.junk_cmds > 0.0 && self.rng.gen_bool(self.cfg.junk_cmds) {
                self.junk(n);
            }
            let mut i = EngineIn::default();
            if let Some(c) = self.nodes[n].cmds.front() {
                i.s_axis_cmd_tvalid = true;
                i.s_axis_cmd_opcode = c.opcode;
                i.s_axis_cmd_conn = c.conn;
                i.s_axis_cmd_tag = c.tag;
                i.s_axis_cmd_addr = c.addr;
                i.s_axis_cmd_len = c.len;
                i.s_axis_cmd_aux = c.aux;
            }
            i.m_axis_cpl_tready = self.ready();
            i.m_axis_dmard_tready = self.ready();
            i.m_axis_dmawr_tready = self.ready();
            i.m_axis_tx_tready = self.ready();
            let now = self.cycle;
            if let Some(r) = self.nodes[n].reads.front().filter(|r| r.ready_at <= now).copied()
                && self.ready()
            {
                let beats = r.len.div_ceil(8);
                let off = 8 * r.beat as u64;
                let nb = u64::min(8, r.len as u64 - off) as usize;
                let bytes = self.nodes[n].mem.read(r.addr + off, nb);
                i.s_axis_dmard_tvalid = true;
                i.s_axis_dmard_tdata =
                    bytes.iter().enumerate().fold(0, |d, (k, b)| d | (*b as u64) << (8 * k));
                i.s_axis_dmard_tkeep = ((1u16 << nb) - 1) as u8;
                i.s_axis_dmard_tlast = r.beat + 1 == beats;
            }
            i.m_axis_down_tready = self.ready();
            match self.san[n].front() {
                Some(&(at, conn, Some(b))) if at <= now => {
                    i.s_axis_rx_tvalid = true;
                    i.s_axis_rx_tdata = b.data;
                    i.s_axis_rx_tkeep = b.keep;
                    i.s_axis_rx_tlast = b.last;
                    i.s_axis_rx_tuser = conn;
                }
                Some(&(at, conn, None)) if at <= now => {
                    i.s_axis_down_tvalid = true;
                    i.s_axis_down_conn = conn;
                }
                _ => {}
            }
            let o = self.nodes[n].eng.outputs(&i);
            let node = &mut self.nodes[n];
            if i.s_axis_cmd_tvalid && o.s_axis_cmd_tready {
                node.cmds.pop_front();
                moved = true;
            }
            if o.m_axis_dmard_tvalid && i.m_axis_dmard_tready {
                node.mem.check(n, o.m_axis_dmard_addr, o.m_axis_dmard_len as u64, false);
                node.mem.reads += 1;
                node.reads.push_back(ReadJob {
                    addr: o.m_axis_dmard_addr,
                    len: o.m_axis_dmard_len,
                    beat: 0,
                    ready_at: now + self.cfg.dma_latency,
                });
                moved = true;
            }
            if i.s_axis_dmard_tvalid && o.s_axis_dmard_tready {
                let r = node.reads.front_mut().expect("a read is answered");
                r.beat += 1;
                if i.s_axis_dmard_tlast {
                    node.reads.pop_front();
                }
                moved = true;
            }
            if o.m_axis_dmawr_tvalid && i.m_axis_dmawr_tready {
                let nb = o.m_axis_dmawr_tkeep.count_ones() as u64;
                let a = o.m_axis_dmawr_addr + 8 * node.wr_beat;
                node.mem.check(n, a, nb, true);
                let bytes = o.m_axis_dmawr_tdata.to_le_bytes();
                node.mem.write(a, &bytes[..nb as usize]);
                node.mem.writes += 1;
                node.wr_beat = if o.m_axis_dmawr_tlast { 0 } else { node.wr_beat + 1 };
                moved = true;
            }
            if o.m_axis_tx_tvalid && i.m_axis_tx_tready {
                let mut b = Beat {
                    data: o.m_axis_tx_tdata,
                    keep: o.m_axis_tx_tkeep,
                    last: o.m_axis_tx_tlast,
                };
                if self.tx_first[n]
                    && self.cfg.malformed > 0.0
                    && self.rng.gen_bool(self.cfg.malformed)
                {
                    self.malform(&mut b);
                }
                self.tx_first[n] = b.last;
                self.san[1 - n].push_back((now + self.cfg.san_latency, o.m_axis_tx_tuser, Some(b)));
                self.san_beats[n] += 1;
                moved = true;
            }
            if (i.s_axis_rx_tvalid && o.s_axis_rx_tready)
                || (i.s_axis_down_tvalid && o.s_axis_down_tready)
            {
                self.san[n].pop_front();
                moved = true;
            }
            if o.m_axis_down_tvalid && i.m_axis_down_tready {
                self.san[1 - n].push_back((now + self.cfg.san_latency, o.m_axis_down_conn, None));
                self.downs += 1;
                moved = true;
            }
            if o.m_axis_cpl_tvalid && i.m_axis_cpl_tready {
                let c = Completion {
                    tag: o.m_axis_cpl_tag,
                    bytes: o.m_axis_cpl_bytes,
                    conn: o.m_axis_cpl_conn,
                    status: o.m_axis_cpl_status,
                    opcode: o.m_axis_cpl_opcode,
                    urgent: o.m_axis_cpl_urgent,
                    eof: o.m_axis_cpl_eof,
                };
                self.complete(n, c);
                moved = true;
            }
            self.nodes[n].eng.clock(&i);
        }
        self.cycle += 1;
        moved
    }

    fn complete(&mut self, n: usize, c: Completion) {
        let Some(p) = self.nodes[n].pending.remove(&c.tag) else {
            self.problems.push(format!(
                "node {n}: completion for tag {} that is not outstanding: {c:?}",
                c.tag
            ));
            return;
        };
        let err = match c.error() {
            Ok(e) => e,
            Err(e) => {
                self.problems.push(format!("node {n}: completion {c:?}: {e}"));
                Some(WsaError::ConnReset)
            }
        };
        let (conn, action) = match p {
            Pending::Send { conn, req, addr } => {
                self.nodes[n].mem.take_back(addr);
                (
                    conn,
                    Some(Action::CompleteSend {
                        req,
                        result: err.map_or(Ok(c.bytes as usize), Err),
                    }),
                )
            }
            Pending::Recv { conn, req, addr } => {
                let data = self.nodes[n].mem.read(addr, c.bytes as usize);
                self.nodes[n].mem.take_back(addr);
                let result = match err {
                    Some(e) => Err(e),
                    None => Ok(Received { data, urgent: c.urgent }),
                };
                (conn, Some(Action::CompleteRecv { req, result }))
            }
            Pending::Control { conn } => (conn, None),
            Pending::Junk { expect } => {
                if err != Some(expect) {
                    self.problems.push(format!(
                        "node {n}: a command the engine must refuse with {} completed with {:?}",
                        expect.name(),
                        err.map(|e| e.name())
                    ));
                }
                return;
            }
        };
        if let Some(a) = &action {
            let name = err.map_or("ok", |e| e.name());
            *self.stats[conn][n].completions.entry(name.into()).or_default() += 1;
            let _ = a;
        }
        let time_ns = self.now_ns();
        if let Some(action) = action {
            self.outputs.push(AppOutput { conn, node: n, time_ns, action });
        }
        if matches!(err, Some(WsaError::ConnReset | WsaError::OperationAborted))
            && !self.aborted[conn][n]
        {
            self.aborted[conn][n] = true;
            self.outputs.push(AppOutput { conn, node: n, time_ns, action: Action::Teardown });
        }
    }

    fn now_ns(&self) -> u64 {
        (self.cycle as f64 * 1000.0 / self.cfg.clock_mhz) as u64
    }
}

impl<E: CycleModel<In = EngineIn, Out = EngineOut>> Backend for EnginePair<E> {
    fn connect(&mut self, cfgs: [Config; 2]) {
        let conn = self.conns;
        self.conns += 1;
        self.aborted.push([false; 2]);
        self.stats.push(Default::default());
        for (n, cfg) in cfgs.iter().enumerate() {
            let ctl = Pending::Control { conn };
            self.submit(n, cmd(Opcode::Open, conn, 0, 0, cfg.initial_seq as u64), ctl);
            let op = if n == 0 { Opcode::Connect } else { Opcode::Listen };
            self.submit(n, cmd(op, conn, 0, 0, 0), ctl);
        }
    }

    fn app(&mut self, conn: usize, node: usize, ev: Event) {
        match ev {
            Event::AppSend { req, data, urgent } => {
                let addr = self.alloc(node, data.len());
                let mem = &mut self.nodes[node].mem;
                mem.write(addr, &data);
                mem.lend(addr, data.len() as u64, false);
                let op = if urgent { Opcode::SendUrgent } else { Opcode::Send };
                let p = Pending::Send { conn, req, addr };
                self.submit(node, cmd(op, conn, addr, data.len() as u32, 0), p);
            }
            Event::AppRecv { req, max } => {
                let addr = self.alloc(node, max);
                self.nodes[node].mem.lend(addr, max as u64, true);
                let p = Pending::Recv { conn, req, addr };
                self.submit(node, cmd(Opcode::PostRecv, conn, addr, max as u32, 0), p);
            }
            Event::AppShutdown => {
                self.submit(node, cmd(Opcode::Shutdown, conn, 0, 0, 0), Pending::Control { conn })
            }
            other => self.problems.push(format!("the engine backend has no request for {other:?}")),
        }
    }

    fn take_outputs(&mut self) -> Vec<AppOutput> {
        std::mem::take(&mut self.outputs)
    }

    fn has_outputs(&self) -> bool {
        !self.outputs.is_empty()
    }

    fn step(&mut self) -> bool {
        for _ in 0..256 {
            if !self.busy() {
                return false;
            }
            if self.cycle() {
                self.idle_cycles = 0;
            } else {
                self.idle_cycles += 1;
                if self.idle_cycles >= self.cfg.stuck_cycles {
                    return false;
                }
            }
            if !self.outputs.is_empty() {
                break;
            }
        }
        true
    }

    fn now(&self) -> u64 {
        self.now_ns()
    }

    fn aborted(&self, conn: usize, node: usize) -> bool {
        self.aborted[conn][node]
    }

    fn stats(&self, conn: usize, node: usize) -> Stats {
        self.stats[conn][node].clone()
    }

    fn problems(&self) -> Vec<String> {
        let mut p = self.problems.clone();
        for n in &self.nodes {
            p.extend(n.mem.violations.iter().cloned());
        }
        p
    }
}
