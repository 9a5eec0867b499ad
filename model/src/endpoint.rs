//! A sans-IO state machine of one switch for one connected socket.
//!
//! The endpoint takes [`Event`]s (application requests, received messages, send, registration
//! and RDMA completions, SAN failures) and answers with [`Action`]s (send a message, post a
//! receive buffer, register or deregister memory, issue an RDMA read or write, complete an
//! application request). It owns no memory but its bookkeeping, starts no threads and does no
//! I/O, so the same logic runs in unit tests, in the fabric simulator, and as the oracle that
//! the hardware blocks are checked against. `docs/PROTOCOL.md` states the rules it follows.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::seq;
use crate::status::WsaError;
use crate::wire::{
    self, Descriptor, Frame, Header, HelloParams, Kind, MIN_POSTED, Message, ParseError,
};

/// Identifies an application request (send or receive).
pub type ReqId = u64;
/// Identifies a memory registration made by this endpoint.
pub type RegId = u64;
/// Identifies an RDMA operation issued by this endpoint.
pub type OpId = u64;
/// Index of a control buffer in the connection's pool: send buffers are `0..send_bufs`,
/// receive buffers `send_bufs..send_bufs + recv_bufs`.
pub type BufId = u16;

/// Most control buffers one connection can have, send and receive together: a [`BufId`]
/// numbers them all from 0, so `send_bufs + recv_bufs` may not exceed its 65,536 values (one
/// more would wrap an id onto another buffer).
pub const MAX_BUFS: u32 = BufId::MAX as u32 + 1;

/// Credits a Data or LargeSend message leaves behind: it is sent only with more than this.
pub const DATA_RESERVE: u32 = 2;
/// Credits a control message (SinkAvail, ReadComplete, WriteComplete, SendByCopy, Disconnect)
/// leaves behind.
pub const CONTROL_RESERVE: u32 = 1;

/// Per-connection parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Control buffers used to send.
    pub send_bufs: u16,
    /// Control buffers posted to receive (advertised in Hello; at least `MIN_POSTED`).
    pub recv_bufs: u16,
    /// Size of every control buffer: the largest message this endpoint accepts.
    pub buf_size: u32,
    /// This side's provider supports RDMA read (so peers send to it in read mode).
    pub rdma_read: bool,
    /// Sends of more bytes than this take the zero-copy path (SO_RDMA_THRESHOLD_SIZE).
    pub rdma_threshold: u32,
    /// Largest single RDMA read or write (SO_MAX_RDMA_SIZE).
    pub rdma_segment: u32,
    /// RDMA operations kept outstanding at once per transfer.
    pub rdma_window: u16,
    /// This endpoint's first sequence number.
    pub initial_seq: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            send_bufs: 8,
            recv_bufs: 8,
            buf_size: 4096,
            rdma_read: true,
            rdma_threshold: crate::params::DEFAULT_RDMA_THRESHOLD,
            rdma_segment: 64 * 1024,
            rdma_window: 4,
            initial_seq: 1,
        }
    }
}

impl Config {
    /// The sans-IO endpoint an engine built with `p` stands for: the same control buffers
    /// (count and size) and the same zero-copy threshold, the rest the defaults. The
    /// differential tests run the endpoint pair with it as the engines' reference.
    pub fn for_engine(p: &crate::params::EngineParams) -> Config {
        Config {
            send_bufs: p.send_bufs as u16,
            recv_bufs: p.recv_bufs as u16,
            buf_size: p.buf_size,
            rdma_threshold: p.rdma_threshold,
            ..Config::default()
        }
    }

    /// Check the parameters; the endpoint is only built from a valid configuration.
    pub fn validate(&self) -> Result<(), String> {
        if self.recv_bufs < MIN_POSTED {
            return Err(format!("recv_bufs must be at least {MIN_POSTED}"));
        }
        if self.send_bufs < 2 {
            return Err("send_bufs must be at least 2".into());
        }
        let bufs = self.send_bufs as u32 + self.recv_bufs as u32;
        if bufs > MAX_BUFS {
            return Err(format!(
                "send_bufs + recv_bufs must be at most {MAX_BUFS}: one 16-bit buffer id numbers \
                 them together, got {} + {} = {bufs}",
                self.send_bufs, self.recv_bufs
            ));
        }
        if !(wire::MIN_BUF_SIZE..=wire::MAX_BUF_SIZE).contains(&self.buf_size) {
            return Err(format!(
                "buf_size must be in {}..={}",
                wire::MIN_BUF_SIZE,
                wire::MAX_BUF_SIZE
            ));
        }
        if self.rdma_threshold < self.buf_size {
            return Err("rdma_threshold must be at least buf_size".into());
        }
        if self.rdma_segment == 0 || self.rdma_window == 0 {
            return Err("rdma_segment and rdma_window must be positive".into());
        }
        Ok(())
    }
}

/// Which side opened the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    Initiator,
    Acceptor,
}

/// Access a registration grants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Access {
    /// Local use only (the source of an RDMA write, the target of an RDMA read).
    Local,
    /// The peer may RDMA-read it.
    RemoteRead,
    /// The peer may RDMA-write it.
    RemoteWrite,
}

/// Why a registration failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RegError {
    /// The registration table is full.
    TableFull,
    /// Temporary memory could not be allocated.
    NoMemory,
}

/// Why an RDMA operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RdmaError {
    /// Remote key unknown, of another connection, or already deregistered.
    BadKey,
    /// The registration does not grant this access.
    AccessDenied,
    /// Offset plus length beyond the region.
    OutOfBounds,
    /// The SAN reported an error completion.
    Transport,
    /// The connection is gone.
    Flushed,
}

/// Data handed to the application by a receive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Received {
    pub data: Vec<u8>,
    /// The bytes are urgent (out-of-band) data. A receive never mixes urgent and normal bytes.
    pub urgent: bool,
}

/// Something that happened to the endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The application sends `data` (`urgent`: MSG_OOB).
    AppSend { req: ReqId, data: Vec<u8>, urgent: bool },
    /// The application wants up to `max` bytes.
    AppRecv { req: ReqId, max: usize },
    /// `shutdown(SD_SEND)`: send what is queued, then a Disconnect.
    AppShutdown,
    /// `closesocket` with the default linger: graceful unless data is left unread.
    AppClose,
    /// `closesocket` with a zero linger: abortive.
    AppAbort,
    /// A message arrived in posted receive buffer `buf`.
    MessageReceived { buf: BufId, bytes: Vec<u8> },
    /// The SAN finished sending from send buffer `buf`; it is free again.
    SendDone { buf: BufId },
    /// Answer to [`Action::Register`].
    Registered { reg: RegId, result: Result<Descriptor, RegError> },
    /// Answer to [`Action::Deregister`]: the region's final contents.
    Deregistered { reg: RegId, data: Vec<u8> },
    /// An RDMA operation finished.
    RdmaDone { op: OpId, result: Result<(), RdmaError> },
    /// A message from the peer found no posted buffer (the peer overran its credits).
    CreditOverrun,
    /// The SAN connection failed or the peer tore it down.
    LinkDown,
}

