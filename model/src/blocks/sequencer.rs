//! Cycle-accurate model of the RDMA read/write sequencer (`hdl/src/sequencer/`).
//!
//! The sequencer is the large-send half of the session protocol in hardware. It keeps
//!
//! - a **registration table** (`reg_entries` entries): regions registered for local use, for
//!   the peer's RDMA read or for the peer's RDMA write, each on one connection, each with a
//!   key that is never reused while the block runs;
//! - an **op table** (`ops` entries): transfers in progress. A transfer is the receiver's side
//!   of read mode (`START_READ`: pull the peer's source with RDMA reads) or the sender's side
//!   of write mode (`START_WRITE`: push into the peer's sink with RDMA writes). Each moves in
//!   requests of at most `segment` bytes, at most `window` outstanding, and ends with one
//!   **completion request** toward the message builder (ReadComplete / WriteComplete, or on
//!   failure SendByCopy / WriteComplete{bytes 0}).
//!
//! and answers the peer's **remote-access checks** (the SAN target side): key valid and of
//! this connection, access right, the absolute address range within the region.
//!
//! # Ports
//! Record channels (AXI4-Stream handshake, one port per field, `docs/HARDWARE.md`
//! "Conventions"):
//! - `s_axis_cmd_*` (in): commands from the engine, one response each on `m_axis_rsp_*`.
//! - `m_axis_cpl_*` (out): completion requests, one per started transfer.
//! - `m_axis_rq_*` (out): RDMA requests to the SAN port.
//! - `s_axis_rs_*` (in): RDMA responses from the SAN port; `s_axis_rs_tready` is constant 1
//!   (the sequencer always takes a response: the SAN port needs no buffer for them).
//! - `s_axis_ac_*` (in) and `m_axis_ck_*` (out): remote-access checks.
//! - `cnt_rd_index` (in) / `cnt_rd_data` (out): the counter bank's read port ([`cnt`]).
//!
//! Every output is a function of the registers alone: nothing depends combinationally on
//! this cycle's inputs, so a `ready` input never reaches a `valid` or `ready` output in the
//! same cycle. All but `cpl_*` come straight from a register; `cpl_*` passes the lowest done
//! op's request through while the completion's holding register is empty.
//!
//! # Timing (cycle `t` is between edges `t` and `t + 1`)
//! - A command taken in cycle `t` (VERDICT in `t + 1`, APPLY in `t + 2`) has its response on
//!   `rsp_*` from cycle `t + 3`; `s_axis_cmd_tready` is high again in cycle `t + 3`.
//! - A `START_*` taken in cycle `t` has its first RDMA request on `rq_*` in cycle `t + 4`
//!   (an op is picked one cycle, issued the next: at most one request every two cycles).
//! - A response that ends a transfer, presented in cycle `t`, gives its completion request
//!   on `cpl_*` in cycle `t + 2`.
//! - A check taken in cycle `t` has its answer on `ck_*` in cycle `t + 2`.
//!
//! The model mirrors the hardware's registers one for one: [`SequencerModel::clock`] computes
//! every register's next value from the current registers and inputs.

use super::widgets::{CounterBank, Skid};
use crate::params::{CNT_INDEX_BITS, SequencerParams};
use crate::ports::CycleModel;

crate::ports! {
    /// Sequencer inputs.
    pub struct SequencerIn {
        /// Synchronous reset: clears every register, counters included (not the table RAMs'
        /// contents, which nothing reads without a valid entry).
        reset: bool = 1,
        s_axis_cmd_tvalid: bool = 1,
        /// [`cmd`]: REGISTER, DEREGISTER, START_READ, START_WRITE or ABORT.
        s_axis_cmd_op: u8 = 3,
        s_axis_cmd_conn: u8 = 8,
        /// REGISTER: [`access`] (local, remote read, remote write).
        s_axis_cmd_access: u8 = 2,
        /// REGISTER: the temporary allocation behind it failed (answered NOMEM).
        s_axis_cmd_nomem: bool = 1,
        /// START: the transfer id (the LargeSend's `mseq`), echoed on the completion.
        s_axis_cmd_xfer: u32 = 32,
        /// REGISTER: the region's address; START: the peer's region address.
        s_axis_cmd_addr: u64 = 64,
        /// DEREGISTER: the key to release; START: the peer's key.
        s_axis_cmd_key: u32 = 32,
        /// REGISTER: the region's length; START: the bytes to move.
        s_axis_cmd_len: u32 = 32,
        /// START: the key of the local region (registered for local access).
        s_axis_cmd_lkey: u32 = 32,
        m_axis_rsp_tready: bool = 1,
        m_axis_cpl_tready: bool = 1,
        m_axis_rq_tready: bool = 1,
        /// RDMA response (the sequencer always takes it).
        s_axis_rs_tvalid: bool = 1,
        /// The request's tag: slot `[3:0]`, generation `[7:4]`, segment number `[15:8]`.
        s_axis_rs_tag: u16 = 16,
        /// 0 ok, else a [`fault`] code 1..=6 (7 counts as a transport error).
        s_axis_rs_status: u8 = 3,
        /// Remote-access check from the peer.
        s_axis_ac_tvalid: bool = 1,
        s_axis_ac_conn: u8 = 8,
        s_axis_ac_key: u32 = 32,
        /// 1: the peer writes; 0: it reads.
        s_axis_ac_write: bool = 1,
        /// The absolute address the peer's operation starts at (as its RDMA request carries it).
        s_axis_ac_addr: u64 = 64,
        s_axis_ac_len: u32 = 32,
        m_axis_ck_tready: bool = 1,
        /// Counter bank: the counter to read ([`cnt`]).
        cnt_rd_index: u8 = CNT_INDEX_BITS,
    }
}

