//! Cycle model of a board node's on-chip memory: what stands for a NIC's host memory on the
//! XEM7010 (`docs/BOARD.md`, "Node memory"). 64-bit words in eight byte lanes of block RAM
//! (one read port and one write port, the read a cycle late), two users:
//!
//! - **the NIC's host-memory port** (byte addresses, as `HostPort` in the model's
//!   harnesses): read requests (`s_axis_rdreq_*`) answered with beats realigned to the
//!   request's address (`m_axis_rddata_*`: beat k holds bytes `addr + 8k ..`, the last keeps
//!   the low `len - 8k`); write beats (`s_axis_wr_*`, beat k of a burst at `addr + 8k`, the
//!   burst's address held on every beat) written whole bytes only;
//! - **a word port** (`s_mem_*` / `m_mem_r*`) for the bridge and the SAN loopback, as the
//!   bridge's `m_mem_*`.
//!
//! # Timing
//! - Reads: the word at `i0 + j` is read in sequence (one a cycle while the output FIFO of
//!   [`RD_FIFO`] beats has room for every beat the words read so far will make); a word arrives a cycle
//!   after its read; a beat is made from the word before it and itself (`o = addr mod 8`
//!   ≠ 0) or from itself alone; an unaligned request whose last beat lies in its last word
//!   gets that beat a cycle after that word (`flush`).
//! - Writes: a beat a cycle; its bytes go to the word it starts in, together with the bytes
//!   the beat before it carried into that word; a burst that leaves bytes carried writes
//!   them in one more cycle, taking no beat then.
//! - The ports: each of the RAM's two ports serves one user a cycle; when both ask, the one
//!   not served last time (round robin per port). A read request taken waits for no other.
//! - An access outside the memory (or a read of no bytes) touches nothing: a read is answered
//!   with zero beats of the asked shape (one a cycle, no RAM read), a write beat is dropped
//!   (its write-port slot unused); each counts in `cnt_oob`.

use std::collections::VecDeque;

use crate::ports::CycleModel;

/// Beats the read side's output FIFO holds.
pub const RD_FIFO: usize = 4;

crate::ports! {
    /// Node memory inputs.
    pub struct NodeMemIn {
        reset: bool = 1,
        s_axis_rdreq_tvalid: bool = 1,
        s_axis_rdreq_addr: u64 = 64,
        s_axis_rdreq_len: u32 = 32,
        m_axis_rddata_tready: bool = 1,
        s_axis_wr_tvalid: bool = 1,
        s_axis_wr_addr: u64 = 64,
        s_axis_wr_tdata: u64 = 64,
        s_axis_wr_tkeep: u8 = 8,
        s_axis_wr_tlast: bool = 1,
        s_mem_valid: bool = 1,
        s_mem_write: bool = 1,
        s_mem_index: u16 = 16,
        s_mem_wdata: u64 = 64,
        s_mem_wmask: u8 = 8,
    }
}

crate::ports! {
    /// Node memory outputs.
    pub struct NodeMemOut {
        s_axis_rdreq_tready: bool = 1,
        m_axis_rddata_tvalid: bool = 1,
        m_axis_rddata_tdata: u64 = 64,
        m_axis_rddata_tkeep: u8 = 8,
        m_axis_rddata_tlast: bool = 1,
        s_axis_wr_tready: bool = 1,
        s_mem_ready: bool = 1,
        m_mem_rvalid: bool = 1,
        m_mem_rdata: u64 = 64,
        cnt_oob: u16 = 16,
    }
}

/// A read request in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct RdJob {
    /// First word, byte offset in it, bytes, words spanned, beats.
    i0: u32,
    o: u32,
    len: u32,
    nwords: u32,
    nbeats: u32,
    /// Outside the memory: zero beats, no RAM read.
    oob: bool,
    /// Words read so far, beats made so far.
    read: u32,
    made: u32,
}

impl RdJob {
    fn beat(&self, k: u32, data: u64) -> Beat {
        let nb = (self.len - 8 * k).min(8);
        let keep = if nb >= 8 { 0xFF } else { ((1u16 << nb) - 1) as u8 };
        Beat { data, keep, last: k + 1 == self.nbeats }
    }
}

/// A beat of the read data stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beat {
    pub data: u64,
    pub keep: u8,
    pub last: bool,
}

/// The bytes `mask` selects of `v`, the rest of `old`.
fn merge(old: u64, v: u64, mask: u8) -> u64 {
    let m = (0..8).filter(|b| mask >> b & 1 != 0).fold(0u64, |a, b| a | 0xFF << (8 * b));
    old & !m | v & m
}

/// Beat data from the word holding its first bytes and the next (offset `o` ≠ 0).
fn join(lo: u64, hi: u64, o: u32) -> u64 {
    lo >> (8 * o) | hi << (64 - 8 * o)
}

