//! The session protocol's wire format: the one definition of every byte.
//!
//! Every message is a 16-byte base header (two 64-bit beats), zero or more 8-byte extension
//! beats fixed by the message kind, and, for the kinds that carry data, a payload of any length
//! up to the negotiated buffer size. No field straddles a beat, and every multi-byte field is
//! **little-endian** (byte 0 of a beat travels in bits `[7:0]` of the 64-bit bus word), so a beat
//! loaded with `u64::from_le_bytes` holds every field as a plain bit slice; see `docs/PROTOCOL.md`.
//!
//! The hardware (`hdl`) uses these constants; the model, the driver and the tests use the types.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Bytes in one bus beat.
pub const BEAT_BYTES: usize = 8;
/// Bytes in the base header (beats 0 and 1).
pub const HEADER_BYTES: usize = 16;
/// Bytes in an extension beat.
pub const EXT_BYTES: usize = 8;
/// Bytes in an RDMA descriptor (two beats: address, then key and length).
pub const DESC_BYTES: usize = 16;
/// Protocol version carried in Hello and HelloAck.
pub const VERSION: u8 = 1;
/// Smallest receive-buffer size a peer may negotiate: room for the largest control message
/// (header, extension and descriptor: 40 bytes) rounded up to a power of two.
pub const MIN_BUF_SIZE: u32 = 64;
/// Largest receive-buffer size a peer may negotiate (the `len` field would allow more; the
/// hardware's per-buffer byte counters are 16 bits wide).
pub const MAX_BUF_SIZE: u32 = 65_536;
/// Fewest receive buffers a peer may post (see the credit rules: two are kept back, and a
/// credit-only update must always be possible).
pub const MIN_POSTED: u16 = 4;

/// Message ids (byte 0 of the header). Values follow SDP's where SDP has the same message.
pub mod mid {
    /// Session negotiation, connecting side.
    pub const HELLO: u8 = 0x00;
    /// Session negotiation, accepting side.
    pub const HELLO_ACK: u8 = 0x01;
    /// Graceful disconnect: no more data in this direction (SDP DisConn).
    pub const DISCONNECT: u8 = 0x02;
    /// Abortive close (SDP AbortConn).
    pub const ABORT: u8 = 0x03;
    /// Receiver to sender: the rest of a large send will not move zero-copy; send it as Data
    /// (SDP SendSM).
    pub const SEND_BY_COPY: u8 = 0x04;
    /// Sender to receiver, write mode: the sink is written (or, with 0 bytes, abandoned and the
    /// rest follows as Data) (SDP RdmaWrCompl).
    pub const WRITE_COMPLETE: u8 = 0x05;
    /// Receiver to sender, read mode: the source is read; deregister it (SDP RdmaRdCompl).
    pub const READ_COMPLETE: u8 = 0x06;
    /// Credit-only update: header only (SDP uses an empty Data message).
    pub const CREDIT_UPDATE: u8 = 0x07;
    /// Write mode: the receiver's registered sink for a large send (SDP SinkAvail).
    pub const SINK_AVAIL: u8 = 0xFD;
    /// First message of a large send (SDP SrcAvail; with a descriptor in read mode).
    pub const LARGE_SEND: u8 = 0xFE;
    /// Data on the copy path.
    pub const DATA: u8 = 0xFF;
}

/// Header flag bits (byte 1 of the header).
pub mod flag {
    /// Data only: the whole payload is urgent (out-of-band) data.
    pub const URGENT: u8 = 0x01;
    /// An RDMA descriptor follows the extension beat. Required on SinkAvail and on a
    /// read-mode LargeSend; forbidden on everything else.
    pub const DESC: u8 = 0x02;
    /// Bits that must be zero.
    pub const RESERVED: u8 = !(URGENT | DESC);
}

/// Hello capability bits.
pub mod cap {
    /// The sender's provider supports RDMA read (large sends to it use read mode).
    pub const RDMA_READ: u8 = 0x01;
    /// Bits that must be zero.
    pub const RESERVED: u8 = !RDMA_READ;
}

/// Byte offsets of the header fields (little-endian).
pub mod off {
    pub const MID: usize = 0;
    pub const FLAGS: usize = 1;
    pub const BUFS: usize = 2;
    pub const LEN: usize = 4;
    pub const MSEQ: usize = 8;
    pub const MSEQ_ACK: usize = 12;
    /// First extension beat.
    pub const EXT: usize = 16;
    /// Descriptor, when present (after the one extension beat).
    pub const DESC: usize = 24;
}

