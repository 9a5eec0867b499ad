//! The simulation transports: two NICs over the cycle-level SAN in this process
//! ([`sanswitch_model::nic_pair::NicPair`]), one [`PairTransport`] per node sharing the pair.
//! With [`NicModel`]s it is the `Model` transport ([`model_pair`]); with the Verilated NIC
//! (the `sim` feature, [`crate::sim`]) the `Sim` transport. Time passes only when a node's
//! driver touches a register or waits; both NICs and the SAN move together.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use sanswitch_model::blocks::nic::{NicIn, NicModel, NicOut};
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::nic_pair::NicPair;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::regs::HostParams;

use crate::{DmaBuf, Error, Transport};

/// Cycles one [`Transport::wait`] lets pass.
pub const WAIT_CYCLES: u64 = 8;

/// One node's view of a shared pair.
pub struct PairTransport<N> {
    pub pair: Rc<RefCell<NicPair<N>>>,
    pub node: usize,
    /// Live allocations: bus address -> length.
    bufs: BTreeMap<u64, usize>,
    /// Cycles spent in [`Transport::wait`].
    pub waited: u64,
}

/// The two transports of a pair of NICs `nics`.
pub fn pair<N: CycleModel<In = NicIn, Out = NicOut>>(
    cfg: PairConfig,
    nics: [N; 2],
) -> [PairTransport<N>; 2] {
    let p = Rc::new(RefCell::new(NicPair::new(cfg, nics)));
    [0, 1].map(|node| PairTransport { pair: p.clone(), node, bufs: BTreeMap::new(), waited: 0 })
}

/// The `Model` transport: two NIC cycle models.
pub fn model_pair(cfg: PairConfig, host: &HostParams) -> [PairTransport<NicModel>; 2] {
    let p = cfg.params;
    pair(cfg, [NicModel::new(p, host), NicModel::new(p, host)])
}

impl<N> PairTransport<N> {
    /// Another transport to the same node's device (its own DMA allocations), for a second
    /// endpoint on another queue pair.
    pub fn share(&self) -> Self {
        PairTransport { pair: self.pair.clone(), node: self.node, bufs: BTreeMap::new(), waited: 0 }
    }

    /// `buf[offset..offset + len]` must be inside a live allocation.
    fn span(&self, buf: &DmaBuf, offset: usize, len: usize) -> Result<u64, Error> {
        match self.bufs.get(&buf.bus) {
            Some(&l) if offset.checked_add(len).is_some_and(|e| e <= l) => {
                Ok(buf.bus + offset as u64)
            }
            Some(_) => Err(Error::Dma(format!(
                "{len} bytes at offset {offset} past the end of the {}-byte buffer at {:#x}",
                buf.len, buf.bus
            ))),
            None => Err(Error::Dma(format!("no buffer at {:#x} (freed?)", buf.bus))),
        }
    }
}

impl<N: CycleModel<In = NicIn, Out = NicOut>> Transport for PairTransport<N> {
    fn read32(&mut self, offset: u32) -> Result<u32, Error> {
        let r = self.pair.borrow_mut().reg_read(self.node, offset);
        match r {
            Ok((v, 0)) => Ok(v),
            Ok((_, resp)) => Err(Error::Register { offset, what: format!("read answered {resp}") }),
            Err(e) => Err(Error::Register { offset, what: e.to_string() }),
        }
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), Error> {
        let r = self.pair.borrow_mut().reg_write(self.node, offset, value);
        match r {
            Ok(0) => Ok(()),
            Ok(resp) => Err(Error::Register { offset, what: format!("write answered {resp}") }),
            Err(e) => Err(Error::Register { offset, what: e.to_string() }),
        }
    }

    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<DmaBuf, Error> {
        if !align.is_power_of_two() || align > 1 << 20 {
            return Err(Error::Dma(format!("alignment {align} is not a power of two up to 1 MiB")));
        }
        let bus = self.pair.borrow_mut().alloc(self.node, len, align);
        self.bufs.insert(bus, len);
        Ok(DmaBuf { bus, len })
    }

    fn dma_free(&mut self, buf: &DmaBuf) -> Result<(), Error> {
        self.span(buf, 0, 0)?;
        self.bufs.remove(&buf.bus);
        self.pair.borrow_mut().free(self.node, buf.bus);
        Ok(())
    }

    fn dma_write(&mut self, buf: &DmaBuf, offset: usize, data: &[u8]) -> Result<(), Error> {
        let a = self.span(buf, offset, data.len())?;
        self.pair.borrow_mut().mem_mut(self.node).write(a, data);
        Ok(())
    }

    fn dma_read(&mut self, buf: &DmaBuf, offset: usize, out: &mut [u8]) -> Result<(), Error> {
        let a = self.span(buf, offset, out.len())?;
        out.copy_from_slice(&self.pair.borrow().mem(self.node).read(a, out.len()));
        Ok(())
    }

    fn barrier(&mut self) {}

    fn wait(&mut self) {
        self.pair.borrow_mut().run(WAIT_CYCLES);
        self.waited += WAIT_CYCLES;
    }

    fn now_cycles(&self) -> Option<u64> {
        Some(self.pair.borrow().cycle)
    }
}
