//! The FrontPanel bridge's command protocol: how a host reaches the two NICs of the XEM7010
//! board (their register ports and the on-chip memory that stands for each one's host
//! memory) over one block-throttled pipe in and one out, 16-bit words, little-endian
//! (`docs/BOARD.md`). One definition, used by the bridge's HDL and cycle model, the
//! driver's FrontPanel transport and the docs.
//!
//! # Words
//! Every request starts with a header word: the opcode in bits 15–12 ([`Op`]), the node (which
//! NIC) in bit 11, an argument in 10–0. Requests and what follows their header:
//!
//! | opcode | request | then | response |
//! |---|---|---|---|
//! | 0 | `NOP` | nothing (padding: the word 0x0000) | none |
//! | 1 | `REG_WRITE` | argument: register offset / 4; value bits 15–0, 31–16 | header with the AXI4-Lite response in 1–0 |
//! | 2 | `REG_READ` | argument: register offset / 4 | header with the response; value bits 15–0, 31–16 |
//! | 3 | `MEM_WRITE` | address bits 15–0, 31–16; length in bytes; the 64-bit words the bytes fall in, 4 words each | header with the [`MemStatus`] |
//! | 4 | `MEM_READ` | address bits 15–0, 31–16; length in bytes | header with the status; the count of 64-bit words; the 64-bit words the bytes fall in, 4 words each (count 0 when refused) |
//! | 15 | `FLUSH` | nothing | `NOP` words up to the end of the response block |
//!
//! Memory requests move the aligned 64-bit words that hold bytes `address ..
//! address + length` (the on-chip memory is 64 bits wide): a write changes only those bytes,
//! a read returns whole words and the host picks the bytes. A header the bridge does not
//! know is answered with an `ERROR` header ([`Op::Error`]) and the offending word, and
//! skipped; the words after it are read as headers, so a host that sees one
//! sends a block of `NOP`s and starts again. Responses come in request order.

use thiserror::Error;

/// FrontPanel endpoint addresses of the block-throttled pipes the bridge listens on (host to
/// board: 0x80..=0x9F are pipes in) and answers on (0xA0..=0xBF: pipes out).
pub const PIPE_IN: u8 = 0x80;
pub const PIPE_OUT: u8 = 0xA0;

/// Bytes of a block on the block-throttled pipes (USB 2.0's largest).
pub const BLOCK_BYTES: usize = 1024;
/// 16-bit words of a block.
pub const BLOCK_WORDS: usize = BLOCK_BYTES / 2;
/// Nodes (NICs) behind the bridge.
pub const NODES: usize = 2;
/// Bytes of each node's on-chip memory on the board (64-bit words: 16 BRAM36 a node).
pub const NODE_MEM_BYTES: u32 = 64 << 10;
/// The longest memory request, in bytes.
pub const MAX_MEM_BYTES: u32 = 0xFFFF;

/// Opcodes (header bits 15–12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum Op {
    Nop = 0,
    RegWrite = 1,
    RegRead = 2,
    MemWrite = 3,
    MemRead = 4,
    /// Only in responses: a header the bridge did not know.
    Error = 14,
    Flush = 15,
}

impl Op {
    pub fn from_code(c: u16) -> Option<Op> {
        [Op::Nop, Op::RegWrite, Op::RegRead, Op::MemWrite, Op::MemRead, Op::Error, Op::Flush]
            .into_iter()
            .find(|o| *o as u16 == c)
    }
}

/// A memory request's outcome (header bits 2–0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum MemStatus {
    Ok = 0,
    /// Bytes outside the node's memory: nothing written, nothing read.
    OutOfRange = 1,
}

/// A header word.
pub fn header(op: Op, node: usize, arg: u16) -> u16 {
    debug_assert!(node < NODES && arg < 0x800);
    (op as u16) << 12 | (node as u16) << 11 | arg
}

/// A header's fields: opcode code, node, argument.
pub fn split(h: u16) -> (u16, usize, u16) {
    (h >> 12, usize::from(h >> 11 & 1), h & 0x7FF)
}

/// What a host asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    RegWrite { node: usize, offset: u32, value: u32 },
    RegRead { node: usize, offset: u32 },
    MemWrite { node: usize, addr: u32, data: Vec<u8> },
    MemRead { node: usize, addr: u32, len: u32 },
    Flush,
}

