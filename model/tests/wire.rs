//! The wire format, byte by byte: golden vectors for every message kind, round trips, the
//! decoder's behaviour on arbitrary and mutated bytes, and one malformed message per
//! `ParseError`. `docs/PROTOCOL.md` cites these tests by name.

use proptest::prelude::*;
use sanswitch_model::wire::{
    Descriptor, Frame, HEADER_BYTES, Header, HelloParams, Kind, MAX_BUF_SIZE, MIN_BUF_SIZE,
    MIN_POSTED, Message, ParseError, max_payload,
};

/// Buffer size the golden vectors are decoded with.
const BUF: usize = 4096;

/// The header every golden vector carries: bufs 8, mseq 0x11223344, mseq_ack 0x55667788.
fn hdr() -> Header {
    Header { bufs: 8, mseq: 0x1122_3344, mseq_ack: 0x5566_7788 }
}

const DESC: Descriptor =
    Descriptor { addr: 0x0123_4567_89AB_CDEF, key: 0xDEAD_BEEF, len: 0x0001_7000 };

/// Encoding gives exactly `bytes`, and decoding `bytes` gives the frame back.
fn golden(msg: Message, bytes: &[u8]) {
    let f = Frame { header: hdr(), msg };
    assert_eq!(f.encode(), bytes, "encoding of {:?}", f.msg.kind());
    assert_eq!(f.msg.wire_len(), bytes.len());
    assert_eq!(Frame::decode(bytes, BUF), Ok(f));
}

// ------------------------------------------------------------------------------------------
// Golden vectors. Beat 0: mid, flags, bufs (LE16), len (LE32). Beat 1: mseq, mseq_ack (LE32).

#[test]
fn golden_hello() {
    golden(
        Message::Hello(HelloParams { rdma_read: true, buf_size: 4096 }),
        &[
            0x00, 0x00, 0x08, 0x00, 0x18, 0x00, 0x00, 0x00, // mid 00, flags, bufs 8, len 24
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, // mseq, mseq_ack
            0x01, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00,
            0x00, // version 1, cap RDMA_READ, rsvd, buf_size 4096
        ],
    );
}

#[test]
fn golden_hello_ack() {
    golden(
        Message::HelloAck(HelloParams { rdma_read: false, buf_size: 65_536 }),
        &[
            0x01, 0x00, 0x08, 0x00, 0x18, 0x00, 0x00, 0x00, //
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
            0x00, // version 1, no caps, buf_size 65536
        ],
    );
}

#[test]
fn golden_disconnect() {
    golden(
        Message::Disconnect,
        &[
            0x02, 0x00, 0x08, 0x00, 0x10, 0x00, 0x00, 0x00, //
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55,
        ],
    );
}

#[test]
fn golden_abort() {
    golden(
        Message::Abort,
        &[
            0x03, 0x00, 0x08, 0x00, 0x10, 0x00, 0x00, 0x00, //
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55,
        ],
    );
}

#[test]
fn golden_send_by_copy() {
    golden(
        Message::SendByCopy { xfer: 0xA1B2_C3D4 },
        &[
            0x04, 0x00, 0x08, 0x00, 0x18, 0x00, 0x00, 0x00, //
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x00, 0x00, 0x00, 0x00, 0xD4, 0xC3, 0xB2, 0xA1, // reserved 0, xfer
        ],
    );
}

#[test]
fn golden_write_complete() {
    golden(
        Message::WriteComplete { xfer: 0xA1B2_C3D4, bytes: 0x0001_7000 },
        &[
            0x05, 0x00, 0x08, 0x00, 0x18, 0x00, 0x00, 0x00, //
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x00, 0x70, 0x01, 0x00, 0xD4, 0xC3, 0xB2, 0xA1, // bytes, xfer
        ],
    );
}

#[test]
fn golden_write_complete_abandoned() {
    golden(
        Message::WriteComplete { xfer: 7, bytes: 0 },
        &[
            0x05, 0x00, 0x08, 0x00, 0x18, 0x00, 0x00, 0x00, //
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, // bytes 0 = abandoned, xfer 7
        ],
    );
}

