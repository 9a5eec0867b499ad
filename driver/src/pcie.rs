//! The `Pcie` transport: a card's register space (BAR0) mapped from sysfs
//! (`/sys/bus/pci/devices/<address>/resource0`) with `memmap2`, every register access a
//! volatile 32-bit load or store; DMA memory from 2 MiB hugepages, locked, with bus
//! addresses from `/proc/self/pagemap` (the physical address: right for a card without an
//! IOMMU, or with the IOMMU in passthrough).
//!
//! Needs root (sysfs resource files and the physical frames in `pagemap` are privileged),
//! hugepages reserved (`echo 64 > /proc/sys/vm/nr_hugepages`), and the card's memory and bus
//! mastering enabled (`setpci -s <address> COMMAND=0x06`, or a bound `vfio-pci` driver
//! that enables them). Each failure says which of these is missing.
//!
//! A buffer never spans a physical discontinuity: allocations are placed in one hugepage
//! (up to 2 MiB each), so the device sees each as one bus range.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use memmap2::{MmapMut, MmapOptions};

use crate::{DmaBuf, Error, Transport};

/// A hugepage: the most one DMA allocation may take.
pub const HUGEPAGE: usize = 2 << 20;
const PAGE: u64 = 4096;

/// A physical address from a `/proc/self/pagemap` entry (64 bits: bit 63 present, bits 54–0
/// the page frame number) and the virtual address's offset in its page; `None` for a page
/// not present or a frame number of 0 (what an unprivileged reader sees).
pub fn pagemap_phys(entry: u64, vaddr: u64) -> Option<u64> {
    let present = entry >> 63 & 1 == 1;
    let pfn = entry & ((1 << 55) - 1);
    (present && pfn != 0).then(|| pfn * PAGE + vaddr % PAGE)
}

/// One hugepage of DMA memory and what of it is taken.
struct Chunk {
    map: MmapMut,
    bus: u64,
    used: usize,
}

/// A device's BAR0 and DMA memory.
pub struct Pcie {
    bar: MmapMut,
    chunks: Vec<Chunk>,
    /// Live allocations: bus address -> (chunk, offset, len).
    bufs: std::collections::BTreeMap<u64, (usize, usize, usize)>,
    pagemap: Option<File>,
}

impl Pcie {
    /// The card at PCI address `address` (e.g. `0000:01:00.0`).
    pub fn open(address: &str) -> Result<Self, Error> {
        let dir = PathBuf::from("/sys/bus/pci/devices").join(address);
        if !dir.exists() {
            return Err(Error::Param(format!(
                "no PCI device {address} ({} missing; see lspci -D)",
                dir.display()
            )));
        }
        let p = Pcie::map_bar(&dir.join("resource0"))?;
        let pagemap = File::open("/proc/self/pagemap")
            .map_err(|e| Error::Dma(format!("/proc/self/pagemap: {e}")))?;
        Ok(Pcie { pagemap: Some(pagemap), ..p })
    }