/// What the bridge answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    RegWrite {
        node: usize,
        resp: u8,
    },
    RegRead {
        node: usize,
        resp: u8,
        value: u32,
    },
    MemWrite {
        node: usize,
        status: u16,
    },
    /// The aligned words' bytes (empty when refused).
    MemRead {
        node: usize,
        status: u16,
        words: Vec<u64>,
    },
    Error {
        word: u16,
    },
}

/// Why words are not what they should be.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BridgeError {
    #[error("register offset {0:#x} is not a 4-byte aligned offset below 0x2000")]
    BadOffset(u32),
    #[error("a memory request of {0} bytes (1..={MAX_MEM_BYTES})")]
    BadLength(u32),
    #[error("the response stream ends inside a response")]
    Truncated,
    #[error("response word {0:#06x} is no response")]
    Unexpected(u16),
}

/// The aligned 64-bit words that hold bytes `addr .. addr + len`.
pub fn words_spanned(addr: u32, len: u32) -> u32 {
    if len == 0 {
        return 0;
    }
    let first = addr / 8;
    let last = (u64::from(addr) + u64::from(len) - 1) / 8;
    (last - u64::from(first) + 1) as u32
}

fn push_u32(out: &mut Vec<u16>, v: u32) {
    out.push(v as u16);
    out.push((v >> 16) as u16);
}

fn push_u64(out: &mut Vec<u16>, v: u64) {
    for k in 0..4 {
        out.push((v >> (16 * k)) as u16);
    }
}

impl Request {
    /// The request's words.
    pub fn encode(&self, out: &mut Vec<u16>) -> Result<(), BridgeError> {
        let reg = |o: u32| {
            if o % 4 != 0 || o >= 0x2000 {
                Err(BridgeError::BadOffset(o))
            } else {
                Ok((o / 4) as u16)
            }
        };
        let len_ok = |l: u32| {
            if (1..=MAX_MEM_BYTES).contains(&l) { Ok(l) } else { Err(BridgeError::BadLength(l)) }
        };
        match self {
            Request::RegWrite { node, offset, value } => {
                out.push(header(Op::RegWrite, *node, reg(*offset)?));
                push_u32(out, *value);
            }
            Request::RegRead { node, offset } => {
                out.push(header(Op::RegRead, *node, reg(*offset)?))
            }
            Request::MemWrite { node, addr, data } => {
                let len = len_ok(data.len() as u32)?;
                out.push(header(Op::MemWrite, *node, 0));
                push_u32(out, *addr);
                out.push(len as u16);
                let base = u64::from(*addr & !7);
                for w in 0..words_spanned(*addr, len) {
                    let mut v = 0u64;
                    for b in 0..8u64 {
                        let at = base + 8 * u64::from(w) + b;
                        if let Some(i) = at.checked_sub(u64::from(*addr)) {
                            if let Some(x) = data.get(i as usize) {
                                v |= u64::from(*x) << (8 * b);
                            }
                        }
                    }
                    push_u64(out, v);
                }
            }
            Request::MemRead { node, addr, len } => {
                out.push(header(Op::MemRead, *node, 0));
                push_u32(out, *addr);
                out.push(len_ok(*len)? as u16);
            }
            Request::Flush => out.push(header(Op::Flush, 0, 0)),
        }
        Ok(())
    }

    /// Words of this request's response.
    pub fn response_words(&self) -> usize {
        match self {
            Request::RegWrite { .. } | Request::MemWrite { .. } => 1,
            Request::RegRead { .. } => 3,
            Request::MemRead { addr, len, .. } => 2 + 4 * words_spanned(*addr, *len) as usize,
            Request::Flush => 0,
        }
    }
}

