//! The engine's host entries: the command a host submits and the completion it gets back,
//! byte by byte. One definition, used by the model, the HDL's command interface, the driver
//! and `docs/HOST-ENTRIES.md` (generated from [`COMMAND_FIELDS`] and [`COMPLETION_FIELDS`] by
//! [`entries_markdown`]; `model/tests/host_entries.rs` keeps the file equal).
//!
//! Entries are little-endian and fixed-size (a command 32 bytes, a completion 16), so a ring
//! of them is an array a DMA engine fetches in bursts. Fields are packed and unpacked with
//! `bitvec` from the field tables, so a field's place is written once.
//!
//! A command carries a host tag that comes back, unchanged, in its one completion. A
//! completion's status is 0 for success or the Winsock error code of the failure
//! ([`WsaError`]), so a driver hands it to the application as it is.

use bitvec::prelude::*;
use thiserror::Error;

use crate::status::WsaError;

/// Bytes of a command entry.
pub const COMMAND_BYTES: usize = 32;
/// Bytes of a completion entry.
pub const COMPLETION_BYTES: usize = 16;

/// One field of an entry: its name, first bit (little-endian bit order: bit 0 is the least
/// significant bit of byte 0), width in bits and meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub lsb: usize,
    pub bits: usize,
    pub doc: &'static str,
}

impl Field {
    const fn new(name: &'static str, lsb: usize, bits: usize, doc: &'static str) -> Self {
        Field { name, lsb, bits, doc }
    }
}

/// The bit of the engine's 32-bit tag where the queue pair's number starts: a host
/// interface with several queue pairs puts the number of the queue pair it fetched a
/// command from into bits 31–29 of the tag it hands the engine, and routes the completion
/// back to that queue pair's completion ring by them (then clears them).
pub const TAG_QP_SHIFT: u32 = 29;
/// The bits of a tag the host owns.
pub const TAG_HOST_MASK: u32 = (1 << TAG_QP_SHIFT) - 1;

/// The command entry's fields.
pub const COMMAND_FIELDS: [Field; 9] = [
    Field::new("opcode", 0, 8, "what to do ([`Opcode`])"),
    Field::new("flags", 8, 8, "0 (reserved for per-opcode options)"),
    Field::new("conn", 16, 16, "the connection (socket) the command is for"),
    Field::new("tag", 32, 29, "the host's tag, returned unchanged in the completion"),
    Field::new(
        "queue_pair",
        61,
        3,
        "0 from the host: the host interface writes the number of the queue pair it fetched \
         the entry from here, and routes the completion back by it",
    ),
    Field::new(
        "addr",
        64,
        64,
        "host address of the data: SEND/SEND_URGENT read `len` bytes from it, POST_RECV \
         lends `len` bytes at it for received data; 0 otherwise",
    ),
    Field::new("len", 128, 32, "bytes at `addr` (0 for commands without data)"),
    Field::new("reserved", 160, 32, "0"),
    Field::new(
        "aux",
        192,
        64,
        "CONNECT: the peer (SAN node in bits 63–16, port in 15–0); LISTEN: the port in \
         15–0; 0 otherwise",
    ),
];

/// The completion entry's fields.
pub const COMPLETION_FIELDS: [Field; 9] = [
    Field::new(
        "tag",
        0,
        32,
        "the command's tag (bits 31–29, the queue pair's number on the engine's completion \
         stream, are 0 in a completion ring)",
    ),
    Field::new(
        "bytes",
        32,
        32,
        "bytes moved: sent (SEND), received into the posted buffer (POST_RECV); 0 otherwise",
    ),
    Field::new("conn", 64, 16, "the command's connection"),
    Field::new("status", 80, 16, "0, or the Winsock error code ([`WsaError`])"),
    Field::new("opcode", 96, 8, "the command's opcode"),
    Field::new("urgent", 104, 1, "POST_RECV: the bytes are urgent (out-of-band) data"),
    Field::new(
        "eof",
        105,
        1,
        "POST_RECV: the peer shut its send direction down; no more data will come",
    ),
    Field::new("reserved", 106, 21, "0"),
    Field::new(
        "phase",
        127,
        1,
        "in a completion ring: flips every lap of the ring (`docs/REGISTERS.md`), so the \
         host sees a new entry without reading a register; 0 on the engine's completion stream",
    ),
];

