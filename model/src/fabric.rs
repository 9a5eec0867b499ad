//! A System Area Network joining two nodes, with any number of connections between them.
//!
//! Each connection joins one [`Endpoint`] on node 0 with one on node 1. The fabric delivers
//! messages reliably and in order per direction, with a latency and a link bandwidth shared
//! by all connections in that direction; keeps each node's registration table (with a
//! capacity) and memory; and executes RDMA reads and writes against the peer's memory with
//! every access check a real SAN makes: the key exists, belongs to this connection, grants
//! the access, and the range lies inside the region. Faults can be injected: registrations
//! that fail, temporary memory that cannot be allocated, RDMA error completions, and an abort
//! at a chosen point. Time is simulated, in nanoseconds; nothing here is timed by a clock.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::endpoint::{Access, Action, BufId, Endpoint, Event, OpId, RdmaError, RegError, RegId};
use crate::wire::{Descriptor, Frame};

/// Fault knobs. Rates are probabilities per registration or per RDMA operation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Faults {
    /// A registration fails as if the table were full.
    pub reg_fail_rate: f64,
    /// A registration fails for lack of temporary memory.
    pub nomem_rate: f64,
    /// An RDMA operation completes with a transport error.
    pub rdma_error_rate: f64,
    /// Abort one endpoint at a chosen point.
    pub abort: Option<AbortAt>,
    /// Seed of the fault generator. A workload (`workload::run`) mixes it with its own seed
    /// (`seed ^ 0x5eed ^ faults.seed`): 0 keeps the faults the workload's seed alone gives,
    /// another value draws other faults for the same workload.
    pub seed: u64,
}

/// Where an injected abort happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbortAt {
    pub conn: usize,
    /// Node (0 or 1) whose application aborts.
    pub node: usize,
    /// After this many messages have been sent on the connection (both directions).
    pub after_messages: u64,
}

/// The fabric's clock is a `u64` of simulated nanoseconds. Every time it schedules is the
/// time of the event being handled plus at most two latencies and one transfer (an RDMA read:
/// the request crosses, the data crosses back), plus the link's backlog. These bounds keep
/// the first part within the clock: a run stops at a time limit of at most `MAX_TIME_NS`,
/// a latency is at most `MAX_LATENCY_NS` and one transfer occupies a link for at most
/// `MAX_TRANSFER_NS`, so `2^62 + 2 * 2^61 + 2^62 = 3 * 2^62 < 2^64`. A backlog that would
/// still run past the end of the clock saturates at `u64::MAX` (after any time limit) instead
/// of wrapping round to the past, so nothing is ever delivered early or out of order.
pub const MAX_TIME_NS: u64 = 1 << 62;
/// Longest one-way latency the fabric's clock can carry (see [`MAX_TIME_NS`]): about 73 years.
pub const MAX_LATENCY_NS: u64 = 1 << 61;
/// Longest time one transfer (a message, or one RDMA read or write) may occupy a link (see
/// [`MAX_TIME_NS`]): about 146 years. It bounds the link rate from below.
pub const MAX_TRANSFER_NS: u64 = 1 << 62;

/// Fabric parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FabricConfig {
    /// One-way latency of a message or an RDMA request, in ns.
    pub latency_ns: u64,
    /// Link bandwidth per direction, in Gbit/s.
    pub link_gbps: f64,
    /// Registration-table entries per node.
    pub reg_capacity: usize,
    pub faults: Faults,
}

impl FabricConfig {
    /// Nanoseconds a link of this rate takes to carry `bytes`, rounded up; `None` unless the
    /// rate is a positive number and the time is at most [`MAX_TRANSFER_NS`].
    pub fn transfer_ns(&self, bytes: u64) -> Option<u64> {
        let bits = bytes as f64 * 8.0;
        // `MAX_TRANSFER_NS * link_gbps` is exact (a power of two times a float), so this
        // comparison is exact too: no rate just past the limit slips through by rounding.
        let fits = self.link_gbps.is_finite()
            && self.link_gbps > 0.0
            && bits <= MAX_TRANSFER_NS as f64 * self.link_gbps;
        fits.then(|| (bits / self.link_gbps).ceil() as u64)
    }

