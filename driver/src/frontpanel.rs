//! The board transport: the two NICs of the XEM7010 board behind the FrontPanel bridge
//! (`docs/BOARD.md`, protocol in `sanswitch_model::bridge`). Each node's "host memory" is
//! on-chip memory the host reaches only through bridge requests, so DMA memory is allocated
//! from it here and copied in and out with `MEM_WRITE` and `MEM_READ`.
//!
//! - [`PipeLink`]: what carries the bridge's word blocks: [`FrontPanel`] (Opal Kelly's
//!   library, loaded at run time with `libloading`: nothing of the SDK is needed to build),
//!   or a simulation of the bridge.
//! - [`Bridge`]: the host side of the protocol: requests batched into blocks, a `FLUSH`,
//!   the responses read back and checked against what was asked.
//! - [`BoardTransport`]: the driver's [`Transport`] for one node.
//!
//! Status: the board top and the bridge's HDL are not built yet (issue 11), so `FrontPanel`
//! has not met a board; the transport is tested against the protocol's reference behaviour.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::ffi::{CString, c_char, c_int, c_long, c_void};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use sanswitch_model::blocks::hostif::RESP_SLVERR;
use sanswitch_model::blocks::nic::{NicIn, NicOut};
use sanswitch_model::bridge::{
    self, BLOCK_BYTES, BLOCK_WORDS, BridgeExec, BridgeTarget, MAX_MEM_BYTES, Request, Response,
};
use sanswitch_model::nic_pair::NicPair;
use sanswitch_model::ports::CycleModel;

use crate::{DmaBuf, Error, Transport};

/// The block-throttled pipes the bridge listens and answers on
/// (`sanswitch_model::bridge::PIPE_IN` / `PIPE_OUT`), as FrontPanel's API takes them.
pub const PIPE_IN: c_int = sanswitch_model::bridge::PIPE_IN as c_int;
pub const PIPE_OUT: c_int = sanswitch_model::bridge::PIPE_OUT as c_int;

/// Transactions a DMA read may take to get two equal reads of its range.
pub const TORN_READ_TRIES: usize = 16;

/// What carries the bridge's words: whole blocks of [`BLOCK_WORDS`] each way.
pub trait PipeLink {
    /// Sends request words (a whole number of blocks).
    fn write_blocks(&mut self, words: &[u16]) -> Result<(), Error>;
    /// Reads `n` response words (a whole number of blocks).
    fn read_blocks(&mut self, n: usize) -> Result<Vec<u16>, Error>;
    /// The host waits for the device (a simulation lets time pass).
    fn wait(&mut self) {}
    /// The device's clock cycles so far, where the link can tell.
    fn now_cycles(&self) -> Option<u64> {
        None
    }
}

/// The host side of the bridge protocol over a link.
///
/// Writes (register and memory) are **posted**, as PCIe posts its writes: kept and sent with
/// the next transaction either node makes (a read, or a wait), in order with everything
/// else, so a doorbell costs no round trip of its own. A posted write's failure is
/// reported by the next call of the node that posted it.
pub struct Bridge<L> {
    pub link: L,
    /// Transactions run and request words sent (for figures).
    pub transactions: u64,
    pub words_sent: u64,
    /// DMA reads whose two reads differed (read again).
    pub torn_reads: u64,
    posted: Vec<Request>,
    posted_bytes: usize,
    failed: [Option<Error>; bridge::NODES],
}

fn node_of(r: &Request) -> usize {
    match r {
        Request::RegWrite { node, .. }
        | Request::RegRead { node, .. }
        | Request::MemWrite { node, .. }
        | Request::MemRead { node, .. } => *node,
        Request::Flush => 0,
    }
}

impl<L: PipeLink> Bridge<L> {
    pub fn new(link: L) -> Self {
        Bridge {
            link,
            transactions: 0,
            words_sent: 0,
            torn_reads: 0,
            posted: Vec::new(),
            posted_bytes: 0,
            failed: Default::default(),
        }
    }

    /// Posts a write of `node`'s; sends the posted writes once they are many.
    pub fn post(&mut self, r: Request) -> Result<(), Error> {
        let node = node_of(&r);
        if let Some(e) = self.failed[node].take() {
            return Err(e);
        }
        self.posted_bytes += match &r {
            Request::MemWrite { data, .. } => data.len(),
            _ => 4,
        };
        self.posted.push(r);
        if self.posted_bytes >= POST_LIMIT {
            self.send(node, Vec::new())?;
        }
        Ok(())
    }

