//! The engine's records: what its FIFOs, RAMs and registers hold, one `LogicStruct` per
//! model struct of the same name in `sanswitch_model::blocks::engine`.

use rust_hdl::prelude::*;
use sanswitch_model::wire::MAX_BUF_SIZE;

/// A byte count or offset within one received message's payload, which is shorter than
/// the largest receive buffer: the connection word keeps those in 16 bits, not 32.
pub type OffBits = Bits<16>;
const _: () = assert!(MAX_BUF_SIZE <= 1 << 16, "OffBits holds a payload length");

/// A host command (`s_axis_cmd_*`; the model's `host::Command`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct CmdRec {
    pub opcode: Bits<8>,
    pub conn: Bits<16>,
    pub tag: Bits<32>,
    pub addr: Bits<64>,
    pub len: Bits<32>,
    pub aux: Bits<64>,
}

/// A host completion (`m_axis_cpl_*`; the model's `host::Completion`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct CplRec {
    pub tag: Bits<32>,
    pub bytes: Bits<32>,
    pub conn: Bits<16>,
    pub status: Bits<16>,
    pub opcode: Bits<8>,
    pub urgent: Bit,
    pub eof: Bit,
}

/// A message to build (the model's `builder::TxJob`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct TxJob {
    pub conn: Bits<8>,
    pub buf: Bits<8>,
    pub pooled: Bit,
    pub w0: Bits<64>,
    pub w1: Bits<64>,
    pub w2: Bits<64>,
    pub w3: Bits<64>,
    pub w4: Bits<64>,
    pub nwords: Bits<3>,
    pub pay_addr: Bits<64>,
    pub pay_len: Bits<32>,
    pub cpl_v: Bit,
    pub cpl: CplRec,
}

/// A message sent (the model's `builder::Sent`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct SentRec {
    pub conn: Bits<8>,
    pub buf: Bits<8>,
    pub pooled: Bit,
    pub cpl_v: Bit,
    pub cpl: CplRec,
}

/// A copy into a posted host buffer (the model's `delivery::DlvJob`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct DlvJob {
    pub conn: Bits<8>,
    pub buf: Bits<8>,
    pub off: Bits<32>,
    pub len: Bits<32>,
    pub addr: Bits<64>,
    pub urgent: Bit,
    pub last_of_buf: Bit,
    /// The inline bytes of a LargeSend landing zero-copy (the model's `DlvJob::land`).
    pub land: Bit,
}

/// A queued send (the model's `controller::SqEnt`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct SqEnt {
    pub tag: Bits<32>,
    pub addr: Bits<64>,
    pub len: Bits<32>,
    pub urgent: Bit,
    /// `len` is above the zero-copy threshold: compared as the send is queued, so the
    /// pump's choice after the queue RAM's read is this bit, not a 32-bit compare.
    pub big: Bit,
}

/// A posted receive (the model's `controller::RqEnt`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RqEnt {
    pub tag: Bits<32>,
    pub addr: Bits<64>,
    pub len: Bits<32>,
}

/// A receive buffer holding payload (the model's `controller::Held`; its `land` is the
/// connection word's `held_land`: only the head entry can be a landing one, since a
/// LargeSend lands only when nothing is held, and nothing is queued behind it while it lands).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct HeldEnt {
    pub buf: Bits<8>,
    pub len: Bits<32>,
    pub urgent: Bit,
}

