//! Seeded random workloads over the fabric, and the checker that proves them intact.
//!
//! A workload runs any number of connections between the fabric's two nodes. Each side of
//! each connection sends a planned list of sends (sizes 0 to `max_size`, a share of them
//! urgent) while keeping receives posted; at the end each side shuts down its send direction
//! and reads to end of stream. The checker then proves, per direction, that **every byte
//! arrived exactly once and in order, with its urgent mark**, and that **every request
//! completed exactly once with an allowed status**. Used by the tests and by
//! `sanswitch simulate`.
//!
//! The plan is drawn from the seed and replayed, never held: a send's data is made when it is
//! submitted and checked byte by byte as it arrives, so memory grows with what is in flight,
//! not with the number of sends. [`Workload::validate`] refuses what the model cannot run,
//! each problem named by its scenario key; the limits are the constants below,
//! [`crate::endpoint::MAX_BUFS`] and the clock bounds of [`crate::fabric`].

use std::collections::BTreeMap;

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::endpoint::{Action, Config, Endpoint, Event, ReqId, Role, State, Stats};
use crate::fabric::{AppOutput, Fabric, FabricConfig, FabricStats, MAX_TIME_NS};
use crate::status::WsaError;
use crate::wire;

/// A workload: what to send, over what.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Workload {
    pub seed: u64,
    pub connections: usize,
    /// Sends planned in each direction of each connection.
    pub sends: usize,
    /// Largest send, bytes.
    pub max_size: usize,
    /// Share of sends that are urgent (MSG_OOB).
    pub urgent_share: f64,
    /// Whether node 0 / node 1 support RDMA read; `None` picks at random per connection.
    /// Exactly two entries (a scenario leaves the key out for random).
    #[serde(deserialize_with = "two_entries")]
    pub rdma_read: [Option<bool>; 2],
    /// Start sequence numbers within 64 of the wrap.
    pub seq_near_wrap: bool,
    /// Sends each application keeps outstanding.
    pub sends_outstanding: usize,
    /// Receives each application keeps posted, and the largest of them.
    pub recvs_outstanding: usize,
    pub recv_max: usize,
    /// Endpoint parameters. `rdma_read` and `initial_seq` are set per connection (from
    /// `rdma_read` and `seq_near_wrap` above), so a scenario that sets them is refused.
    #[serde(deserialize_with = "endpoint_keys")]
    pub endpoint: Config,
    pub fabric: FabricConfig,
    /// Stop after this much simulated time (a deadlock shows as running out of events first);
    /// at most [`MAX_TIME_NS`].
    pub time_limit_ns: u64,
}

/// Largest send, in bytes: a send is held whole in memory while it is in flight.
pub const MAX_SEND: usize = 1 << 30;
/// Most bytes the applications may have handed to the switches at once, over the whole run:
/// `connections * 2 * sends_outstanding * max_size`. Data is made as it is sent and checked as
/// it arrives, so this (and a few copies of it at worst: a registered source, a receiver's
/// target and stream) is what the run holds, whatever the number of sends.
pub const MAX_IN_FLIGHT: u64 = 1 << 32;
/// Smallest `endpoint.rdma_threshold` the workload accepts: it draws some sizes in
/// `4096..=4 * rdma_threshold`.
pub const MIN_RDMA_THRESHOLD: u32 = 1024;

/// `rdma_read`: an array of exactly two entries (serde's arrays ignore extra ones in TOML).
fn two_entries<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[Option<bool>; 2], D::Error> {
    let v = Vec::<Option<bool>>::deserialize(d)?;
    <[Option<bool>; 2]>::try_from(v).map_err(|v| {
        serde::de::Error::custom(format!(
            "rdma_read must have exactly 2 entries (node 0, node 1), got {}",
            v.len()
        ))
    })
}

/// The `endpoint` keys of a scenario: `Config`'s, less the two the workload sets itself.
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct EndpointKeys {
    send_bufs: u16,
    recv_bufs: u16,
    buf_size: u32,
    rdma_threshold: u32,
    rdma_segment: u32,
    rdma_window: u16,
    rdma_read: Option<serde::de::IgnoredAny>,
    initial_seq: Option<serde::de::IgnoredAny>,
}

impl Default for EndpointKeys {
    fn default() -> Self {
        let c = Config::default();
        EndpointKeys {
            send_bufs: c.send_bufs,
            recv_bufs: c.recv_bufs,
            buf_size: c.buf_size,
            rdma_threshold: c.rdma_threshold,
            rdma_segment: c.rdma_segment,
            rdma_window: c.rdma_window,
            rdma_read: None,
            initial_seq: None,
        }
    }
}

