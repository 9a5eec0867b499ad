//! Delivery (`hdl/src/engine/delivery.rs`): received payload from the receive-buffer RAM into
//! a buffer the host posted.
//!
//! A job from the controller names a receive buffer, the byte offset in it where the bytes
//! not yet delivered start, how many to copy and the host address. The unit reads the
//! buffer's words in order (a synchronous RAM read, then a realignment by the offset's low
//! three bits, which needs the next word too: two cycles before the first beat) and writes
//! them to host memory as one burst; when host memory takes the burst's last beat it reports
//! the job done (not before: the completion that follows must find the bytes written). Throughput: one beat per cycle after the first.

use crate::blocks::widgets::Fifo;
use crate::params::EngineParams;

use super::{Beat, DLV_FIFO, DONE_FIFO, EngineIn, EngineModel};

/// Cycles from a job's start to its first beat.
pub const PRIME_CYCLES: u8 = 2;

/// A copy into a posted host buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DlvJob {
    pub conn: u8,
    pub buf: u8,
    /// Byte offset in the receive buffer.
    pub off: u32,
    pub len: u32,
    pub addr: u64,
    pub urgent: bool,
    /// The receive buffer's bytes end with this job (it can be posted again).
    pub last_of_buf: bool,
    /// The inline part of a LargeSend landing zero-copy: its receive completes when the
    /// transfer does, not with this job.
    pub land: bool,
}

/// A job done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Done {
    pub job: DlvJob,
}

#[derive(Clone, Debug)]
pub struct Delivery {
    pub jobs: Fifo<DlvJob>,
    pub done: Fifo<Done>,
    /// The job being copied, beats loaded so far, cycles still to prime.
    pub cur: Option<(DlvJob, u32, u8)>,
    /// Toward host memory: the burst's address and a beat.
    pub out: Option<(u64, Beat)>,
    /// The job whose last beat is in `out`.
    pub finishing: Option<DlvJob>,
    pub bytes: u64,
}

impl Delivery {
    pub fn new(_p: &EngineParams) -> Self {
        Delivery {
            jobs: Fifo::new(DLV_FIFO),
            done: Fifo::new(DONE_FIFO),
            cur: None,
            out: None,
            finishing: None,
            bytes: 0,
        }
    }

    pub fn clock(
        &mut self,
        i: &EngineIn,
        push: Option<DlvJob>,
        done_pop: bool,
        rxmem: &[u64],
        p: &EngineParams,
    ) {
        let load = self.out.is_none() || i.m_axis_dmawr_tready;
        let mut done = None;
        if self.out.is_some() && i.m_axis_dmawr_tready {
            self.out = None;
            done = self.finishing.take().map(|job| Done { job });
        }
        let mut pop = false;
        match &mut self.cur {
            None => {
                if let Some(&j) = self.jobs.head() {
                    pop = true;
                    self.cur = Some((j, 0, PRIME_CYCLES));
                }
            }
            Some((_, _, prime)) if *prime > 0 => *prime -= 1,
            Some((j, k, _)) => {
                let beats = j.len.div_ceil(8);
                let last = *k + 1 == beats;
                // The last beat waits for room to report, and for the previous job's report.
                if load && (!last || (self.done.can_push() && self.finishing.is_none())) {
                    let base = EngineModel::buf_base(p, j.conn, j.buf) * 8;
                    let from = j.off as usize + 8 * *k as usize;
                    let n = usize::min(8, j.len as usize - 8 * *k as usize);
                    let mut data = 0u64;
                    for b in 0..n {
                        let at = base + from + b;
                        let byte = (rxmem[at / 8] >> (8 * (at % 8))) as u8;
                        data |= (byte as u64) << (8 * b);
                    }
                    let keep = if n == 8 { 0xFF } else { ((1u16 << n) - 1) as u8 };
                    self.out = Some((j.addr, Beat { data, keep, last }));
                    self.bytes += n as u64;
                    *k += 1;
                    if last {
                        self.finishing = Some(*j);
                        self.cur = None;
                    }
                }
            }
        }
        self.jobs.clock(pop, push);
        self.done.clock(done_pop, done);
    }
}