/// One connection's state word (the model's `controller::ConnCtl`, queues as pointers: the
/// entries are in the queue RAMs).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ConnWord {
    pub st: Bits<3>,
    pub init_seq: Bits<32>,
    pub wait_v: Bit,
    pub wait_tag: Bits<32>,
    pub wait_op: Bits<8>,
    /// What a Data message's payload may fill of one of the peer's receive buffers (the
    /// buffer size from Hello, less a Data message's fixed bytes; 0 if it holds no more).
    /// Kept in place of the size so the send path's length compares start at the word:
    /// every use of the size subtracts at least that much.
    pub peer_room: Bits<32>,
    pub peer_read: Bit,
    pub shut: Bit,
    pub fin_sent: Bit,
    pub fin_rcvd: Bit,
    pub closing: Bit,
    /// The Winsock code requests fail with once aborted (0: none recorded).
    pub err: Bits<16>,
    pub sq_head: Bits<4>,
    pub sq_n: Bits<5>,
    pub sent: Bits<32>,
    pub rq_head: Bits<4>,
    pub rq_n: Bits<5>,
    pub held_head: Bits<4>,
    pub held_n: Bits<5>,
    /// Bytes of the head held buffer already delivered: below its payload's length, so
    /// below `MAX_BUF_SIZE` ([`OffBits`]).
    pub held_off: OffBits,
    pub dlv_busy: Bit,
    pub adv_due: Bit,
    pub tx_inflight: Bits<8>,
    /// A flush waits for the connection to be quiet (the model's `flush_pending`).
    pub fl_v: Bit,
    pub fl_all: Bit,
    pub fl_err: Bits<16>,
    /// The zero-copy state (the model's `tx_x`, `rx_x` and their fields; `codes::tx_x`,
    /// `codes::rx_x`). The owed messages: `tx_due` a WriteComplete of `tx_xfer` carrying
    /// `tx_due_bytes`; `rx_due` (`codes::due`) a SendByCopy, ReadComplete or SinkAvail of
    /// `rx_due_xfer`, whose other fields follow from the `rx_*` ones.
    pub tx_x: Bits<3>,
    pub tx_key: Bits<32>,
    pub tx_xfer: Bits<32>,
    pub rx_x: Bits<2>,
    pub rx_key: Bits<32>,
    pub rx_xfer: Bits<32>,
    pub rx_total: Bits<32>,
    /// The landing LargeSend's inline bytes: its payload's length ([`OffBits`]).
    pub rx_inline: OffBits,
    pub rx_inline_due: Bit,
    pub held_land: Bit,
    pub tx_due: Bit,
    pub tx_due_bytes: Bits<32>,
    pub rx_due: Bits<2>,
    pub rx_due_xfer: Bits<32>,
    pub op_live: Bit,
}

/// The parser's header record, as the controller keeps it.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct HdrRec {
    pub tuser: Bits<16>,
    pub error: Bits<4>,
    pub mid: Bits<8>,
    pub flags: Bits<8>,
    pub bufs: Bits<16>,
    pub len: Bits<32>,
    pub mseq: Bits<32>,
    pub ack: Bits<32>,
    pub ext: Bits<64>,
    pub daddr: Bits<64>,
    pub dkey: Bits<32>,
    pub dlen: Bits<32>,
}

/// A sequencer command: the sequencer's own record (its `nomem` left 0 by the controller;
/// the engine's `fault_nomem` input drives that port).
pub use crate::sequencer::CmdRec as SeqCmd;

/// The sequencer's answer to a command (the fields the controller reads).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct SeqRsp {
    pub status: Bits<3>,
    pub key: Bits<32>,
}

/// The sequencer's completion request: a transfer ended (the model's `sequencer::CplRec`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct XferRec {
    pub conn: Bits<8>,
    pub xfer: Bits<32>,
    pub bytes: Bits<32>,
    pub write: Bit,
    pub status: Bits<3>,
}

/// The event in hand (the model's `controller::Ev`): its kind (`ev_kind` codes, see the
/// controller), its connection, and each kind's record in a field of its own, loaded only
/// when an event of that kind is taken (a shared union would put a decoder in front of
/// every reader).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct EvRec {
    pub kind: Bits<3>,
    pub conn: Bits<8>,
    pub hdr: HdrRec,
    pub sent: SentRec,
    pub dlv: DlvJob,
    pub cmd: CmdRec,
    pub xfer: XferRec,
}

/// A pool manager request.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct PoolReq {
    pub op: Bits<3>,
    pub conn: Bits<8>,
    pub class: Bits<2>,
    pub buf: Bits<8>,
    pub a: Bits<32>,
    pub b: Bits<32>,
    pub c: Bits<32>,
    pub bufs: Bits<16>,
}