crate::ports! {
    /// Sequencer outputs.
    pub struct SequencerOut {
        s_axis_cmd_tready: bool = 1,
        m_axis_rsp_tvalid: bool = 1,
        /// The command answered.
        m_axis_rsp_op: u8 = 3,
        m_axis_rsp_conn: u8 = 8,
        /// [`rsp_status`].
        m_axis_rsp_status: u8 = 3,
        /// REGISTER: the new key; DEREGISTER: the key; START: the op slot; else 0.
        m_axis_rsp_key: u32 = 32,
        /// DEREGISTER: the released region's length (0 when refused); else `s_axis_cmd_len`.
        m_axis_rsp_len: u32 = 32,
        m_axis_cpl_tvalid: bool = 1,
        m_axis_cpl_conn: u8 = 8,
        m_axis_cpl_xfer: u32 = 32,
        /// Bytes moved: the whole length on success, 0 otherwise.
        m_axis_cpl_bytes: u32 = 32,
        /// 1: write mode (WriteComplete); 0: read mode (ReadComplete, or SendByCopy on failure).
        m_axis_cpl_write: bool = 1,
        /// [`fault`]: 0 ok, else the transfer's first error, or ABORTED.
        m_axis_cpl_status: u8 = 3,
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
        s_axis_ac_tready: bool = 1,
        m_axis_ck_tvalid: bool = 1,
        m_axis_ck_grant: bool = 1,
        /// [`fault`]: 0 grant, else BAD_KEY, CONNECTION, ACCESS or BOUNDS (first failing).
        m_axis_ck_reason: u8 = 3,
        /// Counter bank: the counter named by `cnt_rd_index` the cycle before ([`cnt`]).
        cnt_rd_data: u32 = 32,
    }
}

/// Command codes (`s_axis_cmd_op`).
pub mod cmd {
    pub const REGISTER: u8 = 0;
    pub const DEREGISTER: u8 = 1;
    pub const START_READ: u8 = 2;
    pub const START_WRITE: u8 = 3;
    pub const ABORT: u8 = 4;

    /// The command starts a transfer (either mode).
    pub fn is_start(op: u8) -> bool {
        op == START_READ || op == START_WRITE
    }
}

/// Registration access (`s_axis_cmd_access`).
pub mod access {
    /// Local use: the target of an RDMA read or the source of an RDMA write.
    pub const LOCAL: u8 = 0;
    /// The peer may RDMA-read it.
    pub const REMOTE_READ: u8 = 1;
    /// The peer may RDMA-write it.
    pub const REMOTE_WRITE: u8 = 2;
}

/// Command response statuses (`rsp_status`).
pub mod rsp_status {
    pub const OK: u8 = 0;
    /// The registration table is full (WSAENOBUFS).
    pub const NOBUFS: u8 = 1;
    /// The temporary allocation failed (`s_axis_cmd_nomem`; WSAENOBUFS).
    pub const NOMEM: u8 = 2;
    /// DEREGISTER of a key that is not a live registration of that connection.
    pub const STALE: u8 = 3;
    /// A connection out of range, an invalid access, or a START whose local key is not a
    /// live local registration of that connection at least `s_axis_cmd_len` long.
    pub const BADDESC: u8 = 4;
    /// START with every op slot taken, or DEREGISTER of a region a transfer is using.
    pub const BUSY: u8 = 5;
    /// An unknown command code.
    pub const BADCMD: u8 = 6;
}

/// Completion statuses (`m_axis_cpl_status`), check verdicts (`m_axis_ck_reason`) and RDMA response
/// statuses (`s_axis_rs_status`) are the shared [`RdmaFault`](crate::status::RdmaFault) codes.
pub use crate::status::fault;

