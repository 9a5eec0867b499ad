//! Random stimulus for the host interface's lockstep: a host that programs every queue
//! pair's rings, rings doorbells (some beyond the ring, some at the ring's exact end as the
//! fetch moves the consumer pointer: see [`HostIfDriver`]), returns completion entries (some
//! past the producer), arms the rings, disables and re-enables them, and pokes holes in the
//! register space; host memory that answers fetches (entries some with reserved bits set or
//! unknown opcodes); an engine that takes commands and offers completions for every queue
//! pair (now and then for one that does not exist); random backpressure everywhere.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::hostif::{HostIfIn, HostIfOut};
use crate::host::{COMMAND_BYTES, Command, TAG_HOST_MASK, TAG_QP_SHIFT};
use crate::ports::Stimulus;
use crate::regs::{self, HostParams, qp};

/// The host's view of one queue pair: log2 sizes, doorbell and completion pointers, the
/// submission ring's base as last written and its consumer pointer as last read and since
/// followed entry by entry (`None` when unknown).
#[derive(Clone, Copy, Debug)]
struct HostQp {
    sq_log2: u32,
    cq_log2: u32,
    prod: u32,
    cq_seen: u32,
    sq_base: u64,
    sq_en: bool,
    cons: Option<u32>,
}

impl HostQp {
    fn new() -> Self {
        HostQp { sq_log2: 3, cq_log2: 3, prod: 0, cq_seen: 0, sq_base: 0, sq_en: false, cons: None }
    }

    /// The submission ring holds bus address `addr` (as the host last set it up).
    fn holds(&self, addr: u64) -> bool {
        let bytes = (COMMAND_BYTES as u64) << self.sq_log2;
        addr.wrapping_sub(self.sq_base) < bytes
    }
}

/// The stimulus.
///
/// Besides random accesses, the host reads a queue pair's `sq_cons`, follows it as the
/// entries it feeds arrive, and then rings the doorbell at the ring's exact end (`cons +
/// size`, accepted) or one past it (`cons + size + 1`, stopping the ring), preferably in
/// the cycle it offers an entry's last beat for that ring: the edge that moves `sq_cons`,
/// where the doorbell's check must use the pointer as it moves (one past, then, is not
/// beyond).
pub struct HostIfDriver {
    rng: ChaCha8Rng,
    /// Each queue pair's register block.
    qp_bases: Vec<u32>,
    /// The register space's end (reads and writes go a little past it).
    space: u32,
    /// Probability that a valid or ready the stimulus drives is high in a cycle.
    pub rate: f64,
    /// The register access being offered (write: offset and value; read: offset).
    wr: Option<(u16, u32)>,
    rd: Option<u16>,
    /// The read offered is of this queue pair's `sq_cons`; the read taken and not yet
    /// answered was (reads are answered one at a time, in order).
    rd_cons: Option<usize>,
    rd_cons_taken: Option<Option<usize>>,
    /// A doorbell at the ring's end is due for this queue pair: one past it if `true`.
    tight: Option<(usize, bool)>,
    /// The write offered is such a doorbell, for this queue pair.
    tight_wr: Option<usize>,
    qps: Vec<HostQp>,
    /// Fetches taken and the beats still owed: (address of the next beat, beats left, the
    /// queue pair whose ring holds the address, as the host knows its rings).
    fetch: std::collections::VecDeque<(u64, u32, Option<usize>)>,
    /// The queue pairs of the completions taken and not yet written.
    cq_pending: std::collections::VecDeque<usize>,
    cpl_valid: bool,
    cpl: [u64; 2],
    /// Doorbells at a ring's end or one past it (from a followed `sq_cons`) taken at an
    /// edge that moves that `sq_cons`: the case the doorbell check must get right with
    /// the pointer as it moves. A run should count some, or it has not tried that case.
    pub edge_doorbells: u64,
}