    /// Sends the posted writes and `node`'s `reqs` in one transaction; `reqs`' responses.
    /// A failed posted write of `node`'s is its error; another node's is kept for it.
    pub fn send(&mut self, node: usize, reqs: Vec<Request>) -> Result<Vec<Response>, Error> {
        if let Some(e) = self.failed[node].take() {
            return Err(e);
        }
        let n = self.posted.len();
        let mut all = std::mem::take(&mut self.posted);
        self.posted_bytes = 0;
        all.extend(reqs);
        let mut resp = self.transact(&all)?;
        let mut mine = None;
        for (q, r) in all.iter().zip(&resp).take(n) {
            let ok = matches!(
                r,
                Response::RegWrite { resp: 0, .. } | Response::MemWrite { status: 0, .. }
            );
            if ok {
                continue;
            }
            let e = match q {
                Request::RegWrite { offset, .. } => Error::Register {
                    offset: *offset,
                    what: format!("posted write answered {r:?}"),
                },
                _ => Error::Dma(format!("posted {q:?} refused: {r:?}")),
            };
            let k = node_of(q);
            if k == node {
                mine = mine.or(Some(e));
            } else if self.failed[k].is_none() {
                self.failed[k] = Some(e);
            }
        }
        if let Some(e) = mine {
            return Err(e);
        }
        Ok(resp.split_off(n))
    }

    /// Sends whatever is posted (before a wait: the device must see the doorbells).
    pub fn flush(&mut self) {
        if self.posted.is_empty() {
            return;
        }
        let node = node_of(&self.posted[0]);
        if let Err(e) = self.send(node, Vec::new()) {
            if self.failed[node].is_none() {
                self.failed[node] = Some(e);
            }
        }
    }

    /// Runs `reqs` as one transaction: their words, a `FLUSH`, `NOP`s to the block's end;
    /// then the response blocks, checked: one response per request, of its kind and node.
    pub fn transact(&mut self, reqs: &[Request]) -> Result<Vec<Response>, Error> {
        let mut words = Vec::new();
        for r in reqs {
            r.encode(&mut words).map_err(|e| Error::Param(e.to_string()))?;
        }
        Request::Flush.encode(&mut words).expect("a flush encodes");
        words.resize(words.len().div_ceil(BLOCK_WORDS) * BLOCK_WORDS, 0);
        self.link.write_blocks(&words)?;
        self.transactions += 1;
        self.words_sent += words.len() as u64;
        let want: usize = reqs.iter().map(Request::response_words).sum();
        let got = self.link.read_blocks(want.div_ceil(BLOCK_WORDS).max(1) * BLOCK_WORDS)?;
        let resp = bridge::decode_responses(&got)
            .map_err(|e| Error::Protocol(format!("bridge responses: {e}")))?;
        if resp.len() != reqs.len() {
            return Err(Error::Protocol(format!(
                "bridge: {} responses to {} requests ({:?})",
                resp.len(),
                reqs.len(),
                resp.iter().find(|r| matches!(r, Response::Error { .. }))
            )));
        }
        for (q, r) in reqs.iter().zip(&resp) {
            let ok = matches!(
                (q, r),
                (Request::RegWrite { node: a, .. }, Response::RegWrite { node: b, .. })
                    | (Request::RegRead { node: a, .. }, Response::RegRead { node: b, .. })
                    | (Request::MemWrite { node: a, .. }, Response::MemWrite { node: b, .. })
                    | (Request::MemRead { node: a, .. }, Response::MemRead { node: b, .. })
                    if a == b
            );
            if !ok {
                return Err(Error::Protocol(format!("bridge answered {r:?} to {q:?}")));
            }
        }
        Ok(resp)
    }
}

/// One node of the board as the driver's transport. Both nodes share one bridge.
pub struct BoardTransport<L> {
    pub bridge: Rc<RefCell<Bridge<L>>>,
    pub node: usize,
    /// The bus address the NIC sees for byte 0 of its on-chip memory (0 on the board).
    bus_base: u64,
    mem_bytes: u32,
    /// Live allocations: bus address -> length.
    bufs: BTreeMap<u64, usize>,
}

/// Posted writes are sent once they hold this many bytes.
pub const POST_LIMIT: usize = 256 << 10;