/// RDMA tags: slot `[3:0]`, generation `[7:4]`, segment number `[15:8]`.
pub mod tag {
    pub fn make(slot: u8, generation: u8, seq: u8) -> u16 {
        (slot as u16 & 0xF) | ((generation as u16 & 0xF) << 4) | ((seq as u16) << 8)
    }
    pub fn slot(t: u16) -> u8 {
        (t & 0xF) as u8
    }
    pub fn generation(t: u16) -> u8 {
        ((t >> 4) & 0xF) as u8
    }
    pub fn seq(t: u16) -> u8 {
        (t >> 8) as u8
    }
}

/// Command FSM states.
pub mod cst {
    pub const IDLE: u8 = 0;
    pub const VERDICT: u8 = 1;
    pub const APPLY: u8 = 2;
}

/// Op states.
pub mod ost {
    pub const FREE: u8 = 0;
    pub const RUN: u8 = 1;
    /// Finished: the completion request is due.
    pub const DONE: u8 = 2;
}

/// Counter indices (`cnt_rd_index`), grouped by the unit that counts them: each unit's
/// counters are one lane ([`SeqCounters`]), because units count in the same cycle.
pub mod cnt {
    /// REGISTER answered NOBUFS or NOMEM (WSAENOBUFS). Command unit, as are 1 to 3.
    pub const NOBUFS: usize = 0;
    /// DEREGISTER of a key that is not a live registration of that connection.
    pub const DEREG_STALE: usize = 1;
    /// Commands refused as BADDESC or BADCMD.
    pub const BAD_DESC: usize = 2;
    /// Commands refused as BUSY.
    pub const BUSY: usize = 3;
    /// RDMA error responses that failed a transfer. Response unit, as are 5 and 6.
    pub const RDMA_ERR: usize = 4;
    /// Responses for no running transfer (dropped).
    pub const STALE: usize = 5;
    /// Responses for a running transfer but no request of it in flight (dropped).
    pub const DUP: usize = 6;
    /// Transfers completed as aborted. Completion unit.
    pub const ABORTED: usize = 7;
    /// Checks denied: bad key. Check unit, as are 9 to 11.
    pub const DENY_KEY: usize = 8;
    pub const DENY_CONN: usize = 9;
    pub const DENY_ACCESS: usize = 10;
    pub const DENY_BOUNDS: usize = 11;
    pub const COUNT: usize = 12;
    /// The lanes: first counter and number of counters of each unit (command, response,
    /// completion, check).
    pub const LANES: [(usize, usize); 4] = [(0, 4), (4, 3), (7, 1), (8, 4)];
}

/// The sequencer's counters: one [`CounterBank`] per lane (a unit counts at most one event a
/// cycle, but units count in the same cycle), read through one port: `cnt_rd_index` during
/// cycle `t` selects during `t + 1` the bank's registered read data (selected by the index
/// registered at edge `t + 1`), so the read port behaves as one bank's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqCounters {
    pub banks: [CounterBank; 4],
    /// The registered read index.
    pub rd_sel: u8,
}

impl Default for SeqCounters {
    fn default() -> Self {
        SeqCounters { banks: cnt::LANES.map(|(_, n)| CounterBank::new(n)), rd_sel: 0 }
    }
}

impl SeqCounters {
    fn lane(index: usize) -> Option<usize> {
        cnt::LANES.iter().position(|&(b, n)| (b..b + n).contains(&index))
    }

    /// The read port's output this cycle.
    pub fn rd_data(&self) -> u32 {
        Self::lane(self.rd_sel as usize).map_or(0, |l| self.banks[l].rd_data())
    }

    /// A counter's value after the events so far have landed (for tests and figures).
    pub fn get(&self, index: usize) -> u32 {
        Self::lane(index).map_or(0, |l| self.banks[l].get(index - cnt::LANES[l].0))
    }

    /// Clock edge: each lane's event (a counter index of that lane), the index read.
    pub fn clock(&mut self, events: [Option<usize>; 4], rd_index: u8) {
        let rd = (rd_index as usize) & ((1 << CNT_INDEX_BITS) - 1);
        for (l, b) in self.banks.iter_mut().enumerate() {
            let base = cnt::LANES[l].0;
            let mask = (1 << CNT_INDEX_BITS) - 1;
            b.clock(events[l].map(|k| k - base), rd.wrapping_sub(base) & mask);
        }
        self.rd_sel = rd as u8;
    }
}

/// Words in each registration-table RAM.
pub const RAM_WORDS: usize = 32;
/// Op-table capacity of the model's arrays.
pub const MAX_OPS: usize = 16;

/// One registration-table RAM word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegRec {
    pub key: u32,
    pub access: u8,
    pub addr: u64,
    pub len: u32,
}

/// The command being executed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CmdRec {
    pub op: u8,
    pub conn: u8,
    pub access: u8,
    pub nomem: bool,
    pub xfer: u32,
    pub addr: u64,
    pub key: u32,
    pub len: u32,
    pub lkey: u32,
}

