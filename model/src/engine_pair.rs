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
//!   connection, SEND with the data written to a fresh buffer, POST_RECV, SHUTDOWN, CLOSE,
//!   ABORT), and each completion the answer the workload expects; a connection is known to be
//!   aborted when its host aborted it or a completion says it was reset or aborted. The
//!   workload's injected abort (`PairConfig::abort`) fires on the same message count as in
//!   the fabric model.
//! - **RDMA** (the provider beneath the engines): an engine's RDMA request crosses the SAN
//!   and is offered to the *target* engine's check port; only its grant lets the SAN touch
//!   the target's host memory (no table of the peer's regions lives here). A read's data
//!   comes back with the response and is placed at the initiator's local address as the
//!   response is delivered; a write's data is taken from the initiator's memory as the
//!   request leaves; that data moves on an RDMA lane per direction of one beat per cycle
//!   (beside the message stream), then takes the SAN latency. Both sides' accesses are
//!   checked against what the hosts lent. A denied
//!   request moves nothing and answers the check's reason; `PairConfig::rdma_errors` makes
//!   granted requests fail as the transport would.
//! - Random backpressure (`PairConfig::stall`) on every host and SAN ready the engine sees.

use std::collections::{HashMap, VecDeque};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::axis_hold::{AxisHold, engine_streams};
use crate::blocks::engine::{Beat, EngineIn, EngineModel, EngineOut};
use crate::endpoint::{Action, Config, Event, Received, ReqId, Stats};
use crate::fabric::{AbortAt, AppOutput};
use crate::host::{Completion, Opcode};
pub use crate::host_mem::{HostMem, HostPort};
use crate::params::EngineParams;
use crate::ports::CycleModel;
use crate::san_fabric::SanFabric;
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
    /// The workload's injected abort: node `node`'s host submits ABORT on connection `conn`
    /// when the `after_messages`th message of that connection (both directions) has left
    /// its engine, as the fabric model fires it.
    pub abort: Option<AbortAt>,
    /// Probability that a granted RDMA request fails on the SAN (transport error, nothing
    /// moved).
    pub rdma_errors: f64,
    /// Probability per cycle and node that the engine's `fault_nomem` input is high: a
    /// registration asked for in that cycle fails as if its temporary allocation had.
    pub nomem: f64,
    /// Probability per cycle and node that the SAN brings the node an RDMA request nobody
    /// made (a random connection, key, direction and range), to be denied by its check; the
    /// response goes to the other node, whose sequencer must drop it as stale.
    pub junk_rdma: f64,
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
            abort: None,
            rdma_errors: 0.0,
            nomem: 0.0,
            junk_rdma: 0.0,
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
        /// It goes zero-copy: its source is registered, and a full registration table fails
        /// it with WSAENOBUFS (the only WSAENOBUFS the workloads can meet: they keep no more
        /// sends queued than the engine holds).
        large: bool,
    },
    Recv {
        conn: usize,
        req: ReqId,
        addr: u64,
    },
    Control {
        conn: usize,
        op: Opcode,
    },
    /// Node 1's OPEN: once it completes, node 0's CONNECT (held until then) may go.
    PeerOpen {
        conn: usize,
    },
    /// A command the engine must refuse with this status.
    Junk {
        expect: WsaError,
    },
}

struct Node<E> {
    eng: E,
    mem: HostMem,
    cmds: VecDeque<crate::host::Command>,
    pending: HashMap<u32, Pending>,
    /// The cycles each outstanding command was submitted by the host and taken by the engine.
    submitted: HashMap<u32, u64>,
    accepted: HashMap<u32, u64>,
    next_tag: u32,
    next_addr: u64,
    /// The host-memory port's reads in flight and write burst.
    port: HostPort,
}

/// A handshake on one of an engine's ports, as the pair saw it (`EnginePair::trace`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortEvent {
    pub cycle: u64,
    pub node: usize,
    /// The port's signal prefix (`s_axis_cmd`, `m_axis_tx`, ...).
    pub port: &'static str,
    pub what: String,
}

