//! Host memory as a harness sees it: sparse bytes with the regions the host lent a device
//! ([`HostMem`]: every access outside them is recorded as a violation), and the device's
//! host-memory port served from it ([`HostPort`]: read requests answered in order after a
//! latency, one 64-bit beat per cycle; write bursts placed beat by beat). Used by the engine
//! pair and the NIC pair alike.

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::blocks::engine::Beat;

/// Host memory: sparse pages, and the regions the engine may touch.
#[derive(Clone, Debug, Default)]
pub struct HostMem {
    pages: HashMap<u64, Box<[u8; 4096]>>,
    /// Lent regions: start -> (end, writable).
    lent: BTreeMap<u64, (u64, bool)>,
    pub reads: u64,
    pub writes: u64,
    pub violations: Vec<String>,
}

impl HostMem {
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        for (k, b) in data.iter().enumerate() {
            let a = addr + k as u64;
            self.pages.entry(a >> 12).or_insert_with(|| Box::new([0; 4096]))[(a & 4095) as usize] =
                *b;
        }
    }

    pub fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        (0..len as u64)
            .map(|k| {
                let a = addr + k;
                self.pages.get(&(a >> 12)).map_or(0, |p| p[(a & 4095) as usize])
            })
            .collect()
    }

    pub fn lend(&mut self, addr: u64, len: u64, writable: bool) {
        self.lent.insert(addr, (addr + len, writable));
    }

    pub fn take_back(&mut self, addr: u64) {
        if let Some((end, _)) = self.lent.remove(&addr) {
            for p in addr >> 12..=end.saturating_sub(1) >> 12 {
                self.pages.remove(&p);
            }
        }
    }

    /// Whether `[addr, addr + len)` lies in one lent region (writable, for a write).
    pub fn allowed(&self, addr: u64, len: u64, write: bool) -> bool {
        self.lent
            .range(..=addr)
            .next_back()
            .is_some_and(|(_, &(end, w))| addr + len <= end && (w || !write))
    }

    pub fn check(&mut self, node: usize, addr: u64, len: u64, write: bool) {
        if !self.allowed(addr, len, write) && self.violations.len() < 16 {
            let what = if write { "write" } else { "read" };
            self.violations.push(format!(
                "node {node}: host memory {what} of {len} bytes at {addr:#x} outside what the \
                 host lent"
            ));
        }
    }
}

/// A read request taken: beats are owed from `ready_at` on.
#[derive(Clone, Copy, Debug)]
pub struct ReadJob {
    pub addr: u64,
    pub len: u32,
    pub beat: u32,
    pub ready_at: u64,
}

/// A device's host-memory port: its reads in flight and the beat of its write burst.
#[derive(Clone, Debug, Default)]
pub struct HostPort {
    pub reads: VecDeque<ReadJob>,
    /// Beat index within the current write burst.
    pub wr_beat: u64,
}

impl HostPort {
    /// The data beat owed in cycle `now`, if the oldest read's latency has passed.
    pub fn data_beat(&self, now: u64, mem: &HostMem) -> Option<Beat> {
        let r = self.reads.front().filter(|r| r.ready_at <= now)?;
        let beats = r.len.div_ceil(8);
        let off = 8 * r.beat as u64;
        let nb = u64::min(8, r.len as u64 - off) as usize;
        let bytes = mem.read(r.addr + off, nb);
        Some(Beat {
            data: bytes.iter().enumerate().fold(0, |d, (k, b)| d | (*b as u64) << (8 * k)),
            keep: ((1u16 << nb) - 1) as u8,
            last: r.beat + 1 == beats,
        })
    }

    /// Node `node`'s read request of `len` bytes at `addr`, taken in cycle `now`: checked
    /// against what the host lent, answered from `now + latency`.
    pub fn read_request(
        &mut self,
        node: usize,
        now: u64,
        latency: u64,
        addr: u64,
        len: u32,
        mem: &mut HostMem,
    ) {
        mem.check(node, addr, len as u64, false);
        mem.reads += 1;
        self.reads.push_back(ReadJob { addr, len, beat: 0, ready_at: now + latency });
    }

    /// The device took the data beat offered.
    pub fn data_taken(&mut self, last: bool) {
        let r = self.reads.front_mut().expect("a read is answered");
        r.beat += 1;
        if last {
            self.reads.pop_front();
        }
    }

    /// A write beat taken: burst beat `k` goes to `addr + 8k`.
    pub fn write_beat(&mut self, node: usize, addr: u64, b: Beat, mem: &mut HostMem) {
        let nb = b.keep.count_ones() as u64;
        let a = addr + 8 * self.wr_beat;
        mem.check(node, a, nb, true);
        mem.write(a, &b.data.to_le_bytes()[..nb as usize]);
        mem.writes += 1;
        self.wr_beat = if b.last { 0 } else { self.wr_beat + 1 };
    }
}