/// Something the endpoint asks its environment to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Post receive buffer `buf` (WSPRecv).
    PostRecv { buf: BufId },
    /// Send a message from send buffer `buf` (WSPSend); `frame` is what `bytes` encode.
    Send { buf: BufId, bytes: Vec<u8>, frame: Frame },
    /// Register a region holding `data` (WSPRegisterMemory / WSPRegisterRdmaMemory).
    Register { reg: RegId, access: Access, data: Vec<u8> },
    /// Deregister; the environment answers with [`Event::Deregistered`].
    Deregister { reg: RegId },
    /// RDMA-read `len` bytes at `remote + remote_off` into `local + local_off`.
    RdmaRead {
        op: OpId,
        local: Descriptor,
        local_off: u32,
        remote: Descriptor,
        remote_off: u32,
        len: u32,
    },
    /// RDMA-write `len` bytes from `local + local_off` to `remote + remote_off`.
    RdmaWrite {
        op: OpId,
        local: Descriptor,
        local_off: u32,
        remote: Descriptor,
        remote_off: u32,
        len: u32,
    },
    /// Complete a send request.
    CompleteSend { req: ReqId, result: Result<usize, WsaError> },
    /// Complete a receive request (an empty `data` is end of stream).
    CompleteRecv { req: ReqId, result: Result<Received, WsaError> },
    /// The session is negotiated: complete the application's connect or accept.
    Connected,
    /// Close the SAN connection.
    Teardown,
}

/// Where the endpoint is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum State {
    /// Built, not started.
    Idle,
    /// Initiator: Hello sent, waiting for HelloAck.
    HelloSent,
    /// Acceptor: buffers posted, waiting for Hello.
    AwaitHello,
    Established,
    /// Both Disconnects exchanged and every request completed.
    Closed,
    /// Aborted, locally or by the peer.
    Aborted,
}

/// How a send moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Path {
    Copy,
    Read,
    Write,
}

/// Protocol violations by the peer, each counted; see `docs/PROTOCOL.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Violation {
    /// The bytes do not decode ([`ParseError`]).
    Malformed(ParseError),
    /// `mseq` is not the next expected one.
    SequenceGap,
    /// `mseq_ack` acknowledges a message never sent, or goes backwards.
    BadAck,
    /// `bufs` above the count the peer negotiated.
    BadCredit,
    /// A message arrived with no posted buffer.
    CreditOverrun,
    /// A message not allowed in the current state (Data during a transfer, a second
    /// LargeSend, anything before Hello, data after the peer's Disconnect...).
    Unexpected,
    /// A transfer message whose descriptor or byte count does not fit the transfer.
    BadTransfer,
}

/// Counters. Everything that happened and every error, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    pub msgs_sent: BTreeMap<String, u64>,
    pub msgs_received: BTreeMap<String, u64>,
    /// Application bytes sent inline (Data and LargeSend payloads).
    pub bytes_inline: u64,
    /// Application bytes moved by RDMA read or write.
    pub bytes_rdma: u64,
    /// Sends by the path they started on.
    pub sends_copy: u64,
    pub sends_read: u64,
    pub sends_write: u64,
    /// Large sends whose rest went by copy after all (SendByCopy, or a failed write).
    pub sends_fallback: u64,
    /// Times a message waited for credits.
    pub credit_stalls: u64,
    /// Times a message waited for a free send buffer.
    pub send_buf_stalls: u64,
    /// Malformed messages, by `ParseError::index`.
    pub parse_errors: [u64; ParseError::COUNT],
    pub sequence_gaps: u64,
    pub bad_acks: u64,
    pub bad_credits: u64,
    pub credit_overruns: u64,
    pub unexpected: u64,
    pub bad_transfers: u64,
    /// Transfer messages for a transfer that is not (or no longer) open; ignored.
    pub stale_xfer: u64,
    /// Hello after the session was negotiated; ignored.
    pub duplicate_hello: u64,
    /// RDMA or registration completions for an operation not outstanding; dropped.
    pub stale_completions: u64,
    /// Registrations refused.
    pub reg_failures: u64,
    /// Of those, registrations of a send's source buffer: each completes that send with
    /// WSAENOBUFS (a failed landing-region registration falls back to copying instead).
    pub send_reg_failures: u64,
    /// RDMA operations that failed.
    pub rdma_errors: u64,
    /// Completions by status name ("ok", "WSAENOBUFS", ...).
    pub completions: BTreeMap<String, u64>,
}

impl Stats {
    /// Total protocol violations by the peer.
    pub fn violations(&self) -> u64 {
        self.parse_errors.iter().sum::<u64>()
            + self.sequence_gaps
            + self.bad_acks
            + self.bad_credits
            + self.credit_overruns
            + self.unexpected
            + self.bad_transfers
    }
}

fn kind_name(k: Kind) -> String {
    format!("{k:?}")
}

/// The head-of-line send's progress.
#[derive(Clone, Debug, PartialEq, Eq)]
enum TxPhase {
    /// Copy path: `sent` bytes already in messages.
    Copy,
    /// Large send: waiting for the registration of the rest.
    Registering,
    /// Registered; the LargeSend message is due.
    Announce,
    /// Read mode: LargeSend sent, waiting for ReadComplete or SendByCopy.
    AwaitRead,
    /// Write mode: LargeSend sent, waiting for SinkAvail or SendByCopy.
    AwaitSink,
    /// Write mode: writing into the peer's sink.
    Writing { sink: Descriptor, next: u32, inflight: u16, failed: bool },
    /// Write mode: the WriteComplete message is due, with `bytes` (all, or 0 on failure).
    WriteCompleteDue { bytes: u32 },
}

#[derive(Clone, Debug)]
struct TxSend {
    req: ReqId,
    data: Vec<u8>,
    urgent: bool,
    /// Bytes delivered into messages or RDMA so far.
    sent: usize,
    /// Chosen when the send reaches the head of the queue.
    path: Option<Path>,
    phase: TxPhase,
    /// The registration of the rest (large sends).
    reg: Option<(RegId, Option<Descriptor>)>,
    /// The LargeSend's mseq.
    xfer: u32,
}

