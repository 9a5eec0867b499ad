//! The socket-like layer: an [`Endpoint`] owns a device's queue pair and its connections'
//! DMA memory; a [`Connection`](crate::Connection) reads and writes like a stream socket.
//!
//! - **Sends** are copied into the connection's staging ring (registered DMA memory) and
//!   submitted; `write` returns as soon as its bytes are copied, which is the seed's early
//!   completion for an application with one send outstanding. A send's failure is reported
//!   by the next `write` or `flush` (as a socket reports a pending error). No room in the
//!   staging ring or the engine's send queue: `WouldBlock` in non-blocking mode, else the
//!   driver waits for completions.
//! - **Receives** land in buffers the driver keeps posted (as many as the engine queues per
//!   connection, at most); `read` copies out of the oldest filled one and re-posts it once
//!   empty. Urgent (out-of-band) data is kept apart for [`recv_urgent`](crate::Connection::recv_urgent),
//!   as Winsock does without `SO_OOBINLINE`.
//! - **Batches**: every call's commands go out with one doorbell; completions are reaped by
//!   their phase bit in batches (one `cq_cons` write per batch).

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::io;
use std::rc::Rc;

use sanswitch_model::host::{Command, Completion, Opcode, TAG_HOST_MASK};
use sanswitch_model::status::WsaError;

use crate::{Device, DmaBuf, Error, QueuePair, Transport};

/// How an endpoint sizes its rings and each connection's memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SocketConfig {
    /// The device's queue pair the endpoint uses (one endpoint per queue pair: each thread
    /// or process of an application can have its own, with no lock between them).
    pub queue_pair: usize,
    /// log2 entries of the submission and completion rings.
    pub sq_log2: u32,
    pub cq_log2: u32,
    /// Bytes of each connection's send staging ring.
    pub tx_staging: usize,
    /// Largest send one command carries (a `write` of more is split).
    pub max_send: usize,
    /// Receive buffers kept posted per connection (at most the engine's queue depth) and
    /// their size.
    pub rx_bufs: usize,
    pub rx_buf_size: usize,
    /// A blocking call gives up (`TimedOut`) after this many waits with no completion.
    pub wait_limit: u64,
}

impl Default for SocketConfig {
    fn default() -> Self {
        SocketConfig {
            queue_pair: 0,
            sq_log2: 6,
            cq_log2: 7,
            tx_staging: 256 * 1024,
            max_send: 64 * 1024,
            rx_bufs: 4,
            rx_buf_size: 16 * 1024,
            wait_limit: 1_000_000,
        }
    }
}

/// What an endpoint counted (for the figures).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats {
    pub commands: u64,
    pub doorbells: u64,
    pub completions: u64,
    /// Polls that found at least one completion.
    pub reaps: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

/// A connection's handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// OPEN submitted, not completed.
    Opening,
    /// OPEN completed; CONNECT or LISTEN outstanding.
    Handshaking,
    Connected,
    /// CLOSE or ABORT completed: nothing more.
    Closed,
}

/// What a tag stands for.
#[derive(Clone, Copy, Debug)]
enum Op {
    Open,
    Handshake,
    Send,
    Recv { buf: usize },
    Shutdown,
    Close,
    Abort,
}

/// One send in the staging ring.
#[derive(Clone, Copy, Debug)]
struct Staged {
    start: usize,
    len: usize,
    tag: u32,
    done: bool,
}

pub(crate) struct ConnState {
    pub(crate) phase: Phase,
    /// The connection failed (reset, aborted, refused): every later call says so.
    pub(crate) error: Option<WsaError>,
    /// A send failed (e.g. WSAENOBUFS): reported once by the next write or flush.
    pub(crate) send_error: Option<WsaError>,
    tx: DmaBuf,
    /// Where the next send is copied, and the sends in the ring, oldest first.
    tx_head: usize,
    staged: VecDeque<Staged>,
    rx: Vec<DmaBuf>,
    /// Buffers not posted and empty.
    rx_free: Vec<usize>,
    pub(crate) rx_posted: usize,
    /// Filled buffers: index, bytes, bytes already read.
    rx_ready: VecDeque<(usize, usize, usize)>,
    pub(crate) urgent: VecDeque<u8>,
    pub(crate) eof: bool,
    pub(crate) shut: bool,
    pub(crate) closing: bool,
}