#[test]
fn golden_read_complete() {
    golden(
        Message::ReadComplete { xfer: 0x0102_0304, bytes: 0x0000_FFFF },
        &[
            0x06, 0x00, 0x08, 0x00, 0x18, 0x00, 0x00, 0x00, //
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0xFF, 0xFF, 0x00, 0x00, 0x04, 0x03, 0x02, 0x01, // bytes, xfer
        ],
    );
}

#[test]
fn golden_credit_update() {
    golden(
        Message::CreditUpdate,
        &[
            0x07, 0x00, 0x08, 0x00, 0x10, 0x00, 0x00, 0x00, //
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55,
        ],
    );
}

#[test]
fn golden_sink_avail() {
    golden(
        Message::SinkAvail { xfer: 0xA1B2_C3D4, desc: DESC },
        &[
            0xFD, 0x02, 0x08, 0x00, 0x28, 0x00, 0x00, 0x00, // flags DESC, len 40
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x00, 0x00, 0x00, 0x00, 0xD4, 0xC3, 0xB2, 0xA1, // reserved 0, xfer
            0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, // desc.addr
            0xEF, 0xBE, 0xAD, 0xDE, 0x00, 0x70, 0x01, 0x00, // desc.key, desc.len
        ],
    );
}

#[test]
fn golden_large_send_with_descriptor() {
    golden(
        Message::LargeSend {
            total: 0x0001_7005,
            desc: Some(DESC),
            payload: vec![0xAA, 0xBB, 0xCC, 0xDD, 0xEE],
        },
        &[
            0xFE, 0x02, 0x08, 0x00, 0x2D, 0x00, 0x00, 0x00, // flags DESC, len 45
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x05, 0x70, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, // total, reserved 0
            0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, // desc.addr
            0xEF, 0xBE, 0xAD, 0xDE, 0x00, 0x70, 0x01, 0x00, // desc.key, desc.len = total - 5
            0xAA, 0xBB, 0xCC, 0xDD, 0xEE, // inline payload
        ],
    );
}

#[test]
fn golden_large_send_with_descriptor_and_no_inline_bytes() {
    golden(
        Message::LargeSend {
            total: 0x1000,
            desc: Some(Descriptor { addr: 0x1000_0000, key: 1, len: 0x1000 }),
            payload: vec![],
        },
        &[
            0xFE, 0x02, 0x08, 0x00, 0x28, 0x00, 0x00, 0x00, //
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, //
            0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, //
            0x01, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00,
        ],
    );
}

#[test]
fn golden_large_send_without_descriptor() {
    golden(
        Message::LargeSend { total: 0x0001_0003, desc: None, payload: vec![0x01, 0x02, 0x03] },
        &[
            0xFE, 0x00, 0x08, 0x00, 0x1B, 0x00, 0x00, 0x00, // no flags, len 27
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, // total, reserved 0
            0x01, 0x02, 0x03, // inline payload
        ],
    );
}

#[test]
fn golden_data() {
    golden(
        Message::Data { urgent: false, payload: b"hello".to_vec() },
        &[
            0xFF, 0x00, 0x08, 0x00, 0x15, 0x00, 0x00, 0x00, // len 21
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x68, 0x65, 0x6C, 0x6C, 0x6F,
        ],
    );
}

#[test]
fn golden_data_urgent() {
    golden(
        Message::Data { urgent: true, payload: vec![0x21] },
        &[
            0xFF, 0x01, 0x08, 0x00, 0x11, 0x00, 0x00, 0x00, // flags URGENT, len 17
            0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, //
            0x21,
        ],
    );
}

#[test]
fn message_exactly_filling_the_buffer_is_accepted() {
    let payload = vec![0x5A; MIN_BUF_SIZE as usize - HEADER_BYTES];
    let f = Frame { header: hdr(), msg: Message::Data { urgent: false, payload } };
    let b = f.encode();
    assert_eq!(b.len(), MIN_BUF_SIZE as usize);
    assert_eq!(Frame::decode(&b, MIN_BUF_SIZE as usize), Ok(f));
}

// ------------------------------------------------------------------------------------------
// Strategies.

fn header() -> impl Strategy<Value = Header> {
    (any::<u16>(), any::<u32>(), any::<u32>()).prop_map(|(bufs, mseq, mseq_ack)| Header {
        bufs,
        mseq,
        mseq_ack,
    })
}

