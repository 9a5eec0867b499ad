//! Block parameters: one struct per block, used to build both the model and the HDL.

use serde::{Deserialize, Serialize};

use crate::wire;

/// Width of every connection-id port. The parser holds no per-connection state, so the
/// connection count only bounds the ids; stateful blocks size their RAMs from `connections`.
pub const CONN_BITS: u32 = 8;
/// Width of every receive-buffer id (the `buf` field of `tuser` side bands, the pool's
/// buffer operands): buffers of one connection are numbered `0..2^BUF_BITS`.
pub const BUF_BITS: u32 = 8;
/// Width of every block's counter-bank read index (`cnt_rd_index`): up to 32 counters.
pub const CNT_INDEX_BITS: u32 = 5;
/// Width of the parser's beat counter: enough for `MAX_BUF_SIZE / 8 + 1` beats.
pub const BEAT_BITS: u32 = 14;

/// Parameters of the control-message parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ParserParams {
    /// Connections whose messages share the receive stream (ids `0..connections`).
    pub connections: u16,
    /// Receive-buffer size in bytes: a longer message is `TooLong`.
    pub buf_size: u32,
}

impl Default for ParserParams {
    fn default() -> Self {
        ParserParams { connections: 16, buf_size: 4096 }
    }
}

impl ParserParams {
    pub fn validate(&self) -> Result<(), String> {
        if self.connections == 0 || self.connections as u32 > 1 << CONN_BITS {
            return Err(format!("connections must be in 1..={}", 1 << CONN_BITS));
        }
        if !(wire::MIN_BUF_SIZE..=wire::MAX_BUF_SIZE).contains(&self.buf_size)
            || self.buf_size % 8 != 0
        {
            return Err(format!(
                "buf_size must be a multiple of 8 in {}..={}",
                wire::MIN_BUF_SIZE,
                wire::MAX_BUF_SIZE
            ));
        }
        Ok(())
    }

    /// The beat counter saturates here: one beat past the longest legal message.
    pub fn max_beats(&self) -> u32 {
        self.buf_size / 8 + 1
    }
}

/// Parameters of the pool manager.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PoolParams {
    /// Connections with a pool (ids `0..connections`); the state RAM has the next power of two
    /// of words.
    pub connections: u16,
    /// Send buffers per connection (2..=16).
    pub send_bufs: u8,
    /// Receive buffers per connection (`MIN_POSTED`..=16): what Hello advertises.
    pub recv_bufs: u8,
}

impl Default for PoolParams {
    fn default() -> Self {
        PoolParams { connections: 16, send_bufs: 8, recv_bufs: 8 }
    }
}

/// Most buffers of either part of a pool: the width of the buffer bitmaps.
pub const POOL_MAX_BUFS: u8 = 16;

impl PoolParams {
    pub fn validate(&self) -> Result<(), String> {
        if self.connections == 0 || self.connections as u32 > 1 << CONN_BITS {
            return Err(format!("connections must be in 1..={}", 1 << CONN_BITS));
        }
        if !(2..=POOL_MAX_BUFS).contains(&self.send_bufs) {
            return Err(format!("send_bufs must be in 2..={POOL_MAX_BUFS}"));
        }
        if !(wire::MIN_POSTED as u8..=POOL_MAX_BUFS).contains(&self.recv_bufs) {
            return Err(format!("recv_bufs must be in {}..={POOL_MAX_BUFS}", wire::MIN_POSTED));
        }
        Ok(())
    }

    /// Address bits of the state RAM (at least 1).
    pub fn addr_bits(&self) -> u32 {
        (self.connections as u32).next_power_of_two().trailing_zeros().max(1)
    }
}

/// Parameters of the RDMA read/write sequencer (`hdl/src/sequencer/`) and of the SAN port
/// model it is measured against (`model/src/blocks/san.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SequencerParams {
    /// Connections whose registrations and transfers share the block (ids `0..connections`).
    pub connections: u16,
    /// Registration-table entries (a power of two, 2..=32): more registrations are WSAENOBUFS.
    pub reg_entries: u16,
    /// Op-table entries: transfers in progress at once (1..=16).
    pub ops: u16,
    /// Largest single RDMA read or write in bytes (a multiple of 8, 8..=2^24).
    pub segment: u32,
    /// RDMA requests one transfer keeps outstanding (a power of two, 1..=16).
    pub window: u16,
    /// The SAN port model's latency: cycles from a request's last beat to its response.
    /// Not a property of the sequencer (its HDL ignores it).
    pub san_latency: u32,
}

