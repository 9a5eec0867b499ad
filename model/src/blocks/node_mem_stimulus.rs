//! Random stimulus for the node memory's lockstep: a NIC reading and writing at odd
//! addresses and lengths (some at the memory's end and past it, some of no bytes), write
//! bursts whose beats come with gaps, a word port reading and writing with random masks, and
//! random backpressure on the read data.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::node_mem::{NodeMemIn, NodeMemOut};
use crate::ports::Stimulus;

/// The stimulus.
pub struct NodeMemDriver {
    rng: ChaCha8Rng,
    bytes: u64,
    /// Probability a valid or ready the stimulus drives is high in a cycle.
    pub rate: f64,
    /// The first read and the first write burst after the fill are huge: a read of
    /// 2^21 + 5 bytes from byte 3 (past the memory by its length alone, and wrapping a
    /// 21-bit end), a burst of 2^19 + 61 bytes from byte 0 (inside for its first
    /// `bytes` bytes, then past beat 65535).
    pub huge: bool,
    rdreq: Option<(u64, u32)>,
    /// The write burst in progress: its address, its beats' keeps, the beat at hand.
    burst: Option<(u64, Vec<u8>, usize)>,
    word: Option<(bool, u16, u64, u8)>,
    /// Words written whole by the first phase (the RAM starts with unknown contents; the
    /// model with zeros): every word, before any other traffic.
    filled: u64,
    /// Counted over the run: read requests, beats read, write beats, word accesses.
    pub reads: u64,
    pub beats_read: u64,
    pub beats_written: u64,
    pub words: u64,
}

impl NodeMemDriver {
    pub fn new(seed: u64, words: usize) -> Self {
        NodeMemDriver {
            rng: ChaCha8Rng::seed_from_u64(seed),
            bytes: 8 * words as u64,
            rate: 0.7,
            huge: false,
            rdreq: None,
            burst: None,
            word: None,
            filled: 0,
            reads: 0,
            beats_read: 0,
            beats_written: 0,
            words: 0,
        }
    }

    /// The keeps of a burst of `len` bytes.
    fn keeps(len: usize) -> Vec<u8> {
        (0..len.div_ceil(8)).map(|k| ((1u16 << (len - 8 * k).min(8)) - 1) as u8).collect()
    }

    /// An address and length: mostly inside, some ending at the end or just past it, some
    /// far out, now and then of no bytes.
    fn span(&mut self) -> (u64, u32) {
        let len = match self.rng.gen_range(0..20) {
            0 => 0,
            1 => self.rng.gen_range(100..600),
            _ => self.rng.gen_range(1..=40),
        };
        let b = self.bytes;
        let addr = match self.rng.gen_range(0..16) {
            0 => b.saturating_sub(u64::from(len)),
            1 => (b + 1).saturating_sub(u64::from(len)),
            2 => self.rng.r#gen::<u64>() | b,
            _ => self.rng.gen_range(0..b),
        };
        (addr, len)
    }
}

impl Stimulus<NodeMemIn, NodeMemOut> for NodeMemDriver {
    fn next(&mut self) -> NodeMemIn {
        if self.filled < self.bytes / 8 {
            return NodeMemIn {
                s_mem_valid: true,
                s_mem_write: true,
                s_mem_index: self.filled as u16,
                s_mem_wdata: self.rng.r#gen(),
                s_mem_wmask: 0xFF,
                ..Default::default()
            };
        }
        if self.huge && self.reads == 0 && self.beats_written == 0 {
            self.rdreq = Some((3, (1 << 21) + 5));
            self.burst = Some((0, Self::keeps((1 << 19) + 61), 0));
        }
        if self.rdreq.is_none() && self.rng.gen_bool(0.1) {
            self.rdreq = Some(self.span());
        }
        if self.burst.is_none() && self.rng.gen_bool(0.1) {
            let (addr, len) = self.span();
            self.burst = Some((addr, Self::keeps(len.max(1) as usize), 0));
        }
        if self.word.is_none() && self.rng.gen_bool(0.2) {
            let idx = self.rng.gen_range(0..(self.bytes / 8) as u16);
            self.word = Some((self.rng.gen_bool(0.5), idx, self.rng.r#gen(), self.rng.r#gen()));
        }
        let mut i = NodeMemIn {
            m_axis_rddata_tready: self.rng.gen_bool(self.rate),
            s_axis_wr_tdata: self.rng.r#gen(),
            ..Default::default()
        };
        if let Some((a, l)) = self.rdreq {
            i.s_axis_rdreq_tvalid = self.rng.gen_bool(self.rate);
            i.s_axis_rdreq_addr = a;
            i.s_axis_rdreq_len = l;
        }
        if let Some((a, keeps, k)) = &self.burst {
            i.s_axis_wr_tvalid = self.rng.gen_bool(self.rate);
            i.s_axis_wr_addr = *a;
            i.s_axis_wr_tkeep = keeps[*k];
            i.s_axis_wr_tlast = *k + 1 == keeps.len();
        }
        if let Some((w, idx, d, m)) = self.word {
            i.s_mem_valid = self.rng.gen_bool(self.rate);
            i.s_mem_write = w;
            i.s_mem_index = idx;
            i.s_mem_wdata = d;
            i.s_mem_wmask = m;
        }
        i
    }

    fn observe(&mut self, i: &NodeMemIn, o: &NodeMemOut) {
        if i.reset {
            return;
        }
        if self.filled < self.bytes / 8 {
            if o.s_mem_ready {
                self.filled += 1;
            }
            return;
        }
        if i.s_axis_rdreq_tvalid && o.s_axis_rdreq_tready {
            self.rdreq = None;
            self.reads += 1;
        }
        if o.m_axis_rddata_tvalid && i.m_axis_rddata_tready {
            self.beats_read += 1;
        }
        if i.s_axis_wr_tvalid && o.s_axis_wr_tready {
            self.beats_written += 1;
            if let Some((_, keeps, k)) = &mut self.burst {
                *k += 1;
                if *k == keeps.len() {
                    self.burst = None;
                }
            }
        }
        if i.s_mem_valid && o.s_mem_ready {
            self.word = None;
            self.words += 1;
        }
    }

    fn reset(&mut self) {
        self.rdreq = None;
        self.burst = None;
        self.word = None;
    }
}