/// What a command asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Opcode {
    /// Make connection `conn` a socket (its buffers and pools are set up; nothing is sent).
    Open = 1,
    /// Wait on port `aux` for a peer's connect; completes when the session is negotiated.
    Listen = 2,
    /// Connect to the peer in `aux`; completes when the session is negotiated.
    Connect = 3,
    /// Send `len` bytes from `addr`.
    Send = 4,
    /// Send `len` bytes from `addr` as urgent (out-of-band) data.
    SendUrgent = 5,
    /// Lend `len` bytes at `addr` for received data.
    PostRecv = 6,
    /// Shut the send direction down once every send before it is sent.
    Shutdown = 7,
    /// Abortive close: every outstanding request completes at once.
    Abort = 8,
    /// Graceful close; completes when both directions are shut and every request completed.
    Close = 9,
}

impl Opcode {
    pub const ALL: [Opcode; 9] = [
        Opcode::Open,
        Opcode::Listen,
        Opcode::Connect,
        Opcode::Send,
        Opcode::SendUrgent,
        Opcode::PostRecv,
        Opcode::Shutdown,
        Opcode::Abort,
        Opcode::Close,
    ];

    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(c: u8) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|o| o.code() == c)
    }

    pub fn name(self) -> &'static str {
        match self {
            Opcode::Open => "OPEN",
            Opcode::Listen => "LISTEN",
            Opcode::Connect => "CONNECT",
            Opcode::Send => "SEND",
            Opcode::SendUrgent => "SEND_URGENT",
            Opcode::PostRecv => "POST_RECV",
            Opcode::Shutdown => "SHUTDOWN",
            Opcode::Abort => "ABORT",
            Opcode::Close => "CLOSE",
        }
    }
}

/// A command entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Command {
    pub opcode: u8,
    pub flags: u8,
    pub conn: u16,
    /// The engine's tag: the host's in bits 28–0, the queue pair's number in 31–29
    /// ([`TAG_QP_SHIFT`]; 0 in a valid entry, written by the host interface).
    pub tag: u32,
    pub addr: u64,
    pub len: u32,
    pub aux: u64,
}

/// A completion entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub tag: u32,
    pub bytes: u32,
    pub conn: u16,
    /// 0, or a Winsock error code.
    pub status: u16,
    pub opcode: u8,
    pub urgent: bool,
    pub eof: bool,
}

/// Why an entry's bytes are not a valid entry.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum EntryError {
    #[error("unknown opcode {0}")]
    UnknownOpcode(u8),
    #[error("field `{field}` must be 0, is {value:#x}")]
    NonZero { field: &'static str, value: u64 },
    #[error("status {0} is neither 0 nor a Winsock code this switch reports")]
    UnknownStatus(u16),
}

fn field(fields: &[Field], name: &str) -> Field {
    *fields.iter().find(|f| f.name == name).expect("a field of the table")
}

fn put<const N: usize>(b: &mut BitArray<[u8; N], Lsb0>, fields: &[Field], name: &str, v: u64) {
    let f = field(fields, name);
    debug_assert!(f.bits == 64 || v >> f.bits == 0, "{name} = {v:#x} does not fit");
    b[f.lsb..f.lsb + f.bits].store_le(v);
}

fn get<const N: usize>(b: &BitArray<[u8; N], Lsb0>, fields: &[Field], name: &str) -> u64 {
    let f = field(fields, name);
    b[f.lsb..f.lsb + f.bits].load_le()
}

impl Command {
    /// The command's opcode, if it is one.
    pub fn op(&self) -> Option<Opcode> {
        Opcode::from_code(self.opcode)
    }

