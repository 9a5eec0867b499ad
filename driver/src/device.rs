//! Opening a device: the block chain walked and checked, the ID block read.

use sanswitch_model::regs::{self, BlockType, Found, id};

use crate::{Error, QueuePair, Transport};

/// The design's major version this driver drives (the one it was built with).
pub fn design_major() -> u32 {
    regs::design_version() >> 16
}

/// What the ID block says about the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub design_version: u32,
    pub connections: u32,
    pub data_bits: u32,
    pub buf_size: u32,
    pub send_bufs: u32,
    pub recv_bufs: u32,
    pub queue_depth: u32,
    pub queue_pairs: u32,
    pub max_log2_size: u32,
    pub reg_entries: u32,
    pub rdma_ops: u32,
    pub rdma_read: bool,
    pub zero_copy: bool,
    pub rdma_threshold: u32,
}

/// An opened device.
pub struct Device<T: Transport> {
    pub(crate) t: T,
    pub info: DeviceInfo,
    blocks: Vec<Found>,
}

impl<T: Transport> Device<T> {
    /// Walks the register blocks from offset 0 and reads the ID block; refuses a device that
    /// is not a sanswitch engine, has a block version or design major version this driver
    /// does not know, or lacks a block it needs.
    pub fn open(mut t: T) -> Result<Self, Error> {
        let mut failed = None;
        let blocks = regs::discover(&mut |off| match t.read32(off) {
            Ok(v) => v,
            Err(e) => {
                failed.get_or_insert(e);
                0
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        let blocks = blocks?;
        let mut r = |off| t.read32(off);
        let design_version = r(id::DESIGN_VERSION)?;
        if design_version >> 16 != design_major() {
            return Err(Error::DesignVersion { found: design_version, known: design_major() });
        }
        let bufs = r(id::BUFS)?;
        let queues = r(id::QUEUES)?;
        let rdma = r(id::RDMA)?;
        let features = r(id::FEATURES)?;
        let info = DeviceInfo {
            design_version,
            connections: r(id::CONNECTIONS)?,
            data_bits: r(id::DATA_BITS)?,
            buf_size: r(id::BUF_SIZE)?,
            send_bufs: id::BUFS_SEND.get(bufs),
            recv_bufs: id::BUFS_RECV.get(bufs),
            queue_depth: r(id::QUEUE_DEPTH)?,
            queue_pairs: id::QUEUES_PAIRS.get(queues),
            max_log2_size: id::QUEUES_MAX_LOG2.get(queues),
            reg_entries: id::RDMA_REG_ENTRIES.get(rdma),
            rdma_ops: id::RDMA_OPS.get(rdma),
            rdma_read: features & id::FEATURE_RDMA_READ != 0,
            zero_copy: features & id::FEATURE_ZERO_COPY != 0,
            rdma_threshold: r(id::RDMA_THRESHOLD)?,
        };
        Ok(Device { t, info, blocks })
    }

    /// The blocks found, in chain order.
    pub fn blocks(&self) -> &[Found] {
        &self.blocks
    }

    /// Base offset of queue pair `n`.
    pub fn queue_pair_base(&self, n: usize) -> Option<u32> {
        self.blocks.iter().filter(|b| b.kind == BlockType::QueuePair).nth(n).map(|b| b.base)
    }

    /// Sets up queue pair `n` with rings of `2^sq_log2` and `2^cq_log2` entries.
    pub fn queue_pair(self, n: usize, sq_log2: u32, cq_log2: u32) -> Result<QueuePair<T>, Error> {
        QueuePair::new(self, n, sq_log2, cq_log2)
    }

    /// The counter `index` of counter bank `bank`.
    pub fn counter(&mut self, bank: u32, index: u32) -> Result<u32, Error> {
        let base = self
            .blocks
            .iter()
            .find(|b| b.kind == BlockType::Counters)
            .map(|b| b.base)
            .ok_or(Error::Device(regs::RegError::Missing("counters")))?;
        self.t.write32(base + regs::cnt::INDEX, (bank << 5) | (index & 31))?;
        self.t.read32(base + regs::cnt::DATA)
    }

    pub fn transport(&mut self) -> &mut T {
        &mut self.t
    }
}