/// Decodes a response stream (the `NOP` padding skipped).
pub fn decode_responses(words: &[u16]) -> Result<Vec<Response>, BridgeError> {
    let mut out = Vec::new();
    let mut i = 0;
    let take = |i: &mut usize, n: usize| -> Result<&[u16], BridgeError> {
        let s = words.get(*i..*i + n).ok_or(BridgeError::Truncated)?;
        *i += n;
        Ok(s)
    };
    let u32_of = |s: &[u16]| u32::from(s[0]) | u32::from(s[1]) << 16;
    while i < words.len() {
        let h = words[i];
        i += 1;
        let (code, node, arg) = split(h);
        out.push(match Op::from_code(code) {
            Some(Op::Nop) if h == 0 => continue,
            Some(Op::RegWrite) => Response::RegWrite { node, resp: (arg & 3) as u8 },
            Some(Op::RegRead) => {
                Response::RegRead { node, resp: (arg & 3) as u8, value: u32_of(take(&mut i, 2)?) }
            }
            Some(Op::MemWrite) => Response::MemWrite { node, status: arg & 7 },
            Some(Op::MemRead) => {
                let n = take(&mut i, 1)?[0] as usize;
                let s = take(&mut i, 4 * n)?;
                let words = s
                    .chunks(4)
                    .map(|c| {
                        c.iter().enumerate().fold(0u64, |a, (k, w)| a | u64::from(*w) << (16 * k))
                    })
                    .collect();
                Response::MemRead { node, status: arg & 7, words }
            }
            Some(Op::Error) => Response::Error { word: take(&mut i, 1)?[0] },
            _ => return Err(BridgeError::Unexpected(h)),
        });
    }
    Ok(out)
}

/// What the bridge drives: each node's register port and memory.
pub trait BridgeTarget {
    /// A register write; the AXI4-Lite response.
    fn reg_write(&mut self, node: usize, offset: u32, value: u32) -> u8;
    /// A register read; the value and the AXI4-Lite response.
    fn reg_read(&mut self, node: usize, offset: u32) -> (u32, u8);
    /// Bytes of each node's memory.
    fn mem_bytes(&self) -> u32;
    /// The 64-bit word at word index `index`; its bytes set in `mask` replaced by `v`'s.
    fn mem_write(&mut self, node: usize, index: u32, v: u64, mask: u8);
    fn mem_read(&mut self, node: usize, index: u32) -> u64;
}

/// The bridge's behaviour, request by request (the cycle model and the HDL add timing): the
/// request words in, the response words out. Words left at the end that do not make a
/// whole request stay in `pending` for the next call.
#[derive(Clone, Debug, Default)]
pub struct BridgeExec {
    pub pending: Vec<u16>,
    /// Words written since the last block boundary of the response stream.
    out_in_block: usize,
}

/// The byte mask of word `w` of a memory request (which of its bytes lie in the request).
pub fn word_mask(addr: u32, len: u32, w: u32) -> u8 {
    let start = u64::from(addr);
    let end = start + u64::from(len);
    let base = u64::from(addr & !7) + 8 * u64::from(w);
    (0..8u64).filter(|b| (start..end).contains(&(base + b))).fold(0u8, |m, b| m | 1 << b)
}