/// `endpoint`: refuse the keys that would do nothing (the workload sets them per connection).
fn endpoint_keys<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Config, D::Error> {
    let k = EndpointKeys::deserialize(d)?;
    let ignored = |key: &str, instead: &str| {
        serde::de::Error::custom(format!(
            "endpoint.{key} does nothing in a workload, which sets it per connection: use \
             {instead}"
        ))
    };
    if k.rdma_read.is_some() {
        return Err(ignored("rdma_read", "the top-level rdma_read = [node 0, node 1]"));
    }
    if k.initial_seq.is_some() {
        return Err(ignored("initial_seq", "seq_near_wrap"));
    }
    Ok(Config {
        send_bufs: k.send_bufs,
        recv_bufs: k.recv_bufs,
        buf_size: k.buf_size,
        rdma_threshold: k.rdma_threshold,
        rdma_segment: k.rdma_segment,
        rdma_window: k.rdma_window,
        ..Config::default()
    })
}

impl Workload {
    /// Everything that makes the workload meaningless or that the model cannot run, each
    /// problem naming its scenario key in backquotes (`endpoint.recv_bufs`), so that a front
    /// end can add its own name for it. Empty when the workload can run.
    pub fn validate(&self) -> Vec<String> {
        let mut p = Vec::new();
        if let Err(e) = self.endpoint.validate() {
            // The endpoint names its fields first, before " must": qualify them.
            let (head, tail) = e.split_at(e.find(" must").unwrap_or(0));
            let head: Vec<String> = head
                .split(' ')
                .map(|t| match t {
                    "send_bufs" | "recv_bufs" | "buf_size" | "rdma_threshold" | "rdma_segment"
                    | "rdma_window" => format!("`endpoint.{t}`"),
                    t => t.to_string(),
                })
                .collect();
            p.push(if head.concat().is_empty() {
                format!("`endpoint`: {e}")
            } else {
                format!("{}{tail}", head.join(" "))
            });
        }
        if self.endpoint.rdma_threshold < MIN_RDMA_THRESHOLD {
            p.push(format!(
                "`endpoint.rdma_threshold` must be at least {MIN_RDMA_THRESHOLD} for the random \
                 workload, got {}",
                self.endpoint.rdma_threshold
            ));
        }
        if self.max_size > MAX_SEND {
            p.push(format!(
                "`max_size` must be at most {MAX_SEND} (1 GiB): a send is held whole in memory, \
                 got {}",
                self.max_size
            ));
        }
        if self.connections == 0 {
            p.push("`connections` must be at least 1".into());
        }
        if self.sends_outstanding == 0 {
            p.push("`sends_outstanding` must be at least 1, or no send is ever submitted".into());
        }
        if self.recvs_outstanding == 0 {
            p.push("`recvs_outstanding` must be at least 1, or nothing can be received".into());
        }
        if self.recv_max == 0 {
            p.push("`recv_max` must be at least 1".into());
        }
        let in_flight = (self.connections as u64)
            .checked_mul(2)
            .and_then(|v| v.checked_mul(self.sends_outstanding as u64))
            .and_then(|v| v.checked_mul(self.max_size as u64));
        if in_flight.is_none_or(|v| v > MAX_IN_FLIGHT) {
            p.push(format!(
                "`connections` x 2 x `sends_outstanding` x `max_size` must be at most \
                 {MAX_IN_FLIGHT} (4 GiB): it bounds the bytes in flight at once, got {} x 2 x {} \
                 x {}",
                self.connections, self.sends_outstanding, self.max_size
            ));
        }
        let mut share = |name: &str, v: f64| {
            if !(0.0..=1.0).contains(&v) {
                p.push(format!("`{name}` must be between 0 and 1, got {v}"));
            }
        };
        let f = &self.fabric.faults;
        share("urgent_share", self.urgent_share);
        share("fabric.faults.reg_fail_rate", f.reg_fail_rate);
        share("fabric.faults.nomem_rate", f.nomem_rate);
        share("fabric.faults.rdma_error_rate", f.rdma_error_rate);
        // The longest transfer: a message fills at most a control buffer, an RDMA operation
        // carries at most a segment.
        let largest = u64::from(u32::max(self.endpoint.buf_size, self.endpoint.rdma_segment));
        let what = " (the larger of `endpoint.buf_size` and `endpoint.rdma_segment`)";
        for e in self.fabric.validate(largest, what) {
            let (key, rest) = e.split_once(' ').unwrap_or((&e, ""));
            p.push(format!("`fabric.{key}` {rest}"));
        }
        if let Some(a) = f.abort {
            if a.conn >= self.connections {
                p.push(format!(
                    "`fabric.faults.abort` names connection {}, which does not exist (there \
                     are {})",
                    a.conn, self.connections
                ));
            }
            if a.node > 1 {
                p.push(format!("`fabric.faults.abort` node must be 0 or 1, got {}", a.node));
            }
            if a.after_messages == 0 {
                p.push("`fabric.faults.abort` after_messages must be at least 1".into());
            }
        }
        if self.time_limit_ns == 0 {
            p.push("`time_limit_ns` must be positive".into());
        }
        if self.time_limit_ns > MAX_TIME_NS {
            p.push(format!(
                "`time_limit_ns` must be at most 2^62 = {MAX_TIME_NS} (the fabric's clock is a \
                 u64 of ns), got {}",
                self.time_limit_ns
            ));
        }
        p
    }
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            seed: 1,
            connections: 2,
            sends: 200,
            max_size: 1 << 20,
            urgent_share: 0.05,
            rdma_read: [None, None],
            seq_near_wrap: true,
            sends_outstanding: 4,
            recvs_outstanding: 3,
            recv_max: 96 * 1024,
            endpoint: Config::default(),
            fabric: FabricConfig::default(),
            time_limit_ns: 3_600_000_000_000,
        }
    }
}