fn bytes(len: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), len)
}

fn payload(min: usize, max: usize) -> impl Strategy<Value = Vec<u8>> {
    (min..=max).prop_flat_map(bytes)
}

fn hello_params() -> impl Strategy<Value = HelloParams> {
    (any::<bool>(), MIN_BUF_SIZE..=MAX_BUF_SIZE)
        .prop_map(|(rdma_read, buf_size)| HelloParams { rdma_read, buf_size })
}

fn descriptor_of_len(len: u32) -> impl Strategy<Value = Descriptor> {
    (any::<u64>(), any::<u32>()).prop_map(move |(addr, key)| Descriptor { addr, key, len })
}

/// A valid message of every kind that fits a buffer of `buf` bytes.
fn message(buf: u32) -> impl Strategy<Value = Message> {
    let data_room = max_payload(Kind::Data, false, buf);
    let large = any::<bool>().prop_flat_map(move |with_desc| {
        let room = max_payload(Kind::LargeSend, with_desc, buf);
        payload(0, room).prop_flat_map(move |payload| {
            let inline = payload.len() as u32;
            (inline + 1..=u32::MAX).prop_flat_map(move |total| {
                let payload = payload.clone();
                let desc = if with_desc {
                    descriptor_of_len(total - inline).prop_map(Some).boxed()
                } else {
                    Just(None).boxed()
                };
                desc.prop_map(move |desc| Message::LargeSend {
                    total,
                    desc,
                    payload: payload.clone(),
                })
            })
        })
    });
    prop_oneof![
        1 => hello_params().prop_map(Message::Hello),
        1 => hello_params().prop_map(Message::HelloAck),
        1 => Just(Message::Disconnect),
        1 => Just(Message::Abort),
        1 => Just(Message::CreditUpdate),
        1 => any::<u32>().prop_map(|xfer| Message::SendByCopy { xfer }),
        1 => (any::<u32>(), any::<u32>())
            .prop_map(|(xfer, bytes)| Message::WriteComplete { xfer, bytes }),
        1 => (any::<u32>(), any::<u32>()).prop_map(|(xfer, bytes)| Message::ReadComplete { xfer, bytes }),
        1 => (any::<u32>(), any::<u32>().prop_flat_map(descriptor_of_len))
            .prop_map(|(xfer, desc)| Message::SinkAvail { xfer, desc }),
        3 => large,
        3 => (any::<bool>(), payload(1, data_room))
            .prop_map(|(urgent, payload)| Message::Data { urgent, payload }),
    ]
}

/// A buffer size (mostly small, sometimes the largest) and a valid frame that fits it.
fn sized_frame() -> impl Strategy<Value = (u32, Frame)> {
    prop_oneof![9 => MIN_BUF_SIZE..=600u32, 1 => Just(MAX_BUF_SIZE)].prop_flat_map(|buf| {
        (Just(buf), header(), message(buf), MIN_POSTED..=u16::MAX).prop_map(
            |(buf, mut header, msg, hello_bufs)| {
                if matches!(msg, Message::Hello(_) | Message::HelloAck(_)) {
                    header.bufs = hello_bufs;
                }
                (buf, Frame { header, msg })
            },
        )
    })
}

/// How a valid encoding is damaged.
#[derive(Clone, Debug)]
enum Mutation {
    /// XOR one byte with a non-zero mask.
    Flip(prop::sample::Index, u8),
    /// Cut to a shorter length.
    Truncate(prop::sample::Index),
    /// Cut, and rewrite the length field to match (when the header survives).
    TruncateFixLen(prop::sample::Index),
    /// Append bytes.
    Extend(Vec<u8>),
    /// Append bytes and rewrite the length field to match.
    ExtendFixLen(Vec<u8>),
    /// Replace the message id.
    SetMid(u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<prop::sample::Index>(), 1..=255u8).prop_map(|(i, m)| Mutation::Flip(i, m)),
        1 => any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        1 => any::<prop::sample::Index>().prop_map(Mutation::TruncateFixLen),
        1 => payload(1, 48).prop_map(Mutation::Extend),
        1 => payload(1, 48).prop_map(Mutation::ExtendFixLen),
        1 => any::<u8>().prop_map(Mutation::SetMid),
    ]
}

