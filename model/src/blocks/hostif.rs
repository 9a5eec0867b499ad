//! The host interface's cycle model: the register space of [`crate::regs`] behind an
//! AXI4-Lite port, the queue pairs' submission rings fetched from host memory into the
//! engine's command stream, and the engine's completions written into the completion ring
//! of the queue pair each command came from, with their phase bit.
//!
//! # Data flow
//! - **Registers** (`s_axil_*`): a write is taken when its address and data are both valid
//!   (`awready`/`wready` high together) and answered (`bvalid`) the next cycle; a read is
//!   taken when no answer is pending and answered two cycles later (the second cycle lets
//!   the counter read port follow an `index` written just before). Undefined offsets answer
//!   `SLVERR` and are counted; writes to read-only registers are ignored.
//! - **Submission rings**: one fetch at a time, for one queue pair. When no fetch is shown or
//!   owed beats, the queue pair served is chosen round robin downwards: the highest-numbered
//!   queue pair below the last one served whose ring is enabled, not stopped and behind its
//!   doorbell, else the highest-numbered such queue pair (the last one served included).
//!   Its read request (`m_axis_fetch_*`: bus address, bytes) asks for up to
//!   [`FETCH_BURST`] entries (never across the ring's end, never more than the command FIFO
//!   has room for); the data beats (`s_axis_fetch_*`, 64 bits, in order) are 4 per entry.
//!   An entry's last beat advances that ring's `sq_cons` and pushes the command, its tag's
//!   bits 31–29 set to the queue pair's number ([`TAG_QP_SHIFT`]). An entry that does not
//!   decode (reserved bits set, those tag bits included) goes on with opcode 0, so the
//!   engine completes it with `WSAEINVAL`, and is counted; an unknown opcode goes on as it
//!   is (the engine refuses it the same way).
//! - **Doorbell**: a write of `sq_prod` more than the ring's size ahead of `sq_cons` stops
//!   the ring (`sq_ctrl` bit 8) and is counted; disabling the ring clears it (pointers back
//!   to 0). Disabling a ring whose fetch is in flight takes that fetch's beats and drops them.
//! - **Completion rings**: the engine's completion goes to the queue pair in its tag's bits
//!   31–29. While that ring is enabled and not full (`cq_prod - cq_cons < size`), the
//!   completion is taken and written, those tag bits cleared, as two beats
//!   (`m_axis_cqwr_*`: the entry's address held for both, beat `k` to `addr + 8k` as on the
//!   engine's write port, `tlast` on the second) at slot `cq_prod mod size` with its phase
//!   ([`crate::regs::cq_phase`]); the last beat's acceptance advances `cq_prod` and, when
//!   armed, raises that queue pair's bit of `cq_event` for one cycle and disarms. A full or
//!   disabled ring holds the engine's completions back (nothing is lost; a queue pair that
//!   does not reap blocks the others' completions behind it). A completion for a queue pair
//!   that does not exist (only a broken engine gives one) is taken, dropped and counted. A
//!   `cq_cons` write past `cq_prod` is ignored and counted.
//! - **Counters**: the counter block's `index` drives the engine's counter read port
//!   (`cnt_rd_index`); bank 3 ([`CNT_BANK`]) is this block's own ([`cnt`]), summed over the
//!   queue pairs.

use crate::blocks::widgets::fifo::Fifo;
use crate::host::{
    COMMAND_BYTES, COMPLETION_BYTES, Command, Completion, EntryError, TAG_HOST_MASK, TAG_QP_SHIFT,
};
use crate::params::EngineParams;
use crate::ports::CycleModel;
use crate::regs::{
    self, BlockType, HDR_NEXT, HDR_TYPE, HDR_VERSION, HostParams, ID_BLOCK, QUEUE_PAIR_BLOCK,
    block_def, qp, ring_used,
};

/// Entries one fetch asks for at most (and the command FIFO's depth).
pub const FETCH_BURST: u32 = 8;
/// Beats of one command entry.
pub const BEATS_PER_CMD: usize = COMMAND_BYTES / 8;
/// The host interface's counter bank number (the counter block's `index` bits 7–5).
pub const CNT_BANK: u8 = 3;
/// AXI4-Lite responses.
pub const RESP_OKAY: u8 = 0;
pub const RESP_SLVERR: u8 = 2;