    /// Slowest link rate, in Gbit/s, that carries a transfer of `bytes` within
    /// [`MAX_TRANSFER_NS`] (exact: a power-of-two division).
    pub fn min_link_gbps(bytes: u64) -> f64 {
        bytes as f64 * 8.0 / MAX_TRANSFER_NS as f64
    }

    /// Check that every time this fabric computes fits its clock, when no transfer is longer
    /// than `largest_transfer` bytes (`what` says where that figure comes from, e.g.
    /// " (the largest RDMA segment)", or is empty). Each problem starts with its key
    /// (`latency_ns`, `link_gbps`).
    pub fn validate(&self, largest_transfer: u64, what: &str) -> Vec<String> {
        let mut p = Vec::new();
        if !(self.link_gbps.is_finite() && self.link_gbps > 0.0) {
            p.push(format!("link_gbps must be a positive number, got {}", self.link_gbps));
        } else if self.transfer_ns(largest_transfer).is_none() {
            p.push(format!(
                "link_gbps must be at least {:e} Gbit/s, got {:e}: one transfer of \
                 {largest_transfer} B{what} would take longer than 2^62 ns (the fabric's clock is a u64 \
                 of ns)",
                Self::min_link_gbps(largest_transfer),
                self.link_gbps
            ));
        }
        if self.latency_ns > MAX_LATENCY_NS {
            p.push(format!(
                "latency_ns must be at most 2^61 = {MAX_LATENCY_NS} (the fabric's clock is a u64 \
                 of ns), got {}",
                self.latency_ns
            ));
        }
        p
    }
}

impl Default for FabricConfig {
    fn default() -> Self {
        FabricConfig {
            latency_ns: 1_000,
            link_gbps: 10.0,
            reg_capacity: 64,
            faults: Faults::default(),
        }
    }
}

/// A registered region in a node's table.
#[derive(Clone, Debug)]
struct Region {
    conn: usize,
    access: Access,
    addr: u64,
    data: Vec<u8>,
}

/// One node: its registration table and memory.
#[derive(Clone, Debug, Default)]
struct Node {
    regions: BTreeMap<u32, Region>,
    by_reg: BTreeMap<(usize, RegId), u32>,
    next_key: u32,
    next_addr: u64,
}

/// Counters the fabric keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FabricStats {
    pub messages: [u64; 2],
    pub message_bytes: [u64; 2],
    pub rdma_reads: u64,
    pub rdma_writes: u64,
    pub rdma_bytes: u64,
    /// RDMA operations refused by an access check, by reason.
    pub access_violations: BTreeMap<String, u64>,
    pub injected_rdma_errors: u64,
    pub injected_reg_failures: u64,
    pub table_full: u64,
    pub credit_overruns: u64,
    /// Messages dropped because their connection was torn down.
    pub dropped_after_teardown: u64,
    /// Largest number of registrations a node held at once.
    pub peak_registrations: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Pending {
    Deliver {
        conn: usize,
        to: usize,
        bytes: Vec<u8>,
    },
    SendDone {
        conn: usize,
        node: usize,
        buf: BufId,
    },
    Rdma {
        conn: usize,
        node: usize,
        op: OpId,
        read: bool,
        local: (u32, u32),
        remote: (u32, u32),
        len: u32,
    },
    LinkDown {
        conn: usize,
        to: usize,
    },
    Input {
        conn: usize,
        node: usize,
        ev: EvKey,
    },
}

/// Events that are queued as fabric answers (kept orderable for the heap).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EvKey {
    Registered { reg: RegId, result: Result<(u64, u32, u32), u8> },
    Deregistered { reg: RegId, data: Vec<u8> },
}

/// Events one endpoint handled, each with the actions it answered.
pub type ActionLog = Vec<(Event, Vec<Action>)>;