    /// The fields in `bytes` as they are (reserved fields ignored, `flags` included, the
    /// opcode unchecked): what a host interface forwards once it has counted what is wrong.
    pub fn decode_unchecked(bytes: &[u8; COMMAND_BYTES]) -> Command {
        let f = &COMMAND_FIELDS;
        let b = BitArray::<[u8; COMMAND_BYTES], Lsb0>::new(*bytes);
        Command {
            opcode: get(&b, f, "opcode") as u8,
            flags: get(&b, f, "flags") as u8,
            conn: get(&b, f, "conn") as u16,
            tag: (get(&b, f, "tag") | get(&b, f, "queue_pair") << TAG_QP_SHIFT) as u32,
            addr: get(&b, f, "addr"),
            len: get(&b, f, "len") as u32,
            aux: get(&b, f, "aux"),
        }
    }

    pub fn encode(&self) -> [u8; COMMAND_BYTES] {
        let f = &COMMAND_FIELDS;
        let mut b = BitArray::<[u8; COMMAND_BYTES], Lsb0>::ZERO;
        put(&mut b, f, "opcode", self.opcode.into());
        put(&mut b, f, "flags", self.flags.into());
        put(&mut b, f, "conn", self.conn.into());
        put(&mut b, f, "tag", (self.tag & TAG_HOST_MASK).into());
        put(&mut b, f, "queue_pair", (self.tag >> TAG_QP_SHIFT).into());
        put(&mut b, f, "addr", self.addr);
        put(&mut b, f, "len", self.len.into());
        put(&mut b, f, "aux", self.aux);
        b.into_inner()
    }

    /// The command in `bytes`, refused when its opcode is unknown or a reserved field is
    /// not 0 (so that a later version can give them a meaning).
    pub fn decode(bytes: &[u8; COMMAND_BYTES]) -> Result<Command, EntryError> {
        let f = &COMMAND_FIELDS;
        let b = BitArray::<[u8; COMMAND_BYTES], Lsb0>::new(*bytes);
        for name in ["flags", "queue_pair", "reserved"] {
            let value = get(&b, f, name);
            if value != 0 {
                return Err(EntryError::NonZero { field: field(f, name).name, value });
            }
        }
        let c = Command::decode_unchecked(bytes);
        match c.op() {
            Some(_) => Ok(c),
            None => Err(EntryError::UnknownOpcode(c.opcode)),
        }
    }
}

impl Completion {
    /// The completion of `cmd` with `result` (bytes moved, or the failure).
    pub fn of(cmd: &Command, result: Result<u32, WsaError>) -> Completion {
        let (bytes, status) = match result {
            Ok(n) => (n, 0),
            Err(e) => (0, e.code() as u16),
        };
        Completion {
            tag: cmd.tag,
            bytes,
            conn: cmd.conn,
            status,
            opcode: cmd.opcode,
            ..Default::default()
        }
    }

    /// The failure, if any.
    pub fn error(&self) -> Result<Option<WsaError>, EntryError> {
        if self.status == 0 {
            return Ok(None);
        }
        WsaError::ALL
            .iter()
            .copied()
            .find(|e| e.code() == u32::from(self.status))
            .map(Some)
            .ok_or(EntryError::UnknownStatus(self.status))
    }

    pub fn encode(&self) -> [u8; COMPLETION_BYTES] {
        let f = &COMPLETION_FIELDS;
        let mut b = BitArray::<[u8; COMPLETION_BYTES], Lsb0>::ZERO;
        put(&mut b, f, "tag", self.tag.into());
        put(&mut b, f, "bytes", self.bytes.into());
        put(&mut b, f, "conn", self.conn.into());
        put(&mut b, f, "status", self.status.into());
        put(&mut b, f, "opcode", self.opcode.into());
        put(&mut b, f, "urgent", self.urgent.into());
        put(&mut b, f, "eof", self.eof.into());
        b.into_inner()
    }

    /// The completion in `bytes`, refused when a reserved bit or the phase bit is set or
    /// the status is not a known one.
    pub fn decode(bytes: &[u8; COMPLETION_BYTES]) -> Result<Completion, EntryError> {
        match Completion::decode_cq(bytes)? {
            (c, false) => Ok(c),
            (_, true) => Err(EntryError::NonZero { field: "phase", value: 1 }),
        }
    }