impl Default for SequencerParams {
    fn default() -> Self {
        SequencerParams {
            connections: 16,
            reg_entries: 16,
            ops: 4,
            segment: 4096,
            window: 4,
            san_latency: 16,
        }
    }
}

/// Most registration-table entries: the table's RAMs have 32 words.
pub const SEQ_MAX_REGS: u16 = 32;
/// Most op-table entries: the slot field of an RDMA tag has 4 bits.
pub const SEQ_MAX_OPS: u16 = 16;
/// Most requests outstanding per transfer: the width of an op's in-flight mask.
pub const SEQ_MAX_WINDOW: u16 = 16;

impl SequencerParams {
    pub fn validate(&self) -> Result<(), String> {
        if self.connections == 0 || self.connections as u32 > 1 << CONN_BITS {
            return Err(format!("connections must be in 1..={}", 1 << CONN_BITS));
        }
        if !self.reg_entries.is_power_of_two() || !(2..=SEQ_MAX_REGS).contains(&self.reg_entries) {
            return Err(format!("reg_entries must be a power of two in 2..={SEQ_MAX_REGS}"));
        }
        if !(1..=SEQ_MAX_OPS).contains(&self.ops) {
            return Err(format!("ops must be in 1..={SEQ_MAX_OPS}"));
        }
        if self.segment % 8 != 0 || !(8..=1 << 24).contains(&self.segment) {
            return Err("segment must be a multiple of 8 in 8..=16777216".into());
        }
        if !self.window.is_power_of_two() || self.window > SEQ_MAX_WINDOW {
            return Err(format!("window must be a power of two in 1..={SEQ_MAX_WINDOW}"));
        }
        if !(1..=1 << 16).contains(&self.san_latency) {
            return Err("san_latency must be in 1..=65536".into());
        }
        Ok(())
    }

    /// Bits of a key that index the registration table.
    pub fn idx_bits(&self) -> u32 {
        self.reg_entries.trailing_zeros()
    }
}

/// Parameters of the engine (`hdl/src/engine/`): the three blocks joined, with the command
/// interface, the per-connection queues and the on-chip receive buffers.
///
/// The receive buffers of every connection are on chip (`connections * recv_bufs *
/// buf_size` bytes of block RAM): a message lands in one, and its payload stays there until
/// the application's posted buffer takes it, so the defaults are sized for an XC7A50T
/// (16 x 4 x 1 KiB = 64 KiB, 16 of its 75 BRAM36).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineParams {
    /// Connections (ids `0..connections`).
    pub connections: u16,
    /// Send buffers per connection: control messages in flight on the SAN at once.
    pub send_bufs: u8,
    /// Receive buffers per connection, advertised in Hello.
    pub recv_bufs: u8,
    /// Size of every control buffer (both directions): the largest message accepted.
    pub buf_size: u32,
    /// Sends, and separately receives, a connection holds queued (a power of two, 1..=16):
    /// a command past it completes with WSAENOBUFS (no temporary memory for it).
    pub queue_depth: u8,
    /// This engine's provider can RDMA-read (announced in Hello).
    pub rdma_read: bool,
    /// Sends of more bytes than this (not urgent) take a zero-copy path, by RDMA read when
    /// the peer can read, else by RDMA write (SO_RDMA_THRESHOLD_SIZE; default
    /// [`DEFAULT_RDMA_THRESHOLD`]). [`NO_ZERO_COPY`]: an engine without the zero-copy paths
    /// (every byte travels inside control messages, a zero-copy message from the peer is a
    /// protocol violation, and synthesis prunes the sequencer's command side).
    pub rdma_threshold: u32,
    /// The sequencer's registration-table entries (a power of two, 2..=32): regions
    /// registered at once, over every connection. A send whose source cannot be registered
    /// completes with WSAENOBUFS; a receiver that cannot register a landing region answers
    /// SendByCopy.
    pub reg_entries: u16,
    /// The sequencer's op-table entries: RDMA transfers running at once (1..=16).
    pub rdma_ops: u16,
    /// Largest single RDMA request in bytes (a multiple of 8, 8..=2^24).
    pub rdma_segment: u32,
    /// RDMA requests one transfer keeps outstanding (a power of two, 1..=16).
    pub rdma_window: u16,
}