/// What an application saw on one endpoint: every completion, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppOutput {
    pub conn: usize,
    pub node: usize,
    pub time_ns: u64,
    pub action: Action,
}

struct Conn {
    eps: [Endpoint; 2],
    posted: [VecDeque<BufId>; 2],
    down: [bool; 2],
    messages: u64,
}

/// The SAN: two nodes and the connections between them.
pub struct Fabric {
    cfg: FabricConfig,
    nodes: [Node; 2],
    conns: Vec<Conn>,
    heap: BinaryHeap<Reverse<(u64, u64, Pending)>>,
    seq: u64,
    now: u64,
    link_free: [u64; 2],
    rng: ChaCha8Rng,
    stats: FabricStats,
    outputs: Vec<AppOutput>,
    /// Every message sent, when tracing is on: (time, conn, from node, frame).
    trace: Option<Vec<(u64, usize, usize, Frame)>>,
    /// (conn, node, what it handled and answered), when recording.
    action_log: Option<(usize, usize, ActionLog)>,
}

impl Fabric {
    pub fn new(cfg: FabricConfig) -> Self {
        let rng = ChaCha8Rng::seed_from_u64(cfg.faults.seed);
        Fabric {
            nodes: Default::default(),
            conns: Vec::new(),
            heap: BinaryHeap::new(),
            seq: 0,
            now: 0,
            link_free: [0; 2],
            rng,
            stats: FabricStats::default(),
            outputs: Vec::new(),
            trace: None,
            action_log: None,
            cfg,
        }
    }

    /// Record every message sent (for scenario tests and debugging).
    pub fn enable_trace(&mut self) {
        self.trace = Some(Vec::new());
    }
    pub fn trace(&self) -> &[(u64, usize, usize, Frame)] {
        self.trace.as_deref().unwrap_or(&[])
    }

    /// Join `initiator` (node 0) and `acceptor` (node 1); both start at once. Returns the
    /// connection's index.
    pub fn connect(&mut self, initiator: Endpoint, acceptor: Endpoint) -> usize {
        let conn = self.conns.len();
        self.conns.push(Conn {
            eps: [initiator, acceptor],
            posted: Default::default(),
            down: [false; 2],
            messages: 0,
        });
        // The acceptor posts its buffers before the initiator's Hello can arrive.
        for node in [1, 0] {
            let mut out = Vec::new();
            self.conns[conn].eps[node].start(&mut out);
            self.apply(conn, node, out);
        }
        conn
    }

    pub fn now(&self) -> u64 {
        self.now
    }
    pub fn stats(&self) -> &FabricStats {
        &self.stats
    }
    pub fn config(&self) -> &FabricConfig {
        &self.cfg
    }
    pub fn endpoint(&self, conn: usize, node: usize) -> &Endpoint {
        &self.conns[conn].eps[node]
    }
    pub fn connections(&self) -> usize {
        self.conns.len()
    }
    /// Registrations node `node` holds now.
    pub fn registrations(&self, node: usize) -> usize {
        self.nodes[node].regions.len()
    }

    /// Give an application event to an endpoint now.
    pub fn app(&mut self, conn: usize, node: usize, ev: Event) {
        self.feed(conn, node, ev);
    }

    /// Take the application-visible outputs produced so far.
    pub fn take_outputs(&mut self) -> Vec<AppOutput> {
        std::mem::take(&mut self.outputs)
    }

    /// Whether application outputs are waiting to be taken.
    pub fn has_outputs(&self) -> bool {
        !self.outputs.is_empty()
    }

    /// Whether anything is still scheduled.
    pub fn busy(&self) -> bool {
        !self.heap.is_empty()
    }

    /// Time of the next scheduled event.
    pub fn next_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Process every event scheduled at or before `t`, then advance the clock to `t`.
    pub fn run_until(&mut self, t: u64) {
        while self.next_time().is_some_and(|n| n <= t) {
            self.step();
        }
        self.now = self.now.max(t);
    }