/// The base header carried by every message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Header {
    /// Receive buffers the sender had posted when it sent this message.
    pub bufs: u16,
    /// This message's sequence number.
    pub mseq: u32,
    /// Sequence number of the last message the sender received.
    pub mseq_ack: u32,
}

/// A remote memory descriptor: what an RDMA read or write addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Descriptor {
    /// Base address of the region in the owner's I/O address space.
    pub addr: u64,
    /// Remote key, valid only on the connection that registered it.
    pub key: u32,
    /// Length of the region in bytes.
    pub len: u32,
}

/// Negotiation parameters carried by Hello and HelloAck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HelloParams {
    /// The sender's provider supports RDMA read.
    pub rdma_read: bool,
    /// Size of each posted receive buffer: the largest message the sender accepts.
    pub buf_size: u32,
}

/// One message, typed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Message {
    Hello(HelloParams),
    HelloAck(HelloParams),
    Disconnect,
    Abort,
    CreditUpdate,
    /// `xfer` is the mseq of the LargeSend the receiver will not take zero-copy.
    SendByCopy {
        xfer: u32,
    },
    /// `xfer` is the mseq of the LargeSend whose sink was written; `bytes` written by RDMA
    /// (the whole rest, or 0 when the writes failed and the rest follows as Data).
    WriteComplete {
        xfer: u32,
        bytes: u32,
    },
    /// `xfer` is the mseq of the LargeSend whose source was read; `bytes` read by RDMA.
    ReadComplete {
        xfer: u32,
        bytes: u32,
    },
    /// Write mode: where the sender may write the rest of LargeSend `xfer`.
    SinkAvail {
        xfer: u32,
        desc: Descriptor,
    },
    /// First message of a large send: `total` application bytes, of which `payload` is the
    /// first part; `desc` (read mode) covers the rest.
    LargeSend {
        total: u32,
        desc: Option<Descriptor>,
        payload: Vec<u8>,
    },
    Data {
        urgent: bool,
        payload: Vec<u8>,
    },
}

/// A message with its header: what one control buffer carries.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Frame {
    pub header: Header,
    pub msg: Message,
}

/// The kind of a message, without its contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Kind {
    Hello,
    HelloAck,
    Disconnect,
    Abort,
    SendByCopy,
    WriteComplete,
    ReadComplete,
    CreditUpdate,
    SinkAvail,
    LargeSend,
    Data,
}

/// What each kind looks like on the wire: the facts the parser hardware checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub kind: Kind,
    pub mid: u8,
    /// Extension beats after the header (0 or 1).
    pub ext_beats: usize,
    /// Whether a descriptor may follow (then `flag::DESC` says whether it does).
    pub desc: DescRule,
    /// Whether a payload may follow the fixed part.
    pub payload: PayloadRule,
    /// Flags allowed besides DESC.
    pub urgent_allowed: bool,
}

/// Where a descriptor belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescRule {
    Forbidden,
    Optional,
    Required,
}

/// Whether a payload belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayloadRule {
    None,
    /// Zero or more bytes.
    Optional,
    /// At least one byte.
    Required,
}

/// The layout table, in mid order.
pub const LAYOUTS: [Layout; 11] = [
    Layout::fixed(Kind::Hello, mid::HELLO, 1),
    Layout::fixed(Kind::HelloAck, mid::HELLO_ACK, 1),
    Layout::fixed(Kind::Disconnect, mid::DISCONNECT, 0),
    Layout::fixed(Kind::Abort, mid::ABORT, 0),
    Layout::fixed(Kind::SendByCopy, mid::SEND_BY_COPY, 1),
    Layout::fixed(Kind::WriteComplete, mid::WRITE_COMPLETE, 1),
    Layout::fixed(Kind::ReadComplete, mid::READ_COMPLETE, 1),
    Layout::fixed(Kind::CreditUpdate, mid::CREDIT_UPDATE, 0),
    Layout {
        kind: Kind::SinkAvail,
        mid: mid::SINK_AVAIL,
        ext_beats: 1,
        desc: DescRule::Required,
        payload: PayloadRule::None,
        urgent_allowed: false,
    },
    Layout {
        kind: Kind::LargeSend,
        mid: mid::LARGE_SEND,
        ext_beats: 1,
        desc: DescRule::Optional,
        payload: PayloadRule::Optional,
        urgent_allowed: false,
    },
    Layout {
        kind: Kind::Data,
        mid: mid::DATA,
        ext_beats: 0,
        desc: DescRule::Forbidden,
        payload: PayloadRule::Required,
        urgent_allowed: true,
    },
];