/// `EngineParams::rdma_threshold` of an engine without the zero-copy paths.
pub const NO_ZERO_COPY: u32 = u32::MAX;

/// The default `rdma_threshold`, the engine's and the sans-IO endpoint's.
pub const DEFAULT_RDMA_THRESHOLD: u32 = 16 * 1024;

impl Default for EngineParams {
    fn default() -> Self {
        EngineParams {
            connections: 16,
            send_bufs: 4,
            recv_bufs: 4,
            buf_size: 1024,
            queue_depth: 4,
            rdma_read: true,
            rdma_threshold: DEFAULT_RDMA_THRESHOLD,
            reg_entries: 32,
            rdma_ops: 4,
            rdma_segment: 4096,
            rdma_window: 4,
        }
    }
}

/// Most commands of one kind a connection holds queued: the width of the queue pointers.
pub const ENGINE_MAX_QUEUE: u8 = 16;

impl EngineParams {
    /// The NICs of the XEM7010 board (`docs/BOARD.md`): fewer connections, registrations
    /// and transfers than the defaults, to fit two on the XC7A50T; the rest as the defaults.
    pub fn board() -> Self {
        EngineParams { connections: 4, reg_entries: 8, rdma_ops: 2, ..EngineParams::default() }
    }

    pub fn validate(&self) -> Result<(), String> {
        self.parser().validate()?;
        self.pool().validate()?;
        if !self.buf_size.is_power_of_two() {
            return Err("buf_size must be a power of two (a receive buffer is an aligned block of the receive-buffer RAM)".into());
        }
        if !self.queue_depth.is_power_of_two() || self.queue_depth > ENGINE_MAX_QUEUE {
            return Err(format!("queue_depth must be a power of two in 1..={ENGINE_MAX_QUEUE}"));
        }
        if self.rdma_threshold < self.buf_size {
            return Err("rdma_threshold must be at least buf_size".into());
        }
        self.sequencer().validate()
    }

    /// The same engine on a provider that cannot RDMA-read (sends into it go by RDMA write).
    pub fn without_rdma_read(self) -> Self {
        EngineParams { rdma_read: false, ..self }
    }

    /// Whether sends above `rdma_threshold` go zero-copy (and the peer's may).
    pub fn zero_copy(&self) -> bool {
        self.rdma_threshold != NO_ZERO_COPY
    }

    pub fn sequencer(&self) -> SequencerParams {
        SequencerParams {
            connections: self.connections,
            reg_entries: self.reg_entries,
            ops: self.rdma_ops,
            segment: self.rdma_segment,
            window: self.rdma_window,
            ..SequencerParams::default()
        }
    }

    pub fn parser(&self) -> ParserParams {
        ParserParams { connections: self.connections, buf_size: self.buf_size }
    }

    pub fn pool(&self) -> PoolParams {
        PoolParams {
            connections: self.connections,
            send_bufs: self.send_bufs,
            recv_bufs: self.recv_bufs,
        }
    }

    /// 64-bit words of one receive buffer.
    pub fn buf_words(&self) -> usize {
        self.buf_size as usize / 8
    }

    /// Receive buffers per connection in the receive-buffer RAM's layout: the next power of
    /// two, so a word's address is `{conn, buf, word}`.
    pub fn recv_slots(&self) -> usize {
        (self.recv_bufs as usize).next_power_of_two()
    }

    /// 64-bit words of the receive-buffer memory.
    pub fn rx_words(&self) -> usize {
        self.connections as usize * self.recv_slots() * self.buf_words()
    }
}