/// The host interface's counters (bank [`CNT_BANK`]).
pub mod cnt {
    pub const FETCHED: usize = 0;
    pub const COMPLETED: usize = 1;
    pub const DOORBELLS: usize = 2;
    pub const DOORBELL_BEYOND_RING: usize = 3;
    pub const BAD_ENTRY: usize = 4;
    pub const BAD_REGISTER: usize = 5;
    pub const BAD_CQ_CONS: usize = 6;
    pub const BAD_CPL_QP: usize = 7;
    pub const COUNT: usize = 8;
    pub const NAMES: [&str; COUNT] = [
        "commands fetched",
        "completions written",
        "doorbells",
        "doorbell beyond the ring",
        "bad entries",
        "bad register accesses",
        "cq_cons past cq_prod",
        "completions for no queue pair",
    ];
}

crate::ports! {
    /// The host interface's inputs.
    pub struct HostIfIn {
        reset: bool = 1,
        s_axil_awvalid: bool = 1,
        s_axil_awaddr: u16 = 12,
        s_axil_wvalid: bool = 1,
        s_axil_wdata: u32 = 32,
        s_axil_bready: bool = 1,
        s_axil_arvalid: bool = 1,
        s_axil_araddr: u16 = 12,
        s_axil_rready: bool = 1,
        m_axis_fetch_tready: bool = 1,
        s_axis_fetch_tvalid: bool = 1,
        s_axis_fetch_tdata: u64 = 64,
        s_axis_fetch_tlast: bool = 1,
        m_axis_cqwr_tready: bool = 1,
        /// The engine's `s_axis_cmd_tready`.
        m_axis_cmd_tready: bool = 1,
        /// The engine's completion stream (`m_axis_cpl_*`).
        s_axis_cpl_tvalid: bool = 1,
        s_axis_cpl_tag: u32 = 32,
        s_axis_cpl_bytes: u32 = 32,
        s_axis_cpl_conn: u16 = 16,
        s_axis_cpl_status: u16 = 16,
        s_axis_cpl_opcode: u8 = 8,
        s_axis_cpl_urgent: bool = 1,
        s_axis_cpl_eof: bool = 1,
        /// The engine's counter read port's data.
        cnt_rd_data: u32 = 32,
    }
}

crate::ports! {
    /// The host interface's outputs.
    pub struct HostIfOut {
        s_axil_awready: bool = 1,
        s_axil_wready: bool = 1,
        s_axil_bvalid: bool = 1,
        s_axil_bresp: u8 = 2,
        s_axil_arready: bool = 1,
        s_axil_rvalid: bool = 1,
        s_axil_rdata: u32 = 32,
        s_axil_rresp: u8 = 2,
        m_axis_fetch_tvalid: bool = 1,
        m_axis_fetch_addr: u64 = 64,
        m_axis_fetch_len: u32 = 32,
        s_axis_fetch_tready: bool = 1,
        m_axis_cqwr_tvalid: bool = 1,
        m_axis_cqwr_addr: u64 = 64,
        m_axis_cqwr_tdata: u64 = 64,
        m_axis_cqwr_tkeep: u8 = 8,
        m_axis_cqwr_tlast: bool = 1,
        /// The engine's command stream (`s_axis_cmd_*`).
        m_axis_cmd_tvalid: bool = 1,
        m_axis_cmd_opcode: u8 = 8,
        m_axis_cmd_conn: u16 = 16,
        m_axis_cmd_tag: u32 = 32,
        m_axis_cmd_addr: u64 = 64,
        m_axis_cmd_len: u32 = 32,
        m_axis_cmd_aux: u64 = 64,
        s_axis_cpl_tready: bool = 1,
        cnt_rd_index: u8 = 8,
        /// Bit `k` is high for one cycle when queue pair `k`'s armed completion ring gets an
        /// entry.
        cq_event: u8 = 8,
    }
}

/// One ring's registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ring {
    base: u64,
    log2: u8,
    prod: u32,
    cons: u32,
    enable: bool,
    arm: bool,
    err: u32,
}

impl Ring {
    fn size(&self) -> u32 {
        1 << self.log2
    }
    fn slot_addr(&self, index: u32, entry_bytes: usize) -> u64 {
        self.base + u64::from(index & (self.size() - 1)) * entry_bytes as u64
    }
    /// Disabled: pointers and errors cleared (the host reprograms, then enables).
    fn ctrl_write(&mut self, v: u32) {
        self.enable = v & qp::CTRL_ENABLE != 0;
        self.arm = v & qp::CTRL_ARM != 0;
        if !self.enable {
            self.prod = 0;
            self.cons = 0;
            self.err = 0;
        }
    }
    fn ctrl(&self) -> u32 {
        u32::from(self.enable) | (u32::from(self.arm) << 1) | self.err
    }
}