impl TxSend {
    fn rest(&self) -> u32 {
        (self.data.len() - self.sent) as u32
    }
}

/// An incoming large send's progress.
#[derive(Clone, Debug, PartialEq, Eq)]
enum RxPhase {
    /// Waiting for the registration of the landing region or sink.
    Registering,
    /// Write mode: SinkAvail due.
    SinkDue { desc: Descriptor },
    /// Write mode: SinkAvail sent, waiting for WriteComplete.
    AwaitWrite,
    /// Read mode: reading the peer's source.
    Reading { src: Descriptor, next: u32, inflight: u16, failed: bool },
    /// Read mode: ReadComplete due.
    ReadCompleteDue,
    /// SendByCopy due.
    SendByCopyDue,
    /// The region is deregistering; its contents join the stream when it is released.
    Draining,
    /// The rest arrives as Data: `remaining` bytes still to come.
    CopyExpected { remaining: u32 },
}

#[derive(Clone, Debug)]
struct RxXfer {
    xfer: u32,
    rest: u32,
    read_mode: bool,
    src: Option<Descriptor>,
    phase: RxPhase,
    reg: Option<(RegId, Option<Descriptor>)>,
}

/// What a registration is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RegUse {
    /// The head send's source (keep for completion).
    TxSource,
    /// The incoming transfer's landing region or sink.
    RxTarget,
    /// Deregistering: deliver contents to the stream when released.
    DrainToStream,
    /// Deregistering: discard contents.
    Discard,
}

#[derive(Clone, Copy, Debug)]
struct OpInfo {
    tx: bool,
    len: u32,
}

/// One switch endpoint for one connected socket.
#[derive(Clone, Debug)]
pub struct Endpoint {
    cfg: Config,
    role: Role,
    state: State,
    peer: Option<HelloParams>,
    peer_posted_max: u16,
    // --- pool ---
    /// Free send buffers; the lowest is handed out first, as the pool manager does.
    send_free: std::collections::BTreeSet<BufId>,
    recv_posted: Vec<bool>,
    posted: u16,
    // --- credits and sequence ---
    tx_next: u32,
    peer_bufs: u16,
    peer_ack: u32,
    rx_last: u32,
    rx_since_adv: u32,
    stalled_on_credit: bool,
    stalled_on_buf: bool,
    // --- send side ---
    tx_queue: VecDeque<TxSend>,
    shutdown_requested: bool,
    fin_sent: bool,
    // --- receive side ---
    rx_xfer: Option<RxXfer>,
    /// Data, LargeSend and Disconnect that arrived while the finished transfer's region was
    /// still deregistering: they follow its bytes in the stream (with the LargeSend's mseq).
    held: VecDeque<(u32, Message)>,
    stream: VecDeque<(Vec<u8>, bool)>,
    stream_off: usize,
    recv_queue: VecDeque<(ReqId, usize)>,
    fin_rcvd: bool,
    closing: bool,
    abort_error: WsaError,
    // --- registrations and RDMA ---
    regs: BTreeMap<RegId, RegUse>,
    /// Registrations asked for and not yet answered.
    registering: std::collections::BTreeSet<RegId>,
    ops: BTreeMap<OpId, OpInfo>,
    next_reg: RegId,
    next_op: OpId,
    stats: Stats,
}

impl Endpoint {
    /// Build an endpoint. Panics on an invalid configuration (a programming error, never
    /// something from the wire); call [`Config::validate`] first on user input.
    pub fn new(role: Role, cfg: Config) -> Self {
        cfg.validate().expect("valid endpoint configuration");
        let s = cfg.send_bufs;
        Endpoint {
            role,
            state: State::Idle,
            peer: None,
            peer_posted_max: 0,
            send_free: (0..s).collect(),
            recv_posted: vec![false; cfg.recv_bufs as usize],
            posted: 0,
            tx_next: cfg.initial_seq,
            peer_bufs: 0,
            peer_ack: cfg.initial_seq.wrapping_sub(1),
            rx_last: 0,
            rx_since_adv: 0,
            stalled_on_credit: false,
            stalled_on_buf: false,
            tx_queue: VecDeque::new(),
            shutdown_requested: false,
            fin_sent: false,
            rx_xfer: None,
            held: VecDeque::new(),
            stream: VecDeque::new(),
            stream_off: 0,
            recv_queue: VecDeque::new(),
            fin_rcvd: false,
            closing: false,
            abort_error: WsaError::ConnReset,
            regs: BTreeMap::new(),
            registering: Default::default(),
            ops: BTreeMap::new(),
            next_reg: 1,
            next_op: 1,
            stats: Stats::default(),
            cfg,
        }
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }
    pub fn role(&self) -> Role {
        self.role
    }
    pub fn state(&self) -> State {
        self.state
    }
    pub fn stats(&self) -> &Stats {
        &self.stats
    }
    /// The peer's negotiated parameters, once known.
    pub fn peer(&self) -> Option<&HelloParams> {
        self.peer.as_ref()
    }
    /// Send credits: messages the peer has buffers posted for.
    pub fn credits(&self) -> u32 {
        let inflight = self.tx_next.wrapping_sub(1).wrapping_sub(self.peer_ack);
        (self.peer_bufs as u32).saturating_sub(inflight)
    }
    /// Receive buffers currently posted.
    pub fn posted(&self) -> u16 {
        self.posted
    }
    /// Free send buffers.
    pub fn free_send_bufs(&self) -> usize {
        self.send_free.len()
    }
    /// Registrations this endpoint holds (or is releasing).
    pub fn live_registrations(&self) -> usize {
        self.regs.len()
    }
    /// RDMA operations outstanding.
    pub fn outstanding_ops(&self) -> usize {
        self.ops.len()
    }
    /// A credit-only update is due: enough messages were consumed since the last
    /// advertisement that the peer's view of its credits is low.
    pub fn credit_update_due(&self) -> bool {
        self.rx_since_adv >= u32::max(1, self.cfg.recv_bufs as u32 / 2)
    }
    /// Nothing is pending in either direction.
    pub fn is_idle(&self) -> bool {
        self.tx_queue.is_empty() && self.rx_xfer.is_none() && self.ops.is_empty()
    }

    /// Start: post the receive part of the pool; the initiator also sends Hello.
    pub fn start(&mut self, out: &mut Vec<Action>) {
        if self.state != State::Idle {
            return;
        }
        for i in 0..self.cfg.recv_bufs {
            self.post(self.cfg.send_bufs + i, out);
        }
        match self.role {
            Role::Initiator => {
                let p = self.hello_params();
                self.send_frame(Message::Hello(p), out);
                self.state = State::HelloSent;
            }
            Role::Acceptor => self.state = State::AwaitHello,
        }
    }