fn fix_len(b: &mut [u8]) {
    if b.len() >= 8 {
        let n = b.len() as u32;
        b[4..8].copy_from_slice(&n.to_le_bytes());
    }
}

fn mutate(mut b: Vec<u8>, m: &Mutation) -> Vec<u8> {
    match m {
        Mutation::Flip(i, mask) => {
            let at = i.index(b.len());
            b[at] ^= mask;
        }
        Mutation::Truncate(i) => b.truncate(i.index(b.len())),
        Mutation::TruncateFixLen(i) => {
            b.truncate(i.index(b.len()));
            fix_len(&mut b);
        }
        Mutation::Extend(x) => b.extend_from_slice(x),
        Mutation::ExtendFixLen(x) => {
            b.extend_from_slice(x);
            fix_len(&mut b);
        }
        Mutation::SetMid(mid) => b[0] = *mid,
    }
    b
}

/// What must hold for any input: an error describes the bytes it was given, and a success
/// is the one canonical encoding of its frame.
fn check_decode(b: &[u8], buf: usize) -> Result<(), TestCaseError> {
    match Frame::decode(b, buf) {
        Ok(f) => {
            prop_assert_eq!(f.encode(), b, "accepted bytes must be canonical");
        }
        Err(ParseError::TooLong { len, max }) => {
            prop_assert_eq!((len, max), (b.len(), buf));
            prop_assert!(len > max);
        }
        Err(ParseError::Truncated { got, need }) => {
            prop_assert_eq!(got, b.len());
            prop_assert!(got < need);
        }
        Err(ParseError::LengthMismatch { field, got }) => {
            prop_assert_eq!(got, b.len());
            prop_assert_ne!(field as usize, got);
        }
        Err(e) => prop_assert!(e.index() < ParseError::COUNT),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn prop_roundtrip_every_kind((buf, f) in sized_frame()) {
        let b = f.encode();
        prop_assert_eq!(b.len(), f.msg.wire_len());
        prop_assert!(b.len() <= buf as usize);
        prop_assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()) as usize, b.len());
        prop_assert_eq!(Frame::decode(&b, buf as usize), Ok(f));
    }

    #[test]
    fn prop_decode_random_bytes_never_panics(b in payload(0, 300), buf in 0usize..=400) {
        check_decode(&b, buf)?;
    }

    #[test]
    fn prop_decode_random_bytes_with_valid_len_never_panics(
        mut b in payload(16, 300),
        mid in prop::sample::select(vec![0x00u8, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0xFD, 0xFE, 0xFF]),
        flags in 0u8..4,
    ) {
        // Past the length check, so every later check is reached with random contents.
        b[0] = mid;
        b[1] = flags;
        fix_len(&mut b);
        check_decode(&b, 300)?;
    }

    #[test]
    fn prop_decode_mutated_encodings_never_panics((buf, f) in sized_frame(), m in mutation()) {
        let b = mutate(f.encode(), &m);
        check_decode(&b, buf as usize)?;
        check_decode(&b, MAX_BUF_SIZE as usize)?;
    }
}

// ------------------------------------------------------------------------------------------
// One malformed message per ParseError, with the exact error.

/// A bare 16-byte header.
fn raw(mid: u8, flags: u8, bufs: u16, len: u32) -> Vec<u8> {
    let mut b = vec![mid, flags];
    b.extend_from_slice(&bufs.to_le_bytes());
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(&[0x01, 0, 0, 0, 0x00, 0, 0, 0]); // mseq 1, mseq_ack 0
    b
}

/// A header of `mid`/`flags` followed by `rest`, with a correct length field.
fn msg(mid: u8, flags: u8, bufs: u16, rest: &[u8]) -> Vec<u8> {
    let mut b = raw(mid, flags, bufs, (HEADER_BYTES + rest.len()) as u32);
    b.extend_from_slice(rest);
    b
}

fn desc_bytes(addr: u64, key: u32, len: u32) -> Vec<u8> {
    let mut b = addr.to_le_bytes().to_vec();
    b.extend_from_slice(&key.to_le_bytes());
    b.extend_from_slice(&len.to_le_bytes());
    b
}