#[derive(Clone, Debug)]
pub struct NodeMemModel {
    mem: Vec<u64>,
    rd: Option<RdJob>,
    /// The word read last cycle (its sequence number), arriving now.
    inflight: Option<u32>,
    /// The RAM's read data register.
    ram_out: u64,
    prev: u64,
    /// The last beat to make from `prev` alone, next cycle.
    flush: bool,
    out: VecDeque<Beat>,
    /// Write burst: beat index, first word and offset; bytes carried into the next word.
    wr_beat: u32,
    wr_i0: u32,
    wr_o: u32,
    carry: Option<(u32, u64, u8)>,
    /// The word port's read, answered next cycle.
    b_rvalid: bool,
    /// Round robin: the word port was served last on the read / write port.
    rd_last_b: bool,
    wr_last_b: bool,
    oob: u16,
}

/// What the ports decide in a cycle.
#[derive(Clone, Copy, Debug, Default)]
struct Grants {
    /// The read engine reads its next word; the word port's read goes.
    dma_read: bool,
    b_read: bool,
    /// A write beat is taken; the carry is written; the word port's write goes.
    beat: bool,
    flush_carry: bool,
    b_write: bool,
    /// A read request is taken.
    req: bool,
}

impl NodeMemModel {
    /// A memory of `words` 64-bit words (a power of two, at most 32768: the hardware's word
    /// counters are 16 bits).
    pub fn new(words: usize) -> Self {
        assert!(words.is_power_of_two() && words <= 1 << 15, "{words} words");
        NodeMemModel {
            mem: vec![0; words],
            rd: None,
            inflight: None,
            ram_out: 0,
            prev: 0,
            flush: false,
            out: VecDeque::new(),
            wr_beat: 0,
            wr_i0: 0,
            wr_o: 0,
            carry: None,
            b_rvalid: false,
            rd_last_b: false,
            wr_last_b: false,
            oob: 0,
        }
    }

    pub fn words(&self) -> &[u64] {
        &self.mem
    }

    fn bytes(&self) -> u64 {
        8 * self.mem.len() as u64
    }

    /// The read engine reads a word this cycle if the port is its: the FIFO has room for
    /// every beat the words read so far and this one will make (an unaligned request's
    /// first word makes none; its last may make two, the second by the flush).
    fn wants_read(&self) -> bool {
        let Some(r) = self.rd else { return false };
        if r.oob || r.read >= r.nwords {
            return false;
        }
        let n = r.read + 1;
        let produced =
            if r.o == 0 { n } else { n - 1 + u32::from(n == r.nwords && r.nbeats == r.nwords) };
        self.out.len() as u32 + produced - r.made <= RD_FIFO as u32
    }

    /// Where the write beat offered this cycle goes: its burst's first word and offset, and
    /// whether its bytes lie inside the memory.
    fn beat_place(&self, i: &NodeMemIn) -> (u32, u32, bool) {
        let (i0, o) = if self.wr_beat == 0 {
            ((i.s_axis_wr_addr >> 3) as u32, (i.s_axis_wr_addr & 7) as u32)
        } else {
            (self.wr_i0, self.wr_o)
        };
        let start = i.s_axis_wr_addr.checked_add(8 * u64::from(self.wr_beat));
        let nb = u64::from(i.s_axis_wr_tkeep.count_ones());
        let inside = start.and_then(|s| s.checked_add(nb)).is_some_and(|e| e <= self.bytes());
        (i0, o, inside)
    }

    fn grants(&self, i: &NodeMemIn) -> Grants {
        let mut g = Grants { req: self.rd.is_none(), ..Default::default() };
        // Read port.
        let dma = self.wants_read();
        let b = i.s_mem_valid && !i.s_mem_write;
        (g.dma_read, g.b_read) = match (dma, b) {
            (true, true) => (self.rd_last_b, !self.rd_last_b),
            x => x,
        };
        // Write port: a pending carry first, then round robin between beats and the word
        // port (a beat outside the memory needs no port).
        if self.carry.is_some_and(|_| self.wr_beat == 0) {
            g.flush_carry = true;
        } else {
            let dma = i.s_axis_wr_tvalid;
            let b = i.s_mem_valid && i.s_mem_write;
            (g.beat, g.b_write) = match (dma, b) {
                (true, true) => (self.wr_last_b, !self.wr_last_b),
                x => x,
            };
        }
        g
    }
}

impl CycleModel for NodeMemModel {
    type In = NodeMemIn;
    type Out = NodeMemOut;

    fn outputs(&self, i: &NodeMemIn) -> NodeMemOut {
        let g = self.grants(i);
        let head = self.out.front().copied();
        NodeMemOut {
            s_axis_rdreq_tready: g.req,
            m_axis_rddata_tvalid: head.is_some(),
            m_axis_rddata_tdata: head.map_or(0, |b| b.data),
            m_axis_rddata_tkeep: head.map_or(0, |b| b.keep),
            m_axis_rddata_tlast: head.is_some_and(|b| b.last),
            s_axis_wr_tready: g.beat,
            s_mem_ready: g.b_read || g.b_write,
            m_mem_rvalid: self.b_rvalid,
            m_mem_rdata: if self.b_rvalid { self.ram_out } else { 0 },
            cnt_oob: self.oob,
        }
    }