impl Layout {
    const fn fixed(kind: Kind, mid: u8, ext_beats: usize) -> Self {
        Layout {
            kind,
            mid,
            ext_beats,
            desc: DescRule::Forbidden,
            payload: PayloadRule::None,
            urgent_allowed: false,
        }
    }

    /// The layout of a message id, if it is a known one.
    pub fn of_mid(mid: u8) -> Option<&'static Layout> {
        LAYOUTS.iter().find(|l| l.mid == mid)
    }

    /// The layout of a kind.
    pub fn of(kind: Kind) -> &'static Layout {
        LAYOUTS.iter().find(|l| l.kind == kind).expect("every kind has a layout")
    }

    /// Bytes before the payload, given whether a descriptor is present.
    pub const fn fixed_bytes(&self, with_desc: bool) -> usize {
        HEADER_BYTES + self.ext_beats * EXT_BYTES + if with_desc { DESC_BYTES } else { 0 }
    }
}

impl Message {
    pub fn kind(&self) -> Kind {
        match self {
            Message::Hello(_) => Kind::Hello,
            Message::HelloAck(_) => Kind::HelloAck,
            Message::Disconnect => Kind::Disconnect,
            Message::Abort => Kind::Abort,
            Message::CreditUpdate => Kind::CreditUpdate,
            Message::SendByCopy { .. } => Kind::SendByCopy,
            Message::WriteComplete { .. } => Kind::WriteComplete,
            Message::ReadComplete { .. } => Kind::ReadComplete,
            Message::SinkAvail { .. } => Kind::SinkAvail,
            Message::LargeSend { .. } => Kind::LargeSend,
            Message::Data { .. } => Kind::Data,
        }
    }

    /// Application bytes carried inline.
    pub fn payload(&self) -> &[u8] {
        match self {
            Message::LargeSend { payload, .. } | Message::Data { payload, .. } => payload,
            _ => &[],
        }
    }

    fn desc(&self) -> Option<&Descriptor> {
        match self {
            Message::SinkAvail { desc, .. } => Some(desc),
            Message::LargeSend { desc, .. } => desc.as_ref(),
            _ => None,
        }
    }

    /// Encoded length in bytes, header included (the header's `len` field).
    pub fn wire_len(&self) -> usize {
        Layout::of(self.kind()).fixed_bytes(self.desc().is_some()) + self.payload().len()
    }
}

/// Why a byte string is not a valid message. Each is counted by its own counter in the
/// parser hardware (`ParseError::index`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error, Serialize, Deserialize)]
pub enum ParseError {
    /// Fewer bytes than a header, or than the kind's fixed part.
    #[error("message truncated: {got} bytes, at least {need} needed")]
    Truncated { got: usize, need: usize },
    /// The header's `len` disagrees with the bytes received.
    #[error("length field {field} disagrees with {got} bytes received")]
    LengthMismatch { field: u32, got: usize },
    /// Byte 0 is not a known message id.
    #[error("unknown message id {0:#04x}")]
    UnknownKind(u8),
    /// A flag, capability or reserved field that must be zero is not.
    #[error("reserved bits set")]
    ReservedBits,
    /// `flag::DESC` on a kind that takes no descriptor, or missing where one is required.
    #[error("descriptor flag wrong for this kind")]
    DescriptorMisplaced,
    /// A payload on a kind that takes none, or an empty Data message.
    #[error("payload wrong for this kind")]
    PayloadMisplaced,
    /// The message is longer than the receiver's negotiated buffer size.
    #[error("message of {len} bytes exceeds the {max}-byte buffer")]
    TooLong { len: usize, max: usize },
    /// A field value outside its range (Hello version, buffer size or posted count; a
    /// LargeSend whose total is not above its inline part or whose descriptor does not cover
    /// exactly the rest).
    #[error("field out of range")]
    BadField,
}