/// Two engines over a cycle-level SAN.
pub struct EnginePair<E> {
    cfg: PairConfig,
    nodes: [Node<E>; 2],
    /// The SAN between the engines (messages and RDMA).
    pub fabric: SanFabric,
    rng: ChaCha8Rng,
    pub cycle: u64,
    idle_cycles: u64,
    outputs: Vec<AppOutput>,
    conns: usize,
    aborted: Vec<[bool; 2]>,
    /// Connections a malformed message was injected on (either direction).
    malformed_on: Vec<bool>,
    stats: Vec<[Stats; 2]>,
    problems: Vec<String>,
    /// Beats each engine sent on the SAN.
    pub san_beats: [u64; 2],
    /// The next beat each engine sends starts a message.
    tx_first: [bool; 2],
    /// Each engine's output streams checked against AXI4-Stream's hold rule.
    axis: [AxisHold; 2],
    /// Messages the SAN made malformed, commands the hosts made up to be refused.
    pub malformed_injected: u64,
    pub junk_injected: u64,
    /// Connections torn down on the SAN.
    pub downs: u64,
    /// Messages sent per connection, both directions (for the injected abort).
    msgs: Vec<u64>,
    /// Messages and their bytes each engine sent on the SAN.
    pub messages: [u64; 2],
    pub message_bytes: [u64; 2],
    /// Node 0's commands per connection held until node 1 has opened its end (a CONNECT
    /// to a connection not open at the peer is refused, as a TCP connect to a port nobody
    /// listens on is).
    gated: Vec<Option<Vec<crate::host::Command>>>,
    /// Per (connection, node): the cycle the engine took an ABORT for it, or the word that the
    /// peer's end went down (the first of them).
    abort_start: HashMap<(usize, usize), u64>,
    /// The most cycles from that start to a completion of the connection on that node: how
    /// long an abort takes to complete everything outstanding.
    pub worst_abort_cycles: u64,
    /// What took that long.
    pub worst_abort: String,
    /// Whether each node's engine can RDMA-read (for the send paths counted; the engines'
    /// parameters say it to the engines).
    pub rdma_read: [bool; 2],
    /// When set, every handshake of a command, completion, host memory request, message's
    /// first and last beat, RDMA request, check and response is recorded here.
    pub trace: Option<Vec<PortEvent>>,
    /// A message's first beat is being received by node `n` (for the trace).
    rx_first: [bool; 2],
    /// Beat index in the current host memory read answer (for the trace).
    rd_beat: [u32; 2],
}

/// The most cycles an abort (the host's ABORT taken, or the word that the peer's end went
/// down) may take to complete every command of the connection submitted before it, with the
/// pair's host memory and SAN latencies and ready-stall probability.
///
/// From the structure: the flush waits until no message of the connection is in the builder
/// (at most its job FIFO and the job in progress, each a full buffer read from host memory)
/// and no delivery is in flight (one full buffer), then completes the queued commands one
/// per cycle (both queues and the waiting CONNECT/LISTEN). The flush is a pump of the
/// connection, and pumps go round robin, taking turns with the other events: before its turn
/// every other connection may pump once and one other event go between each two pumps, each
/// of those events waiting in `Apply` for the builder to take one message (a full buffer read
/// from host memory).
///
/// With the zero-copy paths the flush also waits for the connection's transfers to end: the
/// sequencer's ABORT fails them at once, but each ends only when its RDMA requests in flight
/// are answered (at most `rdma_window` segments each), and those answers queue on the SAN's
/// RDMA lane behind every request in flight in that direction (`rdma_ops` transfers, one
/// beat per cycle), plus the SAN's latency both ways; then each transfer's end is an event
/// of its own (its report, a deregistration). Ready stalls stretch all of it by
/// 1 / (1 - stall).
pub fn abort_bound_cycles(cfg: &PairConfig) -> u64 {
    use crate::blocks::engine::JOB_FIFO;
    let p = &cfg.params;
    let beats = p.buf_size as u64 / 8;
    let message = beats + cfg.dma_latency + 8;
    let builder = (JOB_FIFO as u64 + 1) * message;
    let delivery = beats + 8;
    let flush = 2 * p.queue_depth as u64 + 1;
    let others = (2 * p.connections as u64 + 1) * message;
    let transfers = if p.zero_copy() {
        let lane = p.rdma_ops as u64 * p.rdma_window as u64 * (p.rdma_segment as u64 / 8);
        let per_end = 2 * message;
        2 * cfg.san_latency + lane + p.rdma_ops as u64 * per_end
    } else {
        0
    };
    ((builder + delivery + flush + others + transfers) as f64 / (1.0 - cfg.stall)).ceil() as u64
}

