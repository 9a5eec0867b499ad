//! Stimulus for the sequencer: random commands (registrations, deregistrations, transfers in
//! both modes at the boundary sizes, aborts, bad descriptors and bad command codes), random
//! remote-access checks, random backpressure on every output, and the SAN port model
//! ([`SanModel`]) answering the RDMA requests with injected faults. Shared by the model's
//! tests, the rust-hdl and Verilator lockstep tests and the bench.
//!
//! Also here: [`measure`], the bench's figures (throughput and latencies with an ideal SAN
//! port), run on anything that steps like the sequencer (the model, the Verilated Verilog).

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::san::{SanConfig, SanIn, SanModel};
use super::sequencer::{SequencerIn, SequencerOut, access, cmd, rsp_status};
use crate::params::SequencerParams;
use crate::ports::CycleModel;

/// The SAN port's inputs, from what the sequencer shows.
pub fn san_inputs(o: &SequencerOut) -> SanIn {
    SanIn {
        m_axis_rq_tvalid: o.m_axis_rq_tvalid,
        m_axis_rq_tag: o.m_axis_rq_tag,
        m_axis_rq_write: o.m_axis_rq_write,
        m_axis_rq_conn: o.m_axis_rq_conn,
        m_axis_rq_raddr: o.m_axis_rq_raddr,
        m_axis_rq_rkey: o.m_axis_rq_rkey,
        m_axis_rq_laddr: o.m_axis_rq_laddr,
        m_axis_rq_lkey: o.m_axis_rq_lkey,
        m_axis_rq_len: o.m_axis_rq_len,
        s_axis_rs_tready: o.s_axis_rs_tready,
    }
}

/// A command, as the engine would issue it: the model's command record, with constructors
/// for each opcode and a way onto the port.
pub use super::sequencer::CmdRec as Command;

impl Command {
    pub fn register(conn: u8, acc: u8, addr: u64, len: u32) -> Self {
        Command { op: cmd::REGISTER, conn, access: acc, addr, len, ..Command::default() }
    }
    pub fn deregister(conn: u8, key: u32) -> Self {
        Command { op: cmd::DEREGISTER, conn, key, ..Command::default() }
    }
    /// START_READ (`write` false) or START_WRITE: move `len` bytes between the peer's region
    /// (`raddr`, `rkey`) and the local registration `lkey`.
    pub fn start(
        write: bool,
        conn: u8,
        xfer: u32,
        raddr: u64,
        rkey: u32,
        len: u32,
        lkey: u32,
    ) -> Self {
        Command {
            op: if write { cmd::START_WRITE } else { cmd::START_READ },
            conn,
            xfer,
            addr: raddr,
            key: rkey,
            len,
            lkey,
            ..Command::default()
        }
    }
    pub fn abort(conn: u8) -> Self {
        Command { op: cmd::ABORT, conn, ..Command::default() }
    }

    /// Put this command on the command port of `i` (valid high).
    pub fn drive(&self, i: &mut SequencerIn) {
        i.s_axis_cmd_tvalid = true;
        i.s_axis_cmd_op = self.op;
        i.s_axis_cmd_conn = self.conn;
        i.s_axis_cmd_access = self.access;
        i.s_axis_cmd_nomem = self.nomem;
        i.s_axis_cmd_xfer = self.xfer;
        i.s_axis_cmd_addr = self.addr;
        i.s_axis_cmd_key = self.key;
        i.s_axis_cmd_len = self.len;
        i.s_axis_cmd_lkey = self.lkey;
    }
}

/// A remote-access check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Check {
    pub conn: u8,
    pub key: u32,
    pub write: bool,
    /// The absolute address.
    pub addr: u64,
    pub len: u32,
}

impl Check {
    pub fn drive(&self, i: &mut SequencerIn) {
        i.s_axis_ac_tvalid = true;
        i.s_axis_ac_conn = self.conn;
        i.s_axis_ac_key = self.key;
        i.s_axis_ac_write = self.write;
        i.s_axis_ac_addr = self.addr;
        i.s_axis_ac_len = self.len;
    }
}

/// A registration the driver believes is live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Known {
    conn: u8,
    key: u32,
    access: u8,
    addr: u64,
    len: u32,
}