impl ParseError {
    /// Number of distinct error kinds (and error counters in hardware).
    pub const COUNT: usize = 8;
    /// The counter index of this error kind.
    pub fn index(&self) -> usize {
        match self {
            ParseError::Truncated { .. } => 0,
            ParseError::LengthMismatch { .. } => 1,
            ParseError::UnknownKind(_) => 2,
            ParseError::ReservedBits => 3,
            ParseError::DescriptorMisplaced => 4,
            ParseError::PayloadMisplaced => 5,
            ParseError::TooLong { .. } => 6,
            ParseError::BadField => 7,
        }
    }
    /// Counter names, by index.
    pub const NAMES: [&'static str; Self::COUNT] = [
        "truncated",
        "length_mismatch",
        "unknown_kind",
        "reserved_bits",
        "descriptor_misplaced",
        "payload_misplaced",
        "too_long",
        "bad_field",
    ];
}

fn put_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
fn get_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn get_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn encode_hello(b: &mut [u8], p: &HelloParams) {
    b[off::EXT] = VERSION;
    b[off::EXT + 1] = if p.rdma_read { cap::RDMA_READ } else { 0 };
    b[off::EXT + 2] = 0;
    b[off::EXT + 3] = 0;
    put_u32(b, off::EXT + 4, p.buf_size);
}

fn encode_desc(b: &mut [u8], d: &Descriptor) {
    put_u64(b, off::DESC, d.addr);
    put_u32(b, off::DESC + 8, d.key);
    put_u32(b, off::DESC + 12, d.len);
}

impl Frame {
    /// Encode to bytes. The length field is computed; the caller keeps payloads within the
    /// peer's buffer size (the decoder rejects anything longer).
    pub fn encode(&self) -> Vec<u8> {
        let msg = &self.msg;
        let layout = Layout::of(msg.kind());
        let len = msg.wire_len();
        let mut b = vec![0u8; len];
        b[off::MID] = layout.mid;
        let mut flags = 0;
        if let Message::Data { urgent: true, .. } = msg {
            flags |= flag::URGENT;
        }
        if msg.desc().is_some() {
            flags |= flag::DESC;
        }
        b[off::FLAGS] = flags;
        put_u16(&mut b, off::BUFS, self.header.bufs);
        put_u32(&mut b, off::LEN, len as u32);
        put_u32(&mut b, off::MSEQ, self.header.mseq);
        put_u32(&mut b, off::MSEQ_ACK, self.header.mseq_ack);
        match msg {
            Message::Hello(p) | Message::HelloAck(p) => encode_hello(&mut b, p),
            Message::WriteComplete { xfer, bytes } | Message::ReadComplete { xfer, bytes } => {
                put_u32(&mut b, off::EXT, *bytes);
                put_u32(&mut b, off::EXT + 4, *xfer);
            }
            Message::SendByCopy { xfer } => put_u32(&mut b, off::EXT + 4, *xfer),
            Message::SinkAvail { xfer, desc } => {
                put_u32(&mut b, off::EXT + 4, *xfer);
                encode_desc(&mut b, desc);
            }
            Message::LargeSend { total, desc, .. } => {
                put_u32(&mut b, off::EXT, *total);
                if let Some(d) = desc {
                    encode_desc(&mut b, d);
                }
            }
            Message::Disconnect | Message::Abort | Message::CreditUpdate | Message::Data { .. } => {
            }
        }
        let fixed = len - msg.payload().len();
        b[fixed..].copy_from_slice(msg.payload());
        b
    }