/// One op-table entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpEntry {
    /// [`ost`].
    pub st: u8,
    /// Bumped at every START on this slot (4 bits): old responses carry an old generation.
    pub generation: u8,
    pub wr: bool,
    pub conn: u8,
    pub xfer: u32,
    pub raddr: u64,
    pub rkey: u32,
    pub laddr: u64,
    pub lkey: u32,
    pub total: u32,
    /// Offset of the next request.
    pub off: u32,
    /// Bytes not yet requested.
    pub rem: u32,
    /// `rem != 0`.
    pub more: bool,
    /// `rem <= segment`: the next request is the last.
    pub lastseg: bool,
    /// Segment number of the next request.
    pub seq: u8,
    /// One-hot: the in-flight entry the next request takes (`seq mod window`).
    pub emask: u16,
    /// Requests in flight, by entry.
    pub inflight: u16,
    /// 0, or the first error ([`fault`]).
    pub status: u8,
}

/// A command response.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RspRec {
    pub op: u8,
    pub conn: u8,
    pub status: u8,
    pub key: u32,
    pub len: u32,
}

/// A completion request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CplRec {
    pub conn: u8,
    pub xfer: u32,
    pub bytes: u32,
    pub write: bool,
    pub status: u8,
}

/// An RDMA request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RqRec {
    pub tag: u16,
    pub write: bool,
    pub conn: u8,
    pub raddr: u64,
    pub rkey: u32,
    pub laddr: u64,
    pub lkey: u32,
    pub len: u32,
}

/// A check taken, with the table facts sampled at the edge that took it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChkRec {
    pub conn: u8,
    pub key: u32,
    pub write: bool,
    pub addr: u64,
    /// `addr + len`, 65 bits.
    pub end: u128,
    pub valid: bool,
    pub rconn: u8,
}

/// A check's answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CkRec {
    pub grant: bool,
    pub reason: u8,
}

/// The sequencer's registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequencerModel {
    p: SequencerParams,
    // --- command unit ---
    pub cst: u8,
    pub c: CmdRec,
    pub v_status: u8,
    pub v_rslot: u8,
    pub v_oslot: u8,
    pub rsp_v: bool,
    pub rsp: RspRec,
    // --- registration table ---
    pub valid: [bool; RAM_WORDS],
    pub rconn: [u8; RAM_WORDS],
    /// The contents of both table RAMs (the command port's and the check port's copy).
    pub ram: [RegRec; RAM_WORDS],
    /// The RAMs' registered read data.
    pub rd_cmd: RegRec,
    pub rd_chk: RegRec,
    /// The next key with a zero index.
    pub knext: u32,
    // --- op table ---
    pub ops: [OpEntry; MAX_OPS],
    // --- issue ---
    pub iv: bool,
    pub isel: u8,
    /// Round-robin: ops at or above the pointer.
    pub rrm: [bool; MAX_OPS],
    pub rq_v: bool,
    pub rq: RqRec,
    // --- responses ---
    pub r_v: bool,
    pub r_tag: u16,
    pub r_st: u8,
    // --- completions ---
    /// The holding register: a request the output did not take in its first cycle (its op
    /// already freed).
    pub cpl_v: bool,
    pub cpl: CplRec,
    // --- checks ---
    pub ac_rdy: bool,
    pub s1_v: bool,
    pub s1: ChkRec,
    pub ck: Skid<CkRec>,
    pub cnt: SeqCounters,
}

/// The registration-table index of a key.
fn key_idx(p: &SequencerParams, key: u32) -> usize {
    (key & (p.reg_entries as u32 - 1)) as usize
}

/// The key the command RAM reads for a command: DEREGISTER's key, else the local key.
fn cmd_key_of(op: u8, key: u32, lkey: u32) -> u32 {
    if op == cmd::DEREGISTER { key } else { lkey }
}

/// Lowest index whose flag is set.
fn lowest(flags: impl Iterator<Item = bool>) -> Option<usize> {
    flags.enumerate().find(|(_, f)| *f).map(|(i, _)| i)
}

impl SequencerModel {
    pub fn new(p: SequencerParams) -> Self {
        p.validate().expect("valid sequencer parameters");
        SequencerModel {
            p,
            cst: cst::IDLE,
            c: CmdRec::default(),
            v_status: 0,
            v_rslot: 0,
            v_oslot: 0,
            rsp_v: false,
            rsp: RspRec::default(),
            valid: [false; RAM_WORDS],
            rconn: [0; RAM_WORDS],
            ram: [RegRec::default(); RAM_WORDS],
            rd_cmd: RegRec::default(),
            rd_chk: RegRec::default(),
            knext: p.reg_entries as u32,
            ops: [OpEntry::default(); MAX_OPS],
            iv: false,
            isel: 0,
            rrm: [false; MAX_OPS],
            rq_v: false,
            rq: RqRec::default(),
            r_v: false,
            r_tag: 0,
            r_st: 0,
            cpl_v: false,
            cpl: CplRec::default(),
            ac_rdy: true,
            s1_v: false,
            s1: ChkRec::default(),
            ck: Skid::default(),
            cnt: SeqCounters::default(),
        }
    }

