//! Random stimulus for the SAN loopback's lockstep: two NICs sending beats and teardowns
//! with gaps, issuing RDMA requests (reads and writes, some of no bytes, some outside the
//! memories), answering checks late with grants and denials, taking deliveries and
//! responses with random backpressure; and two memories answering word reads a cycle after
//! their grant, taking writes when they are ready.
//!
//! The stimulus also checks what it sees against the SAN's meaning, so a model and a
//! Verilog that agree on a wrong behaviour still fail: every delivered beat and teardown is
//! the next one sent the other way; every response answers the request with the status the
//! check and the ranges call for; every byte a copy writes is inside its destination and
//! equal to its source byte, and a copy answered 0 wrote every byte of its range. To keep
//! that exact while both units run, sources lie in the memories' lower halves and unit
//! `n`'s destinations in quarter `2 + n`, so no copy reads what another writes.

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::san_loop::{LinkEntry, Rq, SanLoopIn, SanLoopOut};
use crate::ports::{Ports, Stimulus};
use crate::status::fault;

/// What a unit's response must say, and the copy it must have made.
#[derive(Clone, Debug)]
struct Expect {
    tag: u16,
    status: u8,
    /// Destination node, address, source bytes; bytes written so far.
    copy: Option<(usize, u64, Vec<u8>)>,
    written: u64,
}

/// One NIC's traffic.
#[derive(Clone, Debug, Default)]
struct Nic {
    tx: Option<LinkEntry>,
    rq: Option<Rq>,
    /// Checks taken from the loopback, not yet answered: (cycles to wait, grant, reason).
    ck: Option<(u32, bool, u8)>,
}

/// The stimulus.
pub struct SanLoopDriver {
    rng: ChaCha8Rng,
    words: u32,
    /// Probability a valid or ready the stimulus drives is high in a cycle.
    pub rate: f64,
    nic: [Nic; 2],
    mem: [Vec<u64>; 2],
    /// The word read granted last cycle on each memory.
    reading: [Option<u16>; 2],
    /// Unit `n`'s request taken (waiting for its check's answer), then its expectation.
    asked: [Option<Rq>; 2],
    expect: [Option<Expect>; 2],
    /// Link `a`'s entries sent, not yet delivered.
    sent: [VecDeque<LinkEntry>; 2],
    /// Counted over the run.
    pub beats: u64,
    pub downs: u64,
    pub copies: u64,
    pub copied_bytes: u64,
    pub denied: u64,
    pub oob: u64,
    /// What broke the SAN's meaning, with the cycle.
    pub problems: Vec<String>,
    cycle: u64,
    /// Each node's port indexes in the port structs.
    ix_in: [[usize; 23]; 2],
    ix_out: [[usize; 24]; 2],
}