    /// Process events until none is left or `max_events` were processed. Returns the count.
    pub fn run(&mut self, max_events: u64) -> u64 {
        let mut n = 0;
        while n < max_events && self.step() {
            n += 1;
        }
        n
    }

    /// Process the next event. Returns false when none is scheduled.
    pub fn step(&mut self) -> bool {
        let Some(Reverse((t, _, p))) = self.heap.pop() else { return false };
        self.now = t;
        match p {
            Pending::Deliver { conn, to, bytes } => {
                let c = &mut self.conns[conn];
                if c.down[to] {
                    self.stats.dropped_after_teardown += 1;
                } else if let Some(buf) = c.posted[to].pop_front() {
                    self.feed(conn, to, Event::MessageReceived { buf, bytes });
                } else {
                    self.stats.credit_overruns += 1;
                    self.feed(conn, to, Event::CreditOverrun);
                }
            }
            Pending::SendDone { conn, node, buf } => {
                if !self.conns[conn].down[node] {
                    self.feed(conn, node, Event::SendDone { buf });
                }
            }
            Pending::Rdma { conn, node, op, read, local, remote, len } => {
                let result = self.execute_rdma(conn, node, read, local, remote, len);
                self.feed(conn, node, Event::RdmaDone { op, result });
            }
            Pending::LinkDown { conn, to } => {
                if !self.conns[conn].down[to] {
                    self.feed(conn, to, Event::LinkDown);
                }
            }
            Pending::Input { conn, node, ev } => {
                let ev = match ev {
                    EvKey::Registered { reg, result } => Event::Registered {
                        reg,
                        result: result
                            .map(|(addr, key, len)| Descriptor { addr, key, len })
                            .map_err(
                                |e| if e == 0 { RegError::TableFull } else { RegError::NoMemory },
                            ),
                    },
                    EvKey::Deregistered { reg, data } => Event::Deregistered { reg, data },
                };
                self.feed(conn, node, ev);
            }
        }
        true
    }