/// Entry at bus address `addr` of host memory: a command, deterministic in the address, now
/// and then with reserved bits set or an unknown opcode.
pub fn entry_at(addr: u64) -> [u8; COMMAND_BYTES] {
    let mut x = addr.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5A5A;
    let mut next = || {
        x ^= x >> 30;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^= x >> 27;
        x
    };
    let r = next();
    let c = Command {
        opcode: if r % 13 == 0 { 42 } else { (r % 9) as u8 + 1 },
        flags: 0,
        conn: (r >> 8) as u16 % 20,
        tag: (r >> 16) as u32 & TAG_HOST_MASK,
        addr: next(),
        len: next() as u32,
        aux: next(),
    };
    let mut e = c.encode();
    match r % 17 {
        0 => e[1] = 1,     // flags
        1 => e[22] = 0x80, // the reserved word
        2 => e[7] |= 0x40, // the queue pair's bits of the tag
        _ => {}
    }
    e
}

impl HostIfDriver {
    /// A host of the interface `h` describes.
    pub fn new(seed: u64, h: &HostParams) -> Self {
        let layout = regs::layout(h);
        let (last, def) = layout[layout.len() - 1];
        HostIfDriver {
            rng: ChaCha8Rng::seed_from_u64(seed),
            qp_bases: layout[2..].iter().map(|b| b.0).collect(),
            space: last + def.bytes,
            rate: 0.7,
            wr: None,
            rd: None,
            rd_cons: None,
            rd_cons_taken: None,
            tight: None,
            tight_wr: None,
            qps: vec![HostQp::new(); h.queue_pairs.into()],
            fetch: Default::default(),
            cq_pending: Default::default(),
            cpl_valid: false,
            cpl: [0; 2],
            edge_doorbells: 0,
        }
    }

    fn on(&mut self) -> bool {
        self.rng.gen_bool(self.rate)
    }

