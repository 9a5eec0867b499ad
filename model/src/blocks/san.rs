//! Cycle model of the SAN port the sequencer drives: RDMA reads and writes that move 64-bit
//! beats, one per cycle, and answer after a latency.
//!
//! The port takes requests on `rq_*` (valid/ready) into a queue and serves them in order,
//! one beat per cycle, from the cycle a request is taken: a read moves the peer's bytes into
//! local memory, a write moves local bytes into the peer's memory. A request whose last beat
//! moves in cycle `t` is answered on `rs_*` in cycle `t + latency` (a zero-length request,
//! `latency` cycles after it is taken). Responses leave in order, one per cycle.
//!
//! Every output is registered (it depends on no input of the same cycle), so the port can be
//! joined to the sequencer, whose outputs are registered too, in either order.
//!
//! Optional extras, all seeded and deterministic:
//! - **memory**: sparse local and remote byte memories, so tests check the data moved;
//! - **remote regions**: the peer's registrations; a request that fails the SAN's checks (key,
//!   connection, access, bounds) moves nothing and is answered with the error;
//! - **faults**: random `m_axis_rq_tready` backpressure, error responses, duplicated responses and
//!   stray responses with random tags.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::ports::CycleModel;
use crate::status::fault;

crate::ports! {
    /// SAN port inputs: the sequencer's request stream and its response `ready`.
    pub struct SanIn {
        m_axis_rq_tvalid: bool = 1,
        m_axis_rq_tag: u16 = 16,
        m_axis_rq_write: bool = 1,
        m_axis_rq_conn: u8 = 8,
        m_axis_rq_raddr: u64 = 64,
        m_axis_rq_rkey: u32 = 32,
        m_axis_rq_laddr: u64 = 64,
        m_axis_rq_lkey: u32 = 32,
        m_axis_rq_len: u32 = 32,
        s_axis_rs_tready: bool = 1,
    }
}

crate::ports! {
    /// SAN port outputs.
    pub struct SanOut {
        m_axis_rq_tready: bool = 1,
        s_axis_rs_tvalid: bool = 1,
        s_axis_rs_tag: u16 = 16,
        s_axis_rs_status: u8 = 3,
    }
}

/// SAN port parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct SanConfig {
    /// Cycles from a request's last beat to its response (at least 1).
    pub latency: u32,
    /// Requests taken and not yet fully moved that the port holds.
    pub queue: usize,
    /// Probability that `m_axis_rq_tready` is high in a cycle where the queue has room.
    pub ready_rate: f64,
    /// No bandwidth limit: every request taken moves all its beats in the cycle it is
    /// taken (its response still comes `latency` cycles later, one response per cycle).
    pub unlimited: bool,
    /// Probability that a request fails with a random error (1..=6) after moving its beats.
    pub error_rate: f64,
    /// Probability that a response is sent twice.
    pub dup_rate: f64,
    /// Probability, per cycle, of a stray response with a random tag and status.
    pub stale_rate: f64,
    /// Keep local and remote memories and move the bytes.
    pub memory: bool,
    /// Keep every request taken, in order.
    pub record: bool,
    pub seed: u64,
}

impl SanConfig {
    /// An ideal port: always ready, no faults, `latency` cycles.
    pub fn ideal(latency: u32) -> Self {
        SanConfig {
            latency,
            queue: 64,
            ready_rate: 1.0,
            unlimited: false,
            error_rate: 0.0,
            dup_rate: 0.0,
            stale_rate: 0.0,
            memory: false,
            record: false,
            seed: 0,
        }
    }
}

/// A request as the port took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SanRequest {
    /// Cycle it was taken.
    pub cycle: u64,
    pub tag: u16,
    pub write: bool,
    pub conn: u8,
    pub raddr: u64,
    pub rkey: u32,
    pub laddr: u64,
    pub lkey: u32,
    pub len: u32,
    /// The status its response carries.
    pub status: u8,
}

/// A region of the peer's, for the SAN's checks on `rkey`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteRegion {
    pub conn: u8,
    pub addr: u64,
    pub len: u32,
    /// The peer may read it (RDMA read).
    pub read: bool,
    /// The peer may write it (RDMA write).
    pub write: bool,
}