/// The two nodes' transports over one link; node `k` has `mem_bytes` of on-chip memory that
/// its NIC sees at bus addresses `bus_base[k]` onwards (0 on the board).
pub fn board<L: PipeLink>(link: L, bus_base: [u64; 2], mem_bytes: u32) -> [BoardTransport<L>; 2] {
    let b = Rc::new(RefCell::new(Bridge::new(link)));
    [0, 1].map(|node| BoardTransport {
        bridge: b.clone(),
        node,
        bus_base: bus_base[node],
        mem_bytes,
        bufs: BTreeMap::new(),
    })
}

impl<L> BoardTransport<L> {
    /// `buf[offset..offset + len]` must be inside a live allocation; its on-chip address.
    fn span(&self, buf: &DmaBuf, offset: usize, len: usize) -> Result<u32, Error> {
        match self.bufs.get(&buf.bus) {
            Some(&l) if offset.checked_add(len).is_some_and(|e| e <= l) => {
                Ok((buf.bus - self.bus_base + offset as u64) as u32)
            }
            Some(_) => Err(Error::Dma(format!(
                "{len} bytes at offset {offset} past the end of the {}-byte buffer at {:#x}",
                buf.len, buf.bus
            ))),
            None => Err(Error::Dma(format!("no buffer at {:#x} (freed?)", buf.bus))),
        }
    }
}

impl<L: PipeLink> Transport for BoardTransport<L> {
    fn read32(&mut self, offset: u32) -> Result<u32, Error> {
        let r = self
            .bridge
            .borrow_mut()
            .send(self.node, vec![Request::RegRead { node: self.node, offset }]);
        match r?.pop() {
            Some(Response::RegRead { resp: 0, value, .. }) => Ok(value),
            other => Err(Error::Register { offset, what: format!("read answered {other:?}") }),
        }
    }

    /// Posted: sent with the next read or wait.
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), Error> {
        self.bridge.borrow_mut().post(Request::RegWrite { node: self.node, offset, value })
    }

    /// First fit in the node's memory, aligned; `Dma` when nothing fits.
    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<DmaBuf, Error> {
        if !align.is_power_of_two() || len == 0 {
            return Err(Error::Dma(format!("{len} bytes aligned to {align}: not a request")));
        }
        let mut at = self.bus_base;
        for (&b, &l) in &self.bufs {
            let start = at.next_multiple_of(align as u64);
            if start + len as u64 <= b {
                break;
            }
            at = b + l as u64;
        }
        let start = at.next_multiple_of(align as u64);
        if start + len as u64 > self.bus_base + u64::from(self.mem_bytes) {
            return Err(Error::Dma(format!(
                "{len} bytes (aligned to {align}) do not fit in the node's {} bytes of on-chip memory",
                self.mem_bytes
            )));
        }
        self.bufs.insert(start, len);
        // Zeroed, as the trait promises.
        let buf = DmaBuf { bus: start, len };
        self.dma_write(&buf, 0, &vec![0; len])?;
        Ok(buf)
    }

    fn dma_free(&mut self, buf: &DmaBuf) -> Result<(), Error> {
        self.span(buf, 0, 0)?;
        self.bufs.remove(&buf.bus);
        Ok(())
    }

    /// Posted: sent with the next read or wait.
    fn dma_write(&mut self, buf: &DmaBuf, offset: usize, data: &[u8]) -> Result<(), Error> {
        let a = self.span(buf, offset, data.len())?;
        let step = MAX_MEM_BYTES as usize & !7;
        for (k, c) in data.chunks(step).enumerate() {
            let r = Request::MemWrite {
                node: self.node,
                addr: a + (k * step) as u32,
                data: c.to_vec(),
            };
            self.bridge.borrow_mut().post(r)?;
        }
        Ok(())
    }

    /// The bridge reads memory a 64-bit word at a time while the NIC may be writing it, so a
    /// completion entry (two words: the tag in the first, the phase bit in the second) read
    /// as the NIC writes it can come back torn: the old tag with the new phase. Every range
    /// is therefore read twice in one transaction, the second read after the first, until
    /// the two agree (the NIC writes an entry once a lap of its ring, so two equal reads are
    /// one consistent snapshot); [`TORN_READ_TRIES`] transactions at most.
    fn dma_read(&mut self, buf: &DmaBuf, offset: usize, out: &mut [u8]) -> Result<(), Error> {
        let a = self.span(buf, offset, out.len())?;
        let step = MAX_MEM_BYTES as usize & !7;
        let reqs: Vec<Request> = (0..out.len())
            .step_by(step)
            .map(|k| Request::MemRead {
                node: self.node,
                addr: a + k as u32,
                len: step.min(out.len() - k) as u32,
            })
            .collect();
        for _ in 0..TORN_READ_TRIES {
            let twice: Vec<Request> = reqs.iter().chain(reqs.iter()).cloned().collect();
            let resp = self.bridge.borrow_mut().send(self.node, twice)?;
            let (first, second) = resp.split_at(reqs.len());
            if first != second {
                self.bridge.borrow_mut().torn_reads += 1;
                continue;
            }
            for ((q, r), chunk) in reqs.iter().zip(second).zip(out.chunks_mut(step)) {
                let (Request::MemRead { addr, .. }, Response::MemRead { status: 0, words, .. }) =
                    (q, r)
                else {
                    return Err(Error::Dma(format!("bridge refused a read at {a:#x}: {r:?}")));
                };
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                let skip = (addr % 8) as usize;
                let got = bytes.get(skip..skip + chunk.len()).ok_or_else(|| {
                    Error::Protocol(format!("bridge read at {addr:#x}: {} words", words.len()))
                })?;
                chunk.copy_from_slice(got);
            }
            return Ok(());
        }
        Err(Error::Dma(format!(
            "{} bytes at {a:#x}: no two equal reads in {TORN_READ_TRIES} tries",
            out.len()
        )))
    }

    /// Requests run in order on the board: a register write after memory writes finds them
    /// done.
    fn barrier(&mut self) {}

    /// Sends every posted write (both nodes': a failure is reported by its node's next
    /// call), then waits.
    fn wait(&mut self) {
        let mut b = self.bridge.borrow_mut();
        b.flush();
        b.link.wait();
    }

    fn now_cycles(&self) -> Option<u64> {
        self.bridge.borrow().link.now_cycles()
    }
}