impl ConnState {
    /// The staging ring's free contiguous room for a send of up to `want` bytes.
    fn tx_room(&self, want: usize) -> (usize, usize) {
        let size = self.tx.len;
        let Some(first) = self.staged.front() else { return (0, size.min(want)) };
        let (h, t) = (self.tx_head, first.start);
        if h > t {
            // Free at the end, and before the oldest send at the start.
            if size - h >= want.min(4096) || t == 0 { (h, size - h) } else { (0, t) }
        } else {
            (h, t - h)
        }
    }

    pub(crate) fn rx_ready_empty(&self) -> bool {
        self.rx_ready.is_empty()
    }

    pub(crate) fn sends_out(&self) -> usize {
        self.staged.iter().filter(|s| !s.done).count()
    }
}

pub(crate) struct Inner<T: Transport> {
    pub(crate) qp: QueuePair<T>,
    pub(crate) cfg: SocketConfig,
    pub(crate) conns: HashMap<u16, ConnState>,
    tags: HashMap<u32, (u16, Op)>,
    next_tag: u32,
    batch: Vec<Command>,
    pub(crate) stats: EndpointStats,
    /// Waits in a row with no completion.
    idle_waits: u64,
    /// Inside [`Endpoint::batch`]: doorbells wait for its end.
    corked: bool,
}

/// A device's queue pair and its connections.
pub struct Endpoint<T: Transport> {
    pub(crate) inner: Rc<RefCell<Inner<T>>>,
}

/// A Winsock status as an `io::Error` of the nearest kind (the status stays readable as the
/// error's source).
pub fn wsa_io(e: WsaError) -> io::Error {
    use io::ErrorKind as K;
    let kind = match e {
        WsaError::ConnReset => K::ConnectionReset,
        WsaError::OperationAborted => K::ConnectionAborted,
        WsaError::ConnRefused => K::ConnectionRefused,
        WsaError::NoBufs => K::OutOfMemory,
        WsaError::Shutdown => K::BrokenPipe,
        WsaError::NotConn => K::NotConnected,
        WsaError::Inval | WsaError::NotSock => K::InvalidInput,
        _ => K::Other,
    };
    io::Error::new(kind, crate::error::WsaStatus(e))
}

impl<T: Transport> Endpoint<T> {
    /// Sets up queue pair `cfg.queue_pair` of `dev` with `cfg`'s ring sizes.
    pub fn new(dev: Device<T>, mut cfg: SocketConfig) -> Result<Self, Error> {
        let depth = dev.info.queue_depth as usize;
        cfg.rx_bufs = cfg.rx_bufs.clamp(1, depth.max(1));
        if cfg.max_send == 0 || cfg.max_send > cfg.tx_staging {
            return Err(Error::Param("max_send must be in 1..=tx_staging".into()));
        }
        let qp = dev.queue_pair(cfg.queue_pair, cfg.sq_log2, cfg.cq_log2)?;
        let inner = Inner {
            qp,
            cfg,
            conns: HashMap::new(),
            tags: HashMap::new(),
            next_tag: 1,
            batch: Vec::new(),
            stats: EndpointStats::default(),
            idle_waits: 0,
            corked: false,
        };
        Ok(Endpoint { inner: Rc::new(RefCell::new(inner)) })
    }

    /// Connection `conn` connects to `peer` (SAN node in bits 63–16, port in 15–0).
    pub fn connect(&self, conn: u16, peer: u64) -> Result<crate::Connection<T>, Error> {
        self.open(conn, Opcode::Connect, peer)
    }