impl SanLoopDriver {
    pub fn new(seed: u64, words: u32) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mem = [0, 1].map(|_| (0..words).map(|_| rng.r#gen()).collect());
        SanLoopDriver {
            rng,
            words,
            rate: 0.7,
            nic: Default::default(),
            mem,
            reading: [None; 2],
            asked: [None; 2],
            expect: [None, None],
            sent: Default::default(),
            beats: 0,
            downs: 0,
            copies: 0,
            copied_bytes: 0,
            denied: 0,
            oob: 0,
            problems: Vec::new(),
            cycle: 0,
            ix_in: [0, 1].map(|n| indexes::<SanLoopIn, 23>(IN_PORTS, n)),
            ix_out: [0, 1].map(|n| indexes::<SanLoopOut, 24>(OUT_PORTS, n)),
        }
    }

    /// The memory contents the stimulus keeps (`n`'s), as the loopback's writes left them.
    pub fn memory(&self, n: usize) -> &[u64] {
        &self.mem[n]
    }

    fn bytes(&self) -> u64 {
        8 * u64::from(self.words)
    }

    /// A request of node `n`: a source in the lower half, a destination in quarter `2 + n`;
    /// some of no bytes, some long, some reaching past the memory.
    fn request(&mut self, n: usize) -> Rq {
        let b = self.bytes();
        let q = b / 4;
        let len: u32 = match self.rng.gen_range(0..16) {
            0 => 0,
            1 => self.rng.gen_range(200..1200),
            _ => self.rng.gen_range(1..=64),
        };
        let l = u64::from(len);
        let src = match self.rng.gen_range(0..8) {
            0 => self.rng.gen_range(0..8),
            _ => self.rng.gen_range(0..2 * q - l),
        };
        let mut dst = (2 + n as u64) * q + self.rng.gen_range(0..q - l);
        if n == 1 && self.rng.gen_range(0..8) == 0 {
            // Ending at the memory's end.
            dst = b - l;
        }
        let write = self.rng.gen_bool(0.5);
        let (mut raddr, mut laddr) = if write { (dst, src) } else { (src, dst) };
        match self.rng.gen_range(0..24) {
            0 => raddr = b - l + 1 + self.rng.gen_range(0..8),
            1 => laddr = b - l + 1 + self.rng.gen_range(0..8),
            2 => raddr |= self.rng.r#gen::<u64>() << 20,
            _ => {}
        }
        Rq {
            tag: self.rng.r#gen(),
            write,
            conn: self.rng.r#gen(),
            raddr,
            rkey: self.rng.r#gen(),
            laddr,
            len,
        }
    }

    /// What unit `n`'s response must be, for request `r` whose check answered `grant`.
    fn expectation(&self, n: usize, r: &Rq, grant: bool, reason: u8) -> Expect {
        let (s, d, src_node, dst_node) =
            if r.write { (r.laddr, r.raddr, n, 1 - n) } else { (r.raddr, r.laddr, 1 - n, n) };
        let l = u64::from(r.len);
        let b = self.bytes();
        let mut e = Expect { tag: r.tag, status: fault::OK, copy: None, written: 0 };
        if !grant {
            e.status = reason;
        } else if l == 0 {
        } else if s >= b || l > b - s || d >= b || l > b - d {
            e.status = fault::TRANSPORT;
        } else {
            let m = &self.mem[src_node];
            let bytes = (s..s + l).map(|a| (m[(a / 8) as usize] >> (8 * (a % 8))) as u8).collect();
            e.copy = Some((dst_node, d, bytes));
        }
        e
    }

    fn problem(&mut self, what: String) {
        if self.problems.len() < 20 {
            self.problems.push(format!("cycle {}: {what}", self.cycle));
        }
    }
}

/// A node's ports, by name with `{}` for the node number: their indexes in the port structs.
const IN_PORTS: [&str; 23] = [
    "s_axis_tx_tvalid_{}",
    "s_axis_tx_tdata_{}",
    "s_axis_tx_tkeep_{}",
    "s_axis_tx_tlast_{}",
    "s_axis_tx_tuser_{}",
    "s_axis_down_tvalid_{}",
    "s_axis_down_conn_{}",
    "m_axis_rx_tready_{}",
    "m_axis_down_tready_{}",
    "s_axis_rq_tvalid_{}",
    "s_axis_rq_tag_{}",
    "s_axis_rq_write_{}",
    "s_axis_rq_conn_{}",
    "s_axis_rq_raddr_{}",
    "s_axis_rq_rkey_{}",
    "s_axis_rq_laddr_{}",
    "s_axis_rq_len_{}",
    "m_axis_rs_tready_{}",
    "m_axis_ac_tready_{}",
    "s_axis_ck_tvalid_{}",
    "s_axis_ck_grant_{}",
    "s_axis_ck_reason_{}",
    "m_mem_ready_{}",
];
const OUT_PORTS: [&str; 24] = [
    "s_axis_tx_tready_{}",
    "s_axis_down_tready_{}",
    "m_axis_rx_tvalid_{}",
    "m_axis_rx_tdata_{}",
    "m_axis_rx_tkeep_{}",
    "m_axis_rx_tlast_{}",
    "m_axis_rx_tuser_{}",
    "m_axis_down_tvalid_{}",
    "m_axis_down_conn_{}",
    "s_axis_rq_tready_{}",
    "m_axis_rs_tvalid_{}",
    "m_axis_rs_tag_{}",
    "m_axis_rs_status_{}",
    "m_axis_ac_tvalid_{}",
    "m_axis_ac_conn_{}",
    "m_axis_ac_key_{}",
    "m_axis_ac_write_{}",
    "m_axis_ac_addr_{}",
    "m_axis_ac_len_{}",
    "s_axis_ck_tready_{}",
    "m_mem_valid_{}",
    "m_mem_write_{}",
    "m_mem_index_{}",
    "m_mem_wdata_{}",
];

/// Port indexes of `names` for node `n`.
fn indexes<P: Ports, const K: usize>(names: [&str; K], n: usize) -> [usize; K] {
    names.map(|f| {
        let name = f.replace("{}", &n.to_string());
        P::PORTS.iter().position(|p| p.name == name).unwrap_or_else(|| panic!("no port {name}"))
    })
}

/// Node inputs by meaning (indexes into [`IN_PORTS`]).
mod pin {
    pub const TX_VALID: usize = 0;
    pub const TX_DATA: usize = 1;
    pub const TX_KEEP: usize = 2;
    pub const TX_LAST: usize = 3;
    pub const TX_USER: usize = 4;
    pub const DOWN_VALID: usize = 5;
    pub const DOWN_CONN: usize = 6;
    pub const RX_READY: usize = 7;
    pub const DOWN_READY: usize = 8;
    pub const RQ_VALID: usize = 9;
    pub const RQ_TAG: usize = 10;
    pub const RQ_WRITE: usize = 11;
    pub const RQ_CONN: usize = 12;
    pub const RQ_RADDR: usize = 13;
    pub const RQ_RKEY: usize = 14;
    pub const RQ_LADDR: usize = 15;
    pub const RQ_LEN: usize = 16;
    pub const RS_READY: usize = 17;
    pub const AC_READY: usize = 18;
    pub const CK_VALID: usize = 19;
    pub const CK_GRANT: usize = 20;
    pub const CK_REASON: usize = 21;
    pub const MEM_READY: usize = 22;
}

/// Node outputs by meaning (indexes into [`OUT_PORTS`]).
mod pout {
    pub const TX_READY: usize = 0;
    pub const DOWN_READY: usize = 1;
    pub const RX_VALID: usize = 2;
    pub const RX_DATA: usize = 3;
    pub const RX_KEEP: usize = 4;
    pub const RX_LAST: usize = 5;
    pub const RX_USER: usize = 6;
    pub const DOWN_VALID: usize = 7;
    pub const DOWN_CONN: usize = 8;
    pub const RQ_READY: usize = 9;
    pub const RS_VALID: usize = 10;
    pub const RS_TAG: usize = 11;
    pub const RS_STATUS: usize = 12;
    pub const AC_VALID: usize = 13;
    pub const CK_READY: usize = 19;
    pub const MEM_VALID: usize = 20;
    pub const MEM_WRITE: usize = 21;
    pub const MEM_INDEX: usize = 22;
    pub const MEM_WDATA: usize = 23;
}

impl Stimulus<SanLoopIn, SanLoopOut> for SanLoopDriver {
    fn next(&mut self) -> SanLoopIn {
        let mut i = SanLoopIn::default();
        for n in 0..2 {
            let ix = self.ix_in[n];
            let mut put = |f: usize, v: u64| i.set(ix[f], v);
            if self.nic[n].tx.is_none() && self.rng.gen_bool(0.5) {
                let down = self.rng.gen_range(0..16) == 0;
                self.nic[n].tx = Some(LinkEntry {
                    down,
                    conn: self.rng.r#gen(),
                    data: if down { 0 } else { self.rng.r#gen() },
                    keep: if down { 0 } else { self.rng.r#gen() },
                    last: !down && self.rng.gen_bool(0.25),
                });
            }
            if let Some(e) = self.nic[n].tx {
                let v = self.rng.gen_bool(self.rate);
                if e.down {
                    put(pin::DOWN_VALID, v.into());
                    put(pin::DOWN_CONN, e.conn.into());
                } else {
                    put(pin::TX_VALID, v.into());
                    put(pin::TX_DATA, e.data);
                    put(pin::TX_KEEP, e.keep.into());
                    put(pin::TX_LAST, e.last.into());
                    put(pin::TX_USER, e.conn.into());
                }
            }
            put(pin::RX_READY, self.rng.gen_bool(self.rate).into());
            put(pin::DOWN_READY, self.rng.gen_bool(self.rate).into());
            if self.nic[n].rq.is_none() && self.rng.gen_bool(0.05) {
                self.nic[n].rq = Some(self.request(n));
            }
            if let Some(r) = self.nic[n].rq {
                put(pin::RQ_VALID, self.rng.gen_bool(self.rate).into());
                put(pin::RQ_TAG, r.tag.into());
                put(pin::RQ_WRITE, r.write.into());
                put(pin::RQ_CONN, r.conn.into());
                put(pin::RQ_RADDR, r.raddr);
                put(pin::RQ_RKEY, r.rkey.into());
                put(pin::RQ_LADDR, r.laddr);
                put(pin::RQ_LEN, r.len.into());
            }
            put(pin::RS_READY, self.rng.gen_bool(self.rate).into());
            put(pin::AC_READY, self.rng.gen_bool(self.rate).into());
            if let Some((wait, grant, reason)) = &mut self.nic[n].ck {
                if *wait > 0 {
                    *wait -= 1;
                } else {
                    put(pin::CK_VALID, 1);
                    put(pin::CK_GRANT, (*grant).into());
                    put(pin::CK_REASON, (*reason).into());
                }
            }
            put(pin::MEM_READY, self.rng.gen_bool(self.rate).into());
        }
        // The memories' read data: the word granted last cycle, else noise.
        i.s_mem_rdata_0 = match self.reading[0] {
            Some(w) => self.mem[0][w as usize],
            None => self.rng.r#gen(),
        };
        i.s_mem_rdata_1 = match self.reading[1] {
            Some(w) => self.mem[1][w as usize],
            None => self.rng.r#gen(),
        };
        i
    }

    fn observe(&mut self, i: &SanLoopIn, o: &SanLoopOut) {
        self.cycle += 1;
        if i.reset {
            return;
        }
        for n in 0..2 {
            let (ii, io) = (self.ix_in[n], self.ix_out[n]);
            let inp = |f: usize| i.get(ii[f]);
            let out = |f: usize| o.get(io[f]);
            // Node n's sends.
            if inp(pin::TX_VALID) == 1 && out(pout::TX_READY) == 1
                || inp(pin::DOWN_VALID) == 1 && out(pout::DOWN_READY) == 1
            {
                let e = self.nic[n].tx.take().expect("an entry was offered");
                self.sent[n].push_back(e);
            }
            // Deliveries to node n come from link 1 - n.
            let rx = out(pout::RX_VALID) == 1 && inp(pin::RX_READY) == 1;
            let down = out(pout::DOWN_VALID) == 1 && inp(pin::DOWN_READY) == 1;
            if rx || down {
                let got = LinkEntry {
                    down,
                    conn: if down { out(pout::DOWN_CONN) } else { out(pout::RX_USER) } as u8,
                    data: if down { 0 } else { out(pout::RX_DATA) },
                    keep: if down { 0 } else { out(pout::RX_KEEP) } as u8,
                    last: !down && out(pout::RX_LAST) == 1,
                };
                let want = self.sent[1 - n].pop_front();
                if want != Some(got) {
                    self.problem(format!("node {n} got {got:?}, the next sent was {want:?}"));
                }
                if down {
                    self.downs += 1;
                } else {
                    self.beats += 1;
                }
            }
            // Node n's request taken by unit n.
            if inp(pin::RQ_VALID) == 1 && out(pout::RQ_READY) == 1 {
                self.asked[n] = self.nic[n].rq.take();
            }
            // Unit 1 - n's check taken by node n, answered later.
            if out(pout::AC_VALID) == 1 && inp(pin::AC_READY) == 1 {
                let grant = self.rng.gen_bool(0.8);
                let reason = self.rng.gen_range(1..8);
                self.nic[n].ck = Some((self.rng.gen_range(0..4), grant, reason));
            }
            if inp(pin::CK_VALID) == 1 && out(pout::CK_READY) == 1 {
                let (_, grant, reason) = self.nic[n].ck.take().expect("a check answered");
                let u = 1 - n;
                match self.asked[u].take() {
                    Some(r) => {
                        let e = self.expectation(u, &r, grant, reason);
                        self.expect[u] = Some(e);
                    }
                    None => self.problem(format!("unit {u}'s check answered, no request")),
                }
            }
            // Unit n's response to node n.
            if out(pout::RS_VALID) == 1 && inp(pin::RS_READY) == 1 {
                let (tag, status) = (out(pout::RS_TAG) as u16, out(pout::RS_STATUS) as u8);
                match self.expect[n].take() {
                    Some(e) if e.tag != tag || e.status != status => self.problem(format!(
                        "unit {n} answered tag {tag:#x} status {status}, expected {:#x} {}",
                        e.tag, e.status
                    )),
                    Some(e) => match (&e.copy, status) {
                        (Some((_, _, b)), _) if e.written != b.len() as u64 => {
                            let want = b.len();
                            self.problem(format!("unit {n} wrote {} of {want} bytes", e.written))
                        }
                        (Some((_, _, b)), _) => {
                            self.copies += 1;
                            self.copied_bytes += b.len() as u64;
                        }
                        (None, fault::OK) => {}
                        (None, fault::TRANSPORT) if status == e.status => self.oob += 1,
                        (None, _) => self.denied += 1,
                    },
                    None => self.problem(format!("unit {n} answered, nothing asked")),
                }
            }
            // Node n's memory.
            self.reading[n] = None;
            if out(pout::MEM_VALID) == 1 && inp(pin::MEM_READY) == 1 {
                let index = out(pout::MEM_INDEX) as u16;
                if out(pout::MEM_WRITE) == 0 {
                    self.reading[n] = Some(index);
                } else {
                    let (data, mask) = if n == 0 {
                        (o.m_mem_wdata_0, o.m_mem_wmask_0)
                    } else {
                        (o.m_mem_wdata_1, o.m_mem_wmask_1)
                    };
                    let _ = pout::MEM_WDATA;
                    self.write(n, index, data, mask);
                }
            }
        }
    }

    fn reset(&mut self) {
        for nic in &mut self.nic {
            *nic = Nic::default();
        }
        self.reading = [None; 2];
        self.asked = [None; 2];
        self.expect = [None, None];
        self.sent = Default::default();
    }
}

impl SanLoopDriver {
    /// A granted word write on node `n`'s memory: each byte inside the destination of the
    /// copy landing there, equal to its source byte.
    fn write(&mut self, n: usize, index: u16, data: u64, mask: u8) {
        let q = self.bytes() / 4;
        for b in 0..8 {
            if mask >> b & 1 == 0 {
                continue;
            }
            let addr = 8 * u64::from(index) + b;
            let v = (data >> (8 * b)) as u8;
            // Unit u lands in quarter 2 + u (or at the memory's end, unit 1 only).
            let u = if addr >= 3 * q { 1 } else { 0 };
            let ok = match &mut self.expect[u] {
                Some(Expect { copy: Some((node, d, bytes)), written, .. })
                    if *node == n && addr >= *d && addr - *d < bytes.len() as u64 =>
                {
                    *written += 1;
                    bytes[(addr - *d) as usize] == v
                }
                _ => false,
            };
            if !ok {
                self.problem(format!("node {n}: byte {addr:#x} written {v:#04x} outside a copy"));
            }
        }
        let w = &mut self.mem[n][index as usize];
        let m = (0..8).filter(|b| mask >> b & 1 != 0).fold(0u64, |a, b| a | 0xFF << (8 * b));
        *w = *w & !m | data & m;
    }
}