fn e_is(err: Option<WsaError>, e: WsaError) -> bool {
    err == Some(e)
}

impl EnginePair<EngineModel> {
    /// Two engine cycle models.
    pub fn models(cfg: PairConfig) -> Self {
        let p = cfg.params;
        Self::new(cfg, [EngineModel::new(p), EngineModel::new(p)])
    }

    /// Run `cycles` more cycles with no made-up commands or RDMA requests injected (the
    /// wire goes quiet: last credit updates, teardowns, the checks of the made-up requests
    /// already on the SAN), then what each engine still holds (`EngineModel::leaks`), by
    /// node: empty after a workload.
    pub fn leaks_when_quiet(&mut self, cycles: u64) -> Vec<(usize, String)> {
        self.quiet(cycles);
        (0..2).flat_map(|n| self.engine(n).leaks().into_iter().map(move |l| (n, l))).collect()
    }
}

impl<E: CycleModel<In = EngineIn, Out = EngineOut>> EnginePair<E> {
    /// The pair, after one reset cycle of both engines (not counted in `cycle`): whatever
    /// they are, models or Verilog, they start from the reset state, and the same workload
    /// takes them the same number of cycles.
    pub fn new(cfg: PairConfig, engines: [E; 2]) -> Self {
        let [mut e0, mut e1] = engines;
        let reset = EngineIn { reset: true, ..EngineIn::default() };
        for e in [&mut e0, &mut e1] {
            e.outputs(&reset);
            e.clock(&reset);
        }
        let node = |eng, n: u64| Node {
            eng,
            mem: HostMem::default(),
            cmds: VecDeque::new(),
            pending: HashMap::new(),
            submitted: HashMap::new(),
            accepted: HashMap::new(),
            next_tag: 1,
            next_addr: 0x1_0000_0000 * (n + 1),
            port: HostPort::default(),
        };
        EnginePair {
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            nodes: [node(e0, 0), node(e1, 1)],
            fabric: SanFabric::new(cfg.san_latency),
            cycle: 0,
            idle_cycles: 0,
            outputs: Vec::new(),
            conns: 0,
            aborted: Vec::new(),
            malformed_on: Vec::new(),
            stats: Vec::new(),
            problems: Vec::new(),
            san_beats: [0; 2],
            tx_first: [true; 2],
            axis: Default::default(),
            malformed_injected: 0,
            junk_injected: 0,
            downs: 0,
            msgs: Vec::new(),
            messages: [0; 2],
            message_bytes: [0; 2],
            gated: Vec::new(),
            abort_start: HashMap::new(),
            worst_abort_cycles: 0,
            worst_abort: String::new(),
            rdma_read: [cfg.params.rdma_read; 2],
            trace: None,
            rx_first: [true; 2],
            rd_beat: [0; 2],
            cfg,
        }
    }

    pub fn engine(&self, node: usize) -> &E {
        &self.nodes[node].eng
    }

    /// The engines' parameters.
    pub fn params(&self) -> &EngineParams {
        &self.cfg.params
    }

    pub fn host_memory(&self, node: usize) -> &HostMem {
        &self.nodes[node].mem
    }