/// What the driver saw.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriverStats {
    pub commands: u64,
    /// Responses by `rsp_status`.
    pub responses: [u64; 8],
    /// Responses by command code.
    pub by_op: [u64; 8],
    /// Completions by `m_axis_cpl_status`.
    pub completions: [u64; 8],
    pub completions_read: u64,
    pub completions_write: u64,
    /// Completions of transfers of at least 1 MiB that succeeded.
    pub big_transfers: u64,
    pub big_reads: u64,
    pub big_writes: u64,
    /// STARTs of at least 1 MiB accepted (read mode, write mode).
    pub big_started: [u64; 2],
    /// Successful completions of 0, 1, segment − 1, segment and segment + 1 bytes.
    pub boundary_ok: [u64; 5],
    /// Checks answered, by `m_axis_ck_reason`.
    pub checks: [u64; 8],
    pub zero_length_ok: u64,
    pub resets: u64,
}

/// Random stimulus for the sequencer (see the module documentation).
pub struct SeqDriver {
    rng: ChaCha8Rng,
    /// Draws for the rarer choices added later (region bases near the top of the address
    /// space), kept apart so the main stream, and the coverage each seed gives, stay as they
    /// were.
    rare: ChaCha8Rng,
    p: SequencerParams,
    pub san: SanModel,
    cmd: Option<Command>,
    chk: Option<Check>,
    /// Commands taken, waiting for their response.
    taken: VecDeque<Command>,
    known: Vec<Known>,
    /// Probability per cycle that a new command is offered when none is waiting.
    pub cmd_rate: f64,
    /// Probability per cycle that a new check is offered when none is waiting.
    pub chk_rate: f64,
    /// Probability that `m_axis_rsp_tready`, `m_axis_cpl_tready` and `m_axis_ck_tready` are high.
    pub ready_rate: f64,
    /// Probability that a START moves 1 MiB.
    pub big_rate: f64,
    /// Probability that a command is malformed (bad connection, access, key, length, code).
    pub bad_rate: f64,
    /// Share of commands that are ABORTs (never of connection 0, which carries the 1 MiB
    /// transfers so that they can finish).
    pub abort_rate: f64,
    /// Probability per cycle of a synchronous reset (the driver forgets what it knew; the
    /// SAN port keeps running, so answers to requests from before arrive after it).
    pub reset_rate: f64,
    /// Transfer ids of the 1 MiB transfers running (one at a time).
    big: Vec<u32>,
    pub stats: DriverStats,
}

/// 1 MiB.
pub const MIB: u32 = 1 << 20;