/// What a link executes requests against when no board is there: a [`BridgeTarget`] that
/// can also let time pass.
pub trait BoardModel: BridgeTarget {
    fn run(&mut self, cycles: u64);
    fn cycle(&self) -> Option<u64>;
}

/// The bridge as a function: each block of requests executed as it arrives by the
/// protocol's reference behaviour ([`BridgeExec`]) against a [`BoardModel`], the responses
/// kept for the reads. No USB and no bridge timing: what it shows is that the driver works
/// through the protocol.
pub struct ExecLink<M> {
    pub model: M,
    /// Device cycles a transaction's requests take to arrive, and its responses to return
    /// (half a round trip each; a USB 2.0 round trip is on the order of a millisecond).
    pub half_round_trip: u64,
    exec: BridgeExec,
    out: VecDeque<u16>,
}

impl<M: BoardModel> ExecLink<M> {
    pub fn new(model: M) -> Self {
        ExecLink { model, half_round_trip: 0, exec: BridgeExec::default(), out: VecDeque::new() }
    }
}

impl<M: BoardModel> PipeLink for ExecLink<M> {
    fn write_blocks(&mut self, words: &[u16]) -> Result<(), Error> {
        self.model.run(self.half_round_trip);
        let out = self.exec.run(words, &mut self.model);
        self.out.extend(out);
        Ok(())
    }

    fn read_blocks(&mut self, n: usize) -> Result<Vec<u16>, Error> {
        self.model.run(self.half_round_trip);
        if self.out.len() < n {
            return Err(Error::Protocol(format!(
                "the bridge has {} response words, {n} asked",
                self.out.len()
            )));
        }
        Ok(self.out.drain(..n).collect())
    }

    fn wait(&mut self) {
        self.model.run(crate::pair::WAIT_CYCLES);
    }

    fn now_cycles(&self) -> Option<u64> {
        self.model.cycle()
    }
}

/// Two NICs (cycle models or Verilog) over the cycle-level SAN, each with `mem_bytes` of
/// memory standing for its on-chip memory: the board without its bridge's HDL.
pub struct NicBoard<N> {
    pub pair: NicPair<N>,
    /// Each node's memory: its bus address (lent to the NIC whole) and size.
    pub base: [u64; 2],
    pub mem_bytes: u32,
}

impl<N: CycleModel<In = NicIn, Out = NicOut>> NicBoard<N> {
    pub fn new(mut pair: NicPair<N>, mem_bytes: u32) -> Self {
        let base = [0, 1].map(|n| pair.alloc(n, mem_bytes as usize, 4096));
        NicBoard { pair, base, mem_bytes }
    }
}

