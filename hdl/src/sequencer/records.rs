//! The sequencer's records: the words its tables hold and its channels carry, one
//! `LogicStruct` per model struct of the same name in `sanswitch_model::blocks::sequencer`.

use rust_hdl::prelude::*;

/// A registration-table RAM word.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RegRec {
    pub key: Bits<32>,
    pub access: Bits<2>,
    pub addr: Bits<64>,
    pub len: Bits<32>,
}

/// The flip-flop half of a registration-table entry: what a free-slot search, an abort's
/// release and a check's connection test need without a RAM port.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RegTag {
    pub valid: Bit,
    pub conn: Bits<8>,
}

/// The command being executed (the fields of `s_axis_cmd_*`).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct CmdRec {
    pub op: Bits<3>,
    pub conn: Bits<8>,
    pub access: Bits<2>,
    pub nomem: Bit,
    pub xfer: Bits<32>,
    pub addr: Bits<64>,
    pub key: Bits<32>,
    pub len: Bits<32>,
    pub lkey: Bits<32>,
}

/// One op-table entry's flip-flop half: what changes while the op runs, and what every op
/// is compared on at once (connection for aborts, local key for deregistrations). Field
/// meanings: the model's `OpEntry`; `rem` and `lastseg` are not kept (the issuer derives
/// them from `total - off` for the one op it issues from), and what only the op's requests
/// and completion read lives in RAM ([`OpReq`], [`OpDone`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OpEntry {
    pub st: Bits<2>,
    pub generation: Bits<4>,
    pub conn: Bits<8>,
    pub lkey: Bits<32>,
    pub off: Bits<32>,
    pub more: Bit,
    pub seq: Bits<8>,
    pub emask: Bits<16>,
    pub inflight: Bits<16>,
    pub status: Bits<3>,
}

/// What an op's requests are made of, written at START into the op table's request RAM and
/// read for the op being issued from.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OpReq {
    pub wr: Bit,
    pub conn: Bits<8>,
    pub raddr: Bits<64>,
    pub rkey: Bits<32>,
    pub laddr: Bits<64>,
    pub lkey: Bits<32>,
    pub total: Bits<32>,
}

/// What an op's completion is made of (with its status), written at START into the op
/// table's completion RAM.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct OpDone {
    pub wr: Bit,
    pub conn: Bits<8>,
    pub xfer: Bits<32>,
    pub total: Bits<32>,
}

/// What issuing a request changes in its op: the next segment's position.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct AdvRec {
    pub off: Bits<32>,
    pub more: Bit,
    pub seq: Bits<8>,
    pub emask: Bits<16>,
}

/// A command response.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RspRec {
    pub op: Bits<3>,
    pub conn: Bits<8>,
    pub status: Bits<3>,
    pub key: Bits<32>,
    pub len: Bits<32>,
}

/// A completion request.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct CplRec {
    pub conn: Bits<8>,
    pub xfer: Bits<32>,
    pub bytes: Bits<32>,
    pub write: Bit,
    pub status: Bits<3>,
}

/// An RDMA request.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RqRec {
    pub tag: Bits<16>,
    pub write: Bit,
    pub conn: Bits<8>,
    pub raddr: Bits<64>,
    pub rkey: Bits<32>,
    pub laddr: Bits<64>,
    pub lkey: Bits<32>,
    pub len: Bits<32>,
}

/// A check's answer.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct CkRec {
    pub grant: Bit,
    pub reason: Bits<3>,
}