impl SeqDriver {
    /// A driver with a faulty, backpressuring SAN port.
    pub fn new(seed: u64, p: SequencerParams) -> Self {
        let san = SanModel::new(SanConfig {
            latency: p.san_latency,
            queue: 8,
            ready_rate: 0.8,
            unlimited: false,
            error_rate: 0.004,
            dup_rate: 0.005,
            stale_rate: 0.001,
            memory: false,
            record: false,
            seed,
        });
        SeqDriver {
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5E9),
            rare: ChaCha8Rng::seed_from_u64(seed ^ 0x7A2E),
            p,
            san,
            cmd: None,
            chk: None,
            taken: VecDeque::new(),
            known: Vec::new(),
            cmd_rate: 0.05,
            chk_rate: 0.3,
            ready_rate: 0.8,
            big_rate: 0.05,
            bad_rate: 0.1,
            abort_rate: 0.01,
            reset_rate: 0.0,
            big: Vec::new(),
            stats: DriverStats::default(),
        }
    }

    fn conn(&mut self) -> u8 {
        if self.rng.gen_bool(self.bad_rate / 4.0) {
            self.rng.gen_range(self.p.connections.min(255) as u8..=255)
        } else {
            self.rng.gen_range(0..self.p.connections) as u8
        }
    }

    /// A length from the boundaries: 0, 1, segment − 1, segment, segment + 1, 1 MiB, or small.
    fn size(&mut self) -> u32 {
        let s = self.p.segment;
        if self.big.is_empty() && self.rng.gen_bool(self.big_rate) {
            return MIB;
        }
        match self.rng.gen_range(0..8) {
            0 => 0,
            1 => 1,
            2 => s - 1,
            3 => s,
            4 => s + 1,
            5 => self.rng.gen_range(2..4 * s),
            6 => self.rng.gen_range(1..=64),
            _ => self.rng.gen_range(s..=3 * s),
        }
    }

    fn pick_known(&mut self, want: Option<u8>) -> Option<Known> {
        let c: Vec<&Known> =
            self.known.iter().filter(|k| want.is_none_or(|a| k.access == a)).collect();
        if c.is_empty() { None } else { Some(*c[self.rng.gen_range(0..c.len())]) }
    }

    fn new_command(&mut self) -> Command {
        let bad = self.rng.gen_bool(self.bad_rate);
        let r: u32 = self.rng.gen_range(0..100);
        if self.rng.gen_bool(self.abort_rate) {
            let conn = if self.p.connections > 1 { self.conn().max(1) } else { 0 };
            return Command::abort(conn);
        }
        let mut c = if r < 30 || self.known.is_empty() {
            let acc = match self.rng.gen_range(0..10) {
                0..=4 => access::LOCAL,
                5..=7 => access::REMOTE_READ,
                _ => access::REMOTE_WRITE,
            };
            let big = self.rng.gen_bool(self.big_rate);
            let len = if big { MIB } else { self.size() };
            let conn = if big || len >= MIB { 0 } else { self.conn() };
            // Some regions end at or near the top of the address space, so that checks
            // whose `addr + len` passes 2^64 meet them (the bounds are exact, not modular).
            let base = self.rng.r#gen();
            let base = if self.rare.gen_bool(0.1) {
                u64::MAX - len as u64 - self.rare.gen_range(0..=1)
            } else {
                base
            };
            let mut c = Command::register(conn, acc, base, len);
            c.nomem = self.rng.gen_bool(0.04);
            if bad {
                c.access = 3;
            }
            c
        } else if r < 50 {
            match self.pick_known(None) {
                Some(k) if !bad => Command::deregister(k.conn, k.key),
                Some(k) if self.rng.r#gen() => Command::deregister(self.conn(), k.key),
                _ => Command::deregister(self.conn(), self.rng.r#gen()),
            }
        } else if r < 98 {
            let mut write = self.rng.r#gen();
            let k = self.pick_known(Some(access::LOCAL));
            let (conn, lkey, room) = match k {
                Some(k) => (k.conn, k.key, k.len),
                None => (self.conn(), self.rng.r#gen(), 0),
            };
            let want = self.size();
            let mut len = if want <= room { want } else { room.min(4 * self.p.segment) };
            let mut conn = conn;
            let mut lkey = lkey;
            if bad {
                match self.rng.gen_range(0..3) {
                    0 => len = room.wrapping_add(1),
                    1 => conn = self.conn(),
                    _ => lkey = self.rng.r#gen(),
                }
            }
            if len >= MIB {
                // The mode with fewer 1 MiB STARTs accepted goes next, so a run with a few
                // of them has both modes whatever the timing and the faults.
                write = self.stats.big_started[1] < self.stats.big_started[0];
            }
            Command::start(
                write,
                conn,
                self.rng.r#gen(),
                self.rng.r#gen(),
                self.rng.r#gen(),
                len,
                lkey,
            )
        } else {
            Command { op: self.rng.gen_range(5..8), conn: self.conn(), ..Command::default() }
        };
        if !bad && c.op == cmd::REGISTER && c.conn as u16 >= self.p.connections {
            c.conn = 0;
        }
        c
    }

    fn new_check(&mut self) -> Check {
        let k = self.pick_known(None);
        match k {
            Some(k) if self.rng.gen_bool(0.8) => {
                let conn = if self.rng.gen_bool(0.9) { k.conn } else { self.conn() };
                let write = match k.access {
                    access::REMOTE_READ => self.rng.gen_bool(0.1),
                    access::REMOTE_WRITE => self.rng.gen_bool(0.9),
                    _ => self.rng.r#gen(),
                };
                let (addr, len) = match self.rng.gen_range(0..10) {
                    0..=6 => {
                        let off = self.rng.gen_range(0..=k.len);
                        (k.addr.wrapping_add(off as u64), self.rng.gen_range(0..=k.len - off))
                    }
                    // At the base or one below, at the end or one past.
                    7 => {
                        (k.addr.wrapping_sub(self.rng.gen_range(0..=1)), self.rng.gen_range(0..=1))
                    }
                    8 => {
                        let len = self.rng.gen_range(0..=k.len);
                        let extra = self.rng.gen_range(0..=1);
                        (k.addr.wrapping_add((k.len - len) as u64), len + extra)
                    }
                    _ => (self.rng.r#gen(), self.rng.r#gen()),
                };
                Check { conn, key: k.key, write, addr, len }
            }
            _ => Check {
                conn: self.conn(),
                key: self.rng.r#gen(),
                write: self.rng.r#gen(),
                addr: self.rng.r#gen(),
                len: self.rng.r#gen(),
            },
        }
    }

    /// Inputs for the coming cycle.
    pub fn inputs(&mut self) -> SequencerIn {
        if self.cmd.is_none() && self.rng.gen_bool(self.cmd_rate) {
            self.cmd = Some(self.new_command());
        }
        if self.chk.is_none() && self.rng.gen_bool(self.chk_rate) {
            self.chk = Some(self.new_check());
        }
        let s = self.san.outputs(&SanIn::default());
        // Idle ports carry garbage: the block must look only at valid beats.
        let mut i = SequencerIn {
            reset: false,
            s_axis_cmd_tvalid: false,
            s_axis_cmd_op: self.rng.gen_range(0..8),
            s_axis_cmd_conn: self.rng.r#gen(),
            s_axis_cmd_access: self.rng.gen_range(0..4),
            s_axis_cmd_nomem: self.rng.r#gen(),
            s_axis_cmd_xfer: self.rng.r#gen(),
            s_axis_cmd_addr: self.rng.r#gen(),
            s_axis_cmd_key: self.rng.r#gen(),
            s_axis_cmd_len: self.rng.r#gen(),
            s_axis_cmd_lkey: self.rng.r#gen(),
            m_axis_rsp_tready: self.rng.gen_bool(self.ready_rate),
            m_axis_cpl_tready: self.rng.gen_bool(self.ready_rate),
            m_axis_rq_tready: s.m_axis_rq_tready,
            s_axis_rs_tvalid: s.s_axis_rs_tvalid,
            s_axis_rs_tag: s.s_axis_rs_tag,
            s_axis_rs_status: s.s_axis_rs_status,
            s_axis_ac_tvalid: false,
            s_axis_ac_conn: self.rng.r#gen(),
            s_axis_ac_key: self.rng.r#gen(),
            s_axis_ac_write: self.rng.r#gen(),
            s_axis_ac_addr: self.rng.r#gen(),
            s_axis_ac_len: self.rng.r#gen(),
            m_axis_ck_tready: self.rng.gen_bool(self.ready_rate),
            // Every counter is read, and indexes past the last.
            cnt_rd_index: self.rng.gen_range(0..32),
        };
        if let Some(c) = self.cmd {
            c.drive(&mut i);
        }
        if let Some(c) = self.chk {
            c.drive(&mut i);
        }
        i.reset = self.reset_rate > 0.0 && self.rng.gen_bool(self.reset_rate);
        i
    }

    /// After the edge: what the block showed during the cycle.
    pub fn observe(&mut self, i: &SequencerIn, o: &SequencerOut) {
        if i.reset {
            // Nothing was taken or delivered; everything the block held is gone.
            self.stats.resets += 1;
            self.cmd = None;
            self.chk = None;
            self.taken.clear();
            self.known.clear();
            self.big.clear();
            self.san.clock(&san_inputs(o));
            return;
        }
        if i.s_axis_cmd_tvalid && o.s_axis_cmd_tready {
            let c = self.cmd.take().expect("a command was offered");
            self.taken.push_back(c);
            self.stats.commands += 1;
        }
        if i.s_axis_ac_tvalid && o.s_axis_ac_tready {
            self.chk = None;
        }
        if o.m_axis_rsp_tvalid && i.m_axis_rsp_tready {
            let c = self.taken.pop_front().unwrap_or_default();
            self.stats.responses[o.m_axis_rsp_status as usize & 7] += 1;
            self.stats.by_op[o.m_axis_rsp_op as usize & 7] += 1;
            if o.m_axis_rsp_status == rsp_status::OK {
                if cmd::is_start(c.op) && c.len >= MIB {
                    self.big.push(c.xfer);
                    self.stats.big_started[(c.op == cmd::START_WRITE) as usize] += 1;
                }
                match o.m_axis_rsp_op {
                    cmd::REGISTER => self.known.push(Known {
                        conn: o.m_axis_rsp_conn,
                        key: o.m_axis_rsp_key,
                        access: c.access,
                        addr: c.addr,
                        len: o.m_axis_rsp_len,
                    }),
                    cmd::DEREGISTER => self.known.retain(|k| k.key != o.m_axis_rsp_key),
                    cmd::ABORT => self.known.retain(|k| k.conn != o.m_axis_rsp_conn),
                    _ => {}
                }
            }
        }
        if o.m_axis_cpl_tvalid && i.m_axis_cpl_tready {
            self.stats.completions[o.m_axis_cpl_status as usize & 7] += 1;
            if o.m_axis_cpl_write {
                self.stats.completions_write += 1;
            } else {
                self.stats.completions_read += 1;
            }
            if o.m_axis_cpl_status == 0 && o.m_axis_cpl_bytes >= MIB {
                self.stats.big_transfers += 1;
                if o.m_axis_cpl_write {
                    self.stats.big_writes += 1;
                } else {
                    self.stats.big_reads += 1;
                }
            }
            let seg = self.p.segment;
            if o.m_axis_cpl_status == 0 {
                let sizes = [0, 1, seg - 1, seg, seg + 1];
                if let Some(k) = sizes.iter().position(|s| *s == o.m_axis_cpl_bytes) {
                    self.stats.boundary_ok[k] += 1;
                }
            }
            if let Some(k) =
                self.big.iter().position(|x| *x == o.m_axis_cpl_xfer && o.m_axis_cpl_conn == 0)
            {
                self.big.remove(k);
            }
            if o.m_axis_cpl_status == 0 && o.m_axis_cpl_bytes == 0 {
                self.stats.zero_length_ok += 1;
            }
        }
        if o.m_axis_ck_tvalid && i.m_axis_ck_tready {
            self.stats.checks[o.m_axis_ck_reason as usize & 7] += 1;
        }
        self.san.clock(&san_inputs(o));
    }
}

// ------------------------------------------------------------------------------------------
// The bench's figures.

/// The sequencer's bench figures, in cycles, exact. Each says where it starts and ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SequencerFigures {
    /// 1 MiB read-mode transfer through the **ideal SAN model** (one beat per cycle, latency
    /// `san_latency`): payload beats per cycle from the cycle the START_READ is taken to the
    /// cycle its completion request is valid, both included. Bounded by the SAN model's pace
    /// ([`SequencerFigures::san_beats_per_cycle`]), not by the sequencer.
    pub read_beats_per_cycle: f64,
    /// The same for a 1 MiB write-mode transfer (START_WRITE).
    pub write_beats_per_cycle: f64,
    /// Read mode as the receiver runs it, from the advertisement's arrival: cycles from the
    /// one in which the REGISTER of the landing region is offered to the first with
    /// `m_axis_rq_tvalid` (the first RDMA read). The engine offers START_READ in the cycle
    /// the REGISTER's response is valid, with its key (the response is registered).
    pub adv_to_read_cycles: u64,
    /// Cycles from the one whose edge takes START_READ to the first with `m_axis_rq_tvalid`.
    pub start_to_read_cycles: u64,
    /// Cycles from the one presenting a transfer's last RDMA response to the first with
    /// `m_axis_cpl_tvalid` (the larger of the read and the write transfer).
    pub done_to_complete_cycles: u64,
    /// The sequencer's own issue rate: RDMA requests per cycle of a 1 MiB read-mode transfer
    /// through a SAN model **without bandwidth limit** (a request's beats all move the cycle
    /// it is taken; latency `san_latency`), from the cycle START_READ is taken to the cycle
    /// its completion request is valid. Bounded by one request every two cycles and by the
    /// window (`window` requests per round trip).
    pub issue_requests_per_cycle: f64,
    /// The ideal SAN model's own pace: beats per cycle from its first beat of the read-mode
    /// transfer to its last.
    pub san_beats_per_cycle: f64,
    /// Cycles of the read and the write transfer (START taken to completion request).
    pub read_cycles: u64,
    pub write_cycles: u64,
    /// Payload beats of each transfer.
    pub beats: u64,
    /// RDMA requests of the transfer through the unlimited SAN model, and its cycles.
    pub issue_requests: u64,
    pub issue_cycles: u64,
}

/// One transfer's timing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransferTiming {
    pub start_taken: u64,
    pub first_request: u64,
    pub last_response: u64,
    pub completion: u64,
    pub beats: u64,
    pub requests: u64,
    pub status: u8,
    pub bytes: u32,
}