fn hello_ext(version: u8, caps: u8, rsvd: [u8; 2], buf_size: u32) -> Vec<u8> {
    let mut b = vec![version, caps, rsvd[0], rsvd[1]];
    b.extend_from_slice(&buf_size.to_le_bytes());
    b
}

fn large_ext(total: u32, rsvd: u32) -> Vec<u8> {
    let mut b = total.to_le_bytes().to_vec();
    b.extend_from_slice(&rsvd.to_le_bytes());
    b
}

fn dec(b: &[u8]) -> Result<Frame, ParseError> {
    Frame::decode(b, BUF)
}

#[test]
fn parse_error_truncated() {
    // Shorter than a header.
    assert_eq!(dec(&[]), Err(ParseError::Truncated { got: 0, need: 16 }));
    assert_eq!(
        dec(&[0x07, 0x00, 0x08, 0x00, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00]),
        Err(ParseError::Truncated { got: 10, need: 16 })
    );
    // A whole header, but shorter than the kind's fixed part (len field agrees).
    assert_eq!(dec(&raw(0x04, 0, 8, 16)), Err(ParseError::Truncated { got: 16, need: 24 }));
    assert_eq!(dec(&raw(0x00, 0, 8, 16)), Err(ParseError::Truncated { got: 16, need: 24 }));
    assert_eq!(dec(&msg(0xFD, 0x02, 8, &[0; 8])), Err(ParseError::Truncated { got: 24, need: 40 }));
    assert_eq!(
        dec(&msg(0xFE, 0x02, 8, &large_ext(100, 0))),
        Err(ParseError::Truncated { got: 24, need: 40 })
    );
    assert_eq!(
        dec(&msg(0xFE, 0x00, 8, &[1, 0, 0])),
        Err(ParseError::Truncated { got: 19, need: 24 })
    );
}

#[test]
fn parse_error_length_mismatch() {
    // CreditUpdate whose len field says 17 but 16 bytes arrived.
    assert_eq!(
        dec(&[
            0x07, 0x00, 0x08, 0x00, 0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00
        ]),
        Err(ParseError::LengthMismatch { field: 17, got: 16 })
    );
    // Data with one byte more than its len field.
    let mut b = msg(0xFF, 0, 8, b"abc");
    b.push(b'd');
    assert_eq!(dec(&b), Err(ParseError::LengthMismatch { field: 19, got: 20 }));
}

#[test]
fn parse_error_unknown_kind() {
    for mid in [0x08u8, 0x0F, 0x80, 0xFC] {
        assert_eq!(dec(&raw(mid, 0, 8, 16)), Err(ParseError::UnknownKind(mid)));
    }
}

#[test]
fn parse_error_reserved_bits() {
    // Reserved flag bits on any kind.
    for flags in [0x04u8, 0x80] {
        assert_eq!(dec(&raw(0x07, flags, 8, 16)), Err(ParseError::ReservedBits));
        assert_eq!(dec(&msg(0xFF, flags, 8, b"x")), Err(ParseError::ReservedBits));
    }
    // URGENT on anything but Data.
    assert_eq!(dec(&raw(0x02, 0x01, 8, 16)), Err(ParseError::ReservedBits));
    assert_eq!(dec(&msg(0xFE, 0x01, 8, &large_ext(100, 0))), Err(ParseError::ReservedBits));
    // Hello: reserved capability bits, reserved bytes 2 and 3 of the extension.
    assert_eq!(
        dec(&msg(0x00, 0, 8, &hello_ext(1, 0x02, [0, 0], 4096))),
        Err(ParseError::ReservedBits)
    );
    assert_eq!(
        dec(&msg(0x01, 0, 8, &hello_ext(1, 0x01, [1, 0], 4096))),
        Err(ParseError::ReservedBits)
    );
    assert_eq!(
        dec(&msg(0x00, 0, 8, &hello_ext(1, 0x00, [0, 0x80], 4096))),
        Err(ParseError::ReservedBits)
    );
    // SendByCopy and SinkAvail: the low word of the extension; LargeSend: the high word.
    assert_eq!(dec(&msg(0x04, 0, 8, &large_ext(1, 5))), Err(ParseError::ReservedBits));
    let mut sink = large_ext(1, 5);
    sink.extend(desc_bytes(0x1000, 1, 64));
    assert_eq!(dec(&msg(0xFD, 0x02, 8, &sink)), Err(ParseError::ReservedBits));
    assert_eq!(dec(&msg(0xFE, 0x00, 8, &large_ext(100, 1))), Err(ParseError::ReservedBits));
}