    /// The completion as a completion ring holds it: with its `phase` bit.
    pub fn encode_cq(&self, phase: bool) -> [u8; COMPLETION_BYTES] {
        let mut b = BitArray::<[u8; COMPLETION_BYTES], Lsb0>::new(self.encode());
        put(&mut b, &COMPLETION_FIELDS, "phase", phase.into());
        b.into_inner()
    }

    /// A completion ring entry: the completion and its phase bit.
    pub fn decode_cq(bytes: &[u8; COMPLETION_BYTES]) -> Result<(Completion, bool), EntryError> {
        let f = &COMPLETION_FIELDS;
        let b = BitArray::<[u8; COMPLETION_BYTES], Lsb0>::new(*bytes);
        let value = get(&b, f, "reserved");
        if value != 0 {
            return Err(EntryError::NonZero { field: "reserved", value });
        }
        let phase = get(&b, f, "phase") != 0;
        let c = Completion {
            tag: get(&b, f, "tag") as u32,
            bytes: get(&b, f, "bytes") as u32,
            conn: get(&b, f, "conn") as u16,
            status: get(&b, f, "status") as u16,
            opcode: get(&b, f, "opcode") as u8,
            urgent: get(&b, f, "urgent") != 0,
            eof: get(&b, f, "eof") != 0,
        };
        c.error()?;
        Ok((c, phase))
    }
}

/// `docs/HOST-ENTRIES.md`, generated from the field tables and the opcode and status lists.
pub fn entries_markdown() -> String {
    let mut o = String::new();
    o.push_str(
        "# Host entries\n\n\
         Generated from `model/src/host.rs` (`entries_markdown`); `model/tests/host_entries.rs` \
         keeps this file equal to it. Do not edit by hand: change the tables in the source, \
         then run `SANSWITCH_BLESS=1 cargo test -p sanswitch-model --test host_entries`.\n\n\
         Entries are little-endian; ranges are inclusive. Bit `n` is bit `n % 8` of byte `n / 8`. A command is \
         submitted once and completes exactly once, with its tag.\n\n",
    );
    let table = |o: &mut String, title: &str, bytes: usize, fields: &[Field]| {
        o.push_str(&format!("## {title} ({bytes} bytes)\n\n"));
        o.push_str("| bits | bytes | field | meaning |\n|---|---|---|---|\n");
        for f in fields {
            let (first, last) = (f.lsb / 8, (f.lsb + f.bits - 1) / 8);
            let mut bytes =
                if first == last { format!("{first}") } else { format!("{first}–{last}") };
            if f.lsb % 8 != 0 || f.bits % 8 != 0 {
                bytes.push_str(" (part)");
            }
            let doc = f
                .doc
                .replace("[`Opcode`]", "opcodes below")
                .replace("[`WsaError`]", "statuses below");
            let bits = if f.bits == 1 {
                format!("{}", f.lsb)
            } else {
                format!("{}–{}", f.lsb, f.lsb + f.bits - 1)
            };
            o.push_str(&format!("| {bits} | {bytes} | `{}` | {doc} |\n", f.name));
        }
        o.push('\n');
    };
    table(&mut o, "Command", COMMAND_BYTES, &COMMAND_FIELDS);
    table(&mut o, "Completion", COMPLETION_BYTES, &COMPLETION_FIELDS);
    o.push_str("## Opcodes\n\n| code | opcode |\n|---|---|\n");
    for op in Opcode::ALL {
        o.push_str(&format!("| {} | `{}` |\n", op.code(), op.name()));
    }
    o.push_str("\nAny other opcode is refused.\n\n## Statuses\n\n| status | name | meaning |\n|---|---|---|\n| 0 | success | |\n");
    for e in WsaError::ALL {
        let text = e.to_string();
        let meaning = text.split_once(": ").map_or(text.as_str(), |(_, m)| m);
        o.push_str(&format!("| {} | `{}` | {meaning} |\n", e.code(), e.name()));
    }
    o
}