impl<N: CycleModel<In = NicIn, Out = NicOut>> BridgeTarget for NicBoard<N> {
    fn reg_write(&mut self, node: usize, offset: u32, value: u32) -> u8 {
        self.pair.reg_write(node, offset, value).unwrap_or(RESP_SLVERR)
    }
    fn reg_read(&mut self, node: usize, offset: u32) -> (u32, u8) {
        self.pair.reg_read(node, offset).unwrap_or((0, RESP_SLVERR))
    }
    fn mem_bytes(&self) -> u32 {
        self.mem_bytes
    }
    fn mem_write(&mut self, node: usize, index: u32, v: u64, mask: u8) {
        let at = self.base[node] + 8 * u64::from(index);
        let mut b = self.pair.mem(node).read(at, 8);
        for (k, x) in v.to_le_bytes().iter().enumerate() {
            if mask >> k & 1 != 0 {
                b[k] = *x;
            }
        }
        self.pair.mem_mut(node).write(at, &b);
    }
    fn mem_read(&mut self, node: usize, index: u32) -> u64 {
        let b = self.pair.mem(node).read(self.base[node] + 8 * u64::from(index), 8);
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }
}

impl<N: CycleModel<In = NicIn, Out = NicOut>> BoardModel for NicBoard<N> {
    fn run(&mut self, cycles: u64) {
        self.pair.run(cycles);
    }
    fn cycle(&self) -> Option<u64> {
        Some(self.pair.cycle)
    }
}

/// The board's two transports over two NICs and the bridge's reference behaviour.
pub fn exec_board<N: CycleModel<In = NicIn, Out = NicOut>>(
    pair: NicPair<N>,
    mem_bytes: u32,
) -> [BoardTransport<ExecLink<NicBoard<N>>>; 2] {
    let b = NicBoard::new(pair, mem_bytes);
    let base = b.base;
    board(ExecLink::new(b), base, mem_bytes)
}

/// Where the FrontPanel library is looked for: `SANSWITCH_FRONTPANEL_LIB`, else the
/// platform's name for it on the loader's path.
pub fn frontpanel_library_path() -> PathBuf {
    std::env::var_os("SANSWITCH_FRONTPANEL_LIB").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(if cfg!(windows) { "okFrontPanel.dll" } else { "libokFrontPanel.so" })
    })
}

type Handle = *mut c_void;

/// The FrontPanel functions this transport calls (the SDK's C API, `okFrontPanel.h`).
struct Api {
    construct: unsafe extern "C" fn() -> Handle,
    destruct: unsafe extern "C" fn(Handle),
    open_by_serial: unsafe extern "C" fn(Handle, *const c_char) -> c_int,
    configure_fpga: unsafe extern "C" fn(Handle, *const c_char) -> c_int,
    write_block: unsafe extern "C" fn(Handle, c_int, c_int, c_long, *const u8) -> c_long,
    read_block: unsafe extern "C" fn(Handle, c_int, c_int, c_long, *mut u8) -> c_long,
}

/// A board opened through Opal Kelly's FrontPanel library.
pub struct FrontPanel {
    api: Api,
    handle: Handle,
    /// Keeps the functions above alive.
    _lib: libloading::Library,
}