    pub fn params(&self) -> &SequencerParams {
        &self.p
    }

    /// Registrations held.
    pub fn live_registrations(&self) -> usize {
        self.valid[..self.p.reg_entries as usize].iter().filter(|v| **v).count()
    }

    /// Ops not free.
    pub fn busy_ops(&self) -> usize {
        self.ops[..self.p.ops as usize].iter().filter(|o| o.st != ost::FREE).count()
    }

    /// Can op `i` issue a request now?
    fn can_issue(&self, i: usize) -> bool {
        let o = &self.ops[i];
        o.st == ost::RUN && o.status == 0 && o.more && o.inflight & o.emask == 0
    }

    /// The command in the apply stage is applied this cycle (its response register is free
    /// or being emptied).
    fn applying(&self, i: &SequencerIn) -> bool {
        self.cst == cst::APPLY && (!self.rsp_v || i.m_axis_rsp_tready)
    }

    /// The op slot a START applied this cycle fills, if one is.
    fn starting(&self, i: &SequencerIn) -> Option<u8> {
        (self.applying(i) && cmd::is_start(self.c.op) && self.v_status == rsp_status::OK)
            .then_some(self.v_oslot)
    }

    /// The lowest op that is done: the one whose completion request goes out next.
    fn cpl_pick(&self) -> Option<usize> {
        lowest(self.ops[..self.p.ops as usize].iter().map(|o| o.st == ost::DONE))
    }

    /// The completion request of op `s` (its byte count 0 unless its status is 0).
    fn cpl_rec(&self, s: usize) -> CplRec {
        let o = &self.ops[s];
        CplRec {
            conn: o.conn,
            xfer: o.xfer,
            bytes: if o.status == 0 { o.total } else { 0 },
            write: o.wr,
            status: o.status,
        }
    }

    /// The completion channel: the held request, else the lowest done op's (passed through
    /// while the holding register is empty), else the last one held, not valid.
    fn cpl_out(&self) -> (bool, CplRec) {
        match (self.cpl_v, self.cpl_pick()) {
            (false, Some(s)) => (true, self.cpl_rec(s)),
            (v, _) => (v, self.cpl),
        }
    }

    /// The command verdict: (status, registration slot, op slot).
    fn verdict(&self) -> (u8, u8, u8) {
        let p = &self.p;
        let c = &self.c;
        let k = cmd_key_of(c.op, c.key, c.lkey);
        let idx = key_idx(p, k);
        let rd = &self.rd_cmd;
        let e_ok = self.valid[idx] && rd.key == k && self.rconn[idx] == c.conn;
        let conn_ok = (c.conn as u16) < p.connections;
        let free_reg = lowest(self.valid[..p.reg_entries as usize].iter().map(|v| !v));
        let free_op = lowest(self.ops[..p.ops as usize].iter().map(|o| o.st == ost::FREE));
        let busy_key =
            self.ops[..p.ops as usize].iter().any(|o| o.st != ost::FREE && o.lkey == c.key);
        use rsp_status::*;
        let status = match c.op {
            cmd::REGISTER => {
                if !conn_ok || c.access == 3 {
                    BADDESC
                } else if c.nomem {
                    NOMEM
                } else if free_reg.is_none() {
                    NOBUFS
                } else {
                    OK
                }
            }
            cmd::DEREGISTER => {
                if !conn_ok {
                    BADDESC
                } else if !e_ok {
                    STALE
                } else if busy_key {
                    BUSY
                } else {
                    OK
                }
            }
            cmd::START_READ | cmd::START_WRITE => {
                if !conn_ok || !e_ok || rd.access != access::LOCAL || c.len > rd.len {
                    BADDESC
                } else if free_op.is_none() {
                    BUSY
                } else {
                    OK
                }
            }
            cmd::ABORT => {
                if !conn_ok {
                    BADDESC
                } else {
                    OK
                }
            }
            _ => BADCMD,
        };
        let rslot = if c.op == cmd::REGISTER { free_reg.unwrap_or(0) } else { idx };
        (status, rslot as u8, free_op.unwrap_or(0) as u8)
    }
}

/// The first counter whose condition holds (a lane's conditions exclude each other).
fn event(conds: &[(usize, bool)]) -> Option<usize> {
    conds.iter().find(|(_, c)| *c).map(|(k, _)| *k)
}