/// A pool manager response (the fields the controller reads).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct PoolResp {
    pub status: Bits<4>,
    pub buf: Bits<8>,
    pub mseq: Bits<32>,
    pub ack: Bits<32>,
    pub bufs: Bits<16>,
    pub update_due: Bit,
}

/// What an event does besides its connection's state (the model's `controller::Effects`; its
/// message job, completion and delivery are not here but in the controller's own registers,
/// written straight from the decision that makes them: the ~1,000 bits would otherwise pass
/// through every decision's multiplexer, and only one or two decisions change each).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Fx {
    pub adm_v: Bit,
    pub adm_post: Bit,
    pub adm_open: Bit,
    pub adm_buf: Bits<8>,
    pub flush_v: Bit,
    /// Flush everything (an abort), else only the receives (a close).
    pub flush_all: Bit,
    pub flush_err: Bits<16>,
    /// Tear the connection down on the SAN.
    pub down: Bit,
    pub work: Bit,
}

/// Queue entries an event appends, written at its Apply cycle after the tail it counted.
/// A queued send or posted receive is the command's own fields (the model's `SqEnt`, `RqEnt`
/// made from its `Command`): the Apply cycle writes them from the command's event register,
/// which holds until the next event is taken, so only their valid bits travel with the
/// event (through every decision's multiplexer).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Pend {
    pub sq_v: Bit,
    pub rq_v: Bit,
    pub held_v: Bit,
    pub held: HeldEnt,
}

/// What the decisions on a pool answer know of the head send's rest, registered a cycle
/// after the word in hand (`CtlDecide`'s `rest_r`; no model struct: the model computes them
/// where it uses them). The pool answers in the second cycle after the edge that takes a
/// request (its fixed latency, `sanswitch_model::blocks::pool`), and the word in hand is
/// loaded at that edge at the latest (a request offered in its decision's cycle, `pfwd`);
/// nothing the facts are made of changes until the answer: the word in hand, its send
/// queue's head (the rings are written only at `Apply`) and the event's header. So the facts
/// are those of the answer's own cycle, and the paths from the send ring's read through the
/// subtraction and its compares end at this register instead of running on through the
/// decisions.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct SendRest {
    /// The head send's bytes not yet sent (`len - sent`).
    pub left: Bits<32>,
    /// They fit one Data message (`peer_room >= left`).
    pub fits: Bit,
    /// The header's descriptor length is them (`hdr.dlen == left`: a SinkAvail's).
    pub dlen_eq: Bit,
    /// The header's extension's byte count is them (a ReadComplete's).
    pub bytes_eq: Bit,
}

/// An event being handled (the model's `controller::Work`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Work {
    pub conn_v: Bit,
    pub conn: Bits<8>,
    pub c: ConnWord,
    pub fx: Fx,
    pub pend: Pend,
}

/// What to do next (the model's `Next`, with its shared tails named): `code` one of
/// `act::*`; for `POOL`, the request and its continuation (`cont::*` and its arguments); for
/// `SEQ`, the sequencer command and its continuation (`zk`, one of `zk::*`, with `zrep`:
/// post the message's buffer `kbuf` again once done, and `znotify`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct Act {
    pub code: Bits<3>,
    pub req: PoolReq,
    pub cont: Bits<4>,
    pub kbuf: Bits<8>,
    pub kmid: Bits<8>,
    pub kurg: Bit,
    pub kpay: Bits<32>,
    pub kerr: Bits<16>,
    pub notify: Bit,
    /// The sequencer command (`sop`: the model's `sequencer::cmd`; `saccess`: its access):
    /// its operands are not carried here but read at the port by `CtlSeqCmd` from the
    /// event's registers (the connection word after the decision, the header, the queue
    /// heads), on the side `srx` names: 1 the receive side's region (the landing region,
    /// `rx_*`), 0 the send side's (the source, `tx_*`).
    pub sop: Bits<3>,
    pub saccess: Bits<2>,
    pub srx: Bit,
    pub zk: Bits<4>,
    pub zrep: Bit,
    pub znotify: Bit,
    /// The sequencer command is posted: nothing reads its answer (the model's
    /// `Cont::ZPosted`).
    pub zpost: Bit,
}