    fn hello_params(&self) -> HelloParams {
        HelloParams { rdma_read: self.cfg.rdma_read, buf_size: self.cfg.buf_size }
    }

    /// Handle one event; the actions it causes are appended to `out`.
    pub fn handle(&mut self, ev: Event, out: &mut Vec<Action>) {
        match ev {
            Event::AppSend { req, data, urgent } => self.app_send(req, data, urgent, out),
            Event::AppRecv { req, max } => {
                // After a graceful close of both directions, buffered bytes stay readable
                // and then the stream ends; only an abort or the application's close loses them.
                let readable = self.state == State::Closed && !self.closing;
                if let (Some(err), false) = (self.dead_error(), readable) {
                    self.complete_recv(req, Err(err), out);
                } else if self.closing {
                    self.complete_recv(req, Err(WsaError::NotConn), out);
                } else {
                    self.recv_queue.push_back((req, max.max(1)));
                    self.deliver(out);
                }
            }
            Event::AppShutdown => {
                if self.dead_error().is_none() {
                    self.shutdown_requested = true;
                }
            }
            Event::AppClose => self.app_close(out),
            Event::AppAbort => self.abort(WsaError::OperationAborted, true, out),
            Event::MessageReceived { buf, bytes } => self.on_message(buf, bytes, out),
            Event::SendDone { buf } => {
                if buf < self.cfg.send_bufs && !self.send_free.contains(&buf) {
                    self.send_free.insert(buf);
                }
            }
            Event::Registered { reg, result } => self.on_registered(reg, result, out),
            Event::Deregistered { reg, data } => self.on_deregistered(reg, data, out),
            Event::RdmaDone { op, result } => self.on_rdma_done(op, result, out),
            Event::CreditOverrun => {
                self.stats.credit_overruns += 1;
                self.violation(Violation::CreditOverrun, out);
            }
            Event::LinkDown => {
                if !matches!(self.state, State::Closed | State::Aborted) {
                    self.abort(WsaError::ConnReset, false, out);
                }
            }
        }
        self.pump(out);
    }

    fn dead_error(&self) -> Option<WsaError> {
        match self.state {
            State::Aborted => Some(self.abort_error),
            State::Closed => Some(WsaError::NotConn),
            _ => None,
        }
    }

    fn app_send(&mut self, req: ReqId, data: Vec<u8>, urgent: bool, out: &mut Vec<Action>) {
        if let Some(err) = self.dead_error() {
            return self.complete_send(req, Err(err), out);
        }
        if self.shutdown_requested || self.closing {
            return self.complete_send(req, Err(WsaError::Shutdown), out);
        }
        if data.is_empty() {
            // A zero-length stream send moves nothing and must not use an advertisement.
            return self.complete_send(req, Ok(0), out);
        }
        self.tx_queue.push_back(TxSend {
            req,
            data,
            urgent,
            sent: 0,
            path: None,
            phase: TxPhase::Copy,
            reg: None,
            xfer: 0,
        });
    }

    fn app_close(&mut self, out: &mut Vec<Action>) {
        if self.dead_error().is_some() || self.closing {
            return;
        }
        let unread = !self.stream.is_empty() || self.rx_xfer.is_some();
        if unread || self.state != State::Established {
            // Closing with data unread (or before the session exists) is abortive, as in TCP.
            return self.abort(WsaError::OperationAborted, true, out);
        }
        self.closing = true;
        self.shutdown_requested = true;
        while let Some((req, _)) = self.recv_queue.pop_front() {
            self.complete_recv(req, Err(WsaError::OperationAborted), out);
        }
    }

    // ------------------------------------------------------------------ pool

    fn post(&mut self, buf: BufId, out: &mut Vec<Action>) {
        let i = (buf - self.cfg.send_bufs) as usize;
        if !self.recv_posted[i] {
            self.recv_posted[i] = true;
            self.posted += 1;
            out.push(Action::PostRecv { buf });
        }
    }

    /// Send one message now (the caller checked credits and buffers).
    fn send_frame(&mut self, msg: Message, out: &mut Vec<Action>) {
        let buf = self.send_free.pop_first().expect("caller checked for a free send buffer");
        let header = Header { bufs: self.posted, mseq: self.tx_next, mseq_ack: self.rx_last };
        let frame = Frame { header, msg };
        *self.stats.msgs_sent.entry(kind_name(frame.msg.kind())).or_default() += 1;
        self.stats.bytes_inline += frame.msg.payload().len() as u64;
        self.tx_next = self.tx_next.wrapping_add(1);
        self.rx_since_adv = 0;
        out.push(Action::Send { buf, bytes: frame.encode(), frame });
    }

    /// Whether a message needing more than `reserve` credits can go now; counts stalls.
    fn can_send(&mut self, reserve: u32) -> bool {
        if self.send_free.is_empty() {
            if !self.stalled_on_buf {
                self.stalled_on_buf = true;
                self.stats.send_buf_stalls += 1;
            }
            return false;
        }
        self.stalled_on_buf = false;
        if self.credits() <= reserve {
            if !self.stalled_on_credit {
                self.stalled_on_credit = true;
                self.stats.credit_stalls += 1;
            }
            return false;
        }
        self.stalled_on_credit = false;
        true
    }

    // ------------------------------------------------------------------ sending

    /// Send whatever can go: transfer control first, then data, then a credit update.
    fn pump(&mut self, out: &mut Vec<Action>) {
        if self.state != State::Established {
            return;
        }
        loop {
            let progressed = self.pump_rx_control(out) || self.pump_tx(out);
            if !progressed {
                break;
            }
        }
        if self.shutdown_requested
            && !self.fin_sent
            && self.tx_queue.is_empty()
            && self.can_send(CONTROL_RESERVE)
        {
            self.send_frame(Message::Disconnect, out);
            self.fin_sent = true;
        }
        if self.credit_update_due() && self.can_send(0) {
            self.send_frame(Message::CreditUpdate, out);
        }
        self.maybe_closed(out);
    }

    fn maybe_closed(&mut self, out: &mut Vec<Action>) {
        if self.fin_sent && self.fin_rcvd && self.is_idle() && self.regs.is_empty() {
            self.state = State::Closed;
            while let Some((req, _)) = self.recv_queue.pop_front() {
                self.complete_recv(req, Ok(Received { data: vec![], urgent: false }), out);
            }
            out.push(Action::Teardown);
        }
    }