    fn schedule(&mut self, t: u64, p: Pending) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, p)));
    }

    /// Link time of `bytes`; a rate the clock cannot carry saturates (the float-to-integer
    /// cast saturates, and the sums below saturate too: see [`MAX_TIME_NS`]).
    fn ser_ns(&self, bytes: usize) -> u64 {
        ((bytes as f64 * 8.0) / self.cfg.link_gbps).ceil() as u64
    }

    fn feed(&mut self, conn: usize, node: usize, ev: Event) {
        let mut out = Vec::new();
        let logged = self.action_log.as_ref().is_some_and(|(c, n, _)| (*c, *n) == (conn, node));
        let ev_copy = logged.then(|| ev.clone());
        self.conns[conn].eps[node].handle(ev, &mut out);
        if let (Some(ev), Some((_, _, log))) = (ev_copy, self.action_log.as_mut()) {
            log.push((ev, out.clone()));
        }
        self.apply(conn, node, out);
    }

    /// Record every event one endpoint handles and the actions it answers with (for checking
    /// a hardware block's transactions against the endpoint's). Start it before `connect`.
    pub fn record_actions(&mut self, conn: usize, node: usize) {
        self.action_log = Some((conn, node, Vec::new()));
    }

    /// The recorded events and actions, in order.
    pub fn action_log(&self) -> &[(Event, Vec<Action>)] {
        self.action_log.as_ref().map_or(&[], |(_, _, l)| l)
    }

    fn apply(&mut self, conn: usize, node: usize, actions: Vec<Action>) {
        for a in actions {
            self.apply_one(conn, node, a);
        }
    }

    fn apply_one(&mut self, conn: usize, node: usize, a: Action) {
        let peer = 1 - node;
        match a {
            Action::PostRecv { buf } => self.conns[conn].posted[node].push_back(buf),
            Action::Send { buf, bytes, frame } => {
                let c = &mut self.conns[conn];
                if c.down[node] {
                    self.stats.dropped_after_teardown += 1;
                    return;
                }
                c.messages += 1;
                let count = c.messages;
                self.stats.messages[node] += 1;
                self.stats.message_bytes[node] += bytes.len() as u64;
                if let Some(tr) = &mut self.trace {
                    tr.push((self.now, conn, node, frame));
                }
                let start = self.now.max(self.link_free[node]);
                let done = start.saturating_add(self.ser_ns(bytes.len()));
                self.link_free[node] = done;
                let arrive = done.saturating_add(self.cfg.latency_ns);
                self.schedule(arrive, Pending::Deliver { conn, to: peer, bytes });
                self.schedule(arrive, Pending::SendDone { conn, node, buf });
                if let Some(ab) = self.cfg.faults.abort
                    && ab.conn == conn
                    && ab.after_messages == count
                {
                    self.feed(conn, ab.node, Event::AppAbort);
                }
            }
            Action::Register { reg, access, data } => {
                let result = self.register(conn, node, reg, access, data);
                self.schedule(
                    self.now,
                    Pending::Input { conn, node, ev: EvKey::Registered { reg, result } },
                );
            }
            Action::Deregister { reg } => {
                let n = &mut self.nodes[node];
                let data = match n.by_reg.remove(&(conn, reg)) {
                    Some(key) => n.regions.remove(&key).map(|r| r.data).unwrap_or_default(),
                    None => Vec::new(),
                };
                self.schedule(
                    self.now,
                    Pending::Input { conn, node, ev: EvKey::Deregistered { reg, data } },
                );
            }
            Action::RdmaRead { op, local, local_off, remote, remote_off, len }
            | Action::RdmaWrite { op, local, local_off, remote, remote_off, len } => {
                let read = matches!(a, Action::RdmaRead { .. });
                // A read's data crosses the peer's link back; a write's crosses ours.
                let dir = if read { peer } else { node };
                let start = (self.now.saturating_add(if read { self.cfg.latency_ns } else { 0 }))
                    .max(self.link_free[dir]);
                let done = start.saturating_add(self.ser_ns(len as usize));
                self.link_free[dir] = done;
                let t = done.saturating_add(self.cfg.latency_ns);
                let p = Pending::Rdma {
                    conn,
                    node,
                    op,
                    read,
                    local: (local.key, local_off),
                    remote: (remote.key, remote_off),
                    len,
                };
                self.schedule(t, p);
            }
            Action::Teardown => {
                let c = &mut self.conns[conn];
                if !c.down[node] {
                    c.down[node] = true;
                    let t = self.now.max(self.link_free[node]).saturating_add(self.cfg.latency_ns);
                    self.schedule(t, Pending::LinkDown { conn, to: peer });
                }
                self.outputs.push(AppOutput {
                    conn,
                    node,
                    time_ns: self.now,
                    action: Action::Teardown,
                });
            }
            a @ (Action::CompleteSend { .. } | Action::CompleteRecv { .. } | Action::Connected) => {
                self.outputs.push(AppOutput { conn, node, time_ns: self.now, action: a });
            }
        }
    }

    fn register(
        &mut self,
        conn: usize,
        node: usize,
        reg: RegId,
        access: Access,
        data: Vec<u8>,
    ) -> Result<(u64, u32, u32), u8> {
        let f = &self.cfg.faults;
        let (fail, nomem) = (f.reg_fail_rate, f.nomem_rate);
        if fail > 0.0 && self.rng.gen_bool(fail.min(1.0)) {
            self.stats.injected_reg_failures += 1;
            return Err(0);
        }
        if nomem > 0.0 && self.rng.gen_bool(nomem.min(1.0)) {
            self.stats.injected_reg_failures += 1;
            return Err(1);
        }
        let n = &mut self.nodes[node];
        if n.regions.len() >= self.cfg.reg_capacity {
            self.stats.table_full += 1;
            return Err(0);
        }
        // Keys are never reused, so a stale descriptor can never reach a newer region.
        n.next_key = n.next_key.wrapping_add(1).max(1);
        let key = n.next_key;
        let addr = 0x1000_0000 + n.next_addr;
        n.next_addr += (data.len() as u64).div_ceil(4096).max(1) * 4096;
        let len = data.len() as u32;
        n.regions.insert(key, Region { conn, access, addr, data });
        n.by_reg.insert((conn, reg), key);
        self.stats.peak_registrations = self.stats.peak_registrations.max(n.regions.len());
        Ok((addr, key, len))
    }

    fn check(
        &mut self,
        node: usize,
        conn: usize,
        key: u32,
        off: u32,
        len: u32,
        want: Access,
    ) -> Result<(), RdmaError> {
        let r = self.nodes[node].regions.get(&key);
        let res = match r {
            None => Err(RdmaError::BadKey),
            Some(r) if r.conn != conn => Err(RdmaError::BadKey),
            Some(r) if r.access != want => Err(RdmaError::AccessDenied),
            Some(r) if off as u64 + len as u64 > r.data.len() as u64 => Err(RdmaError::OutOfBounds),
            Some(_) => Ok(()),
        };
        if let Err(e) = res {
            *self.stats.access_violations.entry(format!("{e:?}")).or_default() += 1;
        }
        res
    }

    fn execute_rdma(
        &mut self,
        conn: usize,
        node: usize,
        read: bool,
        local: (u32, u32),
        remote: (u32, u32),
        len: u32,
    ) -> Result<(), RdmaError> {
        if self.conns[conn].down[node] || self.conns[conn].down[1 - node] {
            return Err(RdmaError::Flushed);
        }
        let peer = 1 - node;
        let want = if read { Access::RemoteRead } else { Access::RemoteWrite };
        self.check(peer, conn, remote.0, remote.1, len, want)?;
        self.check(node, conn, local.0, local.1, len, Access::Local)?;
        let rate = self.cfg.faults.rdma_error_rate;
        if rate > 0.0 && self.rng.gen_bool(rate.min(1.0)) {
            self.stats.injected_rdma_errors += 1;
            return Err(RdmaError::Transport);
        }
        let (src_node, src, dst_node, dst) =
            if read { (peer, remote, node, local) } else { (node, local, peer, remote) };
        let bytes = {
            let r = &self.nodes[src_node].regions[&src.0];
            r.data[src.1 as usize..(src.1 + len) as usize].to_vec()
        };
        let r = self.nodes[dst_node].regions.get_mut(&dst.0).expect("checked");
        r.data[dst.1 as usize..(dst.1 + len) as usize].copy_from_slice(&bytes);
        if read {
            self.stats.rdma_reads += 1;
        } else {
            self.stats.rdma_writes += 1;
        }
        self.stats.rdma_bytes += len as u64;
        Ok(())
    }

    /// The descriptor of a live registration (for tests that forge RDMA accesses).
    pub fn descriptor_of(&self, node: usize, conn: usize, reg: RegId) -> Option<Descriptor> {
        let n = &self.nodes[node];
        let key = *n.by_reg.get(&(conn, reg))?;
        let r = &n.regions[&key];
        Some(Descriptor { addr: r.addr, key, len: r.data.len() as u32 })
    }

    /// Issue an RDMA operation on behalf of an endpoint, bypassing it (for access-check tests).
    /// The arguments are those of an RDMA work request; a struct would only rename them.
    #[allow(clippy::too_many_arguments)]
    pub fn raw_rdma(
        &mut self,
        conn: usize,
        node: usize,
        read: bool,
        local: Descriptor,
        remote: Descriptor,
        off: u32,
        len: u32,
    ) -> Result<(), RdmaError> {
        self.execute_rdma(conn, node, read, (local.key, off), (remote.key, off), len)
    }

    /// Register a region directly on a node (for access-check tests).
    pub fn raw_register(
        &mut self,
        conn: usize,
        node: usize,
        reg: RegId,
        access: Access,
        data: Vec<u8>,
    ) -> Option<Descriptor> {
        self.register(conn, node, reg, access, data).ok().map(|(addr, key, len)| Descriptor {
            addr,
            key,
            len,
        })
    }
}