/// One queue pair's rings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Qp {
    sq: Ring,
    cq: Ring,
}

impl Qp {
    /// The submission ring has entries to fetch.
    fn sq_work(&self) -> bool {
        self.sq.enable && self.sq.err == 0 && self.sq.prod != self.sq.cons
    }
    fn cq_room(&self) -> bool {
        self.cq.enable && ring_used(self.cq.prod, self.cq.cons) < self.cq.size()
    }
}

/// The host interface.
#[derive(Clone, Debug)]
pub struct HostIf {
    ids: Vec<(u32, u32)>,
    /// Where each block of the register space sits.
    blocks: Vec<(u32, BlockType, u32)>,
    qp_base: u32,
    max_log2: u8,
    qps: Vec<Qp>,
    cnt_index: u8,
    counts: [u32; cnt::COUNT],
    /// A write answer pending (`bvalid`) and its response.
    b: Option<u8>,
    /// A read taken, answered next cycle (address), then the answer pending (`rvalid`).
    ar: Option<u16>,
    r: Option<(u32, u8)>,
    /// The queue pair of the fetch shown or in flight, or the last one served.
    fetch_qp: usize,
    /// Entries of the fetch in flight not yet arrived, and the beats of the entry arriving.
    fetch_left: u32,
    fetch_req: Option<(u64, u32)>,
    /// The ring was disabled with a fetch in flight: its entries are taken and dropped.
    fetch_drop: bool,
    beats: Vec<u64>,
    cmds: Fifo<Command>,
    /// The completion being written, its queue pair and the beat of it on the port.
    cq_wr: Option<([u8; COMPLETION_BYTES], u64, usize, usize)>,
    event: u8,
}

impl HostIf {
    pub fn new(p: &EngineParams, h: &HostParams) -> Self {
        h.validate().expect("valid host interface parameters");
        let layout = regs::layout(h);
        let blocks = layout
            .iter()
            .enumerate()
            .map(|(k, (base, def))| (*base, def.kind, layout.get(k + 1).map_or(0, |n| n.0)))
            .collect();
        HostIf {
            ids: regs::id_values(p, h),
            blocks,
            qp_base: layout[2].0,
            max_log2: h.max_log2_size,
            qps: vec![Qp::default(); h.queue_pairs.into()],
            ..HostIf::blank()
        }
    }

    fn blank() -> Self {
        HostIf {
            ids: Vec::new(),
            blocks: Vec::new(),
            qp_base: 0,
            max_log2: 1,
            qps: Vec::new(),
            cnt_index: 0,
            counts: [0; cnt::COUNT],
            b: None,
            ar: None,
            r: None,
            fetch_qp: 0,
            fetch_left: 0,
            fetch_req: None,
            fetch_drop: false,
            beats: Vec::with_capacity(BEATS_PER_CMD),
            cmds: Fifo::new(FETCH_BURST as usize),
            cq_wr: None,
            event: 0,
        }
    }

    /// A counter of this block's bank (for tests and figures).
    pub fn count(&self, i: usize) -> u32 {
        self.counts[i]
    }

    fn bump(&mut self, i: usize) {
        self.counts[i] = self.counts[i].saturating_add(1);
    }

    /// The queue pair a register offset falls in, and the offset inside its block.
    fn qp_at(&self, off: u32) -> Option<(usize, u32)> {
        let r = off.checked_sub(self.qp_base)?;
        let k = (r / QUEUE_PAIR_BLOCK.bytes) as usize;
        (k < self.qps.len()).then_some((k, r % QUEUE_PAIR_BLOCK.bytes))
    }

    /// The register at `off`, or `None` when nothing is there.
    fn read_reg(&self, off: u32, cnt_rd_data: u32) -> Option<u32> {
        let (base, kind, next) =
            *self.blocks.iter().find(|(b, k, _)| off >= *b && off < b + block_def(*k).bytes)?;
        let r = off - base;
        match r {
            HDR_TYPE => Some(kind as u32),
            HDR_VERSION => Some(block_def(kind).version),
            HDR_NEXT => Some(next),
            _ => match kind {
                BlockType::Id => self.ids.iter().find(|(o, _)| *o == off).map(|x| x.1),
                BlockType::Counters => match r {
                    regs::cnt::INDEX => Some(self.cnt_index.into()),
                    regs::cnt::DATA => Some(if self.cnt_index >> 5 == CNT_BANK {
                        self.counts.get(usize::from(self.cnt_index & 31)).copied().unwrap_or(0)
                    } else {
                        cnt_rd_data
                    }),
                    _ => None,
                },
                BlockType::QueuePair => {
                    let (k, r) = self.qp_at(off)?;
                    Self::qp_read(&self.qps[k], r)
                }
            },
        }
    }

