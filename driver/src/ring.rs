//! A queue pair: the submission ring the driver fills and the completion ring it reaps, in
//! DMA memory, with the rules of `sanswitch_model::regs` (free-running 16-bit pointers, a
//! phase bit per completion entry).

use sanswitch_model::host::{COMMAND_BYTES, COMPLETION_BYTES, Command, Completion};
use sanswitch_model::regs::{self, qp};

use crate::{Device, DmaBuf, Error, Transport};

/// A queue pair set up and enabled.
pub struct QueuePair<T: Transport> {
    dev: Device<T>,
    base: u32,
    sq: DmaBuf,
    cq: DmaBuf,
    sq_log2: u32,
    cq_log2: u32,
    /// Entries written (the doorbell's value), entries the device fetched as last read.
    prod: u32,
    cons: u32,
    /// Completion entries taken.
    cq_cons: u32,
    /// Doorbells rung and polls that found something (for the figures).
    pub doorbells: u64,
    pub reaps: u64,
}

impl<T: Transport> QueuePair<T> {
    pub(crate) fn new(
        mut dev: Device<T>,
        n: usize,
        sq_log2: u32,
        cq_log2: u32,
    ) -> Result<Self, Error> {
        let base = dev
            .queue_pair_base(n)
            .ok_or_else(|| Error::Param(format!("the device has no queue pair {n}")))?;
        let max = dev.info.max_log2_size;
        for (name, l) in [("submission", sq_log2), ("completion", cq_log2)] {
            if !(1..=max).contains(&l) {
                return Err(Error::Param(format!("{name} ring log2 size {l} not in 1..={max}")));
            }
        }
        let sq_bytes = COMMAND_BYTES << sq_log2;
        let cq_bytes = COMPLETION_BYTES << cq_log2;
        let t = &mut dev.t;
        let sq = t.dma_alloc(sq_bytes, sq_bytes)?;
        let cq = t.dma_alloc(cq_bytes, cq_bytes)?;
        // Disabled first (pointers to 0), then set up, then enabled.
        t.write32(base + qp::SQ_CTRL, 0)?;
        t.write32(base + qp::CQ_CTRL, 0)?;
        t.write32(base + qp::SQ_BASE_LO, sq.bus as u32)?;
        t.write32(base + qp::SQ_BASE_HI, (sq.bus >> 32) as u32)?;
        t.write32(base + qp::SQ_LOG2_SIZE, sq_log2)?;
        t.write32(base + qp::CQ_BASE_LO, cq.bus as u32)?;
        t.write32(base + qp::CQ_BASE_HI, (cq.bus >> 32) as u32)?;
        t.write32(base + qp::CQ_LOG2_SIZE, cq_log2)?;
        t.barrier();
        t.write32(base + qp::CQ_CTRL, qp::CTRL_ENABLE)?;
        t.write32(base + qp::SQ_CTRL, qp::CTRL_ENABLE)?;
        Ok(QueuePair {
            dev,
            base,
            sq,
            cq,
            sq_log2,
            cq_log2,
            prod: 0,
            cons: 0,
            cq_cons: 0,
            doorbells: 0,
            reaps: 0,
        })
    }

    fn sq_size(&self) -> u32 {
        1 << self.sq_log2
    }

    /// Free submission entries; reads the device's consumer pointer only when the cached one
    /// says there is not enough room for `want`. A consumer pointer the device reports ahead
    /// of the doorbell gives 0 (nothing from the device panics the driver).
    pub fn free(&mut self, want: u32) -> Result<u32, Error> {
        let mut free = self.sq_size().saturating_sub(regs::ring_used(self.prod, self.cons));
        if free < want {
            self.cons = self.dev.t.read32(self.base + qp::SQ_CONS)? & 0xFFFF;
            free = self.sq_size().saturating_sub(regs::ring_used(self.prod, self.cons));
        }
        Ok(free)
    }

    /// Writes `cmds` into the submission ring and rings the doorbell once for them all.
    pub fn submit(&mut self, cmds: &[Command]) -> Result<(), Error> {
        let asked = cmds.len() as u32;
        if asked == 0 {
            return Ok(());
        }
        let free = self.free(asked)?;
        if free < asked {
            let ctrl = self.dev.t.read32(self.base + qp::SQ_CTRL)?;
            if ctrl & qp::CTRL_ERR_DOORBELL != 0 {
                return Err(Error::Stopped { ctrl });
            }
            return Err(Error::Full { free, asked });
        }
        for c in cmds {
            let slot = (self.prod & (self.sq_size() - 1)) as usize * COMMAND_BYTES;
            self.dev.t.dma_write(&self.sq, slot, &c.encode())?;
            self.prod = (self.prod + 1) & 0xFFFF;
        }
        self.dev.t.barrier();
        self.dev.t.write32(self.base + qp::SQ_PROD, self.prod)?;
        self.doorbells += 1;
        Ok(())
    }

    /// The completions written since the last call (at most `max`), read from memory by
    /// their phase; the consumer pointer is written once for the batch.
    pub fn poll(&mut self, max: usize) -> Result<Vec<Completion>, Error> {
        let mut out = Vec::new();
        while out.len() < max {
            let slot = (self.cq_cons & ((1 << self.cq_log2) - 1)) as usize * COMPLETION_BYTES;
            let mut e = [0u8; COMPLETION_BYTES];
            self.dev.t.dma_read(&self.cq, slot, &mut e)?;
            // The phase bit is the entry's last bit: test it before decoding.
            let phase = e[COMPLETION_BYTES - 1] >> 7 != 0;
            if phase != regs::cq_phase(self.cq_cons, self.cq_log2 as u8) {
                break;
            }
            let (c, _) = Completion::decode_cq(&e)
                .map_err(|err| Error::Entry { index: self.cq_cons, err })?;
            out.push(c);
            self.cq_cons = (self.cq_cons + 1) & 0xFFFF;
        }
        if !out.is_empty() {
            self.dev.t.write32(self.base + qp::CQ_CONS, self.cq_cons)?;
            self.reaps += 1;
        }
        Ok(out)
    }

    pub fn device(&mut self) -> &mut Device<T> {
        &mut self.dev
    }
}