    /// Control messages owed for the incoming transfer. Returns whether one was sent.
    fn pump_rx_control(&mut self, out: &mut Vec<Action>) -> bool {
        let Some(rx) = &self.rx_xfer else { return false };
        let (xfer, rest) = (rx.xfer, rx.rest);
        match rx.phase.clone() {
            RxPhase::SinkDue { desc } => {
                if !self.can_send(CONTROL_RESERVE) {
                    return false;
                }
                self.send_frame(Message::SinkAvail { xfer, desc }, out);
                self.rx_xfer.as_mut().expect("checked").phase = RxPhase::AwaitWrite;
                true
            }
            RxPhase::ReadCompleteDue => {
                if !self.can_send(CONTROL_RESERVE) {
                    return false;
                }
                self.send_frame(Message::ReadComplete { xfer, bytes: rest }, out);
                self.release_rx_target(true, out);
                true
            }
            RxPhase::SendByCopyDue => {
                if !self.can_send(CONTROL_RESERVE) {
                    return false;
                }
                self.send_frame(Message::SendByCopy { xfer }, out);
                self.release_rx_target(false, out);
                let rx = self.rx_xfer.as_mut().expect("checked");
                rx.phase = RxPhase::CopyExpected { remaining: rx.rest };
                true
            }
            _ => false,
        }
    }

    /// Deregister the incoming transfer's region; its contents join the stream if `keep`.
    fn release_rx_target(&mut self, keep: bool, out: &mut Vec<Action>) {
        let rx = self.rx_xfer.as_mut().expect("an incoming transfer");
        if let Some((reg, _)) = rx.reg.take() {
            self.regs.insert(reg, if keep { RegUse::DrainToStream } else { RegUse::Discard });
            out.push(Action::Deregister { reg });
        }
        if keep {
            rx.phase = RxPhase::Draining;
        }
    }

    /// Advance the head-of-line send. Returns whether anything was sent or changed.
    fn pump_tx(&mut self, out: &mut Vec<Action>) -> bool {
        let Some(tx) = self.tx_queue.front() else { return false };
        let peer = self.peer.expect("established");
        let xfer = tx.xfer;
        match tx.phase.clone() {
            TxPhase::Copy => {
                if tx.path.is_none() && self.choose_path(peer, out) {
                    return true;
                }
                if !self.can_send(DATA_RESERVE) {
                    return false;
                }
                let tx = self.tx_queue.front_mut().expect("checked");
                let room = wire::max_payload(Kind::Data, false, peer.buf_size);
                let end = usize::min(tx.sent + room, tx.data.len());
                let msg =
                    Message::Data { urgent: tx.urgent, payload: tx.data[tx.sent..end].to_vec() };
                tx.sent = end;
                let done = end == tx.data.len();
                self.send_frame(msg, out);
                if done {
                    self.finish_send(out);
                }
                true
            }
            TxPhase::Announce => {
                if !self.can_send(DATA_RESERVE) {
                    return false;
                }
                let xfer = self.tx_next;
                let tx = self.tx_queue.front_mut().expect("checked");
                let read_mode = tx.path == Some(Path::Read);
                let inline = inline_len(read_mode, peer.buf_size, tx.data.len());
                let desc = if read_mode { tx.reg.and_then(|(_, d)| d) } else { None };
                let msg = Message::LargeSend {
                    total: tx.data.len() as u32,
                    desc,
                    payload: tx.data[..inline].to_vec(),
                };
                tx.sent = inline;
                tx.xfer = xfer;
                tx.phase = if read_mode { TxPhase::AwaitRead } else { TxPhase::AwaitSink };
                self.send_frame(msg, out);
                true
            }
            TxPhase::Writing { .. } => self.issue_writes(out),
            TxPhase::WriteCompleteDue { bytes } => {
                if !self.can_send(CONTROL_RESERVE) {
                    return false;
                }
                self.send_frame(Message::WriteComplete { xfer, bytes }, out);
                self.release_tx_source(out);
                let tx = self.tx_queue.front_mut().expect("checked");
                if bytes == tx.rest() {
                    self.stats.bytes_rdma += bytes as u64;
                    tx.sent = tx.data.len();
                    self.finish_send(out);
                } else {
                    self.stats.sends_fallback += 1;
                    tx.phase = TxPhase::Copy;
                }
                true
            }
            TxPhase::Registering | TxPhase::AwaitRead | TxPhase::AwaitSink => false,
        }
    }

    /// Choose the path of the head send; for a large one, register the rest. Returns
    /// whether a registration was started.
    fn choose_path(&mut self, peer: HelloParams, out: &mut Vec<Action>) -> bool {
        let threshold = self.cfg.rdma_threshold as usize;
        let tx = self.tx_queue.front_mut().expect("head send");
        let large = !tx.urgent && tx.data.len() > threshold && tx.data.len() <= u32::MAX as usize;
        if !large {
            tx.path = Some(Path::Copy);
            self.stats.sends_copy += 1;
            return false;
        }
        let read_mode = peer.rdma_read;
        let inline = inline_len(read_mode, peer.buf_size, tx.data.len());
        let (path, access) = if read_mode {
            self.stats.sends_read += 1;
            (Path::Read, Access::RemoteRead)
        } else {
            self.stats.sends_write += 1;
            (Path::Write, Access::Local)
        };
        tx.path = Some(path);
        tx.phase = TxPhase::Registering;
        let data = tx.data[inline..].to_vec();
        let reg = self.new_reg(RegUse::TxSource);
        self.tx_queue.front_mut().expect("head send").reg = Some((reg, None));
        out.push(Action::Register { reg, access, data });
        true
    }

    fn new_reg(&mut self, usage: RegUse) -> RegId {
        let reg = self.next_reg;
        self.next_reg += 1;
        self.regs.insert(reg, usage);
        self.registering.insert(reg);
        reg
    }

    fn issue_writes(&mut self, out: &mut Vec<Action>) -> bool {
        let seg = self.cfg.rdma_segment;
        let window = self.cfg.rdma_window;
        let tx = self.tx_queue.front_mut().expect("head send");
        let rest = tx.rest();
        let local = tx.reg.and_then(|(_, d)| d).expect("registered source");
        let TxPhase::Writing { sink, next, inflight, failed } = &mut tx.phase else {
            return false;
        };
        let mut progressed = false;
        while !*failed && *next < rest && *inflight < window {
            let len = u32::min(seg, rest - *next);
            let op = self.next_op;
            self.next_op += 1;
            self.ops.insert(op, OpInfo { tx: true, len });
            out.push(Action::RdmaWrite {
                op,
                local,
                local_off: *next,
                remote: *sink,
                remote_off: *next,
                len,
            });
            *next += len;
            *inflight += 1;
            progressed = true;
        }
        if *inflight == 0 && (*failed || *next == rest) {
            let bytes = if *failed { 0 } else { rest };
            tx.phase = TxPhase::WriteCompleteDue { bytes };
            progressed = true;
        }
        progressed
    }