#[test]
fn parse_error_descriptor_misplaced() {
    // DESC where none belongs.
    assert_eq!(dec(&msg(0xFF, 0x02, 8, b"abc")), Err(ParseError::DescriptorMisplaced));
    assert_eq!(dec(&raw(0x07, 0x02, 8, 16)), Err(ParseError::DescriptorMisplaced));
    assert_eq!(dec(&msg(0x06, 0x02, 8, &[0; 8])), Err(ParseError::DescriptorMisplaced));
    // Missing where one is required.
    let mut sink = large_ext(0, 1);
    sink.extend(desc_bytes(0x1000, 1, 64));
    assert_eq!(dec(&msg(0xFD, 0x00, 8, &sink)), Err(ParseError::DescriptorMisplaced));
}

#[test]
fn parse_error_payload_misplaced() {
    // Bytes after the fixed part of a kind that carries no payload.
    assert_eq!(dec(&msg(0x07, 0, 8, &[0x00])), Err(ParseError::PayloadMisplaced));
    assert_eq!(dec(&msg(0x02, 0, 8, &[0; 8])), Err(ParseError::PayloadMisplaced));
    let mut rc = vec![0; 8];
    rc.push(0xAA);
    assert_eq!(dec(&msg(0x06, 0, 8, &rc)), Err(ParseError::PayloadMisplaced));
    let mut sink = large_ext(0, 1);
    sink.extend(desc_bytes(0x1000, 1, 64));
    sink.push(0);
    assert_eq!(dec(&msg(0xFD, 0x02, 8, &sink)), Err(ParseError::PayloadMisplaced));
    // An empty Data message (credit-only updates use CreditUpdate).
    assert_eq!(
        dec(&[
            0xFF, 0x00, 0x08, 0x00, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00
        ]),
        Err(ParseError::PayloadMisplaced)
    );
    assert_eq!(dec(&raw(0xFF, 0x01, 8, 16)), Err(ParseError::PayloadMisplaced));
}

#[test]
fn parse_error_too_long() {
    let b = msg(0xFF, 0, 8, &[0x55; 49]);
    assert_eq!(b.len(), 65);
    assert_eq!(Frame::decode(&b, 64), Err(ParseError::TooLong { len: 65, max: 64 }));
    assert!(Frame::decode(&b, 65).is_ok());
}

#[test]
fn parse_error_bad_field() {
    let hello =
        |mid, bufs, version, buf_size| msg(mid, 0, bufs, &hello_ext(version, 1, [0, 0], buf_size));
    assert!(dec(&hello(0x00, 4, 1, 64)).is_ok());
    assert!(dec(&hello(0x01, 4, 1, 65_536)).is_ok());
    // Version.
    assert_eq!(dec(&hello(0x00, 8, 0, 4096)), Err(ParseError::BadField));
    assert_eq!(dec(&hello(0x01, 8, 2, 4096)), Err(ParseError::BadField));
    // Buffer size outside MIN_BUF_SIZE..=MAX_BUF_SIZE.
    assert_eq!(dec(&hello(0x00, 8, 1, 63)), Err(ParseError::BadField));
    assert_eq!(dec(&hello(0x00, 8, 1, 65_537)), Err(ParseError::BadField));
    assert_eq!(dec(&hello(0x01, 8, 1, 0)), Err(ParseError::BadField));
    // Fewer than MIN_POSTED buffers posted.
    assert_eq!(dec(&hello(0x00, 3, 1, 4096)), Err(ParseError::BadField));
    assert_eq!(dec(&hello(0x01, 0, 1, 4096)), Err(ParseError::BadField));
    // LargeSend total not above the inline part.
    let mut ls = large_ext(3, 0);
    ls.extend_from_slice(&[1, 2, 3]);
    assert_eq!(dec(&msg(0xFE, 0, 8, &ls)), Err(ParseError::BadField));
    let mut ls = large_ext(2, 0);
    ls.extend_from_slice(&[1, 2, 3]);
    assert_eq!(dec(&msg(0xFE, 0, 8, &ls)), Err(ParseError::BadField));
    assert_eq!(dec(&msg(0xFE, 0, 8, &large_ext(0, 0))), Err(ParseError::BadField));
    // Descriptor not covering exactly total - inline.
    for len in [96, 98, 100, 0] {
        let mut ls = large_ext(100, 0);
        ls.extend(desc_bytes(0x1000, 1, len));
        ls.extend_from_slice(&[1, 2, 3]);
        assert_eq!(dec(&msg(0xFE, 0x02, 8, &ls)), Err(ParseError::BadField), "desc.len {len}");
    }
    let mut ls = large_ext(100, 0);
    ls.extend(desc_bytes(0x1000, 1, 97));
    ls.extend_from_slice(&[1, 2, 3]);
    assert!(dec(&msg(0xFE, 0x02, 8, &ls)).is_ok());
}