    /// A register space mapped from any file (a BAR's resource file, or a plain file in
    /// tests); no DMA memory until a pagemap is given (see [`Pcie::open`]).
    pub fn map_bar(path: &Path) -> Result<Self, Error> {
        let hint = "needs root, and the device's memory space enabled";
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::Param(format!("{}: {e} ({hint})", path.display())))?;
        let len = f.metadata().map_err(|e| Error::Param(e.to_string()))?.len() as usize;
        if len < sanswitch_model::regs::SPACE_BYTES as usize {
            return Err(Error::Param(format!(
                "{}: {len} bytes, less than the {} of the register space",
                path.display(),
                sanswitch_model::regs::SPACE_BYTES
            )));
        }
        // SAFETY: the mapping is only reached through `read32`/`write32` below, which
        // bound and align every offset; a device BAR may change under us, which is why
        // every access is volatile.
        let bar = unsafe { MmapOptions::new().len(len).map_mut(&f) }
            .map_err(|e| Error::Param(format!("mmap {}: {e}", path.display())))?;
        Ok(Pcie { bar, chunks: Vec::new(), bufs: Default::default(), pagemap: None })
    }

    fn reg(&self, offset: u32) -> Result<usize, Error> {
        let o = offset as usize;
        if o % 4 != 0 || o + 4 > self.bar.len() {
            return Err(Error::Register {
                offset,
                what: format!("not an aligned register of the {}-byte BAR", self.bar.len()),
            });
        }
        Ok(o)
    }

    fn phys(&mut self, vaddr: u64) -> Result<u64, Error> {
        let pm = self.pagemap.as_mut().ok_or_else(|| Error::Dma("no pagemap".into()))?;
        let mut e = [0u8; 8];
        pm.seek(SeekFrom::Start(vaddr / PAGE * 8))
            .and_then(|_| pm.read_exact(&mut e))
            .map_err(|err| Error::Dma(format!("/proc/self/pagemap: {err}")))?;
        pagemap_phys(u64::from_le_bytes(e), vaddr).ok_or_else(|| {
            Error::Dma("no physical address in /proc/self/pagemap (needs root)".into())
        })
    }

    /// A fresh hugepage, locked, with its bus address (checked contiguous).
    fn new_chunk(&mut self) -> Result<usize, Error> {
        let map =
            MmapOptions::new().len(HUGEPAGE).huge(Some(21)).populate().map_anon().map_err(|e| {
                Error::Dma(format!(
                    "a 2 MiB hugepage: {e} (reserve some: echo 64 > /proc/sys/vm/nr_hugepages)"
                ))
            })?;
        map.lock().map_err(|e| Error::Dma(format!("mlock: {e}")))?;
        let base = map.as_ptr() as u64;
        let bus = self.phys(base)?;
        // A hugepage is physically contiguous; check its last page all the same.
        let end = self.phys(base + HUGEPAGE as u64 - PAGE)?;
        if end != bus + HUGEPAGE as u64 - PAGE {
            return Err(Error::Dma(format!("hugepage at {bus:#x} is not contiguous")));
        }
        self.chunks.push(Chunk { map, bus, used: 0 });
        Ok(self.chunks.len() - 1)
    }

    fn span(&self, buf: &DmaBuf, offset: usize, len: usize) -> Result<(usize, usize), Error> {
        match self.bufs.get(&buf.bus) {
            Some(&(c, at, l)) if offset.checked_add(len).is_some_and(|e| e <= l) => {
                Ok((c, at + offset))
            }
            _ => Err(Error::Dma(format!(
                "{len} bytes at offset {offset} not inside a live buffer at {:#x}",
                buf.bus
            ))),
        }
    }
}

impl Transport for Pcie {
    fn read32(&mut self, offset: u32) -> Result<u32, Error> {
        let o = self.reg(offset)?;
        // SAFETY: `reg` checked the offset is aligned and inside the mapping.
        let v = unsafe { std::ptr::read_volatile(self.bar.as_ptr().add(o) as *const u32) };
        if v == u32::MAX {
            // What a PCIe read of a device that went away returns.
            return Err(Error::Register {
                offset,
                what: "read all ones: is the card there?".into(),
            });
        }
        Ok(u32::from_le(v))
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), Error> {
        let o = self.reg(offset)?;
        // SAFETY: as in `read32`.
        unsafe {
            std::ptr::write_volatile(self.bar.as_mut_ptr().add(o) as *mut u32, value.to_le())
        };
        Ok(())
    }

    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<DmaBuf, Error> {
        if len == 0 || len > HUGEPAGE || !align.is_power_of_two() || align > HUGEPAGE {
            return Err(Error::Dma(format!(
                "{len} bytes aligned to {align}: one allocation is 1 to {HUGEPAGE} bytes, \
                 aligned to a power of two up to that"
            )));
        }
        let fits = |c: &Chunk| c.used.next_multiple_of(align) + len <= HUGEPAGE;
        let k = match self.chunks.iter().position(fits) {
            Some(k) => k,
            None => self.new_chunk()?,
        };
        let c = &mut self.chunks[k];
        let at = c.used.next_multiple_of(align);
        c.used = at + len;
        c.map[at..at + len].fill(0);
        let bus = c.bus + at as u64;
        self.bufs.insert(bus, (k, at, len));
        Ok(DmaBuf { bus, len })
    }