    fn submit(&mut self, node: usize, cmd: crate::host::Command, p: Pending) {
        let n = &mut self.nodes[node];
        let tag = n.next_tag;
        n.next_tag = n.next_tag.wrapping_add(1).max(1);
        n.pending.insert(tag, p);
        n.submitted.insert(tag, self.cycle);
        let c = crate::host::Command { tag, ..cmd };
        match self.gated.get_mut(cmd.conn as usize) {
            Some(Some(held)) if node == 0 => held.push(c),
            _ => n.cmds.push_back(c),
        }
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
        self.nodes.iter().any(|n| !n.pending.is_empty() || !n.cmds.is_empty()) || self.fabric.busy()
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
            n.submitted.clear();
            n.accepted.clear();
            n.port = HostPort::default();
        }
        self.fabric.clear();
        self.rx_first = [true; 2];
        self.rd_beat = [0; 2];
        self.tx_first = [true; 2];
        self.axis = Default::default();
        self.outputs.clear();
        self.conns = 0;
        self.aborted.clear();
        self.malformed_on.clear();
        self.stats.clear();
        self.msgs.clear();
        self.gated.clear();
        self.abort_start.clear();
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

    /// Run `cycles` more cycles with no made-up commands or RDMA requests injected: the
    /// wire goes quiet, so what the engines still hold afterwards is a leak, not a command
    /// made up in the last cycles.
    pub fn quiet(&mut self, cycles: u64) {
        let (junk_cmds, junk_rdma) = (self.cfg.junk_cmds, self.cfg.junk_rdma);
        (self.cfg.junk_cmds, self.cfg.junk_rdma) = (0.0, 0.0);
        for _ in 0..cycles {
            self.cycle();
        }
        (self.cfg.junk_cmds, self.cfg.junk_rdma) = (junk_cmds, junk_rdma);
    }