impl CycleModel for SequencerModel {
    type In = SequencerIn;
    type Out = SequencerOut;

    fn outputs(&self, _i: &SequencerIn) -> SequencerOut {
        let (cpl_v, cpl) = self.cpl_out();
        SequencerOut {
            s_axis_cmd_tready: self.cst == cst::IDLE,
            m_axis_rsp_tvalid: self.rsp_v,
            m_axis_rsp_op: self.rsp.op,
            m_axis_rsp_conn: self.rsp.conn,
            m_axis_rsp_status: self.rsp.status,
            m_axis_rsp_key: self.rsp.key,
            m_axis_rsp_len: self.rsp.len,
            m_axis_cpl_tvalid: cpl_v,
            m_axis_cpl_conn: cpl.conn,
            m_axis_cpl_xfer: cpl.xfer,
            m_axis_cpl_bytes: cpl.bytes,
            m_axis_cpl_write: cpl.write,
            m_axis_cpl_status: cpl.status,
            m_axis_rq_tvalid: self.rq_v,
            m_axis_rq_tag: self.rq.tag,
            m_axis_rq_write: self.rq.write,
            m_axis_rq_conn: self.rq.conn,
            m_axis_rq_raddr: self.rq.raddr,
            m_axis_rq_rkey: self.rq.rkey,
            m_axis_rq_laddr: self.rq.laddr,
            m_axis_rq_lkey: self.rq.lkey,
            m_axis_rq_len: self.rq.len,
            s_axis_rs_tready: true,
            s_axis_ac_tready: self.ac_rdy,
            m_axis_ck_tvalid: self.ck.out_valid,
            m_axis_ck_grant: self.ck.out.grant,
            m_axis_ck_reason: self.ck.out.reason,
            cnt_rd_data: self.cnt.rd_data(),
        }
    }