impl FrontPanel {
    /// Loads the library, opens the board with serial number `serial` (the first one when
    /// `None`) and, when given, configures it with `bitfile`.
    ///
    /// # Errors
    /// `Error::Device`-like messages in `Error::Param` saying what is missing: the library
    /// (and how to install it), a board, or the bitstream.
    pub fn open(serial: Option<&str>, bitfile: Option<&Path>) -> Result<Self, Error> {
        let path = frontpanel_library_path();
        // SAFETY: loading a shared library runs its initialisers; FrontPanel's are the
        // vendor's own and do nothing but set up its USB layer.
        let lib = unsafe { libloading::Library::new(&path) }.map_err(|e| {
            Error::Param(format!(
                "the Opal Kelly FrontPanel library ({}) could not be loaded: {e}. Install the \
                 FrontPanel SDK from Opal Kelly (its API folder holds libokFrontPanel.so) and \
                 put it on the loader's path, or set SANSWITCH_FRONTPANEL_LIB to the file",
                path.display()
            ))
        })?;
        fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T, Error> {
            // SAFETY: the type is the one `okFrontPanel.h` declares for `name`.
            unsafe { lib.get::<T>(name.as_bytes()) }.map(|s| *s).map_err(|e| {
                Error::Param(format!("the FrontPanel library has no {name}: {e} (too old?)"))
            })
        }
        let api = Api {
            construct: sym(&lib, "okFrontPanel_Construct")?,
            destruct: sym(&lib, "okFrontPanel_Destruct")?,
            open_by_serial: sym(&lib, "okFrontPanel_OpenBySerial")?,
            configure_fpga: sym(&lib, "okFrontPanel_ConfigureFPGA")?,
            write_block: sym(&lib, "okFrontPanel_WriteToBlockPipeIn")?,
            read_block: sym(&lib, "okFrontPanel_ReadFromBlockPipeOut")?,
        };
        // SAFETY: the API's constructor, no arguments.
        let handle = unsafe { (api.construct)() };
        if handle.is_null() {
            return Err(Error::Param("FrontPanel could not make a device handle".into()));
        }
        let fp = FrontPanel { api, handle, _lib: lib };
        let s = CString::new(serial.unwrap_or("")).map_err(|e| Error::Param(e.to_string()))?;
        // SAFETY: a live handle and a NUL-terminated string.
        let rc = unsafe { (fp.api.open_by_serial)(fp.handle, s.as_ptr()) };
        if rc != 0 {
            return Err(Error::Param(format!(
                "no Opal Kelly board {} (FrontPanel error {rc}): is it plugged in, and is the \
                 USB device readable by this user?",
                serial.map_or("found".to_string(), |s| format!("with serial {s}"))
            )));
        }
        if let Some(b) = bitfile {
            let p = CString::new(b.to_string_lossy().as_bytes())
                .map_err(|e| Error::Param(e.to_string()))?;
            // SAFETY: a live, open handle and a NUL-terminated path.
            let rc = unsafe { (fp.api.configure_fpga)(fp.handle, p.as_ptr()) };
            if rc != 0 {
                return Err(Error::Param(format!(
                    "configuring the board with {} failed (FrontPanel error {rc})",
                    b.display()
                )));
            }
        }
        Ok(fp)
    }
}

impl Drop for FrontPanel {
    fn drop(&mut self) {
        // SAFETY: the handle came from `construct` and is dropped once.
        unsafe { (self.api.destruct)(self.handle) }
    }
}