    fn release_tx_source(&mut self, out: &mut Vec<Action>) {
        let tx = self.tx_queue.front_mut().expect("head send");
        if let Some((reg, _)) = tx.reg.take() {
            self.regs.insert(reg, RegUse::Discard);
            out.push(Action::Deregister { reg });
        }
    }

    fn finish_send(&mut self, out: &mut Vec<Action>) {
        let tx = self.tx_queue.pop_front().expect("head send");
        self.complete_send(tx.req, Ok(tx.data.len()), out);
    }

    // ------------------------------------------------------------------ receiving

    fn on_message(&mut self, buf: BufId, bytes: Vec<u8>, out: &mut Vec<Action>) {
        let idx = buf.checked_sub(self.cfg.send_bufs).map(usize::from);
        match idx {
            Some(i) if i < self.recv_posted.len() && self.recv_posted[i] => {
                self.recv_posted[i] = false;
                self.posted -= 1;
            }
            _ => {
                // The environment delivered into a buffer that was not posted: an overrun.
                self.stats.credit_overruns += 1;
                return self.violation(Violation::CreditOverrun, out);
            }
        }
        if matches!(self.state, State::Aborted | State::Closed) {
            return; // the connection is gone; the buffer stays unposted
        }
        let frame = match Frame::decode(&bytes, self.cfg.buf_size as usize) {
            Ok(f) => f,
            Err(e) => {
                self.stats.parse_errors[e.index()] += 1;
                self.post(buf, out);
                return self.violation(Violation::Malformed(e), out);
            }
        };
        *self.stats.msgs_received.entry(kind_name(frame.msg.kind())).or_default() += 1;
        // Consumed at once: the buffer goes back before the message's effects.
        self.post(buf, out);
        self.on_frame(frame, out);
    }

    fn on_frame(&mut self, f: Frame, out: &mut Vec<Action>) {
        let h = f.header;
        match (self.state, &f.msg) {
            (State::AwaitHello, Message::Hello(p)) => {
                self.peer = Some(*p);
                self.peer_posted_max = h.bufs;
                self.peer_bufs = h.bufs;
                self.rx_last = h.mseq;
                let me = self.hello_params();
                self.state = State::Established;
                self.send_frame(Message::HelloAck(me), out);
                out.push(Action::Connected);
                return;
            }
            (State::HelloSent, Message::HelloAck(p)) => {
                if h.mseq_ack != self.tx_next.wrapping_sub(1) {
                    self.stats.bad_acks += 1;
                    return self.violation(Violation::BadAck, out);
                }
                self.peer = Some(*p);
                self.peer_posted_max = h.bufs;
                self.peer_bufs = h.bufs;
                self.peer_ack = h.mseq_ack;
                self.rx_last = h.mseq;
                // The HelloAck holds one of our buffers until we acknowledge it, like any
                // message: count it, or a peer with few credits may wait for an update forever.
                self.rx_since_adv = 1;
                self.state = State::Established;
                out.push(Action::Connected);
                return;
            }
            (State::Established, Message::Hello(_) | Message::HelloAck(_)) => {
                self.stats.duplicate_hello += 1;
                return;
            }
            (State::Established, _) => {}
            _ => {
                self.stats.unexpected += 1;
                return self.violation(Violation::Unexpected, out);
            }
        }
        // Established: sequence, acknowledgement and credit checks first.
        if h.mseq != self.rx_last.wrapping_add(1) {
            self.stats.sequence_gaps += 1;
            return self.violation(Violation::SequenceGap, out);
        }
        if !seq::in_window(h.mseq_ack, self.peer_ack, self.tx_next.wrapping_sub(1)) {
            self.stats.bad_acks += 1;
            return self.violation(Violation::BadAck, out);
        }
        if h.bufs > self.peer_posted_max {
            self.stats.bad_credits += 1;
            return self.violation(Violation::BadCredit, out);
        }
        self.rx_last = h.mseq;
        self.rx_since_adv += 1;
        self.peer_ack = h.mseq_ack;
        self.peer_bufs = h.bufs;
        match f.msg {
            Message::Hello(_) | Message::HelloAck(_) => unreachable!("handled above"),
            Message::CreditUpdate => {}
            Message::Abort => self.abort(WsaError::ConnReset, false, out),
            m @ (Message::Disconnect | Message::Data { .. } | Message::LargeSend { .. }) => {
                self.on_stream_msg(h.mseq, m, out)
            }
            Message::SinkAvail { xfer, desc } => self.on_sink_avail(xfer, desc, out),
            Message::ReadComplete { xfer, bytes } => self.on_read_complete(xfer, bytes, out),
            Message::SendByCopy { xfer } => self.on_send_by_copy(xfer, out),
            Message::WriteComplete { xfer, bytes } => self.on_write_complete(xfer, bytes, out),
        }
    }

    /// A message that continues the stream. While the last transfer's region is still
    /// deregistering, its bytes are not in the stream yet: hold the message until they are.
    fn on_stream_msg(&mut self, mseq: u32, msg: Message, out: &mut Vec<Action>) {
        if self.rx_xfer.as_ref().is_some_and(|rx| rx.phase == RxPhase::Draining) {
            self.held.push_back((mseq, msg));
            return;
        }
        match msg {
            Message::Disconnect => {
                if self.fin_rcvd || self.rx_xfer.is_some() {
                    self.stats.unexpected += 1;
                    return self.violation(Violation::Unexpected, out);
                }
                self.fin_rcvd = true;
                self.deliver(out);
            }
            Message::Data { urgent, payload } => self.on_data(urgent, payload, out),
            Message::LargeSend { total, desc, payload } => {
                self.on_large_send(mseq, total, desc, payload, out)
            }
            _ => unreachable!("not a stream message"),
        }
    }

    fn data_refused(&mut self, out: &mut Vec<Action>) -> bool {
        if self.fin_rcvd {
            self.stats.unexpected += 1;
            self.violation(Violation::Unexpected, out);
            return true;
        }
        if self.closing {
            // Data for a socket the application closed: answer as TCP does, with a reset.
            self.abort(WsaError::OperationAborted, true, out);
            return true;
        }
        false
    }