    /// Connection `conn` waits on `port` for a peer's connect.
    pub fn listen(&self, conn: u16, port: u16) -> Result<crate::Connection<T>, Error> {
        self.open(conn, Opcode::Listen, port as u64)
    }

    fn open(&self, conn: u16, op: Opcode, aux: u64) -> Result<crate::Connection<T>, Error> {
        let mut g = self.inner.borrow_mut();
        if conn as u32 >= g.qp.device().info.connections {
            return Err(Error::Param(format!("the device has no connection {conn}")));
        }
        if g.conns.get(&conn).is_some_and(|c| c.phase != Phase::Closed) {
            return Err(Error::Param(format!("connection {conn} is in use")));
        }
        if let Some(old) = g.conns.remove(&conn) {
            g.free_memory(old)?;
        }
        let cfg = g.cfg.clone();
        let t = g.qp.device().transport();
        let tx = t.dma_alloc(cfg.tx_staging, 4096)?;
        let mut rx = Vec::new();
        for _ in 0..cfg.rx_bufs {
            rx.push(t.dma_alloc(cfg.rx_buf_size, 4096)?);
        }
        let st = ConnState {
            phase: Phase::Opening,
            error: None,
            send_error: None,
            tx,
            tx_head: 0,
            staged: VecDeque::new(),
            rx_free: (0..rx.len()).collect(),
            rx,
            rx_posted: 0,
            rx_ready: VecDeque::new(),
            urgent: VecDeque::new(),
            eof: false,
            shut: false,
            closing: false,
        };
        g.conns.insert(conn, st);
        g.queue(conn, Opcode::Open, Op::Open, 0, 0, 0);
        g.queue(conn, op, Op::Handshake, 0, 0, aux);
        g.doorbell()?;
        drop(g);
        Ok(crate::Connection { ep: self.inner.clone(), id: conn, nonblocking: false })
    }

    /// Reaps completions, re-posts receive buffers, rings the doorbell for what that
    /// queued. Returns the completions reaped.
    pub fn progress(&self) -> Result<usize, Error> {
        self.inner.borrow_mut().progress()
    }

    /// Runs `f` with the doorbell held: the commands of every call inside it go to the
    /// device with one doorbell at its end (blocking calls inside still ring to make
    /// progress when they must wait).
    pub fn batch<R>(&self, f: impl FnOnce() -> R) -> Result<R, Error> {
        self.inner.borrow_mut().corked = true;
        let r = f();
        let mut g = self.inner.borrow_mut();
        g.corked = false;
        g.doorbell()?;
        Ok(r)
    }

    /// Lets the device run (a simulation's cycles pass; hardware spins).
    pub fn wait(&self) {
        self.inner.borrow_mut().qp.device().transport().wait();
    }

    pub fn stats(&self) -> EndpointStats {
        self.inner.borrow().stats
    }

    /// The device's clock cycles, where the transport can tell.
    pub fn now_cycles(&self) -> Option<u64> {
        self.inner.borrow_mut().qp.device().transport().now_cycles()
    }

    /// Runs `f` on the transport (e.g. to read a simulation's figures).
    pub fn with_transport<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        f(self.inner.borrow_mut().qp.device().transport())
    }

    /// The device's counter `index` of bank `bank`.
    pub fn counter(&self, bank: u32, index: u32) -> Result<u32, Error> {
        self.inner.borrow_mut().qp.device().counter(bank, index)
    }
}

impl<T: Transport> Inner<T> {
    /// A command for the next doorbell.
    pub(crate) fn queue_cmd(&mut self, conn: u16, op: Opcode, addr: u64, len: u32) -> u32 {
        let what = match op {
            Opcode::Shutdown => Op::Shutdown,
            Opcode::Close => Op::Close,
            Opcode::Abort => Op::Abort,
            _ => Op::Send,
        };
        self.queue(conn, op, what, addr, len, 0)
    }