/// One cycle of a block: its inputs in; its outputs during this cycle and its outputs during
/// the next (every output is registered, so they are known after the edge).
pub type Step<'a> = &'a mut dyn FnMut(&SequencerIn) -> (SequencerOut, SequencerOut);

/// Drives one block (anything stepping like the sequencer) joined to a SAN port model.
pub struct Bench<'a> {
    pub step: Step<'a>,
    pub san: SanModel,
    pub cycle: u64,
    /// The block's outputs during the coming cycle.
    pub next: SequencerOut,
}

fn ready_in() -> SequencerIn {
    SequencerIn { m_axis_rsp_tready: true, m_axis_cpl_tready: true, ..SequencerIn::default() }
}

impl Bench<'_> {
    pub fn new<'a>(step: Step<'a>, san: SanConfig) -> Bench<'a> {
        Bench { step, san: SanModel::new(san), cycle: 0, next: SequencerOut::default() }
    }

    /// One cycle with `i` (plus the SAN's outputs); returns the block's outputs.
    pub fn cycle(&mut self, mut i: SequencerIn) -> SequencerOut {
        let s = self.san.outputs(&SanIn::default());
        i.m_axis_rq_tready = s.m_axis_rq_tready;
        i.s_axis_rs_tvalid = s.s_axis_rs_tvalid;
        i.s_axis_rs_tag = s.s_axis_rs_tag;
        i.s_axis_rs_status = s.s_axis_rs_status;
        let (o, next) = (self.step)(&i);
        self.san.clock(&san_inputs(&o));
        self.cycle += 1;
        self.next = next;
        o
    }

    pub fn reset(&mut self) {
        self.cycle(SequencerIn { reset: true, ..SequencerIn::default() });
    }

    /// Offer `c` until taken, then run until its response is valid in the coming cycle (the
    /// cycle in which the caller may offer the next command). Returns (cycle taken,
    /// response); fails unless the status is OK.
    pub fn command(&mut self, c: Command) -> Result<(u64, SequencerOut), String> {
        let mut taken = None;
        for _ in 0..10_000 {
            if let (Some(t), true) = (taken, self.next.m_axis_rsp_tvalid) {
                let o = self.next;
                if o.m_axis_rsp_status != rsp_status::OK {
                    return Err(format!("command {c:?} refused: {o:?}"));
                }
                return Ok((t, o));
            }
            let mut i = ready_in();
            if taken.is_none() {
                c.drive(&mut i);
            }
            let now = self.cycle;
            let o = self.cycle(i);
            if taken.is_none() && o.s_axis_cmd_tready {
                taken = Some(now);
            }
        }
        Err(format!("command {c:?} not answered"))
    }

    /// Start a transfer and run until its completion request; times it. Fails unless every
    /// request succeeded and the whole length moved.
    pub fn transfer(&mut self, c: Command) -> Result<TransferTiming, String> {
        let beats0 = self.san.stats.beats;
        let requests0 = self.san.stats.requests;
        let (start_taken, _) = self.command(c)?;
        let mut first_request = None;
        let mut last_response = 0;
        for _ in 0..(c.len as u64 / 4 + 100_000) {
            let now = self.cycle;
            let rs_now = self.san.outputs(&SanIn::default()).s_axis_rs_tvalid;
            let o = self.cycle(ready_in());
            if rs_now {
                last_response = now;
            }
            if o.m_axis_rq_tvalid && first_request.is_none() {
                first_request = Some(now);
            }
            if o.m_axis_cpl_tvalid {
                let t = TransferTiming {
                    start_taken,
                    first_request: first_request.unwrap_or(now),
                    last_response,
                    completion: now,
                    beats: self.san.stats.beats - beats0,
                    requests: self.san.stats.requests - requests0,
                    status: o.m_axis_cpl_status,
                    bytes: o.m_axis_cpl_bytes,
                };
                let s = &self.san.stats;
                if t.status != 0 || t.bytes != c.len || t.beats != c.len.div_ceil(8) as u64 {
                    return Err(format!("transfer {c:?} went wrong: {t:?}"));
                }
                if s.refused != 0 || s.errors_injected != 0 {
                    return Err(format!("the SAN model refused or failed a request: {s:?}"));
                }
                return Ok(t);
            }
        }
        Err("transfer did not complete".into())
    }
}