impl BridgeExec {
    /// Runs every whole request in `pending` + `words`; returns the response words.
    pub fn run(&mut self, words: &[u16], t: &mut dyn BridgeTarget) -> Vec<u16> {
        self.pending.extend_from_slice(words);
        let w = std::mem::take(&mut self.pending);
        let mut out = Vec::new();
        let mut i = 0;
        while i < w.len() {
            let h = w[i];
            let (code, node, arg) = split(h);
            let need = match Op::from_code(code) {
                Some(Op::RegWrite) => 3,
                Some(Op::MemWrite) | Some(Op::MemRead) => 4,
                _ => 1,
            };
            if i + need > w.len() {
                break;
            }
            let a = || u32::from(w[i + 1]) | u32::from(w[i + 2]) << 16;
            let mut used = need;
            match Op::from_code(code) {
                Some(Op::Nop) if h == 0 => {}
                Some(Op::RegWrite) => {
                    let r = t.reg_write(node, u32::from(arg) * 4, a());
                    out.push(header(Op::RegWrite, node, r.into()));
                }
                Some(Op::RegRead) => {
                    let (v, r) = t.reg_read(node, u32::from(arg) * 4);
                    out.extend([header(Op::RegRead, node, r.into()), v as u16, (v >> 16) as u16]);
                }
                Some(Op::MemWrite) => {
                    let (addr, len) = (a(), u32::from(w[i + 3]));
                    let n = words_spanned(addr, len) as usize;
                    if i + 4 + 4 * n > w.len() {
                        break;
                    }
                    used += 4 * n;
                    let ok =
                        len > 0 && u64::from(addr) + u64::from(len) <= u64::from(t.mem_bytes());
                    if ok {
                        for k in 0..n {
                            let d = &w[i + 4 + 4 * k..i + 8 + 4 * k];
                            let v = d
                                .iter()
                                .enumerate()
                                .fold(0u64, |x, (j, y)| x | u64::from(*y) << (16 * j));
                            let m = word_mask(addr, len, k as u32);
                            t.mem_write(node, addr / 8 + k as u32, v, m);
                        }
                    }
                    let st = if ok { MemStatus::Ok } else { MemStatus::OutOfRange };
                    out.push(header(Op::MemWrite, node, st as u16));
                }
                Some(Op::MemRead) => {
                    let (addr, len) = (a(), u32::from(w[i + 3]));
                    let ok =
                        len > 0 && u64::from(addr) + u64::from(len) <= u64::from(t.mem_bytes());
                    if ok {
                        let n = words_spanned(addr, len);
                        out.extend([header(Op::MemRead, node, MemStatus::Ok as u16), n as u16]);
                        for k in 0..n {
                            push_u64(&mut out, t.mem_read(node, addr / 8 + k));
                        }
                    } else {
                        out.extend([header(Op::MemRead, node, MemStatus::OutOfRange as u16), 0]);
                    }
                }
                Some(Op::Flush) if h == header(Op::Flush, 0, 0) => {
                    let pad =
                        (BLOCK_WORDS - (self.out_in_block + out.len()) % BLOCK_WORDS) % BLOCK_WORDS;
                    out.extend(std::iter::repeat_n(0u16, pad));
                }
                _ => out.extend([header(Op::Error, 0, 0), h]),
            }
            i += used;
        }
        self.pending = w[i..].to_vec();
        self.out_in_block = (self.out_in_block + out.len()) % BLOCK_WORDS;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two nodes: registers in a map, memories of 4 KiB.
    #[derive(Default)]
    struct Target {
        regs: std::collections::HashMap<(usize, u32), u32>,
        mem: [Vec<u64>; 2],
    }

    impl Target {
        fn new() -> Self {
            Target { regs: Default::default(), mem: [vec![0; 512], vec![0; 512]] }
        }
    }

    impl BridgeTarget for Target {
        fn reg_write(&mut self, node: usize, offset: u32, value: u32) -> u8 {
            if offset >= 0x1000 {
                return 2;
            }
            self.regs.insert((node, offset), value);
            0
        }
        fn reg_read(&mut self, node: usize, offset: u32) -> (u32, u8) {
            if offset >= 0x1000 {
                return (0, 2);
            }
            (self.regs.get(&(node, offset)).copied().unwrap_or(0), 0)
        }
        fn mem_bytes(&self) -> u32 {
            4096
        }
        fn mem_write(&mut self, node: usize, index: u32, v: u64, mask: u8) {
            let m = &mut self.mem[node][index as usize];
            for b in 0..8 {
                if mask >> b & 1 != 0 {
                    *m = (*m & !(0xFF << (8 * b))) | (v & 0xFF << (8 * b));
                }
            }
        }
        fn mem_read(&mut self, node: usize, index: u32) -> u64 {
            self.mem[node][index as usize]
        }
    }

    fn words(reqs: &[Request]) -> Vec<u16> {
        let mut w = Vec::new();
        for r in reqs {
            r.encode(&mut w).unwrap();
        }
        w
    }

    fn bytes_of(words: &[u64], addr: u32, len: u32) -> Vec<u8> {
        let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        b[(addr % 8) as usize..(addr % 8 + len) as usize].to_vec()
    }

    #[test]
    fn registers_and_memory_round_trip_on_both_nodes() {
        let mut t = Target::new();
        let mut b = BridgeExec::default();
        let data: Vec<u8> = (0..29).map(|k| 0xA0 ^ k as u8).collect();
        let reqs = [
            Request::RegWrite { node: 1, offset: 0x64, value: 0xDEAD_BEEF },
            Request::RegRead { node: 1, offset: 0x64 },
            Request::RegRead { node: 0, offset: 0x64 },
            // Odd address and length: only those bytes change.
            Request::MemWrite { node: 0, addr: 0x103, data: data.clone() },
            Request::MemRead { node: 0, addr: 0x103, len: 29 },
            Request::MemRead { node: 0, addr: 0x100, len: 3 },
            Request::MemRead { node: 1, addr: 0x103, len: 29 },
        ];
        let out = b.run(&words(&reqs), &mut t);
        let want: usize = reqs.iter().map(|r| r.response_words()).sum();
        assert_eq!(out.len(), want);
        let r = decode_responses(&out).unwrap();
        assert_eq!(r[0], Response::RegWrite { node: 1, resp: 0 });
        assert_eq!(r[1], Response::RegRead { node: 1, resp: 0, value: 0xDEAD_BEEF });
        assert_eq!(r[2], Response::RegRead { node: 0, resp: 0, value: 0 });
        assert_eq!(r[3], Response::MemWrite { node: 0, status: 0 });
        let Response::MemRead { words, .. } = &r[4] else { panic!() };
        assert_eq!(words.len(), 4, "0x103..0x120 spans words 0x20..=0x23");
        assert_eq!(bytes_of(words, 0x103, 29), data);
        let Response::MemRead { words, .. } = &r[5] else { panic!() };
        assert_eq!(bytes_of(words, 0x100, 3), [0, 0, 0], "bytes before the write untouched");
        let Response::MemRead { words, .. } = &r[6] else { panic!() };
        assert!(words.iter().all(|w| *w == 0), "the other node's memory untouched");
    }

    #[test]
    fn memory_past_the_end_is_refused_whole_and_the_stream_goes_on() {
        let mut t = Target::new();
        let mut b = BridgeExec::default();
        let reqs = [
            Request::MemWrite { node: 0, addr: 4095, data: vec![1] },
            Request::MemWrite { node: 0, addr: 4095, data: vec![1, 2] },
            Request::MemRead { node: 0, addr: 4088, len: 9 },
            Request::RegRead { node: 0, offset: 0x1000 },
        ];
        let r = decode_responses(&b.run(&words(&reqs), &mut t)).unwrap();
        assert_eq!(r[0], Response::MemWrite { node: 0, status: MemStatus::Ok as u16 });
        assert_eq!(r[1], Response::MemWrite { node: 0, status: MemStatus::OutOfRange as u16 });
        assert_eq!(t.mem[0][511], 1 << 56, "the refused write changed nothing");
        assert_eq!(
            r[2],
            Response::MemRead { node: 0, status: MemStatus::OutOfRange as u16, words: vec![] }
        );
        assert_eq!(r[3], Response::RegRead { node: 0, resp: 2, value: 0 });
    }

    #[test]
    fn unknown_words_are_answered_and_skipped_and_a_flush_pads_to_the_block() {
        let mut t = Target::new();
        let mut b = BridgeExec::default();
        let mut w = vec![0x7123, 0x0000, 0x0005];
        Request::RegRead { node: 0, offset: 8 }.encode(&mut w).unwrap();
        Request::Flush.encode(&mut w).unwrap();
        let out = b.run(&w, &mut t);
        assert_eq!(out.len(), BLOCK_WORDS);
        let r = decode_responses(&out).unwrap();
        assert_eq!(
            r,
            [
                Response::Error { word: 0x7123 },
                Response::Error { word: 0x0005 },
                Response::RegRead { node: 0, resp: 0, value: 0 },
            ]
        );
    }

    #[test]
    fn a_request_split_across_calls_waits_for_its_words() {
        let mut t = Target::new();
        let mut b = BridgeExec::default();
        let w = words(&[Request::MemWrite { node: 1, addr: 8, data: vec![9; 16] }]);
        for (k, x) in w.iter().enumerate() {
            let out = b.run(&[*x], &mut t);
            assert_eq!(out.is_empty(), k + 1 < w.len(), "word {k}");
        }
        assert_eq!(t.mem[1][1..3], [0x0909_0909_0909_0909; 2]);
    }

    #[test]
    fn requests_refuse_what_the_words_cannot_carry() {
        let mut w = Vec::new();
        let bad = [
            Request::RegRead { node: 0, offset: 2 },
            Request::RegRead { node: 0, offset: 0x2000 },
            Request::MemRead { node: 0, addr: 0, len: 0 },
            Request::MemRead { node: 0, addr: 0, len: MAX_MEM_BYTES + 1 },
            Request::MemWrite { node: 0, addr: 0, data: vec![] },
        ];
        for r in bad {
            assert!(r.encode(&mut w).is_err(), "{r:?}");
        }
        assert!(Request::RegRead { node: 1, offset: 0x1FFC }.encode(&mut w).is_ok());
        assert!(Request::MemRead { node: 1, addr: 0, len: MAX_MEM_BYTES }.encode(&mut w).is_ok());
    }
}