    fn qp_read(q: &Qp, r: u32) -> Option<u32> {
        Some(match r {
            qp::SQ_BASE_LO => q.sq.base as u32,
            qp::SQ_BASE_HI => (q.sq.base >> 32) as u32,
            qp::SQ_LOG2_SIZE => q.sq.log2.into(),
            qp::SQ_PROD => q.sq.prod,
            qp::SQ_CONS => q.sq.cons,
            qp::SQ_CTRL => q.sq.ctrl(),
            qp::CQ_BASE_LO => q.cq.base as u32,
            qp::CQ_BASE_HI => (q.cq.base >> 32) as u32,
            qp::CQ_LOG2_SIZE => q.cq.log2.into(),
            qp::CQ_PROD => q.cq.prod,
            qp::CQ_CONS => q.cq.cons,
            qp::CQ_CTRL => q.cq.ctrl(),
            _ => return None,
        })
    }

    /// A register write at the edge; `false` when nothing is at `off`.
    fn write_reg(&mut self, off: u32, v: u32) -> bool {
        if self.read_reg(off, 0).is_none() {
            return false;
        }
        if off == ID_BLOCK.bytes + regs::cnt::INDEX {
            self.cnt_index = v as u8;
        }
        let Some((k, r)) = self.qp_at(off) else {
            return true; // read only
        };
        let log2 = v.clamp(1, self.max_log2.into()) as u8;
        let in_flight = k == self.fetch_qp && (self.fetch_left != 0 || self.fetch_req.is_some());
        let q = &mut self.qps[k];
        let mut bump = None;
        match r {
            qp::SQ_BASE_LO if !q.sq.enable => q.sq.base = (q.sq.base & !0xFFFF_FFFF) | u64::from(v),
            qp::SQ_BASE_HI if !q.sq.enable => {
                q.sq.base = (q.sq.base & 0xFFFF_FFFF) | (u64::from(v) << 32)
            }
            qp::SQ_LOG2_SIZE if !q.sq.enable => q.sq.log2 = log2,
            qp::SQ_PROD if q.sq.enable && q.sq.err == 0 => {
                if ring_used(v, q.sq.cons) > q.sq.size() {
                    q.sq.err |= qp::CTRL_ERR_DOORBELL;
                    bump = Some(cnt::DOORBELL_BEYOND_RING);
                } else {
                    q.sq.prod = v & 0xFFFF;
                }
                self.bump(cnt::DOORBELLS);
            }
            qp::SQ_CTRL => {
                q.sq.ctrl_write(v & qp::CTRL_ENABLE);
                if !q.sq.enable && in_flight {
                    self.fetch_drop = true;
                }
            }
            qp::CQ_BASE_LO if !q.cq.enable => q.cq.base = (q.cq.base & !0xFFFF_FFFF) | u64::from(v),
            qp::CQ_BASE_HI if !q.cq.enable => {
                q.cq.base = (q.cq.base & 0xFFFF_FFFF) | (u64::from(v) << 32)
            }
            qp::CQ_LOG2_SIZE if !q.cq.enable => q.cq.log2 = log2,
            qp::CQ_CONS if q.cq.enable => {
                if ring_used(q.cq.prod, v) > q.cq.size() {
                    bump = Some(cnt::BAD_CQ_CONS);
                } else {
                    q.cq.cons = v & 0xFFFF;
                }
            }
            qp::CQ_CTRL => q.cq.ctrl_write(v),
            _ => {} // read only, or a ring's setup while it runs: ignored
        }
        if let Some(c) = bump {
            self.bump(c);
        }
        true
    }

    fn reset(&mut self) {
        let blank = HostIf {
            ids: std::mem::take(&mut self.ids),
            blocks: std::mem::take(&mut self.blocks),
            qp_base: self.qp_base,
            max_log2: self.max_log2,
            qps: vec![Qp::default(); self.qps.len()],
            ..HostIf::blank()
        };
        *self = blank;
    }