impl PipeLink for FrontPanel {
    fn write_blocks(&mut self, words: &[u16]) -> Result<(), Error> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        // SAFETY: a live handle; `bytes` outlives the call, its length is passed.
        let n = unsafe {
            (self.api.write_block)(
                self.handle,
                PIPE_IN,
                BLOCK_BYTES as c_int,
                bytes.len() as c_long,
                bytes.as_ptr(),
            )
        };
        if n != bytes.len() as c_long {
            return Err(Error::Protocol(format!(
                "FrontPanel wrote {n} of {} bytes to pipe {PIPE_IN:#x}",
                bytes.len()
            )));
        }
        Ok(())
    }

    fn read_blocks(&mut self, n: usize) -> Result<Vec<u16>, Error> {
        let mut bytes = vec![0u8; 2 * n];
        // SAFETY: a live handle; `bytes` is writable for the length passed.
        let got = unsafe {
            (self.api.read_block)(
                self.handle,
                PIPE_OUT,
                BLOCK_BYTES as c_int,
                bytes.len() as c_long,
                bytes.as_mut_ptr(),
            )
        };
        if got != bytes.len() as c_long {
            return Err(Error::Protocol(format!(
                "FrontPanel read {got} of {} bytes from pipe {PIPE_OUT:#x}",
                bytes.len()
            )));
        }
        Ok(bytes.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The protocol's reference behaviour over registers in a map and two 64 KiB memories.
    struct Exec {
        exec: BridgeExec,
        regs: BTreeMap<(usize, u32), u32>,
        mem: [Vec<u64>; 2],
        out: std::collections::VecDeque<u16>,
        /// Corrupt the next response stream (drop its first response word).
        garble: bool,
        tear: Tear,
    }

    /// A NIC writing a two-word entry while the bridge reads it: after `after` more word
    /// reads, words `index`, `index + 1` of node 0 get `new` (and `new` is bumped, when
    /// `always`, after every read from then on).
    #[derive(Default)]
    struct Tear {
        after: Option<u32>,
        index: u32,
        new: [u64; 2],
        always: bool,
    }

    struct Target<'a>(&'a mut BTreeMap<(usize, u32), u32>, &'a mut [Vec<u64>; 2], &'a mut Tear);

    impl BridgeTarget for Target<'_> {
        fn reg_write(&mut self, node: usize, offset: u32, value: u32) -> u8 {
            if offset >= 0x1000 {
                return 2;
            }
            self.0.insert((node, offset), value);
            0
        }
        fn reg_read(&mut self, node: usize, offset: u32) -> (u32, u8) {
            if offset >= 0x1000 {
                return (0, 2);
            }
            (self.0.get(&(node, offset)).copied().unwrap_or(0), 0)
        }
        fn mem_bytes(&self) -> u32 {
            (self.1[0].len() * 8) as u32
        }
        fn mem_write(&mut self, node: usize, index: u32, v: u64, mask: u8) {
            let m = &mut self.1[node][index as usize];
            let bytes: u64 =
                (0..8).filter(|b| mask >> b & 1 != 0).map(|b| 0xFFu64 << (8 * b)).sum();
            *m = (*m & !bytes) | (v & bytes);
        }
        fn mem_read(&mut self, node: usize, index: u32) -> u64 {
            let v = self.1[node][index as usize];
            let t = &mut *self.2;
            match t.after {
                Some(0) => {
                    let i = t.index as usize;
                    self.1[0][i..i + 2].copy_from_slice(&t.new);
                    t.after = None;
                    if t.always {
                        t.new = t.new.map(|w| w + 1);
                        t.after = Some(0);
                    }
                }
                Some(n) => t.after = Some(n - 1),
                None => {}
            }
            v
        }
    }

    impl PipeLink for Exec {
        fn write_blocks(&mut self, words: &[u16]) -> Result<(), Error> {
            assert_eq!(words.len() % BLOCK_WORDS, 0, "whole blocks");
            let mut t = Target(&mut self.regs, &mut self.mem, &mut self.tear);
            let mut out = self.exec.run(words, &mut t);
            if std::mem::take(&mut self.garble) {
                out.remove(0);
            }
            self.out.extend(out);
            Ok(())
        }
        fn read_blocks(&mut self, n: usize) -> Result<Vec<u16>, Error> {
            assert_eq!(n % BLOCK_WORDS, 0, "whole blocks");
            if self.out.len() < n {
                return Err(Error::Protocol(format!("{} words ready, {n} asked", self.out.len())));
            }
            Ok(self.out.drain(..n).collect())
        }
    }

    fn exec() -> Exec {
        Exec {
            exec: BridgeExec::default(),
            regs: BTreeMap::new(),
            mem: [vec![0; 8192], vec![0; 8192]],
            out: Default::default(),
            garble: false,
            tear: Tear::default(),
        }
    }

    /// An entry the NIC writes between the bridge's reads of its two words is read again:
    /// the read returns the whole new entry, never the old tag with the new phase.
    #[test]
    fn a_torn_read_is_read_again() {
        let [mut a, _] = board(exec(), [0, 0], 64 << 10);
        let buf = a.dma_alloc(16, 16).unwrap();
        let i = (buf.bus / 8) as usize;
        a.dma_write(&buf, 0, &[0x11; 16]).unwrap();
        let mut old = [0u8; 16];
        a.dma_read(&buf, 0, &mut old).unwrap();
        assert_eq!(old, [0x11; 16]);
        let new = [0x2222_2222_2222_2222u64, 0x8000_0000_0000_0001];
        {
            let mut br = a.bridge.borrow_mut();
            br.link.tear = Tear { after: Some(0), index: i as u32, new, always: false };
        }
        let mut got = [0u8; 16];
        a.dma_read(&buf, 0, &mut got).unwrap();
        let want: Vec<u8> = new.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(got.to_vec(), want);
        assert_eq!(a.bridge.borrow().torn_reads, 1);
        // A memory that never holds still: an error after the tries, not a torn value.
        a.bridge.borrow_mut().link.tear =
            Tear { after: Some(0), index: i as u32, new, always: true };
        let e = a.dma_read(&buf, 0, &mut got).unwrap_err();
        assert!(e.to_string().contains("no two equal reads"), "{e}");
        assert_eq!(a.bridge.borrow().torn_reads, 1 + TORN_READ_TRIES as u64);
    }

    #[test]
    fn registers_and_dma_memory_through_the_bridge() {
        let [mut a, mut b] = board(exec(), [0, 0], 64 << 10);
        a.write32(0x60, 7).unwrap();
        b.write32(0x60, 9).unwrap();
        assert_eq!((a.read32(0x60).unwrap(), b.read32(0x60).unwrap()), (7, 9));
        assert!(matches!(a.read32(0x1000), Err(Error::Register { .. })), "SLVERR is an error");
        // Buffers: aligned, apart, zeroed; bytes at odd offsets across several requests.
        let x = a.dma_alloc(100, 64).unwrap();
        let y = a.dma_alloc(40_000, 4096).unwrap();
        assert_eq!((x.bus % 64, y.bus % 4096), (0, 0));
        assert!(x.bus + 100 <= y.bus || y.bus + 40_000 <= x.bus);
        let data: Vec<u8> = (0..39_990u32).map(|k| (k * 7 + 3) as u8).collect();
        a.dma_write(&y, 5, &data).unwrap();
        let mut back = vec![0u8; data.len()];
        a.dma_read(&y, 5, &mut back).unwrap();
        assert_eq!(back, data);
        let mut head = [1u8; 5];
        a.dma_read(&y, 0, &mut head).unwrap();
        assert_eq!(head, [0; 5], "bytes before the write untouched (and zeroed)");
        let mut other = vec![1u8; 64];
        let z = b.dma_alloc(64, 8).unwrap();
        b.dma_read(&z, 0, &mut other).unwrap();
        assert!(other.iter().all(|x| *x == 0), "the other node's memory is its own");
        // The memory runs out with a clear error; freeing makes room again.
        assert!(matches!(a.dma_alloc(30_000, 8), Err(Error::Dma(_))));
        a.dma_free(&y).unwrap();
        assert!(a.dma_alloc(30_000, 8).is_ok());
        assert!(matches!(a.dma_read(&y, 0, &mut head), Err(Error::Dma(_))), "freed");
        assert!(a.bridge.borrow().transactions > 5);
    }

    #[test]
    fn writes_are_posted_and_their_failure_reported_by_the_next_call() {
        let [mut a, _] = board(exec(), [0, 0], 64 << 10);
        let before = a.bridge.borrow().transactions;
        a.write32(0x60, 1).unwrap();
        a.write32(0x1000, 2).unwrap(); // refused by the device, but posted
        let x = a.dma_alloc(64, 8).unwrap();
        a.dma_write(&x, 3, b"posted").unwrap();
        assert_eq!(a.bridge.borrow().transactions, before, "nothing sent yet");
        let e = a.read32(0x60).unwrap_err();
        assert!(matches!(e, Error::Register { offset: 0x1000, .. }), "{e}");
        assert_eq!(a.bridge.borrow().transactions, before + 1, "one transaction for all");
        // The writes before the refused one took effect; the memory write after it too
        // (the bridge runs every request), and the next read is answered.
        assert_eq!(a.read32(0x60).unwrap(), 1);
        let mut b = [0u8; 6];
        a.dma_read(&x, 3, &mut b).unwrap();
        assert_eq!(&b, b"posted");
        // A failure found while waiting is reported by the next call.
        a.write32(0x1004, 0).unwrap();
        a.wait();
        assert!(matches!(a.read32(0x60), Err(Error::Register { offset: 0x1004, .. })));
        assert_eq!(a.read32(0x60).unwrap(), 1);
    }

    #[test]
    fn a_posted_write_goes_with_the_other_nodes_transaction_and_its_failure_to_its_node() {
        let [mut a, mut b] = board(exec(), [0, 0], 64 << 10);
        b.write32(0x64, 5).unwrap();
        b.write32(0x1008, 0).unwrap();
        // Node 0's read carries node 1's posted writes; the failure is node 1's to hear.
        assert_eq!(a.read32(0x64).unwrap(), 0);
        assert!(matches!(b.read32(0x64), Err(Error::Register { offset: 0x1008, .. })));
        assert_eq!(b.read32(0x64).unwrap(), 5);
    }

    #[test]
    fn a_garbled_response_stream_is_a_protocol_error_not_a_panic() {
        let [mut a, _] = board(exec(), [0, 0], 64 << 10);
        a.bridge.borrow_mut().link.garble = true;
        assert!(matches!(a.read32(0x60), Err(Error::Protocol(_))));
    }

    #[test]
    fn without_the_library_open_says_what_to_install() {
        // SAFETY: tests in this binary do not read this variable concurrently.
        unsafe { std::env::set_var("SANSWITCH_FRONTPANEL_LIB", "/nonexistent/libokFrontPanel.so") };
        let e = FrontPanel::open(None, None).err().expect("no library here");
        let m = e.to_string();
        assert!(m.contains("FrontPanel SDK") && m.contains("SANSWITCH_FRONTPANEL_LIB"), "{m}");
    }
}