    fn queue(&mut self, conn: u16, op: Opcode, what: Op, addr: u64, len: u32, aux: u64) -> u32 {
        let tag = self.next_tag;
        // Tags are the host's 29 bits (`host::TAG_HOST_MASK`); 0 is never used.
        self.next_tag = if self.next_tag >= TAG_HOST_MASK { 1 } else { self.next_tag + 1 };
        self.tags.insert(tag, (conn, what));
        self.batch.push(Command { opcode: op.code(), flags: 0, conn, tag, addr, len, aux });
        tag
    }

    /// Submits the batch with one doorbell (more when the ring cannot take it at once).
    pub(crate) fn doorbell(&mut self) -> Result<(), Error> {
        // Corked: the batch grows until `Endpoint::batch` ends, unless the ring could not
        // take it then.
        if self.corked && self.batch.len() < 1 << self.cfg.sq_log2 {
            return Ok(());
        }
        while !self.batch.is_empty() {
            let free = self.qp.free(self.batch.len() as u32)? as usize;
            if free == 0 {
                // The device has not fetched yet: take completions meanwhile.
                self.reap()?;
                self.wait_once()?;
                continue;
            }
            let n = free.min(self.batch.len());
            let cmds: Vec<Command> = self.batch.drain(..n).collect();
            self.qp.submit(&cmds)?;
            self.stats.commands += n as u64;
            self.stats.doorbells += 1;
        }
        Ok(())
    }

    /// One wait for the device (what is queued goes first); `TimedOut` past the wait limit.
    pub(crate) fn wait_once(&mut self) -> Result<(), Error> {
        if self.corked && !self.batch.is_empty() {
            self.corked = false;
            self.doorbell()?;
            self.corked = true;
        }
        self.idle_waits += 1;
        if self.idle_waits > self.cfg.wait_limit {
            self.idle_waits = 0;
            return Err(Error::TimedOut(self.cfg.wait_limit));
        }
        self.qp.device().transport().wait();
        Ok(())
    }

    fn reap(&mut self) -> Result<usize, Error> {
        let cpls = self.qp.poll(1 << self.cfg.cq_log2)?;
        if !cpls.is_empty() {
            self.idle_waits = 0;
            self.stats.reaps += 1;
            self.stats.completions += cpls.len() as u64;
        }
        for c in &cpls {
            self.complete(c)?;
        }
        Ok(cpls.len())
    }

    pub(crate) fn progress(&mut self) -> Result<usize, Error> {
        let n = self.reap()?;
        self.repost();
        self.doorbell()?;
        Ok(n)
    }

    /// Keeps each open connection's receive buffers posted.
    fn repost(&mut self) {
        let ids: Vec<u16> = self.conns.keys().copied().collect();
        for id in ids {
            let c = &self.conns[&id];
            if c.phase != Phase::Connected || c.error.is_some() || c.eof || c.closing {
                continue;
            }
            let mut post = Vec::new();
            let c = self.conns.get_mut(&id).expect("listed");
            while let Some(b) = c.rx_free.pop() {
                c.rx_posted += 1;
                post.push((b, c.rx[b]));
            }
            for (b, d) in post {
                self.queue(id, Opcode::PostRecv, Op::Recv { buf: b }, d.bus, d.len as u32, 0);
            }
        }
    }

