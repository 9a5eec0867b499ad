//! Stimulus for the parser: random messages of every kind at the boundary lengths, a share
//! of them malformed or truncated, cut into beats and driven with random valid gaps and
//! random output backpressure. Shared by the model's tests, the lockstep tests and the bench.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::parser::{ParserIn, keep_bytes, keep_of, user};
use crate::wire::{self, Descriptor, Frame, Header, HelloParams, Kind, Message};

/// Cut a message into beats: (data, last, tkeep).
pub fn beats(bytes: &[u8]) -> Vec<(u64, bool, u8)> {
    let n = bytes.len().div_ceil(8).max(1);
    (0..n)
        .map(|i| {
            let chunk = bytes.get(i * 8..usize::min(i * 8 + 8, bytes.len())).unwrap_or(&[]);
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            let last = i == n - 1;
            let keep = if last { keep_of(chunk.len() as u32) } else { 0xFF };
            (u64::from_le_bytes(w), last, keep)
        })
        .collect()
}

/// Random message generator.
pub struct MessageGen {
    rng: ChaCha8Rng,
    buf_size: u32,
    /// Share of messages that are malformed (0..=1).
    pub bad_share: f64,
}

impl MessageGen {
    pub fn new(seed: u64, buf_size: u32, bad_share: f64) -> Self {
        MessageGen { rng: ChaCha8Rng::seed_from_u64(seed), buf_size, bad_share }
    }

    /// A payload length drawn from the boundaries: 0, 1, 7, 8, 9, 15, 16, 17, the most that
    /// fits, one more, or anything in between.
    fn payload_len(&mut self, room: usize) -> usize {
        let set = [0, 1, 7, 8, 9, 15, 16, 17, room.saturating_sub(1), room, room + 1];
        if self.rng.gen_bool(0.6) {
            set[self.rng.gen_range(0..set.len())]
        } else {
            self.rng.gen_range(0..=room + 1)
        }
    }

