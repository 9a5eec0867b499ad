//! How the driver reaches a device: 32-bit register reads and writes, DMA memory with bus
//! addresses, and barriers. A PCIe card maps BAR0 and pins memory; a simulation runs its
//! models; a development board carries it over its USB bridge.

use crate::Error;

/// A region of DMA memory: what the device sees (`bus`) and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaBuf {
    pub bus: u64,
    pub len: usize,
}

/// A device's register space and the host memory it reaches.
pub trait Transport {
    /// The 32-bit register at byte offset `offset`.
    fn read32(&mut self, offset: u32) -> Result<u32, Error>;
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), Error>;
    /// `len` bytes of zeroed DMA memory aligned to `align` bytes (a power of two).
    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<DmaBuf, Error>;
    /// Gives DMA memory back; the device must not touch it any more.
    fn dma_free(&mut self, buf: &DmaBuf) -> Result<(), Error>;
    /// Copies into and out of DMA memory (`offset` inside `buf`).
    fn dma_write(&mut self, buf: &DmaBuf, offset: usize, data: &[u8]) -> Result<(), Error>;
    fn dma_read(&mut self, buf: &DmaBuf, offset: usize, out: &mut [u8]) -> Result<(), Error>;
    /// Orders the memory writes before it ahead of the register writes after it (a
    /// doorbell after the entries it announces).
    fn barrier(&mut self);
    /// The driver is waiting for the device: a simulation lets time pass, hardware spins.
    fn wait(&mut self) {
        std::hint::spin_loop();
    }
    /// The device's clock cycles so far, where the transport can tell (a simulation).
    fn now_cycles(&self) -> Option<u64> {
        None
    }
}