/// Measure the figures on a block stepped by `step`, with parameters `p`: a 1 MiB transfer
/// in read mode (with the landing region's registration before it), then one in write mode,
/// through the ideal SAN model; then a 1 MiB read through a SAN model without bandwidth
/// limit. Every command's status and every transfer's outcome is checked.
pub fn measure(step: Step<'_>, p: &SequencerParams) -> Result<SequencerFigures, String> {
    let ideal = SanConfig::ideal(p.san_latency);
    let unlimited = SanConfig { unlimited: true, ..SanConfig::ideal(p.san_latency) };
    let mut b = Bench::new(step, ideal);
    b.reset();
    // Read mode, the receiver: the advertisement has arrived.
    let adv = b.cycle;
    let (_, o) = b.command(Command::register(1, access::LOCAL, 0x1_0000_0000, MIB))?;
    let lkey = o.m_axis_rsp_key;
    let rd = b.transfer(Command::start(false, 1, 0x77, 0x2_0000_0000, 0x1234, MIB, lkey))?;
    let san = b.san.stats;
    let san_cycles = san.last_beat.unwrap_or(0) - san.first_beat.unwrap_or(0) + 1;
    let wr = b.transfer(Command::start(true, 1, 0x78, 0x3_0000_0000, 0x5678, MIB, lkey))?;
    b.command(Command::deregister(1, lkey))?;
    let cycles = |t: &TransferTiming| t.completion - t.start_taken + 1;
    let step = b.step;
    let mut u = Bench::new(step, unlimited);
    u.reset();
    let (_, o) = u.command(Command::register(1, access::LOCAL, 0x1_0000_0000, MIB))?;
    let lkey = o.m_axis_rsp_key;
    let fast = u.transfer(Command::start(false, 1, 0x79, 0x2_0000_0000, 0x1234, MIB, lkey))?;
    Ok(SequencerFigures {
        read_beats_per_cycle: rd.beats as f64 / cycles(&rd) as f64,
        write_beats_per_cycle: wr.beats as f64 / cycles(&wr) as f64,
        adv_to_read_cycles: rd.first_request - adv,
        start_to_read_cycles: rd.first_request - rd.start_taken,
        done_to_complete_cycles: u64::max(
            rd.completion - rd.last_response,
            wr.completion - wr.last_response,
        ),
        issue_requests_per_cycle: fast.requests as f64 / cycles(&fast) as f64,
        san_beats_per_cycle: rd.beats as f64 / san_cycles as f64,
        read_cycles: cycles(&rd),
        write_cycles: cycles(&wr),
        beats: rd.beats,
        issue_requests: fast.requests,
        issue_cycles: cycles(&fast),
    })
}

/// [`measure`] on the cycle model.
pub fn model_figures(p: &SequencerParams) -> Result<SequencerFigures, String> {
    let mut m = super::sequencer::SequencerModel::new(*p);
    let mut step = |i: &SequencerIn| {
        let o = m.outputs(i);
        m.clock(i);
        (o, m.outputs(&SequencerIn::default()))
    };
    measure(&mut step, p)
}

impl crate::ports::Stimulus<SequencerIn, SequencerOut> for SeqDriver {
    fn next(&mut self) -> SequencerIn {
        self.inputs()
    }
    fn observe(&mut self, i: &SequencerIn, o: &SequencerOut) {
        SeqDriver::observe(self, i, o)
    }
}