    /// The host's next register access.
    fn pick_access(&mut self) {
        let n = self.rng.gen_range(0..self.qps.len());
        let q = self.qp_bases[n];
        let h = &mut self.qps[n];
        let k = self.rng.gen_range(0..100);
        let size = 1u32 << h.sq_log2;
        let (off, v) = match k {
            0..=29 => {
                // A doorbell for a few more entries; now and then one past the ring (the
                // ring stops until it is disabled).
                let n = if self.rng.gen_bool(0.03) {
                    size + 1
                } else {
                    self.rng.gen_range(0..=size / 2 + 1)
                };
                let v = (h.prod + n) & 0xFFFF;
                if n <= size {
                    h.prod = v;
                }
                (q + qp::SQ_PROD, v)
            }
            30..=49 => {
                // Completion entries back: those seen, now and then one too many.
                let extra = u32::from(self.rng.gen_bool(0.05));
                (q + qp::CQ_CONS, (h.cq_seen + extra) & 0xFFFF)
            }
            50..=54 => {
                let arm = if self.rng.gen_bool(0.5) { qp::CTRL_ARM } else { 0 };
                (q + qp::CQ_CTRL, qp::CTRL_ENABLE | arm)
            }
            55..=57 => {
                // Disable a ring (pointers back to 0), then set it up again later.
                h.prod = 0;
                if self.rng.gen_bool(0.5) {
                    // (The followed `sq_cons` is forgotten when the write is accepted.)
                    h.sq_en = false;
                    (q + qp::SQ_CTRL, 0)
                } else {
                    h.cq_seen = 0;
                    (q + qp::CQ_CTRL, 0)
                }
            }
            58..=61 => {
                h.sq_en = true;
                (q + qp::SQ_CTRL, qp::CTRL_ENABLE)
            }
            62..=64 => {
                // (The host's view follows the hardware: setup is ignored while it runs.)
                let v = self.rng.gen_range(0..=5);
                if !h.sq_en {
                    h.sq_log2 = v;
                }
                (q + qp::SQ_LOG2_SIZE, v)
            }
            65..=67 => {
                h.cq_log2 = self.rng.gen_range(0..=4);
                (q + qp::CQ_LOG2_SIZE, h.cq_log2)
            }
            68..=71 => {
                let r = [qp::SQ_BASE_LO, qp::SQ_BASE_HI, qp::CQ_BASE_LO, qp::CQ_BASE_HI];
                let (r, v) = (r[self.rng.gen_range(0..4)], self.rng.r#gen::<u32>() & !0x3F);
                let b = h.sq_base;
                match r {
                    _ if h.sq_en => {}
                    qp::SQ_BASE_LO => h.sq_base = (b & !0xFFFF_FFFF) | u64::from(v),
                    qp::SQ_BASE_HI => h.sq_base = (b & 0xFFFF_FFFF) | (u64::from(v) << 32),
                    _ => {}
                }
                (q + r, v)
            }
            72..=75 => {
                let bank = self.rng.gen_range(0..4u32);
                (regs::ID_BLOCK.bytes + regs::cnt::INDEX, (bank << 5) | self.rng.gen_range(0..8))
            }
            76..=81 => {
                // Read `sq_cons`, for a doorbell at the ring's end once it is known.
                self.rd = Some((q + qp::SQ_CONS) as u16);
                self.rd_cons = Some(n);
                return;
            }
            _ => {
                // A read, of anything (holes included), or a write to a random offset.
                let off = self.rng.gen_range(0..self.space + 0x20) & !3;
                if k < 95 {
                    self.rd = Some(off as u16);
                    return;
                }
                (off, self.rng.r#gen())
            }
        };
        // The host's log2 sizes are clamped as the hardware clamps them.
        h.sq_log2 = h.sq_log2.clamp(1, 12);
        h.cq_log2 = h.cq_log2.clamp(1, 12);
        self.wr = Some((off as u16, v));
    }
}

/// Whether the fetch beat at `addr` is a command entry's last (the beat whose taking moves
/// the ring's `sq_cons`).
fn last_beat_of_entry(addr: u64) -> bool {
    addr % COMMAND_BYTES as u64 == COMMAND_BYTES as u64 - 8
}

impl Stimulus<HostIfIn, HostIfOut> for HostIfDriver {
    fn next(&mut self) -> HostIfIn {
        let beat = self.fetch.front().copied().filter(|_| self.on());
        if let Some((n, past)) = self.tight.filter(|_| self.wr.is_none() && self.rd.is_none()) {
            // At an edge that moves this ring's `sq_cons` if one is coming (the beat
            // offered is an entry's last), else now and then.
            let last_of_entry =
                beat.is_some_and(|(addr, _, qp)| qp == Some(n) && last_beat_of_entry(addr));
            if let Some(cons) = self.qps[n].cons {
                if last_of_entry || self.rng.gen_bool(0.02) {
                    let h = &mut self.qps[n];
                    let size = 1u32 << h.sq_log2;
                    let v = (cons + size + u32::from(past)) & 0xFFFF;
                    if !past {
                        h.prod = v;
                    }
                    self.wr = Some(((self.qp_bases[n] + qp::SQ_PROD) as u16, v));
                    self.tight = None;
                    self.tight_wr = Some(n);
                }
            } else {
                self.tight = None;
            }
        }
        if self.wr.is_none() && self.rd.is_none() && self.rng.gen_bool(0.2) {
            self.pick_access();
        }
        let mut i = HostIfIn {
            cnt_rd_data: self.rng.r#gen(),
            s_axil_bready: self.on(),
            s_axil_rready: self.on(),
            m_axis_fetch_tready: self.on(),
            m_axis_cqwr_tready: self.on(),
            m_axis_cmd_tready: self.on(),
            ..HostIfIn::default()
        };
        if let Some((off, v)) = self.wr {
            i.s_axil_awvalid = true;
            i.s_axil_awaddr = off;
            i.s_axil_wvalid = true;
            i.s_axil_wdata = v;
        }
        if let Some(off) = self.rd {
            i.s_axil_arvalid = true;
            i.s_axil_araddr = off;
        }
        if let Some((addr, left, _)) = beat {
            {
                i.s_axis_fetch_tvalid = true;
                let entry = addr & !(COMMAND_BYTES as u64 - 1);
                let k = ((addr - entry) / 8) as usize;
                let e = entry_at(entry);
                i.s_axis_fetch_tdata = u64::from_le_bytes(e[8 * k..8 * k + 8].try_into().unwrap());
                i.s_axis_fetch_tlast = left == 1;
            }
        }
        if !self.cpl_valid && self.rng.gen_bool(0.3) {
            self.cpl_valid = true;
            self.cpl = [self.rng.r#gen(), self.rng.r#gen()];
            // Mostly for a queue pair that exists.
            if self.rng.gen_bool(0.95) {
                let q = self.rng.gen_range(0..self.qps.len()) as u64;
                self.cpl[0] = (self.cpl[0] & !(7 << TAG_QP_SHIFT)) | (q << TAG_QP_SHIFT);
            }
        }
        if self.cpl_valid {
            i.s_axis_cpl_tvalid = true;
            i.s_axis_cpl_tag = self.cpl[0] as u32;
            i.s_axis_cpl_bytes = (self.cpl[0] >> 32) as u32;
            i.s_axis_cpl_conn = self.cpl[1] as u16;
            i.s_axis_cpl_status = (self.cpl[1] >> 16) as u16;
            i.s_axis_cpl_opcode = (self.cpl[1] >> 32) as u8;
            i.s_axis_cpl_urgent = self.cpl[1] >> 40 & 1 != 0;
            i.s_axis_cpl_eof = self.cpl[1] >> 41 & 1 != 0;
        }
        i
    }

    fn observe(&mut self, i: &HostIfIn, o: &HostIfOut) {
        if i.reset {
            return;
        }
        if i.s_axil_awvalid && o.s_axil_awready {
            self.wr = None;
        }
        if o.s_axil_rvalid && i.s_axil_rready {
            if let Some(Some(n)) = self.rd_cons_taken.take() {
                // Known from here on, followed as entries arrive; the doorbell follows.
                self.qps[n].cons = Some(o.s_axil_rdata & 0xFFFF);
                self.tight = Some((n, self.rng.gen_bool(0.5)));
            }
        }
        if i.s_axil_arvalid && o.s_axil_arready {
            self.rd = None;
            self.rd_cons_taken = Some(self.rd_cons.take());
        }
        let tight_taken =
            if i.s_axil_awvalid && o.s_axil_awready { self.tight_wr.take() } else { None };
        if i.s_axil_awvalid && o.s_axil_awready {
            // A write's effect on the ring's pointer is not followed.
            let off = u32::from(i.s_axil_awaddr) & !3;
            if let Some(n) = self.qp_bases.iter().position(|&b| off == b + qp::SQ_CTRL) {
                self.qps[n].cons = None;
            }
        }
        if o.m_axis_fetch_tvalid && i.m_axis_fetch_tready {
            let addr = o.m_axis_fetch_addr;
            let qp = self.qps.iter().position(|h| h.holds(addr));
            self.fetch.push_back((addr, o.m_axis_fetch_len / 8, qp));
        }
        if i.s_axis_fetch_tvalid && o.s_axis_fetch_tready {
            let (addr, left, qp) = self.fetch.pop_front().expect("a beat owed");
            if left > 1 {
                self.fetch.push_front((addr + 8, left - 1, qp));
            }
            if last_beat_of_entry(addr) {
                if let Some(n) = qp.filter(|&n| tight_taken == Some(n)) {
                    self.edge_doorbells += u64::from(self.qps[n].cons.is_some());
                }
                if let Some(c) = qp.and_then(|n| self.qps[n].cons.as_mut()) {
                    *c = (*c + 1) & 0xFFFF;
                }
            }
        }
        if i.s_axis_cpl_tvalid && o.s_axis_cpl_tready {
            self.cpl_valid = false;
            let q = (i.s_axis_cpl_tag >> TAG_QP_SHIFT) as usize;
            if q < self.qps.len() {
                self.cq_pending.push_back(q);
            }
        }
        if o.m_axis_cqwr_tvalid && i.m_axis_cqwr_tready && o.m_axis_cqwr_tlast {
            let q = self.cq_pending.pop_front().expect("a completion taken");
            self.qps[q].cq_seen = (self.qps[q].cq_seen + 1) & 0xFFFF;
        }
    }

    fn reset(&mut self) {
        self.wr = None;
        self.rd = None;
        self.rd_cons = None;
        self.rd_cons_taken = None;
        self.tight = None;
        self.tight_wr = None;
        self.fetch.clear();
        self.cq_pending.clear();
        self.cpl_valid = false;
        self.qps.iter_mut().for_each(|h| *h = HostQp::new());
    }
}