    fn clock(&mut self, i: &SequencerIn) {
        let p = self.p;
        let q = self.clone(); // the registers before the edge
        let nops = p.ops as usize;
        let nregs = p.reg_entries as usize;
        let seg = p.segment;
        let wmask = p.window as u32 - 1;

        // The RAMs read at every edge, reset or not; their contents are never reset.
        let cmd_ram_addr = if q.cst == cst::IDLE {
            key_idx(&p, cmd_key_of(i.s_axis_cmd_op, i.s_axis_cmd_key, i.s_axis_cmd_lkey))
        } else {
            key_idx(&p, cmd_key_of(q.c.op, q.c.key, q.c.lkey))
        };
        let rd_cmd = q.ram[cmd_ram_addr];
        let rd_chk = q.ram[key_idx(&p, i.s_axis_ac_key)];
        if i.reset {
            let ram = self.ram;
            *self = SequencerModel::new(p);
            self.ram = ram;
            self.rd_cmd = rd_cmd;
            self.rd_chk = rd_chk;
            return;
        }
        self.rd_cmd = rd_cmd;
        self.rd_chk = rd_chk;

        // Each lane's counter event this cycle: command, response, completion, check.
        let mut ev: [Option<usize>; 4] = [None; 4];

        // ---------------- completions ----------------
        let cpl_sel = q.cpl_pick();
        let cpl_fire = cpl_sel.is_some() && (!q.cpl_v || i.m_axis_cpl_tready);
        if let (true, Some(s)) = (cpl_fire, cpl_sel) {
            self.cpl = q.cpl_rec(s);
            // Held unless it passed straight through (the register empty, the output ready).
            self.cpl_v = q.cpl_v || !i.m_axis_cpl_tready;
            ev[2] = event(&[(cnt::ABORTED, q.ops[s].status == fault::ABORTED)]);
        } else if q.cpl_v && i.m_axis_cpl_tready {
            self.cpl_v = false;
        }

        // ---------------- issue ----------------
        let can: Vec<bool> = (0..nops).map(|k| q.can_issue(k)).collect();
        let mut fire_sel = None;
        if !q.iv {
            let masked = lowest((0..nops).map(|k| can[k] && q.rrm[k]));
            if let Some(pk) = masked.or_else(|| lowest(can.iter().copied())) {
                self.iv = true;
                self.isel = pk as u8;
                for k in 0..nops {
                    self.rrm[k] = k > pk;
                }
            } else if let Some(os) = q.starting(i) {
                // Nothing to pick: the op a START fills this cycle is picked at the same
                // edge, so its first request leaves a cycle sooner (no round-robin turn is
                // taken from anyone: no other op could issue).
                self.iv = true;
                self.isel = os;
            }
        } else {
            let s = q.isel as usize;
            if !can[s] {
                self.iv = false;
            } else if !q.rq_v || i.m_axis_rq_tready {
                fire_sel = Some(s);
                self.iv = false;
            }
        }
        if let Some(s) = fire_sel {
            let o = &q.ops[s];
            self.rq = RqRec {
                tag: crate::blocks::sequencer::tag::make(s as u8, o.generation, o.seq),
                write: o.wr,
                conn: o.conn,
                raddr: o.raddr.wrapping_add(o.off as u64),
                rkey: o.rkey,
                laddr: o.laddr.wrapping_add(o.off as u64),
                lkey: o.lkey,
                len: if o.lastseg { o.rem } else { seg },
            };
            self.rq_v = true;
        } else if q.rq_v && i.m_axis_rq_tready {
            self.rq_v = false;
        }

        // ---------------- responses ----------------
        self.r_v = i.s_axis_rs_tvalid;
        self.r_tag = i.s_axis_rs_tag;
        self.r_st = i.s_axis_rs_status;
        let slot = tag::slot(q.r_tag) as usize;
        let tgen = tag::generation(q.r_tag);
        let rseq = tag::seq(q.r_tag);
        let eh: u16 = 1 << (rseq as u32 & wmask);
        let err = match q.r_st & 7 {
            0 => 0,
            s if s >= fault::FIRST_NOT_SAN => fault::TRANSPORT,
            s => s,
        };
        let mut any_mine = false;
        let mut good = vec![false; nops];
        for (k, g) in good.iter_mut().enumerate() {
            let o = &q.ops[k];
            let mine = q.r_v && slot == k && o.st == ost::RUN && o.generation == tgen;
            let recent = (o.seq.wrapping_sub(1).wrapping_sub(rseq) as u32) & !wmask == 0;
            *g = mine && o.inflight & eh != 0 && recent;
            any_mine |= mine;
        }
        let any_good = good.iter().any(|g| *g);
        ev[1] = event(&[
            (cnt::STALE, q.r_v && !any_mine),
            (cnt::DUP, any_mine && !any_good),
            (cnt::RDMA_ERR, any_good && err != 0),
        ]);

        // ---------------- op table ----------------
        for (k, &g) in good.iter().enumerate() {
            let o = q.ops[k];
            let n = &mut self.ops[k];
            // In-flight entries: set by an issue, cleared by a good response.
            let set = if fire_sel == Some(k) { o.emask } else { 0 };
            let clr = if g { eh } else { 0 };
            n.inflight = (o.inflight & !clr) | set;
            if g && err != 0 && o.status == 0 {
                n.status = err;
            }
            if fire_sel == Some(k) {
                n.off = o.off.wrapping_add(seg);
                n.rem = if o.lastseg { 0 } else { o.rem.wrapping_sub(seg) };
                n.more = !o.lastseg;
                n.lastseg = o.lastseg || o.rem <= 2 * seg;
                n.seq = o.seq.wrapping_add(1);
                n.emask = if o.emask & (1 << wmask) != 0 { 1 } else { o.emask << 1 };
            }
            // Finished: nothing in flight after this cycle, and nothing left to request or
            // failed (a response that ends the op makes it done at the edge that takes it,
            // so its completion can be picked the next cycle).
            let failed = o.status != 0 || (g && err != 0);
            if o.st == ost::RUN && n.inflight == 0 && (!o.more || failed) {
                n.st = ost::DONE;
            }
            if cpl_fire && cpl_sel == Some(k) {
                n.st = ost::FREE;
            }
        }

        // ---------------- command unit ----------------
        let accept_cmd = q.cst == cst::IDLE && i.s_axis_cmd_tvalid;
        if accept_cmd {
            self.c = CmdRec {
                op: i.s_axis_cmd_op & 7,
                conn: i.s_axis_cmd_conn,
                access: i.s_axis_cmd_access & 3,
                nomem: i.s_axis_cmd_nomem,
                xfer: i.s_axis_cmd_xfer,
                addr: i.s_axis_cmd_addr,
                key: i.s_axis_cmd_key,
                len: i.s_axis_cmd_len,
                lkey: i.s_axis_cmd_lkey,
            };
            self.cst = cst::VERDICT;
        }
        if q.cst == cst::VERDICT {
            let (s, r, o) = q.verdict();
            self.v_status = s;
            self.v_rslot = r;
            self.v_oslot = o;
            self.cst = cst::APPLY;
        }
        let apply = q.applying(i);
        if apply {
            let c = q.c;
            let ok = q.v_status == rsp_status::OK;
            let rs = q.v_rslot as usize;
            let os = q.v_oslot as usize;
            let newkey = q.knext | rs as u32;
            let is_start = cmd::is_start(c.op);
            match c.op {
                cmd::REGISTER if ok => {
                    self.valid[rs] = true;
                    self.rconn[rs] = c.conn;
                    self.ram[rs] =
                        RegRec { key: newkey, access: c.access, addr: c.addr, len: c.len };
                    self.knext = q.knext.wrapping_add(p.reg_entries as u32);
                }
                cmd::DEREGISTER if ok => self.valid[rs] = false,
                cmd::START_READ | cmd::START_WRITE if ok => {
                    let o = &q.ops[os];
                    self.ops[os] = OpEntry {
                        st: ost::RUN,
                        generation: o.generation.wrapping_add(1) & 0xF,
                        wr: c.op == cmd::START_WRITE,
                        conn: c.conn,
                        xfer: c.xfer,
                        raddr: c.addr,
                        rkey: c.key,
                        laddr: q.rd_cmd.addr,
                        lkey: c.lkey,
                        total: c.len,
                        off: 0,
                        rem: c.len,
                        more: c.len != 0,
                        lastseg: c.len <= seg,
                        seq: 0,
                        emask: 1,
                        inflight: 0,
                        status: 0,
                    };
                }
                cmd::ABORT if ok => {
                    // A running transfer fails (aborted): it issues nothing more and is done
                    // once its requests in flight are answered, as any failed transfer, so
                    // no data lands after its completion request. A done one keeps its
                    // outcome.
                    for k in 0..nops {
                        let o = &q.ops[k];
                        if o.st == ost::RUN && o.conn == c.conn && o.status == 0 {
                            self.ops[k].status = fault::ABORTED;
                        }
                    }
                    for j in 0..nregs {
                        if q.valid[j] && q.rconn[j] == c.conn {
                            self.valid[j] = false;
                        }
                    }
                }
                _ => {}
            }
            let key = match c.op {
                cmd::REGISTER if ok => newkey,
                cmd::DEREGISTER => c.key,
                _ if is_start && ok => os as u32,
                _ => 0,
            };
            let len = match c.op {
                cmd::DEREGISTER if ok => q.rd_cmd.len,
                cmd::DEREGISTER => 0,
                _ => c.len,
            };
            self.rsp = RspRec { op: c.op, conn: c.conn, status: q.v_status, key, len };
            self.rsp_v = true;
            self.cst = cst::IDLE;
            use rsp_status::*;
            let s = q.v_status;
            ev[0] = event(&[
                (cnt::NOBUFS, s == NOBUFS || s == NOMEM),
                (cnt::DEREG_STALE, s == STALE),
                (cnt::BAD_DESC, s == BADDESC || s == BADCMD),
                (cnt::BUSY, s == BUSY),
            ]);
        } else if q.rsp_v && i.m_axis_rsp_tready {
            self.rsp_v = false;
        }

        // ---------------- remote-access checks ----------------
        let acc = i.s_axis_ac_tvalid && q.ac_rdy;
        let mut push = None;
        if q.s1_v {
            let s = &q.s1;
            let rd = &q.rd_chk;
            let key_ok = s.valid && rd.key == s.key;
            let conn_ok = s.rconn == s.conn;
            let acc_ok = if s.write {
                rd.access == access::REMOTE_WRITE
            } else {
                rd.access == access::REMOTE_READ
            };
            // `base <= addr && addr + len <= base + rlen`, in 65 bits (no wrap).
            let bnd_ok = s.addr >= rd.addr && s.end <= rd.addr as u128 + rd.len as u128;
            let r = if !key_ok {
                fault::BAD_KEY
            } else if !conn_ok {
                fault::CONNECTION
            } else if !acc_ok {
                fault::ACCESS
            } else if !bnd_ok {
                fault::BOUNDS
            } else {
                fault::OK
            };
            let grant = r == fault::OK;
            push = Some(CkRec { grant, reason: r });
            ev[3] = event(&[
                (cnt::DENY_KEY, r == fault::BAD_KEY),
                (cnt::DENY_CONN, r == fault::CONNECTION),
                (cnt::DENY_ACCESS, r == fault::ACCESS),
                (cnt::DENY_BOUNDS, r == fault::BOUNDS),
            ]);
        }
        self.s1_v = acc;
        if acc {
            let idx = key_idx(&p, i.s_axis_ac_key);
            self.s1 = ChkRec {
                conn: i.s_axis_ac_conn,
                key: i.s_axis_ac_key,
                write: i.s_axis_ac_write,
                addr: i.s_axis_ac_addr,
                end: i.s_axis_ac_addr as u128 + i.s_axis_ac_len as u128,
                valid: q.valid[idx],
                rconn: q.rconn[idx],
            };
        }
        self.ck.clock(i.m_axis_ck_tready, push);
        self.cnt.clock(ev, i.cnt_rd_index);
        // At most two checks anywhere in the unit, so the one in S1 always finds a slot.
        let held = self.s1_v as u8 + self.ck.out_valid as u8 + self.ck.skid_valid as u8;
        self.ac_rdy = held < 2;
    }
}