    fn on_data(&mut self, urgent: bool, payload: Vec<u8>, out: &mut Vec<Action>) {
        if self.data_refused(out) {
            return;
        }
        if let Some(rx) = &mut self.rx_xfer {
            match &mut rx.phase {
                RxPhase::CopyExpected { remaining }
                    if !urgent && payload.len() <= *remaining as usize =>
                {
                    *remaining -= payload.len() as u32;
                    if *remaining == 0 {
                        self.rx_xfer = None;
                    }
                }
                _ => {
                    self.stats.unexpected += 1;
                    return self.violation(Violation::Unexpected, out);
                }
            }
        }
        self.stream.push_back((payload, urgent));
        self.deliver(out);
    }

    fn on_large_send(
        &mut self,
        xfer: u32,
        total: u32,
        desc: Option<Descriptor>,
        payload: Vec<u8>,
        out: &mut Vec<Action>,
    ) {
        if self.data_refused(out) {
            return;
        }
        if self.rx_xfer.is_some() || desc.is_some() != self.cfg.rdma_read {
            // A second transfer at once, or a mode the negotiation did not allow.
            self.stats.unexpected += 1;
            return self.violation(Violation::Unexpected, out);
        }
        let rest = total - payload.len() as u32; // the decoder checked total > payload
        self.stream.push_back((payload, false));
        let reg = self.new_reg(RegUse::RxTarget);
        let access = if desc.is_some() { Access::Local } else { Access::RemoteWrite };
        self.rx_xfer = Some(RxXfer {
            xfer,
            rest,
            read_mode: desc.is_some(),
            src: desc,
            phase: RxPhase::Registering,
            reg: Some((reg, None)),
        });
        out.push(Action::Register { reg, access, data: vec![0; rest as usize] });
        self.deliver(out);
    }

    fn on_sink_avail(&mut self, xfer: u32, desc: Descriptor, out: &mut Vec<Action>) {
        let Some(tx) = self.tx_queue.front_mut() else {
            self.stats.stale_xfer += 1;
            return;
        };
        if tx.phase != TxPhase::AwaitSink || tx.xfer != xfer {
            self.stats.stale_xfer += 1;
            return;
        }
        if desc.len != tx.rest() {
            self.stats.bad_transfers += 1;
            return self.violation(Violation::BadTransfer, out);
        }
        tx.phase = TxPhase::Writing { sink: desc, next: 0, inflight: 0, failed: false };
    }

    fn on_read_complete(&mut self, xfer: u32, bytes: u32, out: &mut Vec<Action>) {
        let Some(tx) = self.tx_queue.front_mut() else {
            self.stats.stale_xfer += 1;
            return;
        };
        if tx.phase != TxPhase::AwaitRead || tx.xfer != xfer {
            self.stats.stale_xfer += 1;
            return;
        }
        if bytes != tx.rest() {
            self.stats.bad_transfers += 1;
            return self.violation(Violation::BadTransfer, out);
        }
        self.stats.bytes_rdma += bytes as u64;
        self.release_tx_source(out);
        self.finish_send(out);
    }

    fn on_send_by_copy(&mut self, xfer: u32, out: &mut Vec<Action>) {
        let Some(tx) = self.tx_queue.front_mut() else {
            self.stats.stale_xfer += 1;
            return;
        };
        if !matches!(tx.phase, TxPhase::AwaitRead | TxPhase::AwaitSink) || tx.xfer != xfer {
            self.stats.stale_xfer += 1;
            return;
        }
        tx.phase = TxPhase::Copy;
        self.stats.sends_fallback += 1;
        self.release_tx_source(out);
    }

    fn on_write_complete(&mut self, xfer: u32, bytes: u32, out: &mut Vec<Action>) {
        let Some(rx) = &self.rx_xfer else {
            self.stats.stale_xfer += 1;
            return;
        };
        if rx.xfer != xfer || rx.read_mode || rx.phase != RxPhase::AwaitWrite {
            self.stats.stale_xfer += 1;
            return;
        }
        if bytes == rx.rest {
            self.stats.bytes_rdma += bytes as u64;
            self.release_rx_target(true, out);
        } else if bytes == 0 {
            self.release_rx_target(false, out);
            let rx = self.rx_xfer.as_mut().expect("checked");
            rx.phase = RxPhase::CopyExpected { remaining: rx.rest };
        } else {
            self.stats.bad_transfers += 1;
            self.violation(Violation::BadTransfer, out);
        }
    }

    // ------------------------------------------------------------------ completions

    fn on_registered(
        &mut self,
        reg: RegId,
        result: Result<Descriptor, RegError>,
        out: &mut Vec<Action>,
    ) {
        if !self.registering.remove(&reg) {
            self.stats.stale_completions += 1;
            return;
        }
        if result.is_err() {
            self.stats.reg_failures += 1;
        }
        match self.regs.get(&reg) {
            Some(RegUse::TxSource) => {
                let tx = self.tx_queue.front_mut().expect("a source belongs to the head send");
                match result {
                    Ok(d) => {
                        tx.reg = Some((reg, Some(d)));
                        tx.phase = TxPhase::Announce;
                    }
                    Err(_) => {
                        self.stats.send_reg_failures += 1;
                        self.regs.remove(&reg);
                        let tx = self.tx_queue.pop_front().expect("checked");
                        self.complete_send(tx.req, Err(WsaError::NoBufs), out);
                    }
                }
            }
            Some(RegUse::RxTarget) => {
                let rx = self.rx_xfer.as_mut().expect("a target belongs to the incoming transfer");
                match result {
                    Ok(d) => {
                        rx.reg = Some((reg, Some(d)));
                        rx.phase = match rx.src {
                            Some(src) => {
                                RxPhase::Reading { src, next: 0, inflight: 0, failed: false }
                            }
                            None => RxPhase::SinkDue { desc: d },
                        };
                        self.issue_reads(out);
                    }
                    Err(_) => {
                        self.regs.remove(&reg);
                        rx.reg = None;
                        rx.phase = RxPhase::SendByCopyDue;
                    }
                }
            }
            _ => {
                // Answer for a registration given up while pending (after an abort).
                if result.is_ok() {
                    out.push(Action::Deregister { reg });
                } else {
                    self.regs.remove(&reg);
                }
            }
        }
    }