    fn complete(&mut self, c: &Completion) -> Result<(), Error> {
        let Some((id, op)) = self.tags.remove(&c.tag) else {
            return Err(Error::Protocol(format!(
                "a completion for tag {} nobody submitted",
                c.tag
            )));
        };
        let err = c.error().map_err(|e| Error::Protocol(format!("completion {c:?}: {e}")))?;
        let Some(st) = self.conns.get_mut(&id) else { return Ok(()) };
        if let Some(
            e @ (WsaError::ConnReset | WsaError::OperationAborted | WsaError::ConnRefused),
        ) = err
        {
            st.error.get_or_insert(e);
        }
        match op {
            Op::Open => {
                if err.is_none() && st.phase == Phase::Opening {
                    st.phase = Phase::Handshaking;
                }
                if let Some(e) = err {
                    st.error.get_or_insert(e);
                }
            }
            Op::Handshake => match err {
                None => st.phase = Phase::Connected,
                Some(e) => {
                    st.error.get_or_insert(e);
                }
            },
            Op::Send => {
                if let Some(s) = st.staged.iter_mut().find(|s| s.tag == c.tag) {
                    s.done = true;
                }
                while st.staged.front().is_some_and(|s| s.done) {
                    st.staged.pop_front();
                }
                if st.staged.is_empty() {
                    st.tx_head = 0;
                }
                match err {
                    None => self.stats.bytes_sent += c.bytes as u64,
                    Some(e) => {
                        st.send_error.get_or_insert(e);
                    }
                }
            }
            Op::Recv { buf } => {
                st.rx_posted -= 1;
                let n = c.bytes as usize;
                if err.is_some() || n == 0 {
                    st.rx_free.push(buf);
                } else if c.urgent {
                    let mut b = vec![0; n];
                    self.qp.device().transport().dma_read(&st.rx[buf], 0, &mut b)?;
                    st.urgent.extend(b);
                    st.rx_free.push(buf);
                } else {
                    st.rx_ready.push_back((buf, n, 0));
                }
                if c.eof {
                    st.eof = true;
                }
                if err.is_none() {
                    self.stats.bytes_received += n as u64;
                }
            }
            Op::Shutdown => {}
            Op::Close | Op::Abort => st.phase = Phase::Closed,
        }
        Ok(())
    }

    /// Copies received bytes into `out`; 0 when none are ready.
    pub(crate) fn take_received(&mut self, id: u16, out: &mut [u8]) -> Result<usize, Error> {
        let st = self.conns.get_mut(&id).expect("an open connection");
        let mut got = 0;
        while got < out.len() {
            let Some((buf, n, done)) = st.rx_ready.front_mut() else { break };
            let k = (out.len() - got).min(*n - *done);
            let b = st.rx[*buf];
            let at = *done;
            *done += k;
            let empty = *done == *n;
            let buf = *buf;
            self.qp.device().transport().dma_read(&b, at, &mut out[got..got + k])?;
            got += k;
            if empty {
                st.rx_ready.pop_front();
                st.rx_free.push(buf);
            }
        }
        Ok(got)
    }

    /// Copies `data` (some of it) into the staging ring and queues its send; the bytes
    /// taken, 0 when there is no room now.
    pub(crate) fn stage_send(
        &mut self,
        id: u16,
        data: &[u8],
        urgent: bool,
    ) -> Result<usize, Error> {
        let depth = self.qp.device().info.queue_depth as usize;
        let max = self.cfg.max_send;
        let st = self.conns.get_mut(&id).expect("an open connection");
        if st.sends_out() >= depth {
            return Ok(0);
        }
        let want = data.len().min(max);
        let (at, room) = st.tx_room(want);
        let n = want.min(room);
        if n == 0 {
            return Ok(0);
        }
        let tx = st.tx;
        self.qp.device().transport().dma_write(&tx, at, &data[..n])?;
        let op = if urgent { Opcode::SendUrgent } else { Opcode::Send };
        let tag = self.queue(id, op, Op::Send, tx.bus + at as u64, n as u32, 0);
        let st = self.conns.get_mut(&id).expect("an open connection");
        st.staged.push_back(Staged { start: at, len: n, tag, done: false });
        st.tx_head = at + n;
        Ok(n)
    }

    /// Gives a closed connection's DMA memory back.
    pub(crate) fn free_memory(&mut self, st: ConnState) -> Result<(), Error> {
        let t = self.qp.device().transport();
        t.dma_free(&st.tx)?;
        for b in &st.rx {
            t.dma_free(b)?;
        }
        Ok(())
    }

    /// Bytes staged and not yet completed on `id`.
    pub(crate) fn staged_bytes(&self, id: u16) -> usize {
        self.conns.get(&id).map_or(0, |c| c.staged.iter().map(|s| s.len).sum())
    }
}