/// One direction of one connection, after the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Direction {
    pub conn: usize,
    pub from: usize,
    pub sends: usize,
    pub bytes_offered: u64,
    pub bytes_received: u64,
    pub urgent_bytes_received: u64,
    /// The sends' completions by status name ("ok", "WSAENOBUFS", ...): what a differential
    /// run compares between backends (receives are cut differently by each).
    pub send_statuses: BTreeMap<String, u64>,
    /// The sender's endpoint counters.
    pub sender: Stats,
}

/// The result of a workload.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub seed: u64,
    pub directions: Vec<Direction>,
    pub fabric: FabricStats,
    pub sim_time_ns: u64,
    pub events: u64,
    /// Completions by status name, over every request of the run.
    pub completions: BTreeMap<String, u64>,
    /// Protocol violations the endpoints detected.
    pub violations: u64,
    /// Every byte arrived exactly once, in order, with its urgent mark, and every request
    /// completed exactly once with an allowed status.
    pub intact: bool,
    /// What went wrong, when `intact` is false.
    pub problems: Vec<String>,
}

/// Size of one send, drawn to hit the boundaries that matter.
fn draw_size(rng: &mut ChaCha8Rng, w: &Workload) -> usize {
    let buf = w.endpoint.buf_size as usize;
    let data_room = wire::max_payload(wire::Kind::Data, false, w.endpoint.buf_size);
    let thr = w.endpoint.rdma_threshold as usize;
    let boundaries = [
        0,
        1,
        7,
        8,
        9,
        15,
        16,
        17,
        data_room - 1,
        data_room,
        data_room + 1,
        buf,
        thr,
        thr + 1,
        thr + buf,
        w.max_size,
    ];
    let n = match rng.gen_range(0..100) {
        0..10 => boundaries[rng.gen_range(0..boundaries.len())],
        10..60 => rng.gen_range(1..=4096),
        60..85 => rng.gen_range(4096..=usize::max(4096, thr * 4)),
        _ => rng.gen_range(0..=w.max_size),
    };
    n.min(w.max_size)
}

/// One planned send, as drawn: its size, its urgent mark, and where its data starts in the
/// workload's generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Planned {
    len: usize,
    urgent: bool,
    /// Word position of the generator (seeded with `Workload::seed`) at which the data starts.
    word: u128,
}

/// Draw one send: its size, its urgent mark, then its data, which is `len` bytes of the
/// generator's output taken as 32-bit words (what `fill_bytes` takes: `len.div_ceil(4)`
/// words). The data is not made here: the generator skips over it and `Planned::word`
/// remembers where it is.
fn draw_send(rng: &mut ChaCha8Rng, w: &Workload) -> Planned {
    let mut len = draw_size(rng, w);
    let urgent = rng.gen_bool(w.urgent_share.clamp(0.0, 1.0));
    if urgent {
        len = len.clamp(1, 2048);
    }
    let word = rng.get_word_pos();
    if len > 0 {
        rng.set_word_pos(word + len.div_ceil(4) as u128);
    }
    Planned { len, urgent, word }
}

/// Bytes `off..off + n` of a planned send's data, made from the generator `base`.
fn send_bytes(base: &ChaCha8Rng, p: &Planned, off: usize, n: usize) -> Vec<u8> {
    let mut rng = base.clone();
    rng.set_word_pos(p.word + (off / 4) as u128);
    let skip = off % 4;
    let mut v = vec![0u8; skip + n];
    rng.fill_bytes(&mut v);
    v.drain(..skip);
    v
}

/// One side's plan of sends, drawn one by one as they are needed: a copy of the workload's
/// generator where this side's draws start, and how many draws are left. Two copies of a
/// plan give the same sends, so the sender submits from one while the checker of its stream
/// replays the other: memory does not grow with the plan.
#[derive(Clone)]
struct Plan {
    rng: ChaCha8Rng,
    left: usize,
}