    fn dma_free(&mut self, buf: &DmaBuf) -> Result<(), Error> {
        // The memory stays with its hugepage (a bump allocator): freeing only ends the
        // buffer's life for the bounds checks.
        self.bufs
            .remove(&buf.bus)
            .map(|_| ())
            .ok_or_else(|| Error::Dma(format!("no buffer at {:#x}", buf.bus)))
    }

    fn dma_write(&mut self, buf: &DmaBuf, offset: usize, data: &[u8]) -> Result<(), Error> {
        let (c, at) = self.span(buf, offset, data.len())?;
        self.chunks[c].map[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn dma_read(&mut self, buf: &DmaBuf, offset: usize, out: &mut [u8]) -> Result<(), Error> {
        let (c, at) = self.span(buf, offset, out.len())?;
        // The device writes this memory behind the compiler's back: read it volatile.
        let src = self.chunks[c].map[at..].as_ptr();
        for (k, o) in out.iter_mut().enumerate() {
            // SAFETY: `span` checked `at + out.len()` is inside the chunk.
            *o = unsafe { std::ptr::read_volatile(src.add(k)) };
        }
        Ok(())
    }

    fn barrier(&mut self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pagemap_entries_decode_to_physical_addresses() {
        let present = 1u64 << 63;
        assert_eq!(pagemap_phys(present | 0x1234, 0x7f00_0000_0abc), Some(0x1234 * 4096 + 0xabc));
        assert_eq!(pagemap_phys(0x1234, 0x1000), None, "not present");
        assert_eq!(pagemap_phys(present, 0x1000), None, "PFN hidden from an unprivileged reader");
        // Bits 55–62 are flags, not part of the frame number.
        assert_eq!(pagemap_phys(present | 0x7F << 55 | 5, 0), Some(5 * 4096));
    }

    #[test]
    fn registers_are_32_bit_volatile_accesses_inside_the_bar() {
        let f = tempfile::NamedTempFile::new().unwrap();
        f.as_file().set_len(sanswitch_model::regs::SPACE_BYTES as u64).unwrap();
        let mut p = Pcie::map_bar(f.path()).unwrap();
        p.write32(0x10, 0xA1B2_C3D4).unwrap();
        assert_eq!(p.read32(0x10).unwrap(), 0xA1B2_C3D4);
        p.bar.flush().unwrap();
        let bytes = std::fs::read(f.path()).unwrap();
        assert_eq!(&bytes[0x10..0x14], &[0xD4, 0xC3, 0xB2, 0xA1], "little-endian in the BAR");
        let last = sanswitch_model::regs::SPACE_BYTES - 4;
        assert!(p.read32(last).is_ok(), "the last register");
        assert!(p.read32(last + 4).is_err(), "one past the BAR");
        assert!(p.write32(0x11, 0).is_err(), "unaligned");
        p.write32(0x20, u32::MAX).unwrap();
        assert!(p.read32(0x20).is_err(), "all ones reads as a missing card");
    }

    #[test]
    fn a_bar_smaller_than_the_register_space_is_refused() {
        let f = tempfile::NamedTempFile::new().unwrap();
        f.as_file().set_len(64).unwrap();
        assert!(Pcie::map_bar(f.path()).is_err());
        assert!(Pcie::open("ffff:ff:ff.9").is_err(), "no such device");
    }

    #[test]
    fn dma_allocations_are_checked_before_any_memory_is_taken() {
        let f = tempfile::NamedTempFile::new().unwrap();
        f.as_file().set_len(4096).unwrap();
        let mut p = Pcie::map_bar(f.path()).unwrap();
        for (len, align) in [(0, 8), (HUGEPAGE + 1, 8), (64, 3), (64, HUGEPAGE * 2)] {
            assert!(p.dma_alloc(len, align).is_err(), "{len} {align}");
        }
        let b = DmaBuf { bus: 0x1000, len: 8 };
        assert!(p.dma_write(&b, 0, &[1]).is_err(), "no such buffer");
        assert!(p.dma_free(&b).is_err());
    }
}