/// What the port did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SanStats {
    pub requests: u64,
    pub read_requests: u64,
    pub write_requests: u64,
    pub responses: u64,
    /// Payload beats moved (8 bytes each, the last of a request possibly fewer).
    pub beats: u64,
    pub read_beats: u64,
    pub write_beats: u64,
    pub bytes: u64,
    /// Cycles in which the first and the latest beat moved.
    pub first_beat: Option<u64>,
    pub last_beat: Option<u64>,
    pub errors_injected: u64,
    pub dups_injected: u64,
    pub stale_injected: u64,
    pub refused: u64,
}

const PAGE: u64 = 4096;

/// A sparse byte memory in 4 KiB pages; unwritten bytes read as 0.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    pages: BTreeMap<u64, Box<[u8; PAGE as usize]>>,
}

impl Memory {
    pub fn read(&self, addr: u64, out: &mut [u8]) {
        for (k, b) in out.iter_mut().enumerate() {
            let a = addr.wrapping_add(k as u64);
            *b = self.pages.get(&(a / PAGE)).map_or(0, |p| p[(a % PAGE) as usize]);
        }
    }
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        for (k, b) in data.iter().enumerate() {
            let a = addr.wrapping_add(k as u64);
            self.pages.entry(a / PAGE).or_insert_with(|| Box::new([0; PAGE as usize]))
                [(a % PAGE) as usize] = *b;
        }
    }
    pub fn read_vec(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        self.read(addr, &mut v);
        v
    }
}

#[derive(Clone, Debug)]
struct Moving {
    req: SanRequest,
    /// Beats still to move.
    left: u32,
    /// Beats moved.
    done: u32,
}

/// The SAN port.
#[derive(Clone, Debug)]
pub struct SanModel {
    pub cfg: SanConfig,
    rng: ChaCha8Rng,
    /// Index of the current cycle.
    pub cycle: u64,
    queue: VecDeque<Moving>,
    due: VecDeque<(u64, u16, u8)>,
    m_axis_rq_tready: bool,
    rs: Option<(u16, u8)>,
    pub stats: SanStats,
    pub local: Memory,
    pub remote: Memory,
    /// The peer's regions by key; empty means every request passes.
    pub regions: BTreeMap<u32, RemoteRegion>,
    /// Requests taken (when `cfg.record`).
    pub log: Vec<SanRequest>,
    /// Requests, by their index in arrival order, answered with a transport error (after
    /// moving their beats).
    pub fail: BTreeSet<u64>,
}

impl SanModel {
    pub fn new(cfg: SanConfig) -> Self {
        assert!(cfg.latency >= 1 && cfg.queue >= 1, "SAN latency and queue must be positive");
        SanModel {
            rng: ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x5A11),
            cfg,
            cycle: 0,
            queue: VecDeque::new(),
            due: VecDeque::new(),
            m_axis_rq_tready: true,
            rs: None,
            stats: SanStats::default(),
            local: Memory::default(),
            remote: Memory::default(),
            regions: BTreeMap::new(),
            log: Vec::new(),
            fail: BTreeSet::new(),
        }
    }

    /// Nothing queued, moving or waiting to be answered.
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.due.is_empty() && self.rs.is_none()
    }

    /// The SAN's checks on the remote side of a request.
    fn check(&self, r: &SanRequest) -> u8 {
        if self.regions.is_empty() {
            return fault::OK;
        }
        let Some(g) = self.regions.get(&r.rkey) else { return fault::BAD_KEY };
        if g.conn != r.conn {
            return fault::CONNECTION;
        }
        if (r.write && !g.write) || (!r.write && !g.read) {
            return fault::ACCESS;
        }
        // In 65 bits: `base <= addr && addr + len <= base + rlen`, overflow-safe.
        let end = r.raddr as u128 + r.len as u128;
        if r.raddr < g.addr || end > g.addr as u128 + g.len as u128 {
            return fault::BOUNDS;
        }
        fault::OK
    }

    fn retire(&mut self, m: Moving) {
        let at = self.cycle + self.cfg.latency as u64;
        self.due.push_back((at, m.req.tag, m.req.status));
        if self.cfg.dup_rate > 0.0 && self.rng.gen_bool(self.cfg.dup_rate) {
            self.stats.dups_injected += 1;
            self.due.push_back((at, m.req.tag, m.req.status));
        }
    }

    fn move_beat(&mut self) {
        let Some(m) = self.queue.front_mut() else { return };
        let off = m.done as u64 * 8;
        let n = u64::min(8, m.req.len as u64 - off) as usize;
        if self.cfg.memory && m.req.status == fault::OK {
            let mut b = [0u8; 8];
            if m.req.write {
                self.local.read(m.req.laddr.wrapping_add(off), &mut b[..n]);
                self.remote.write(m.req.raddr.wrapping_add(off), &b[..n]);
            } else {
                self.remote.read(m.req.raddr.wrapping_add(off), &mut b[..n]);
                self.local.write(m.req.laddr.wrapping_add(off), &b[..n]);
            }
        }
        m.done += 1;
        m.left -= 1;
        let write = m.req.write;
        let s = &mut self.stats;
        s.beats += 1;
        s.bytes += n as u64;
        if write {
            s.write_beats += 1;
        } else {
            s.read_beats += 1;
        }
        s.first_beat.get_or_insert(self.cycle);
        s.last_beat = Some(self.cycle);
    }
}