    /// A well-formed (or, at a length boundary, oversized) message of a random kind.
    pub fn valid(&mut self) -> Vec<u8> {
        let r = &mut self.rng;
        let header = Header { bufs: r.r#gen(), mseq: r.r#gen(), mseq_ack: r.r#gen() };
        let desc = Descriptor { addr: r.r#gen(), key: r.r#gen(), len: r.r#gen() };
        let kinds = [
            Kind::Hello,
            Kind::HelloAck,
            Kind::Disconnect,
            Kind::Abort,
            Kind::SendByCopy,
            Kind::WriteComplete,
            Kind::ReadComplete,
            Kind::CreditUpdate,
            Kind::SinkAvail,
            Kind::LargeSend,
            Kind::Data,
        ];
        let kind = kinds[r.gen_range(0..kinds.len())];
        let hello = HelloParams {
            rdma_read: r.r#gen(),
            buf_size: r.gen_range(wire::MIN_BUF_SIZE..=wire::MAX_BUF_SIZE),
        };
        let xfer = r.r#gen();
        let bytes = r.r#gen();
        let mut header = header;
        let msg = match kind {
            Kind::Hello | Kind::HelloAck => {
                header.bufs = header.bufs.max(wire::MIN_POSTED);
                if kind == Kind::Hello { Message::Hello(hello) } else { Message::HelloAck(hello) }
            }
            Kind::Disconnect => Message::Disconnect,
            Kind::Abort => Message::Abort,
            Kind::SendByCopy => Message::SendByCopy { xfer },
            Kind::WriteComplete => Message::WriteComplete { xfer, bytes },
            Kind::ReadComplete => Message::ReadComplete { xfer, bytes },
            Kind::CreditUpdate => Message::CreditUpdate,
            Kind::SinkAvail => Message::SinkAvail { xfer, desc },
            Kind::LargeSend => {
                let with_desc = self.rng.r#gen();
                let room = wire::max_payload(Kind::LargeSend, with_desc, self.buf_size);
                let n = self.payload_len(room);
                let rest: u32 = self.rng.gen_range(1..1 << 20);
                let payload = self.bytes(n);
                let desc = with_desc.then_some(Descriptor { len: rest, ..desc });
                Message::LargeSend { total: n as u32 + rest, desc, payload }
            }
            Kind::Data => {
                let room = wire::max_payload(Kind::Data, false, self.buf_size);
                let n = self.payload_len(room).max(1);
                let urgent = self.rng.gen_bool(0.1);
                Message::Data { urgent, payload: self.bytes(n) }
            }
        };
        Frame { header, msg }.encode()
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        self.rng.fill(&mut v[..]);
        v
    }

    /// A malformed message: a valid one damaged in one of the ways the parser checks.
    pub fn malformed(&mut self) -> Vec<u8> {
        let mut b = self.valid();
        let fix_len = |b: &mut Vec<u8>| {
            if b.len() >= 8 {
                let n = b.len() as u32;
                b[4..8].copy_from_slice(&n.to_le_bytes());
            }
        };
        match self.rng.gen_range(0..10) {
            // truncated at any byte, length field left as it was
            0 => b.truncate(self.rng.gen_range(1..b.len().max(2))),
            // truncated, length field made to agree
            1 => {
                b.truncate(self.rng.gen_range(1..b.len().max(2)));
                fix_len(&mut b);
            }
            // extended by a few bytes, length agreeing
            2 => {
                let n = self.rng.gen_range(1..24);
                b.extend(self.bytes(n));
                fix_len(&mut b);
            }
            // unknown kind
            3 => {
                let known: Vec<u8> = wire::LAYOUTS.iter().map(|l| l.mid).collect();
                loop {
                    let m: u8 = self.rng.r#gen();
                    if !known.contains(&m) {
                        b[0] = m;
                        break;
                    }
                }
            }
            // a random flag bit flipped (reserved bits, DESC, URGENT)
            4 => b[1] ^= 1 << self.rng.gen_range(0..8),
            // any byte of the fixed part flipped
            5 => {
                let i = self.rng.gen_range(0..usize::min(b.len(), 40));
                b[i] ^= 1 << self.rng.gen_range(0..8);
            }
            // the length field alone changed
            6 => {
                let d: u32 = self.rng.gen_range(1..64);
                let n = (b.len() as u32).wrapping_add(d).wrapping_sub(32);
                b[4..8].copy_from_slice(&n.to_le_bytes());
            }
            // longer than the buffer
            7 => {
                let n = self.buf_size as usize + self.rng.gen_range(1..40) - b.len().min(16);
                b.extend(self.bytes(n));
                fix_len(&mut b);
            }
            // a field out of range: LargeSend totals and lengths, Hello version and sizes
            9 => {
                let desc = self.rng.r#gen();
                let n = self.rng.gen_range(0..64usize);
                let total: u32 = match self.rng.gen_range(0..3) {
                    0 => n as u32,
                    1 => self.rng.gen_range(0..=n as u32),
                    _ => n as u32 + self.rng.gen_range(1..1000),
                };
                let mut f = Frame {
                    header: Header::default(),
                    msg: Message::LargeSend {
                        total: total.max(1),
                        desc: None,
                        payload: self.bytes(n),
                    },
                };
                if desc {
                    let off: u32 = self.rng.gen_range(1..3);
                    let len = total.wrapping_sub(n as u32).wrapping_add(off);
                    f.msg = Message::LargeSend {
                        total: total.max(1),
                        desc: Some(Descriptor { addr: 0, key: 0, len }),
                        payload: self.bytes(n),
                    };
                }
                b = f.encode();
                if self.rng.gen_bool(0.3) {
                    // a Hello with a bad version, buffer size or posted count
                    let mut h = Frame {
                        header: Header { bufs: self.rng.gen_range(0..8), ..Header::default() },
                        msg: Message::Hello(HelloParams { rdma_read: true, buf_size: 4096 }),
                    }
                    .encode();
                    match self.rng.gen_range(0..3) {
                        0 => h[16] = self.rng.r#gen(),
                        1 => {
                            h[20..24].copy_from_slice(&self.rng.gen_range(0..200u32).to_le_bytes())
                        }
                        _ => {}
                    }
                    b = h;
                }
            }
            // garbage
            _ => {
                let n = self.rng.gen_range(1..64);
                b = self.bytes(n);
            }
        }
        if b.is_empty() {
            b.push(0);
        }
        b
    }

    /// The next message: valid or malformed by `bad_share`.
    pub fn next_message(&mut self) -> Vec<u8> {
        if self.rng.gen_bool(self.bad_share) { self.malformed() } else { self.valid() }
    }
}

/// Drives the parser's inputs cycle by cycle: messages as beats with random valid gaps,
/// random output backpressure, and a random connection per message.
pub struct ParserDriver {
    rng: ChaCha8Rng,
    pub messages: MessageGen,
    /// Messages sent, in order, with their connection (as the parser sees them: cut at the
    /// last beat's highest kept byte).
    pub sent: Vec<(u8, Vec<u8>)>,
    /// The receive-buffer id each sent message carried in `tuser`.
    pub sent_buf: Vec<u8>,
    /// The beats each sent message took (one more than its bytes need when its last beat
    /// kept no byte).
    pub sent_beats: Vec<usize>,
    current: Vec<(u64, bool, u8)>,
    pos: usize,
    conn: u8,
    buf: u8,
    connections: u16,
    /// Probability that `in_valid` is high when a beat is waiting.
    pub valid_rate: f64,
    /// Probability that each output's `ready` is high.
    pub ready_rate: f64,
    /// Keep every sent message (for transaction checks); off for long runs.
    pub record: bool,
    pending: Option<ParserIn>,
}

impl ParserDriver {
    pub fn new(seed: u64, buf_size: u32, connections: u16, bad_share: f64) -> Self {
        ParserDriver {
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0xD1CE),
            messages: MessageGen::new(seed, buf_size, bad_share),
            sent: Vec::new(),
            sent_buf: Vec::new(),
            sent_beats: Vec::new(),
            current: Vec::new(),
            pos: 0,
            conn: 0,
            buf: 0,
            connections,
            valid_rate: 0.8,
            ready_rate: 0.8,
            record: true,
            pending: None,
        }
    }

    /// Inputs for the coming cycle. Call [`ParserDriver::advance`] after the edge with
    /// whether the beat was taken.
    pub fn inputs(&mut self) -> ParserIn {
        if self.pos >= self.current.len() {
            let mut m = self.messages.next_message();
            self.current = beats(&m);
            // Now and then a last beat with holes or no bytes at all: the parser counts up
            // to the highest kept byte, so the message it sees is cut there.
            let beats_before_last = self.current.len() - 1;
            if let Some(l) = self.current.last_mut().filter(|_| self.rng.gen_bool(0.05)) {
                l.2 = if self.rng.gen_bool(0.3) { 0 } else { l.2 & self.rng.r#gen::<u8>() };
                m.truncate(beats_before_last * 8 + keep_bytes(l.2) as usize);
            }
            self.pos = 0;
            // Ids up to and one past the configured connections (the parser carries them
            // without looking them up), and any buffer id.
            let top = (self.connections as u32 + 1).min(256);
            self.conn = self.rng.gen_range(0..top) as u8;
            self.buf = self.rng.r#gen();
            if self.record {
                self.sent.push((self.conn, m));
                self.sent_buf.push(self.buf);
                self.sent_beats.push(self.current.len());
            }
        }
        // Once valid, a beat stays valid until taken (stream rule).
        let i = match self.pending {
            Some(i) => i,
            None => {
                let (data, last, keep) = self.current[self.pos];
                let valid = self.rng.gen_bool(self.valid_rate);
                let i = if valid {
                    ParserIn {
                        s_axis_rx_tvalid: true,
                        s_axis_rx_tdata: data,
                        s_axis_rx_tlast: last,
                        // Any enables on beats before the last: they are taken as full.
                        s_axis_rx_tkeep: if last || self.rng.gen_bool(0.9) {
                            keep
                        } else {
                            self.rng.r#gen()
                        },
                        s_axis_rx_tuser: user::pack(self.conn, self.buf),
                        ..ParserIn::default()
                    }
                } else {
                    ParserIn {
                        s_axis_rx_tdata: self.rng.r#gen(),
                        s_axis_rx_tlast: self.rng.r#gen(),
                        s_axis_rx_tkeep: self.rng.r#gen(),
                        s_axis_rx_tuser: self.rng.r#gen(),
                        ..ParserIn::default()
                    }
                };
                if valid {
                    self.pending = Some(i);
                }
                i
            }
        };
        ParserIn {
            m_axis_hdr_tready: self.rng.gen_bool(self.ready_rate),
            m_axis_pay_tready: self.rng.gen_bool(self.ready_rate),
            cnt_rd_index: self.rng.gen_range(0..1 << crate::params::CNT_INDEX_BITS),
            ..i
        }
    }

    /// A reset was applied (by the harness): the message in flight is abandoned, as the
    /// parser abandons it.
    pub fn reset(&mut self) {
        self.pending = None;
        self.pos = self.current.len();
    }

    /// After the edge: `taken` = in_valid && in_ready during the cycle.
    pub fn advance(&mut self, taken: bool) {
        if taken {
            self.pending = None;
            self.pos += 1;
        }
    }
}

impl crate::ports::Stimulus<ParserIn, super::parser::ParserOut> for ParserDriver {
    fn next(&mut self) -> ParserIn {
        self.inputs()
    }
    fn observe(&mut self, i: &ParserIn, o: &super::parser::ParserOut) {
        self.advance(i.s_axis_rx_tvalid && o.s_axis_rx_tready);
    }
    fn reset(&mut self) {
        ParserDriver::reset(self)
    }
}