    /// The queue pair the fetch serves this cycle: the one in flight, else the next with
    /// work, round robin downwards from the last one served.
    fn fetch_sel(&self) -> usize {
        if self.fetch_left != 0 || self.fetch_req.is_some() {
            return self.fetch_qp;
        }
        let below = (0..self.fetch_qp).rev().find(|&k| self.qps[k].sq_work());
        below
            .or_else(|| (0..self.qps.len()).rev().find(|&k| self.qps[k].sq_work()))
            .unwrap_or(self.fetch_qp)
    }

    /// The next fetch to request, if one is due, for queue pair `k`.
    fn fetch_due(&self, k: usize) -> Option<(u64, u32)> {
        let s = &self.qps[k].sq;
        if !s.enable || s.err != 0 || self.fetch_left != 0 || self.fetch_req.is_some() {
            return None;
        }
        let pending = ring_used(s.prod, s.cons);
        let to_end = s.size() - (s.cons & (s.size() - 1));
        let room = (FETCH_BURST as usize - self.cmds.len()) as u32;
        let n = pending.min(to_end).min(room);
        (n > 0).then(|| (s.slot_addr(s.cons, COMMAND_BYTES), n))
    }

    fn cpl_of(i: &HostIfIn) -> Completion {
        Completion {
            tag: i.s_axis_cpl_tag & TAG_HOST_MASK,
            bytes: i.s_axis_cpl_bytes,
            conn: i.s_axis_cpl_conn,
            status: i.s_axis_cpl_status,
            opcode: i.s_axis_cpl_opcode,
            urgent: i.s_axis_cpl_urgent,
            eof: i.s_axis_cpl_eof,
        }
    }

    /// The queue pair the engine's completion is for (may not exist).
    fn cpl_qp(i: &HostIfIn) -> usize {
        (i.s_axis_cpl_tag >> TAG_QP_SHIFT) as usize
    }
}

impl CycleModel for HostIf {
    type In = HostIfIn;
    type Out = HostIfOut;

    fn outputs(&self, i: &HostIfIn) -> HostIfOut {
        let cq = Self::cpl_qp(i);
        let mut o = HostIfOut {
            s_axil_awready: self.b.is_none() && i.s_axil_awvalid && i.s_axil_wvalid,
            s_axil_bvalid: self.b.is_some(),
            s_axil_bresp: self.b.unwrap_or(RESP_OKAY),
            s_axil_arready: self.ar.is_none() && self.r.is_none(),
            s_axil_rvalid: self.r.is_some(),
            s_axil_rdata: self.r.map_or(0, |r| r.0),
            s_axil_rresp: self.r.map_or(RESP_OKAY, |r| r.1),
            s_axis_fetch_tready: self.fetch_left != 0,
            cnt_rd_index: self.cnt_index,
            cq_event: self.event,
            s_axis_cpl_tready: self.cq_wr.is_none() && self.qps.get(cq).is_none_or(|q| q.cq_room()),
            ..HostIfOut::default()
        };
        o.s_axil_wready = o.s_axil_awready;
        if let Some((addr, n)) = self.fetch_req.or_else(|| self.fetch_due(self.fetch_sel())) {
            o.m_axis_fetch_tvalid = true;
            o.m_axis_fetch_addr = addr;
            o.m_axis_fetch_len = n * COMMAND_BYTES as u32;
        }
        if let Some((bytes, addr, _, beat)) = &self.cq_wr {
            o.m_axis_cqwr_tvalid = true;
            o.m_axis_cqwr_addr = *addr;
            o.m_axis_cqwr_tdata =
                u64::from_le_bytes(bytes[8 * beat..8 * beat + 8].try_into().unwrap());
            o.m_axis_cqwr_tkeep = 0xFF;
            o.m_axis_cqwr_tlast = *beat == COMPLETION_BYTES / 8 - 1;
        }
        if let Some(c) = self.cmds.head() {
            o.m_axis_cmd_tvalid = true;
            o.m_axis_cmd_opcode = c.opcode;
            o.m_axis_cmd_conn = c.conn;
            o.m_axis_cmd_tag = c.tag;
            o.m_axis_cmd_addr = c.addr;
            o.m_axis_cmd_len = c.len;
            o.m_axis_cmd_aux = c.aux;
        }
        o
    }