    /// Decode one message of `bytes.len()` bytes received into a buffer of `buf_size` bytes.
    /// Checks are made in the order the parser hardware makes them, so both report the same
    /// error for the same bytes: see `docs/PROTOCOL.md`, "Malformed messages".
    pub fn decode(bytes: &[u8], buf_size: usize) -> Result<Frame, ParseError> {
        let got = bytes.len();
        if got > buf_size {
            return Err(ParseError::TooLong { len: got, max: buf_size });
        }
        if got < HEADER_BYTES {
            return Err(ParseError::Truncated { got, need: HEADER_BYTES });
        }
        let field = get_u32(bytes, off::LEN);
        if field as usize != got {
            return Err(ParseError::LengthMismatch { field, got });
        }
        let m = bytes[off::MID];
        let layout = Layout::of_mid(m).ok_or(ParseError::UnknownKind(m))?;
        let flags = bytes[off::FLAGS];
        if flags & flag::RESERVED != 0 || (flags & flag::URGENT != 0 && !layout.urgent_allowed) {
            return Err(ParseError::ReservedBits);
        }
        let has_desc = flags & flag::DESC != 0;
        let desc_ok = match layout.desc {
            DescRule::Forbidden => !has_desc,
            DescRule::Optional => true,
            DescRule::Required => has_desc,
        };
        if !desc_ok {
            return Err(ParseError::DescriptorMisplaced);
        }
        let fixed = layout.fixed_bytes(has_desc);
        if got < fixed {
            return Err(ParseError::Truncated { got, need: fixed });
        }
        let payload_len = got - fixed;
        let payload_ok = match layout.payload {
            PayloadRule::None => payload_len == 0,
            PayloadRule::Optional => true,
            PayloadRule::Required => payload_len > 0,
        };
        if !payload_ok {
            return Err(ParseError::PayloadMisplaced);
        }
        let header = Header {
            bufs: get_u16(bytes, off::BUFS),
            mseq: get_u32(bytes, off::MSEQ),
            mseq_ack: get_u32(bytes, off::MSEQ_ACK),
        };
        let ext_lo = || get_u32(bytes, off::EXT);
        let ext_hi = || get_u32(bytes, off::EXT + 4);
        let desc = || Descriptor {
            addr: get_u64(bytes, off::DESC),
            key: get_u32(bytes, off::DESC + 8),
            len: get_u32(bytes, off::DESC + 12),
        };
        let payload = || bytes[fixed..].to_vec();
        let msg = match layout.kind {
            Kind::Hello | Kind::HelloAck => {
                let e = &bytes[off::EXT..off::EXT + 8];
                if e[1] & cap::RESERVED != 0 || e[2] != 0 || e[3] != 0 {
                    return Err(ParseError::ReservedBits);
                }
                let p = HelloParams { rdma_read: e[1] & cap::RDMA_READ != 0, buf_size: ext_hi() };
                if e[0] != VERSION
                    || !(MIN_BUF_SIZE..=MAX_BUF_SIZE).contains(&p.buf_size)
                    || header.bufs < MIN_POSTED
                {
                    return Err(ParseError::BadField);
                }
                if layout.kind == Kind::Hello { Message::Hello(p) } else { Message::HelloAck(p) }
            }
            Kind::Disconnect => Message::Disconnect,
            Kind::Abort => Message::Abort,
            Kind::CreditUpdate => Message::CreditUpdate,
            Kind::WriteComplete => Message::WriteComplete { bytes: ext_lo(), xfer: ext_hi() },
            Kind::ReadComplete => Message::ReadComplete { bytes: ext_lo(), xfer: ext_hi() },
            Kind::SendByCopy => {
                if ext_lo() != 0 {
                    return Err(ParseError::ReservedBits);
                }
                Message::SendByCopy { xfer: ext_hi() }
            }
            Kind::SinkAvail => {
                if ext_lo() != 0 {
                    return Err(ParseError::ReservedBits);
                }
                Message::SinkAvail { xfer: ext_hi(), desc: desc() }
            }
            Kind::LargeSend => {
                if ext_hi() != 0 {
                    return Err(ParseError::ReservedBits);
                }
                let total = ext_lo();
                if total as usize <= payload_len {
                    return Err(ParseError::BadField);
                }
                let desc = has_desc.then(desc);
                if let Some(d) = &desc
                    && d.len as usize != total as usize - payload_len
                {
                    return Err(ParseError::BadField);
                }
                Message::LargeSend { total, desc, payload: payload() }
            }
            Kind::Data => Message::Data { urgent: flags & flag::URGENT != 0, payload: payload() },
        };
        Ok(Frame { header, msg })
    }
}

/// Largest inline payload a message of `kind` can carry in a buffer of `buf_size` bytes.
pub fn max_payload(kind: Kind, with_desc: bool, buf_size: u32) -> usize {
    (buf_size as usize).saturating_sub(Layout::of(kind).fixed_bytes(with_desc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr() -> Header {
        Header { bufs: 0x0102, mseq: 0x0304_0506, mseq_ack: 0x0708_090A }
    }

    #[test]
    fn layouts_have_distinct_mids() {
        for (i, a) in LAYOUTS.iter().enumerate() {
            for b in &LAYOUTS[i + 1..] {
                assert_ne!(a.mid, b.mid);
                assert_ne!(a.kind, b.kind);
            }
        }
    }

    #[test]
    fn header_bytes_are_little_endian() {
        let f = Frame { header: hdr(), msg: Message::CreditUpdate };
        assert_eq!(
            f.encode(),
            [0x07, 0x00, 0x02, 0x01, 16, 0, 0, 0, 0x06, 0x05, 0x04, 0x03, 0x0A, 0x09, 0x08, 0x07]
        );
    }
}