    /// One clock cycle of both engines, the SAN and the hosts. Returns whether anything moved.
    pub fn cycle(&mut self) -> bool {
        let mut moved = false;
        for n in 0..2 {
            if self.cfg.junk_cmds > 0.0 && self.rng.gen_bool(self.cfg.junk_cmds) {
                self.junk(n);
            }
            if self.cfg.junk_rdma > 0.0 && self.rng.gen_bool(self.cfg.junk_rdma) {
                let conns = self.cfg.params.connections as u32;
                let zc = self.cfg.params.zero_copy();
                self.fabric.junk_rdma(n, self.cycle, &mut self.rng, conns, zc);
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
            if let Some(b) = self.nodes[n].port.data_beat(now, &self.nodes[n].mem)
                && self.ready()
            {
                i.s_axis_dmard_tvalid = true;
                i.s_axis_dmard_tdata = b.data;
                i.s_axis_dmard_tkeep = b.keep;
                i.s_axis_dmard_tlast = b.last;
            }
            i.m_axis_down_tready = self.ready();
            // Walk the counter read port over every block and counter (and past them), so a
            // lockstep compares every counter of every block inside the engine.
            i.cnt_rd_index = (now.wrapping_mul(37) >> 1) as u8;
            i.m_axis_rq_tready = self.ready();
            i.m_axis_ck_tready = self.ready();
            // Temporary-memory failures, when configured: a registration asked for in this
            // cycle fails (the workload's `nomem_rate`, drawn per cycle).
            i.fault_nomem = self.cfg.nomem > 0.0 && self.rng.gen_bool(self.cfg.nomem);
            self.fabric.inputs(n, now, &mut i);
            let o = self.nodes[n].eng.outputs(&i);
            for w in self.axis[n].check(&engine_streams(&i, &o)) {
                self.problems.push(format!("node {n}, cycle {now}: {w}"));
            }
            if self.trace.is_some() {
                self.record(n, &i, &o);
            }
            let node = &mut self.nodes[n];
            if i.s_axis_cmd_tvalid && o.s_axis_cmd_tready {
                node.cmds.pop_front();
                node.accepted.insert(i.s_axis_cmd_tag, now);
                if i.s_axis_cmd_opcode == Opcode::Abort as u8 {
                    self.abort_start.entry((i.s_axis_cmd_conn as usize, n)).or_insert(now);
                }
                moved = true;
            }
            if o.m_axis_dmard_tvalid && i.m_axis_dmard_tready {
                let lat = self.cfg.dma_latency;
                node.port.read_request(
                    n,
                    now,
                    lat,
                    o.m_axis_dmard_addr,
                    o.m_axis_dmard_len,
                    &mut node.mem,
                );
                moved = true;
            }
            if i.s_axis_dmard_tvalid && o.s_axis_dmard_tready {
                node.port.data_taken(i.s_axis_dmard_tlast);
                moved = true;
            }
            if o.m_axis_dmawr_tvalid && i.m_axis_dmawr_tready {
                let b = Beat {
                    data: o.m_axis_dmawr_tdata,
                    keep: o.m_axis_dmawr_tkeep,
                    last: o.m_axis_dmawr_tlast,
                };
                node.port.write_beat(n, o.m_axis_dmawr_addr, b, &mut node.mem);
                moved = true;
            }
            if o.m_axis_tx_tvalid && i.m_axis_tx_tready {
                let mut b = Beat {
                    data: o.m_axis_tx_tdata,
                    keep: o.m_axis_tx_tkeep,
                    last: o.m_axis_tx_tlast,
                };
                if self.tx_first[n] {
                    self.count_message(n, o.m_axis_tx_tuser as usize, b.data);
                }
                if self.tx_first[n]
                    && self.cfg.malformed > 0.0
                    && self.rng.gen_bool(self.cfg.malformed)
                {
                    self.malform(&mut b);
                    if let Some(m) = self.malformed_on.get_mut(o.m_axis_tx_tuser as usize) {
                        *m = true;
                    }
                }
                self.tx_first[n] = b.last;
                self.message_bytes[n] += b.keep.count_ones() as u64;
                if b.last {
                    self.messages[n] += 1;
                    self.message_sent(o.m_axis_tx_tuser as usize);
                }
                self.fabric.send_beat(n, now, o.m_axis_tx_tuser, b);
                self.san_beats[n] += 1;
                moved = true;
            }
            if i.s_axis_down_tvalid && o.s_axis_down_tready {
                self.abort_start.entry((i.s_axis_down_conn as usize, n)).or_insert(now);
            }
            if (i.s_axis_rx_tvalid && o.s_axis_rx_tready)
                || (i.s_axis_down_tvalid && o.s_axis_down_tready)
            {
                self.fabric.take_rx(n);
                moved = true;
            }
            if o.m_axis_down_tvalid && i.m_axis_down_tready {
                self.fabric.send_down(n, now, o.m_axis_down_conn);
                self.downs += 1;
                moved = true;
            }
            moved |= self.rdma(n, &i, &o);
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

    /// Records node `n`'s handshakes of this cycle in the trace.
    fn record(&mut self, n: usize, i: &EngineIn, o: &EngineOut) {
        let mut ev: Vec<(&'static str, String)> = Vec::new();
        if i.s_axis_cmd_tvalid && o.s_axis_cmd_tready {
            let op = Opcode::from_code(i.s_axis_cmd_opcode).map_or("?", |o| o.name());
            ev.push((
                "s_axis_cmd",
                format!(
                    "{op} taken: conn {}, tag {}, {} B",
                    i.s_axis_cmd_conn, i.s_axis_cmd_tag, i.s_axis_cmd_len
                ),
            ));
        }
        if o.m_axis_cpl_tvalid && i.m_axis_cpl_tready {
            let op = Opcode::from_code(o.m_axis_cpl_opcode).map_or("?", |o| o.name());
            ev.push((
                "m_axis_cpl",
                format!(
                    "{op} tag {} completes: status {}, {} B",
                    o.m_axis_cpl_tag, o.m_axis_cpl_status, o.m_axis_cpl_bytes
                ),
            ));
        }
        if o.m_axis_dmard_tvalid && i.m_axis_dmard_tready {
            ev.push((
                "m_axis_dmard",
                format!("read request: {} B at {:#x}", o.m_axis_dmard_len, o.m_axis_dmard_addr),
            ));
        }
        if i.s_axis_dmard_tvalid && o.s_axis_dmard_tready {
            if self.rd_beat[n] == 0 {
                ev.push(("s_axis_dmard", "first data beat".into()));
            }
            if i.s_axis_dmard_tlast {
                ev.push(("s_axis_dmard", "last data beat".into()));
            }
            self.rd_beat[n] = if i.s_axis_dmard_tlast { 0 } else { self.rd_beat[n] + 1 };
        }
        if o.m_axis_dmawr_tvalid && i.m_axis_dmawr_tready {
            if self.nodes[n].port.wr_beat == 0 {
                ev.push((
                    "m_axis_dmawr",
                    format!("first write beat at {:#x}", o.m_axis_dmawr_addr),
                ));
            }
            if o.m_axis_dmawr_tlast {
                ev.push(("m_axis_dmawr", "last write beat".into()));
            }
        }
        let kind = |w: u64| {
            crate::wire::Layout::of_mid(w as u8)
                .map_or_else(|| format!("mid {:#04x}", w as u8), |l| format!("{:?}", l.kind))
        };
        if o.m_axis_tx_tvalid && i.m_axis_tx_tready {
            if self.tx_first[n] {
                let d = o.m_axis_tx_tdata;
                ev.push(("m_axis_tx", format!("{} first beat ({} B)", kind(d), d >> 32)));
            }
            if o.m_axis_tx_tlast {
                ev.push(("m_axis_tx", "last beat".into()));
            }
        }
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready {
            if self.rx_first[n] {
                ev.push(("s_axis_rx", format!("{} first beat", kind(i.s_axis_rx_tdata))));
            }
            if i.s_axis_rx_tlast {
                ev.push(("s_axis_rx", "last beat".into()));
            }
            self.rx_first[n] = i.s_axis_rx_tlast;
        }
        if o.m_axis_rq_tvalid && i.m_axis_rq_tready {
            let d = if o.m_axis_rq_write { "write" } else { "read" };
            ev.push((
                "m_axis_rq",
                format!("RDMA {d} request: tag {:#06x}, {} B", o.m_axis_rq_tag, o.m_axis_rq_len),
            ));
        }
        if i.s_axis_ac_tvalid && o.s_axis_ac_tready {
            let d = if i.s_axis_ac_write { "write" } else { "read" };
            ev.push((
                "s_axis_ac",
                format!("the peer's RDMA {d} of {} B to check", i.s_axis_ac_len),
            ));
        }
        if o.m_axis_ck_tvalid && i.m_axis_ck_tready {
            let v = if o.m_axis_ck_grant {
                "granted".to_string()
            } else {
                format!("denied ({})", o.m_axis_ck_reason)
            };
            ev.push(("m_axis_ck", v));
        }
        if i.s_axis_rs_tvalid && o.s_axis_rs_tready {
            ev.push((
                "s_axis_rs",
                format!(
                    "RDMA response: tag {:#06x}, status {}",
                    i.s_axis_rs_tag, i.s_axis_rs_status
                ),
            ));
        }
        let cycle = self.cycle;
        let t = self.trace.as_mut().expect("tracing");
        t.extend(ev.into_iter().map(|(port, what)| PortEvent { cycle, node: n, port, what }));
    }

    /// Node `n`'s RDMA handshakes this cycle, on the fabric.
    fn rdma(&mut self, n: usize, i: &EngineIn, o: &EngineOut) -> bool {
        let [a, b] = &mut self.nodes;
        let mem = [&mut a.mem, &mut b.mem];
        self.fabric.rdma(n, self.cycle, i, o, mem, &mut self.rng, self.cfg.rdma_errors)
    }

    fn complete(&mut self, n: usize, c: Completion) {
        let submitted = self.nodes[n].submitted.remove(&c.tag);
        let accepted = self.nodes[n].accepted.remove(&c.tag);
        // Only what the engine held when the abort came: a command still in the host's
        // queue is the host's to wait for.
        if let Some(&t) = self.abort_start.get(&(c.conn as usize, n))
            && accepted.is_some_and(|a| a <= t)
            && self.cycle - t > self.worst_abort_cycles
        {
            self.worst_abort_cycles = self.cycle - t;
            self.worst_abort = format!(
                "node {n} conn {}: abort taken at cycle {t}, {c:?} submitted at {:?}, \
                 taken at {:?}, completed at {}",
                c.conn, submitted, accepted, self.cycle
            );
        }
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
            Pending::Send { conn, req, addr, large } => {
                self.nodes[n].mem.take_back(addr);
                if large && err == Some(WsaError::NoBufs) {
                    self.stats[conn][n].send_reg_failures += 1;
                }
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
            Pending::Control { conn, op } => {
                // A malformed message in the handshake resets the peer's end, and its
                // teardown refuses our CONNECT (and what follows on the dead connection).
                let refused = e_is(err, WsaError::ConnRefused) && self.malformed_on[conn];
                if let Some(e) = err
                    && !self.aborted[conn][n]
                    && !refused
                    && !matches!(e, WsaError::ConnReset | WsaError::OperationAborted)
                {
                    self.problems
                        .push(format!("conn {conn} node {n}: {op:?} completed with {}", e.name()));
                }
                (conn, None)
            }
            Pending::PeerOpen { conn } => {
                let held = self.gated.get_mut(conn).and_then(Option::take).unwrap_or_default();
                self.nodes[0].cmds.extend(held);
                (conn, None)
            }
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
        let refused = e_is(err, WsaError::ConnRefused) && self.malformed_on[conn];
        if matches!(err, Some(WsaError::ConnReset | WsaError::OperationAborted)) || refused {
            self.mark_aborted(conn, n);
        }
    }

    /// The sender's counters, from a message's first beat as it leaves the engine.
    fn count_message(&mut self, node: usize, conn: usize, word0: u64) {
        let Some(st) = self.stats.get_mut(conn).map(|s| &mut s[node]) else { return };
        let mid = word0 as u8;
        let name = crate::wire::Layout::of_mid(mid)
            .map_or_else(|| format!("mid {mid:#04x}"), |l| format!("{:?}", l.kind));
        *st.msgs_sent.entry(name).or_default() += 1;
        if mid == crate::wire::mid::DATA {
            st.bytes_inline += (word0 >> 32).saturating_sub(crate::wire::HEADER_BYTES as u64);
        }
        // A receiver's SendByCopy turns the peer's large send to the copy path.
        if mid == crate::wire::mid::SEND_BY_COPY
            && let Some(st) = self.stats.get_mut(conn).map(|s| &mut s[1 - node])
        {
            st.sends_fallback += 1;
        }
    }

    /// A message of `conn` left an engine: the injected abort fires on its count.
    fn message_sent(&mut self, conn: usize) {
        let Some(count) = self.msgs.get_mut(conn) else { return };
        *count += 1;
        if let Some(ab) = self.cfg.abort
            && ab.conn == conn
            && ab.after_messages == *count
        {
            self.abort(conn, ab.node);
        }
    }

    /// The host of `node` aborts `conn`: from now on the connection counts as aborted.
    fn abort(&mut self, conn: usize, node: usize) {
        let op = Opcode::Abort;
        self.submit(node, cmd(op, conn, 0, 0, 0), Pending::Control { conn, op });
        self.mark_aborted(conn, node);
    }

    fn mark_aborted(&mut self, conn: usize, node: usize) {
        if !self.aborted[conn][node] {
            self.aborted[conn][node] = true;
            let time_ns = self.now_ns();
            self.outputs.push(AppOutput { conn, node, time_ns, action: Action::Teardown });
        }
    }

    /// Say what was waiting when nothing moved for `stuck_cycles`: the command at the head
    /// of each host's queue, what is outstanding, and what is still on the wire.
    fn report_stuck(&mut self) {
        for (n, node) in self.nodes.iter().enumerate() {
            let mut outstanding: Vec<String> =
                node.pending.iter().map(|(t, p)| format!("tag {t}: {p:?}")).collect();
            outstanding.sort();
            outstanding.truncate(8);
            self.problems.push(format!(
                "node {n}: stuck at cycle {} ({} cycles with nothing moving): head command \
                 {:?}, {} more queued, {} outstanding (first: {}), {} DMA reads, {} beats \
                 on the wire toward it",
                self.cycle,
                self.idle_cycles,
                node.cmds.front(),
                node.cmds.len().saturating_sub(1),
                node.pending.len(),
                outstanding.join("; "),
                node.port.reads.len(),
                self.fabric.toward(n)
            ));
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
        self.malformed_on.push(false);
        self.stats.push(Default::default());
        self.msgs.push(0);
        self.gated.resize(conn + 1, None);
        for (n, cfg) in cfgs.iter().enumerate() {
            let open = if n == 0 {
                Pending::Control { conn, op: Opcode::Open }
            } else {
                Pending::PeerOpen { conn }
            };
            self.submit(n, cmd(Opcode::Open, conn, 0, 0, cfg.initial_seq as u64), open);
            if n == 0 {
                self.gated[conn] = Some(Vec::new());
            }
            let op = if n == 0 { Opcode::Connect } else { Opcode::Listen };
            self.submit(n, cmd(op, conn, 0, 0, 0), Pending::Control { conn, op });
        }
    }

    fn app(&mut self, conn: usize, node: usize, ev: Event) {
        match ev {
            Event::AppSend { req, data, urgent } => {
                // The path each send takes: copy, or zero-copy in the mode of the receiver's
                // capability (as the sans-IO endpoints count them).
                let p = &self.cfg.params;
                let large = p.zero_copy() && !urgent && data.len() > p.rdma_threshold as usize;
                let st = &mut self.stats[conn][node];
                match (large, self.rdma_read[1 - node]) {
                    (false, _) if data.is_empty() => {}
                    (false, _) => st.sends_copy += 1,
                    (true, true) => st.sends_read += 1,
                    (true, false) => st.sends_write += 1,
                }
                let addr = self.alloc(node, data.len());
                let mem = &mut self.nodes[node].mem;
                mem.write(addr, &data);
                mem.lend(addr, data.len() as u64, false);
                let op = if urgent { Opcode::SendUrgent } else { Opcode::Send };
                let p = Pending::Send { conn, req, addr, large };
                self.submit(node, cmd(op, conn, addr, data.len() as u32, 0), p);
            }
            Event::AppRecv { req, max } => {
                let addr = self.alloc(node, max);
                self.nodes[node].mem.lend(addr, max as u64, true);
                let p = Pending::Recv { conn, req, addr };
                self.submit(node, cmd(Opcode::PostRecv, conn, addr, max as u32, 0), p);
            }
            Event::AppShutdown => {
                let op = Opcode::Shutdown;
                self.submit(node, cmd(op, conn, 0, 0, 0), Pending::Control { conn, op })
            }
            Event::AppAbort => self.abort(conn, node),
            Event::AppClose => {
                let op = Opcode::Close;
                self.submit(node, cmd(op, conn, 0, 0, 0), Pending::Control { conn, op })
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
                    self.report_stuck();
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

    fn fabric_stats(&self) -> crate::fabric::FabricStats {
        crate::fabric::FabricStats {
            messages: self.messages,
            message_bytes: self.message_bytes,
            ..Default::default()
        }
    }

    fn problems(&self) -> Vec<String> {
        let mut p = self.problems.clone();
        p.extend(self.fabric.problems.iter().cloned());
        for n in &self.nodes {
            p.extend(n.mem.violations.iter().cloned());
        }
        p
    }
}