    fn issue_reads(&mut self, out: &mut Vec<Action>) {
        let seg = self.cfg.rdma_segment;
        let window = self.cfg.rdma_window;
        let Some(rx) = &mut self.rx_xfer else { return };
        let rest = rx.rest;
        let Some((_, Some(local))) = rx.reg else { return };
        let RxPhase::Reading { src, next, inflight, failed } = &mut rx.phase else { return };
        while !*failed && *next < rest && *inflight < window {
            let len = u32::min(seg, rest - *next);
            let op = self.next_op;
            self.next_op += 1;
            self.ops.insert(op, OpInfo { tx: false, len });
            out.push(Action::RdmaRead {
                op,
                local,
                local_off: *next,
                remote: *src,
                remote_off: *next,
                len,
            });
            *next += len;
            *inflight += 1;
        }
        if *inflight == 0 && (*failed || *next == rest) {
            rx.phase = if *failed { RxPhase::SendByCopyDue } else { RxPhase::ReadCompleteDue };
            if rx.phase == RxPhase::ReadCompleteDue {
                self.stats.bytes_rdma += rest as u64;
            }
        }
    }

    fn on_rdma_done(&mut self, op: OpId, result: Result<(), RdmaError>, out: &mut Vec<Action>) {
        let Some(info) = self.ops.remove(&op) else {
            self.stats.stale_completions += 1;
            return;
        };
        let _ = info.len;
        if result.is_err() {
            self.stats.rdma_errors += 1;
        }
        if info.tx {
            if let Some(tx) = self.tx_queue.front_mut()
                && let TxPhase::Writing { inflight, failed, .. } = &mut tx.phase
            {
                *inflight -= 1;
                *failed |= result.is_err();
                self.issue_writes(out);
            }
        } else if let Some(rx) = &mut self.rx_xfer
            && let RxPhase::Reading { inflight, failed, .. } = &mut rx.phase
        {
            *inflight -= 1;
            *failed |= result.is_err();
            self.issue_reads(out);
        }
    }

    fn on_deregistered(&mut self, reg: RegId, data: Vec<u8>, out: &mut Vec<Action>) {
        match self.regs.remove(&reg) {
            Some(RegUse::DrainToStream) => {
                if let Some(rx) = &self.rx_xfer
                    && rx.phase == RxPhase::Draining
                {
                    self.rx_xfer = None;
                    self.stream.push_back((data, false));
                    self.deliver(out);
                    // An abort on the way empties `held`.
                    while let Some((mseq, msg)) = self.held.pop_front() {
                        self.on_stream_msg(mseq, msg, out);
                    }
                }
            }
            Some(_) => {}
            None => self.stats.stale_completions += 1,
        }
    }

    /// Hand buffered bytes to waiting receives; end of stream after the peer's Disconnect.
    fn deliver(&mut self, out: &mut Vec<Action>) {
        while let Some(&(req, max)) = self.recv_queue.front() {
            // The inline part of a LargeSend may be empty: skip empty chunks.
            while self.stream.front().is_some_and(|(d, _)| d.len() == self.stream_off) {
                self.stream.pop_front();
                self.stream_off = 0;
            }
            let Some(&(_, urgent)) = self.stream.front() else {
                if self.fin_rcvd && self.rx_xfer.is_none() {
                    self.recv_queue.pop_front();
                    self.complete_recv(req, Ok(Received { data: vec![], urgent: false }), out);
                    continue;
                }
                return;
            };
            let mut data = Vec::new();
            while let Some((chunk, u)) = self.stream.front() {
                if data.len() == max || *u != urgent {
                    break;
                }
                let take = usize::min(max - data.len(), chunk.len() - self.stream_off);
                data.extend_from_slice(&chunk[self.stream_off..self.stream_off + take]);
                self.stream_off += take;
                if self.stream_off == chunk.len() {
                    self.stream.pop_front();
                    self.stream_off = 0;
                }
            }
            self.recv_queue.pop_front();
            self.complete_recv(req, Ok(Received { data, urgent }), out);
        }
    }

    fn complete_send(
        &mut self,
        req: ReqId,
        result: Result<usize, WsaError>,
        out: &mut Vec<Action>,
    ) {
        self.count_completion(result.as_ref().err());
        out.push(Action::CompleteSend { req, result });
    }

    fn complete_recv(
        &mut self,
        req: ReqId,
        result: Result<Received, WsaError>,
        out: &mut Vec<Action>,
    ) {
        self.count_completion(result.as_ref().err());
        out.push(Action::CompleteRecv { req, result });
    }

    fn count_completion(&mut self, err: Option<&WsaError>) {
        let name = err.map_or("ok", |e| e.name());
        *self.stats.completions.entry(name.into()).or_default() += 1;
    }

    // ------------------------------------------------------------------ aborts

    /// A protocol violation by the peer: count (done by the caller) and reset the connection.
    fn violation(&mut self, _v: Violation, out: &mut Vec<Action>) {
        self.abort(WsaError::ConnReset, true, out);
    }

    /// Abort: tell the peer (when `notify` and a credit allows), complete every request with
    /// `err`, release every registration, tear the SAN connection down.
    fn abort(&mut self, err: WsaError, notify: bool, out: &mut Vec<Action>) {
        if matches!(self.state, State::Aborted | State::Closed) {
            return;
        }
        if notify
            && self.state == State::Established
            && !self.send_free.is_empty()
            && self.credits() > 0
        {
            self.send_frame(Message::Abort, out);
        }
        self.state = State::Aborted;
        self.abort_error = if err == WsaError::OperationAborted { WsaError::NotConn } else { err };
        while let Some(tx) = self.tx_queue.pop_front() {
            self.complete_send(tx.req, Err(err), out);
        }
        while let Some((req, _)) = self.recv_queue.pop_front() {
            self.complete_recv(req, Err(err), out);
        }
        self.rx_xfer = None;
        self.held.clear();
        self.stream.clear();
        self.stream_off = 0;
        // Operations still in flight complete later and are dropped as stale.
        self.ops.clear();
        let live: Vec<RegId> = self
            .regs
            .iter()
            .filter(|(_, u)| matches!(u, RegUse::TxSource | RegUse::RxTarget))
            .map(|(r, _)| *r)
            .collect();
        for reg in live {
            self.regs.insert(reg, RegUse::Discard);
            // A registration not yet answered is released when its answer comes.
            if !self.registering.contains(&reg) {
                out.push(Action::Deregister { reg });
            }
        }
        out.push(Action::Teardown);
    }
}

/// Inline bytes of a LargeSend of `total` bytes: as many as the peer's buffer holds.
pub fn inline_len(read_mode: bool, peer_buf_size: u32, total: usize) -> usize {
    usize::min(wire::max_payload(Kind::LargeSend, read_mode, peer_buf_size), total - 1)
}