impl Plan {
    fn next(&mut self, w: &Workload) -> Option<Planned> {
        self.left = self.left.checked_sub(1)?;
        Some(draw_send(&mut self.rng, w))
    }
}

/// The checker of one direction's stream: it replays the sender's plan and compares every
/// byte received with the byte planned at that position, skipping the sends that failed with
/// WSAENOBUFS (nothing of them is sent).
struct StreamCheck {
    plan: Plan,
    /// Index of the next send to take from the plan.
    next: usize,
    /// The send being compared: its index, what it is, bytes of it compared so far.
    cur: Option<(usize, Planned, usize)>,
    /// Sends not yet taken that failed with WSAENOBUFS.
    nobufs: std::collections::BTreeSet<usize>,
    nobufs_bytes: u64,
    received: u64,
    urgent_received: u64,
    /// The first byte that differs from the plan (or lies past its end).
    first_diff: Option<u64>,
    urgent_differs: bool,
}

impl StreamCheck {
    /// The next send with bytes in the stream, or `None` past the end of the plan.
    fn take(&mut self, w: &Workload) -> Option<(usize, Planned, usize)> {
        loop {
            let p = self.plan.next(w)?;
            let i = self.next;
            self.next += 1;
            if !self.nobufs.remove(&i) && p.len > 0 {
                return Some((i, p, 0));
            }
        }
    }

    /// Send `i` (of `len` bytes) failed with WSAENOBUFS. Returns false when bytes of it, or
    /// of a later send, were already compared as if it had been sent.
    fn no_bufs(&mut self, i: usize, len: usize) -> bool {
        self.nobufs_bytes += len as u64;
        if i < self.next {
            return len == 0;
        }
        self.nobufs.insert(i);
        true
    }

    fn receive(&mut self, w: &Workload, base: &ChaCha8Rng, data: &[u8], urgent: bool) {
        let mut at = 0;
        while at < data.len() {
            if self.cur.is_none_or(|(_, p, off)| off == p.len) {
                self.cur = self.take(w);
            }
            let Some((_, p, off)) = &mut self.cur else {
                // Past the end of the plan: every byte from here is one too many.
                self.first_diff.get_or_insert(self.received + at as u64);
                self.urgent_differs |= urgent;
                break;
            };
            let n = usize::min(data.len() - at, p.len - *off);
            let want = send_bytes(base, p, *off, n);
            if let Some(d) = want.iter().zip(&data[at..at + n]).position(|(a, b)| a != b) {
                self.first_diff.get_or_insert(self.received + (at + d) as u64);
            }
            self.urgent_differs |= p.urgent != urgent;
            *off += n;
            at += n;
        }
        self.received += data.len() as u64;
        if urgent {
            self.urgent_received += data.len() as u64;
        }
    }
}

/// One node's application on one connection.
struct Side {
    // --- as the sender of one direction
    plan: Plan,
    next_send: usize,
    sends_open: usize,
    /// Sends submitted and not completed: req -> (index in the plan, length).
    send_reqs: BTreeMap<ReqId, (usize, usize)>,
    /// Bytes of every planned send.
    offered: u64,
    /// What went wrong with this side's sends, in the order it was seen.
    send_problems: Vec<String>,
    /// Sends that failed with an error other than WSAENOBUFS: allowed only on a connection
    /// that was aborted (decided at the end, when that is known).
    send_errors: Vec<String>,
    /// Send completions by status name.
    send_statuses: BTreeMap<String, u64>,
    /// Sends that failed with WSAENOBUFS: each must have a failed registration of its
    /// source buffer behind it.
    nobufs_seen: u64,
    /// The peer's view of this side's stream.
    stream: StreamCheck,
    // --- as the receiver of the other direction
    recvs_open: usize,
    /// Receives posted and not completed.
    recv_reqs: std::collections::BTreeSet<ReqId>,
    eof: bool,
    shut: bool,
    dead: bool,
}

impl Side {
    /// A side whose plan starts at `rng`'s position; `rng` is moved past the plan's draws.
    fn new(rng: &mut ChaCha8Rng, w: &Workload) -> Side {
        let plan = Plan { rng: rng.clone(), left: w.sends };
        let mut offered = 0u64;
        for _ in 0..w.sends {
            offered = offered.saturating_add(draw_send(rng, w).len as u64);
        }
        Side {
            stream: StreamCheck {
                plan: plan.clone(),
                next: 0,
                cur: None,
                nobufs: Default::default(),
                nobufs_bytes: 0,
                received: 0,
                urgent_received: 0,
                first_diff: None,
                urgent_differs: false,
            },
            plan,
            next_send: 0,
            sends_open: 0,
            send_reqs: BTreeMap::new(),
            offered,
            send_problems: Vec::new(),
            send_errors: Vec::new(),
            nobufs_seen: 0,
            send_statuses: BTreeMap::new(),
            recvs_open: 0,
            recv_reqs: Default::default(),
            eof: false,
            shut: false,
            dead: false,
        }
    }
}