/// When several things are wrong, the first check in `Frame::decode`'s order reports.
#[test]
fn parse_error_check_order() {
    // 1. TooLong before everything (even a short len field).
    assert_eq!(Frame::decode(&[0xEE; 80], 64), Err(ParseError::TooLong { len: 80, max: 64 }));
    // 2. Truncated header before the len field is read.
    assert_eq!(Frame::decode(&[0xEE; 15], 64), Err(ParseError::Truncated { got: 15, need: 16 }));
    // 3. LengthMismatch before the message id.
    assert_eq!(
        dec(&raw(0x99, 0xFF, 8, 20)),
        Err(ParseError::LengthMismatch { field: 20, got: 16 })
    );
    // 4. UnknownKind before flags.
    assert_eq!(dec(&raw(0x99, 0xFF, 8, 16)), Err(ParseError::UnknownKind(0x99)));
    // 5. ReservedBits (flags) before the descriptor rule.
    assert_eq!(dec(&raw(0x07, 0x03, 8, 16)), Err(ParseError::ReservedBits));
    // 6. DescriptorMisplaced before the fixed-part length.
    assert_eq!(dec(&raw(0x04, 0x02, 8, 16)), Err(ParseError::DescriptorMisplaced));
    // 7. Truncated fixed part before the payload rule.
    assert_eq!(dec(&raw(0xFD, 0x02, 8, 16)), Err(ParseError::Truncated { got: 16, need: 40 }));
    // 8. PayloadMisplaced before the kind's extension fields.
    let mut b = hello_ext(9, 0xFF, [1, 1], 0);
    b.push(0);
    assert_eq!(dec(&msg(0x00, 0, 0, &b)), Err(ParseError::PayloadMisplaced));
    // 9. Reserved extension bits before field ranges.
    assert_eq!(
        dec(&msg(0x00, 0, 0, &hello_ext(9, 0xFF, [0, 0], 0))),
        Err(ParseError::ReservedBits)
    );
    assert_eq!(dec(&msg(0xFE, 0, 8, &large_ext(0, 1))), Err(ParseError::ReservedBits));
    // 10. BadField last.
    assert_eq!(dec(&msg(0x00, 0, 0, &hello_ext(9, 0x01, [0, 0], 0))), Err(ParseError::BadField));
}

#[test]
fn parse_error_indices_and_names_are_distinct() {
    let all = [
        ParseError::Truncated { got: 0, need: 16 },
        ParseError::LengthMismatch { field: 0, got: 16 },
        ParseError::UnknownKind(0x08),
        ParseError::ReservedBits,
        ParseError::DescriptorMisplaced,
        ParseError::PayloadMisplaced,
        ParseError::TooLong { len: 65, max: 64 },
        ParseError::BadField,
    ];
    assert_eq!(all.len(), ParseError::COUNT);
    for (i, e) in all.iter().enumerate() {
        assert_eq!(e.index(), i);
    }
    let mut names = ParseError::NAMES.to_vec();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), ParseError::COUNT);
}