    fn clock(&mut self, i: &NodeMemIn) {
        if i.reset {
            let mem = std::mem::take(&mut self.mem);
            *self = NodeMemModel { mem, ..NodeMemModel::new(1) };
            return;
        }
        let g = self.grants(i);
        let bytes = self.bytes();
        // The read side: output taken, the word arriving, the flush, the next read. A full
        // FIFO takes no beat even in the cycle its head leaves (its room is a register).
        let room = self.out.len() < RD_FIFO;
        if i.m_axis_rddata_tready && !self.out.is_empty() {
            self.out.pop_front();
        }
        if let (Some(j), Some(r)) = (self.inflight.take(), self.rd.as_mut()) {
            let cur = self.ram_out;
            if r.o == 0 {
                self.out.push_back(r.beat(j, cur));
                r.made += 1;
            } else {
                if j >= 1 {
                    self.out.push_back(r.beat(j - 1, join(self.prev, cur, r.o)));
                    r.made += 1;
                }
                if j + 1 == r.nwords && r.made < r.nbeats {
                    self.flush = true;
                }
            }
            self.prev = cur;
        } else if self.flush {
            let r = self.rd.as_mut().expect("a flush belongs to a read");
            self.out.push_back(r.beat(r.made, self.prev >> (8 * r.o)));
            r.made += 1;
            self.flush = false;
        } else if let Some(r) = self.rd.as_mut().filter(|r| r.oob && room) {
            self.out.push_back(r.beat(r.made, 0));
            r.made += 1;
        }
        assert!(self.out.len() <= RD_FIFO, "the read FIFO overflows");
        if self.rd.is_some_and(|r| r.made == r.nbeats) {
            self.rd = None;
        }
        let b_index = usize::from(i.s_mem_index) & (self.mem.len() - 1);
        if g.dma_read || g.b_read {
            self.rd_last_b = g.b_read;
        }
        self.b_rvalid = g.b_read;
        if g.dma_read {
            let r = self.rd.as_mut().expect("a read belongs to a request");
            self.ram_out = self.mem[(r.i0 + r.read) as usize];
            self.inflight = Some(r.read);
            r.read += 1;
        } else if g.b_read {
            self.ram_out = self.mem[b_index];
        }
        if g.req && i.s_axis_rdreq_tvalid {
            let (a, len) = (i.s_axis_rdreq_addr, i.s_axis_rdreq_len);
            let oob = len == 0 || a.checked_add(u64::from(len)).is_none_or(|e| e > bytes);
            if oob {
                self.oob = self.oob.wrapping_add(1);
            }
            let o = (a & 7) as u32;
            self.rd = Some(RdJob {
                i0: (a >> 3) as u32,
                o,
                len,
                // In 32 bits, as the hardware counts (only an in-range request reads).
                nwords: if len == 0 { 0 } else { (o.wrapping_add(len).wrapping_add(7)) >> 3 },
                nbeats: len.div_ceil(8).max(1),
                oob,
                read: 0,
                made: 0,
            });
        }
        // The write side.
        if g.flush_carry {
            let (w, d, m) = self.carry.take().expect("a carry to write");
            self.mem[w as usize] = merge(self.mem[w as usize], d, m);
        } else if g.beat {
            let (i0, o, inside) = self.beat_place(i);
            let (d, keep) = (i.s_axis_wr_tdata, i.s_axis_wr_tkeep);
            let w = i0 + self.wr_beat;
            if inside {
                let (lo, lo_m) = (d << (8 * o), ((u16::from(keep) << o) & 0xFF) as u8);
                let (cd, cm) = self.carry.take().map_or((0, 0), |(_, d, m)| (d, m));
                self.mem[w as usize] = merge(self.mem[w as usize], lo | cd, lo_m | cm);
                let hi_m = (u16::from(keep) << o >> 8) as u8;
                if o != 0 && hi_m != 0 {
                    self.carry = Some((w + 1, d >> (64 - 8 * o), hi_m));
                }
            } else {
                // Dropped; the bytes the beat before it carried still land (after the burst:
                // every later beat of the burst lies further out).
                self.oob = self.oob.wrapping_add(1);
            }
            if self.wr_beat == 0 {
                (self.wr_i0, self.wr_o) = (i0, o);
            }
            self.wr_beat = if i.s_axis_wr_tlast { 0 } else { self.wr_beat + 1 };
            self.wr_last_b = false;
        }
        if g.b_write {
            self.mem[b_index] = merge(self.mem[b_index], i.s_mem_wdata, i.s_mem_wmask);
            self.wr_last_b = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_takes_the_bytes_from_the_offset() {
        let lo = 0x0807_0605_0403_0201u64;
        let hi = 0x100F_0E0D_0C0B_0A09u64;
        assert_eq!(join(lo, hi, 3), 0x0B0A_0908_0706_0504);
        assert_eq!(merge(0, u64::MAX, 0b1000_0001), 0xFF00_0000_0000_00FF);
    }
}