/// Run a workload to the end. `progress(done, total)` is called as bytes arrive.
///
/// The data of a send is made when it is submitted and checked as it arrives, so memory grows
/// with what is in flight (see [`MAX_IN_FLIGHT`]), not with the plan. Call
/// [`Workload::validate`] first: the model assumes a workload it can run.
pub fn run(w: &Workload, progress: &mut dyn FnMut(u64, u64)) -> Summary {
    run_tampered(w, progress, &mut |_, _, _| {})
}

/// [`run`], with every action the fabric hands to an application passed through `tamper`
/// first (with its connection and node): how tests show that the checker catches an
/// endpoint that misbehaves (a completion with the wrong status, a byte changed).
pub fn run_tampered(
    w: &Workload,
    progress: &mut dyn FnMut(u64, u64),
    tamper: &mut dyn FnMut(usize, usize, &mut Action),
) -> Summary {
    let mut fabric = Fabric::new(FabricConfig {
        faults: crate::fabric::Faults {
            seed: w.seed ^ 0x5eed ^ w.fabric.faults.seed,
            ..w.fabric.faults.clone()
        },
        ..w.fabric.clone()
    });
    run_on(w, &mut fabric, progress, tamper)
}

/// One connection's two endpoint configurations (node 0 initiates), drawn from `rng`:
/// RDMA-read support and initial sequence numbers.
fn connection_config(w: &Workload, rng: &mut ChaCha8Rng) -> [Config; 2] {
    let mut cfgs = [w.endpoint.clone(), w.endpoint.clone()];
    for (n, cfg) in cfgs.iter_mut().enumerate() {
        cfg.rdma_read = w.rdma_read[n].unwrap_or_else(|| rng.gen_bool(0.5));
        cfg.initial_seq =
            if w.seq_near_wrap { u32::MAX - rng.gen_range(0..64) } else { rng.r#gen() };
    }
    cfgs
}

/// What runs a workload's connections: the sans-IO endpoints over the fabric model, or two
/// engines (cycle models or Verilated) over a cycle-level SAN.
pub trait Backend {
    /// Set up the next connection: node 0 with `cfgs[0]` connects to node 1.
    fn connect(&mut self, cfgs: [Config; 2]);
    /// An application request (`AppSend`, `AppRecv`, `AppShutdown`) on one side.
    fn app(&mut self, conn: usize, node: usize, ev: Event);
    /// Completions (and `Teardown` of an aborted connection) since the last call.
    fn take_outputs(&mut self) -> Vec<AppOutput>;
    fn has_outputs(&self) -> bool;
    /// Advance; false when nothing is left to do (or nothing moves any more).
    fn step(&mut self) -> bool;
    /// Simulated time in nanoseconds.
    fn now(&self) -> u64;
    /// The connection was aborted on this side (locally or by the peer).
    fn aborted(&self, conn: usize, node: usize) -> bool;
    /// One side's protocol counters (what the backend can tell).
    fn stats(&self, conn: usize, node: usize) -> Stats;
    fn fabric_stats(&self) -> FabricStats {
        FabricStats::default()
    }
    /// Whatever the backend itself found wrong (a host memory access out of bounds, ...).
    fn problems(&self) -> Vec<String> {
        Vec::new()
    }
}

impl Backend for Fabric {
    fn connect(&mut self, cfgs: [Config; 2]) {
        let [c0, c1] = cfgs;
        Fabric::connect(
            self,
            Endpoint::new(Role::Initiator, c0),
            Endpoint::new(Role::Acceptor, c1),
        );
    }
    fn app(&mut self, conn: usize, node: usize, ev: Event) {
        Fabric::app(self, conn, node, ev)
    }
    fn take_outputs(&mut self) -> Vec<AppOutput> {
        Fabric::take_outputs(self)
    }
    fn has_outputs(&self) -> bool {
        Fabric::has_outputs(self)
    }
    fn step(&mut self) -> bool {
        Fabric::step(self)
    }
    fn now(&self) -> u64 {
        Fabric::now(self)
    }
    fn aborted(&self, conn: usize, node: usize) -> bool {
        self.endpoint(conn, node).state() == State::Aborted
    }
    fn stats(&self, conn: usize, node: usize) -> Stats {
        self.endpoint(conn, node).stats().clone()
    }
    fn fabric_stats(&self) -> FabricStats {
        Fabric::stats(self).clone()
    }
}

/// Run a workload on `backend`: connect every connection, then drive and check it.
pub fn run_on(
    w: &Workload,
    fabric: &mut dyn Backend,
    progress: &mut dyn FnMut(u64, u64),
    tamper: &mut dyn FnMut(usize, usize, &mut Action),
) -> Summary {
    let base = ChaCha8Rng::seed_from_u64(w.seed);
    let mut rng = base.clone();
    let mut sides: Vec<[Side; 2]> = Vec::new();
    let mut total: u64 = 0;
    for _ in 0..w.connections {
        fabric.connect(connection_config(w, &mut rng));
        let s0 = Side::new(&mut rng, w);
        let s1 = Side::new(&mut rng, w);
        total = total.saturating_add(s0.offered).saturating_add(s1.offered);
        sides.push([s0, s1]);
    }

    let mut next_req: ReqId = 1;
    let mut problems = Vec::new();
    let mut events = 0u64;
    let mut received_total = 0u64;
    let mut last_report = 0u64;
    loop {
        // Let every application top up its sends and receives.
        for (conn, pair) in sides.iter_mut().enumerate() {
            for (node, side) in pair.iter_mut().enumerate() {
                if side.dead {
                    continue;
                }
                while side.sends_open < w.sends_outstanding && side.next_send < w.sends {
                    let i = side.next_send;
                    let p = side.plan.next(w).expect("a send is left in the plan");
                    side.next_send += 1;
                    side.sends_open += 1;
                    let req = next_req;
                    next_req += 1;
                    side.send_reqs.insert(req, (i, p.len));
                    let data = send_bytes(&base, &p, 0, p.len);
                    fabric.app(conn, node, Event::AppSend { req, data, urgent: p.urgent });
                }
                if !side.shut && side.next_send == w.sends && side.sends_open == 0 {
                    side.shut = true;
                    fabric.app(conn, node, Event::AppShutdown);
                }
                while !side.eof && side.recvs_open < w.recvs_outstanding {
                    side.recvs_open += 1;
                    let req = next_req;
                    next_req += 1;
                    side.recv_reqs.insert(req);
                    let max = rng.gen_range(1..=w.recv_max.max(1));
                    fabric.app(conn, node, Event::AppRecv { req, max });
                }
            }
        }
        for mut o in fabric.take_outputs() {
            let (conn, node) = (o.conn, o.node);
            tamper(conn, node, &mut o.action);
            match o.action {
                Action::CompleteSend { req, result } => {
                    let side = &mut sides[conn][node];
                    let Some((i, len)) = side.send_reqs.remove(&req) else {
                        problems.push(format!(
                            "conn {conn} node {node}: send {req} completed but was not \
                             outstanding (completed twice, or never submitted)"
                        ));
                        continue;
                    };
                    side.sends_open -= 1;
                    let name = result.as_ref().err().map_or("ok", |e| e.name());
                    *side.send_statuses.entry(name.into()).or_default() += 1;
                    let what = format!("conn {conn} node {node}: send #{i}");
                    match result {
                        Ok(n) if n == len => {}
                        Ok(n) => side
                            .send_problems
                            .push(format!("{what} completed with {n} of {len} bytes")),
                        Err(WsaError::NoBufs) => {
                            side.nobufs_seen += 1;
                            if !side.stream.no_bufs(i, len) {
                                side.send_problems.push(format!(
                                    "{what} failed with WSAENOBUFS after bytes of it or of a \
                                     later send arrived"
                                ));
                            }
                        }
                        Err(e) => side.send_errors.push(format!("{what} failed: {}", e.name())),
                    }
                }
                Action::CompleteRecv { req, result } => {
                    let side = &mut sides[conn][node];
                    if side.recv_reqs.remove(&req) {
                        side.recvs_open -= 1;
                    } else {
                        problems.push(format!(
                            "conn {conn} node {node}: recv {req} completed but was not \
                             outstanding (completed twice, or never posted)"
                        ));
                    }
                    match result {
                        Ok(r) if r.data.is_empty() => side.eof = true,
                        Ok(r) => {
                            received_total += r.data.len() as u64;
                            sides[conn][1 - node].stream.receive(w, &base, &r.data, r.urgent);
                        }
                        Err(_) => side.eof = true,
                    }
                }
                Action::Teardown if fabric.aborted(conn, node) => {
                    let side = &mut sides[conn][node];
                    side.dead = true;
                    side.eof = true;
                }
                _ => {}
            }
        }
        if received_total - last_report >= 1 << 20 || received_total == total {
            progress(received_total, total);
            last_report = received_total;
        }
        if !fabric.step() {
            // Nothing scheduled: either everything finished, or the protocol is stuck.
            let settled = sides
                .iter()
                .flatten()
                .all(|s| s.dead || (s.next_send == w.sends && s.sends_open == 0 && s.eof));
            let more_to_submit = sides.iter().flatten().any(|s| {
                !s.dead
                    && ((s.sends_open < w.sends_outstanding && s.next_send < w.sends)
                        || (!s.shut && s.next_send == w.sends && s.sends_open == 0)
                        || (!s.eof && s.recvs_open < w.recvs_outstanding))
            });
            if settled {
                break;
            }
            if !more_to_submit && !fabric.has_outputs() {
                problems
                    .push("no event left with requests still open: the protocol is stuck".into());
                break;
            }
            continue;
        }
        events += 1;
        if fabric.now() > w.time_limit_ns {
            problems.push(format!("time limit of {} ns reached", w.time_limit_ns));
            break;
        }
    }
    progress(received_total, total);
    problems.extend(fabric.problems());
    check(w, fabric, &sides, events, problems)
}

fn check(
    w: &Workload,
    fabric: &dyn Backend,
    sides: &[[Side; 2]],
    events: u64,
    mut problems: Vec<String>,
) -> Summary {
    let mut summary =
        Summary { seed: w.seed, sim_time_ns: fabric.now(), events, ..Default::default() };
    let mut violations_intact = 0;
    for (conn, pair) in sides.iter().enumerate() {
        // Only a connection that really was aborted (locally or by the peer) may lose bytes,
        // fail sends or break the protocol's rules; a configured abort that never fired, or
        // one on another connection, excuses nothing.
        let aborted = (0..2).any(|n| fabric.aborted(conn, n));
        for from in 0..2 {
            let tx = &pair[from];
            let rx = &pair[1 - from];
            let stats = fabric.stats(conn, from);
            summary.violations += stats.violations();
            if !aborted {
                violations_intact += stats.violations();
                problems.extend(tx.send_errors.iter().cloned());
            }
            // Every WSAENOBUFS has a failed registration of the send's buffer behind it (and
            // every such failure fails exactly its send).
            let failed = stats.send_reg_failures;
            if tx.nobufs_seen != failed {
                problems.push(format!(
                    "conn {conn} node {from}: {} sends failed with WSAENOBUFS, {failed} \
                     registrations of a send's buffer failed",
                    tx.nobufs_seen
                ));
            }
            for (k, v) in &stats.completions {
                *summary.completions.entry(k.clone()).or_default() += v;
            }
            // Every submitted send completed exactly once, with an allowed status.
            problems.extend(tx.send_problems.iter().cloned());
            for &(i, _) in tx.send_reqs.values() {
                problems.push(format!("conn {conn} node {from}: send #{i} never completed"));
            }
            for req in &rx.recv_reqs {
                problems.push(format!("conn {conn} node {}: recv {req} never completed", 1 - from));
            }
            // Every byte arrived once, in order: what arrived is the plan's stream (less the
            // sends refused with WSAENOBUFS), or a prefix of it when a connection aborted.
            let st = &tx.stream;
            let expected = tx.offered - st.nobufs_bytes;
            let got = st.received;
            match st.first_diff {
                Some(at) => problems.push(format!(
                    "conn {conn} {from}->{}: stream differs at byte {at} (got {got} bytes, \
                     expected {expected})",
                    1 - from,
                )),
                None if got != expected && !aborted => problems.push(format!(
                    "conn {conn} {from}->{}: {got} of {expected} bytes arrived",
                    1 - from,
                )),
                None => {}
            }
            if st.urgent_differs {
                problems.push(format!("conn {conn} {from}->{}: urgent marks differ", 1 - from));
            }
            summary.directions.push(Direction {
                conn,
                from,
                sends: w.sends,
                bytes_offered: tx.offered,
                bytes_received: got,
                urgent_bytes_received: st.urgent_received,
                send_statuses: tx.send_statuses.clone(),
                sender: stats.clone(),
            });
        }
    }
    if violations_intact > 0 {
        problems.push(format!(
            "{violations_intact} protocol violations detected on connections not aborted"
        ));
    }
    summary.fabric = fabric.fabric_stats();
    summary.intact = problems.is_empty();
    summary.problems = problems;
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan as it was made before it was replayed: every send drawn and its data made up
    /// front, from one generator. The replayed plan must give the same sends, the same bytes,
    /// and leave the generator where this leaves it (the receives draw from it next).
    /// One side's sends: data and urgent mark.
    type Sends = Vec<(Vec<u8>, bool)>;

    fn eager(w: &Workload) -> (Vec<[Sends; 2]>, u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(w.seed);
        let mut conns = Vec::new();
        for _ in 0..w.connections {
            for n in 0..2 {
                if w.rdma_read[n].is_none() {
                    rng.gen_bool(0.5);
                }
                if w.seq_near_wrap {
                    rng.gen_range(0..64u32);
                } else {
                    rng.r#gen::<u32>();
                }
            }
            let mut pair: [Sends; 2] = Default::default();
            for side in &mut pair {
                for _ in 0..w.sends {
                    let mut n = draw_size(&mut rng, w);
                    let urgent = rng.gen_bool(w.urgent_share.clamp(0.0, 1.0));
                    if urgent {
                        n = n.clamp(1, 2048);
                    }
                    let mut data = vec![0u8; n];
                    rng.fill(&mut data[..]);
                    side.push((data, urgent));
                }
            }
            conns.push(pair);
        }
        (conns, rng.next_u64())
    }

    #[test]
    fn replayed_plan_is_the_plan_made_up_front() {
        for (seed, urgent_share, max_size) in [(1, 0.05, 1 << 20), (7, 0.5, 4099), (9, 1.0, 13)] {
            let w = Workload { seed, sends: 50, urgent_share, max_size, ..Workload::default() };
            let (want, after) = eager(&w);
            let base = ChaCha8Rng::seed_from_u64(w.seed);
            let mut rng = base.clone();
            for pair in &want {
                for _ in 0..2 {
                    rng.gen_bool(0.5);
                    rng.gen_range(0..64u32);
                }
                for sends in pair {
                    let mut side = Side::new(&mut rng, &w);
                    let mut replay = side.stream.plan.clone();
                    for (data, urgent) in sends {
                        let p = side.plan.next(&w).expect("planned");
                        assert_eq!((p.len, p.urgent), (data.len(), *urgent));
                        assert_eq!(&send_bytes(&base, &p, 0, p.len), data);
                        // Any piece of it, from any offset, as the checker makes it.
                        let off = data.len() / 3;
                        let n = (data.len() - off) / 2;
                        assert_eq!(send_bytes(&base, &p, off, n), data[off..off + n]);
                        assert_eq!(replay.next(&w), Some(p));
                    }
                    assert_eq!(side.plan.next(&w), None);
                    assert_eq!(side.offered, sends.iter().map(|s| s.0.len() as u64).sum::<u64>());
                }
            }
            assert_eq!(rng.next_u64(), after, "seed {seed}: the receives' draws moved");
        }
    }

    #[test]
    fn the_checker_finds_a_wrong_byte_a_missing_send_and_a_wrong_mark() {
        let w = Workload { seed: 5, sends: 20, max_size: 5000, ..Workload::default() };
        let base = ChaCha8Rng::seed_from_u64(w.seed);
        let mut plan = Side::new(&mut base.clone(), &w).plan;
        let sends: Vec<Planned> = (0..w.sends).filter_map(|_| plan.next(&w)).collect();
        let stream = |skip: Option<usize>| -> Vec<(Vec<u8>, bool)> {
            let mut v = Vec::new();
            for (i, p) in sends.iter().enumerate() {
                if Some(i) != skip && p.len > 0 {
                    v.push((send_bytes(&base, p, 0, p.len), p.urgent));
                }
            }
            v
        };
        let check = |chunks: &[(Vec<u8>, bool)], nobufs: Option<usize>| {
            let mut side = Side::new(&mut base.clone(), &w);
            if let Some(i) = nobufs {
                assert!(side.stream.no_bufs(i, sends[i].len));
            }
            for (d, u) in chunks {
                // Arrive in pieces that do not follow the sends.
                for piece in d.chunks(777) {
                    side.stream.receive(&w, &base, piece, *u);
                }
            }
            let st = side.stream;
            (st.first_diff, st.urgent_differs, st.received, side.offered - st.nobufs_bytes)
        };
        let good = stream(None);
        let (diff, marks, got, want) = check(&good, None);
        assert_eq!((diff, marks, got), (None, false, want));

        let mut bad = good.clone();
        bad[3].0[5] ^= 1;
        let at = good[..3].iter().map(|c| c.0.len() as u64).sum::<u64>() + 5;
        assert_eq!(check(&bad, None).0, Some(at));

        let mut bad = good.clone();
        bad[2].1 = !bad[2].1;
        assert!(check(&bad, None).1);

        // A send refused with WSAENOBUFS is skipped; left in, its bytes are one too many.
        let big = sends.iter().position(|p| p.len > 100).expect("a send of some size");
        let (diff, _, got, want) = check(&stream(Some(big)), Some(big));
        assert_eq!((diff, got), (None, want));
        assert!(check(&stream(Some(big)), None).0.is_some());
        let mut extra = good.clone();
        extra.push((vec![1], false));
        assert_eq!(check(&extra, None).0, Some(want + sends[big].len as u64));
    }
}