impl CycleModel for SanModel {
    type In = SanIn;
    type Out = SanOut;

    fn outputs(&self, _i: &SanIn) -> SanOut {
        let (s_axis_rs_tag, s_axis_rs_status) = self.rs.unwrap_or((0, 0));
        SanOut {
            m_axis_rq_tready: self.m_axis_rq_tready,
            s_axis_rs_tvalid: self.rs.is_some(),
            s_axis_rs_tag,
            s_axis_rs_status,
        }
    }

    fn clock(&mut self, i: &SanIn) {
        if i.m_axis_rq_tvalid && self.m_axis_rq_tready {
            let mut req = SanRequest {
                cycle: self.cycle,
                tag: i.m_axis_rq_tag,
                write: i.m_axis_rq_write,
                conn: i.m_axis_rq_conn,
                raddr: i.m_axis_rq_raddr,
                rkey: i.m_axis_rq_rkey,
                laddr: i.m_axis_rq_laddr,
                lkey: i.m_axis_rq_lkey,
                len: i.m_axis_rq_len,
                status: 0,
            };
            req.status = self.check(&req);
            let mut left = req.len.div_ceil(8);
            if req.status != fault::OK {
                self.stats.refused += 1;
                left = 0; // nothing moves on a refused request
            } else if self.fail.contains(&self.stats.requests) {
                self.stats.errors_injected += 1;
                req.status = fault::TRANSPORT;
            } else if self.cfg.error_rate > 0.0 && self.rng.gen_bool(self.cfg.error_rate) {
                self.stats.errors_injected += 1;
                req.status = self.rng.gen_range(fault::BAD_KEY..=fault::FLUSHED);
            }
            let s = &mut self.stats;
            s.requests += 1;
            if req.write {
                s.write_requests += 1;
            } else {
                s.read_requests += 1;
            }
            if self.cfg.record {
                self.log.push(req);
            }
            self.queue.push_back(Moving { req, left, done: 0 });
        }
        // Requests with nothing (left) to move retire at once; then one beat moves.
        while self.queue.front().is_some_and(|m| m.left == 0) {
            let m = self.queue.pop_front().expect("checked");
            self.retire(m);
        }
        while self.cfg.unlimited && !self.queue.is_empty() {
            while self.queue.front().is_some_and(|m| m.left > 0) {
                self.move_beat();
            }
            let m = self.queue.pop_front().expect("checked");
            self.retire(m);
        }
        if !self.queue.is_empty() {
            self.move_beat();
            if self.queue.front().is_some_and(|m| m.left == 0) {
                let m = self.queue.pop_front().expect("checked");
                self.retire(m);
            }
        }
        if self.cfg.stale_rate > 0.0 && self.rng.gen_bool(self.cfg.stale_rate) {
            self.stats.stale_injected += 1;
            let (t, s) = (self.rng.r#gen(), self.rng.gen_range(0..8));
            self.due.push_back((self.cycle + 1, t, s));
        }
        // The response register: the next due response, once the current one is taken.
        if self.rs.is_none() || i.s_axis_rs_tready {
            if self.rs.is_some() {
                self.stats.responses += 1;
            }
            self.rs = None;
            if self.due.front().is_some_and(|d| d.0 <= self.cycle + 1) {
                let (_, t, s) = self.due.pop_front().expect("checked");
                self.rs = Some((t, s));
            }
        }
        self.m_axis_rq_tready = self.queue.len() < self.cfg.queue
            && (self.cfg.ready_rate >= 1.0 || self.rng.gen_bool(self.cfg.ready_rate));
        self.cycle += 1;
    }
}