    fn clock(&mut self, i: &HostIfIn) {
        if i.reset {
            self.reset();
            return;
        }
        let o = self.outputs(i);
        let sel = self.fetch_sel();
        self.event = 0;

        // Register port.
        if o.s_axil_bvalid && i.s_axil_bready {
            self.b = None;
        }
        if o.s_axil_rvalid && i.s_axil_rready {
            self.r = None;
        }
        if let Some(a) = self.ar.take() {
            self.r = Some(match self.read_reg(a.into(), i.cnt_rd_data) {
                Some(v) => (v, RESP_OKAY),
                None => {
                    self.bump(cnt::BAD_REGISTER);
                    (0, RESP_SLVERR)
                }
            });
        }
        if o.s_axil_arready && i.s_axil_arvalid {
            self.ar = Some(i.s_axil_araddr & !3);
        }

        // Completion rings: a beat out, or the next completion in.
        if let Some((bytes, addr, k, beat)) = self.cq_wr {
            if i.m_axis_cqwr_tready {
                if beat + 1 < COMPLETION_BYTES / 8 {
                    self.cq_wr = Some((bytes, addr, k, beat + 1));
                } else {
                    self.cq_wr = None;
                    let cq = &mut self.qps[k].cq;
                    cq.prod = (cq.prod + 1) & 0xFFFF;
                    if cq.arm {
                        cq.arm = false;
                        self.event |= 1 << k;
                    }
                    self.bump(cnt::COMPLETED);
                }
            }
        } else if o.s_axis_cpl_tready && i.s_axis_cpl_tvalid {
            let k = Self::cpl_qp(i);
            match self.qps.get(k) {
                Some(q) => {
                    let phase = regs::cq_phase(q.cq.prod, q.cq.log2);
                    let bytes = Self::cpl_of(i).encode_cq(phase);
                    let addr = q.cq.slot_addr(q.cq.prod, COMPLETION_BYTES);
                    self.cq_wr = Some((bytes, addr, k, 0));
                }
                None => self.bump(cnt::BAD_CPL_QP),
            }
        }

        // Commands to the engine, entries from the ring being fetched.
        let pop = o.m_axis_cmd_tvalid && i.m_axis_cmd_tready;
        let mut push = None;
        if o.s_axis_fetch_tready && i.s_axis_fetch_tvalid {
            self.beats.push(i.s_axis_fetch_tdata);
            if self.beats.len() == BEATS_PER_CMD {
                let mut e = [0u8; COMMAND_BYTES];
                for (k, b) in self.beats.drain(..).enumerate() {
                    e[8 * k..8 * k + 8].copy_from_slice(&b.to_le_bytes());
                }
                if !self.fetch_drop {
                    let raw = Command::decode_unchecked(&e);
                    let mut c = match Command::decode(&e) {
                        Ok(c) => c,
                        // The engine refuses it, with its tag.
                        Err(EntryError::UnknownOpcode(_)) => raw,
                        Err(_) => {
                            self.bump(cnt::BAD_ENTRY);
                            Command { opcode: 0, flags: 0, ..raw }
                        }
                    };
                    c.tag = (c.tag & TAG_HOST_MASK) | ((self.fetch_qp as u32) << TAG_QP_SHIFT);
                    push = Some(c);
                    let sq = &mut self.qps[self.fetch_qp].sq;
                    sq.cons = (sq.cons + 1) & 0xFFFF;
                    self.bump(cnt::FETCHED);
                }
                self.fetch_left -= 1;
                if self.fetch_left == 0 {
                    self.fetch_drop = false;
                }
            }
        }
        if o.m_axis_fetch_tvalid {
            self.fetch_qp = sel;
            if i.m_axis_fetch_tready {
                self.fetch_left = o.m_axis_fetch_len / COMMAND_BYTES as u32;
                self.fetch_req = None;
            } else {
                // A request shown stays until taken (AXI4-Stream).
                self.fetch_req =
                    Some((o.m_axis_fetch_addr, o.m_axis_fetch_len / COMMAND_BYTES as u32));
            }
        }
        self.cmds.clock(pop, push);

        // Register writes last: a submission ring disabled with a fetch in flight takes the
        // fetch's beats as they come and drops them (`fetch_drop`).
        if o.s_axil_awready {
            let ok = self.write_reg((i.s_axil_awaddr & !3).into(), i.s_axil_wdata);
            if !ok {
                self.bump(cnt::BAD_REGISTER);
            }
            self.b = Some(if ok { RESP_OKAY } else { RESP_SLVERR });
        }
    }
}
