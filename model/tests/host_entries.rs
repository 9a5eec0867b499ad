//! The host entries: every field round-trips at its limits, fields do not overlap and fill
//! the entry, bad entries are refused, and `docs/HOST-ENTRIES.md` is what the tables say.

use proptest::prelude::*;
use sanswitch_model::WsaError;
use sanswitch_model::host::*;

fn layout_is_tight(fields: &[Field], bytes: usize) {
    let mut next = 0;
    for f in fields {
        assert_eq!(f.lsb, next, "{} starts where the field before it ends", f.name);
        next = f.lsb + f.bits;
    }
    assert_eq!(next, bytes * 8, "the fields fill the entry");
}

#[test]
fn fields_are_contiguous_and_fill_the_entries() {
    layout_is_tight(&COMMAND_FIELDS, COMMAND_BYTES);
    layout_is_tight(&COMPLETION_FIELDS, COMPLETION_BYTES);
}

#[test]
fn fields_sit_where_the_doc_says_little_endian() {
    let c = Command {
        opcode: Opcode::Send.code(),
        flags: 0,
        conn: 0x0102,
        tag: 0x0304_0506,
        addr: 0x0708_090a_0b0c_0d0e,
        len: 0x0f10_1112,
        aux: 0x1314_1516_1718_191a,
    };
    let b = c.encode();
    assert_eq!(b[0], 4);
    assert_eq!(b[2..4], [0x02, 0x01]);
    assert_eq!(b[4..8], [0x06, 0x05, 0x04, 0x03]);
    assert_eq!(b[8..16], 0x0708_090a_0b0c_0d0eu64.to_le_bytes());
    assert_eq!(b[16..20], 0x0f10_1112u32.to_le_bytes());
    assert_eq!(b[20..24], [0; 4]);
    assert_eq!(b[24..32], 0x1314_1516_1718_191au64.to_le_bytes());
    let k = Completion {
        tag: 9,
        bytes: 10,
        conn: 11,
        status: 10055,
        opcode: 6,
        urgent: true,
        eof: true,
    };
    let b = k.encode();
    assert_eq!(b[0..4], 9u32.to_le_bytes());
    assert_eq!(b[4..8], 10u32.to_le_bytes());
    assert_eq!(b[8..10], 11u16.to_le_bytes());
    assert_eq!(b[10..12], 10055u16.to_le_bytes());
    assert_eq!(b[12], 6);
    assert_eq!(b[13], 0b11);
    assert_eq!(b[14..16], [0, 0]);
}

proptest! {
    #[test]
    fn commands_round_trip(op in 1u8..=9, conn: u16, tag in 0..=TAG_HOST_MASK, addr: u64, len: u32, aux: u64) {
        let c = Command { opcode: op, flags: 0, conn, tag, addr, len, aux };
        prop_assert_eq!(Command::decode(&c.encode()), Ok(c));
    }

    #[test]
    fn completions_round_trip(tag: u32, bytes: u32, conn: u16, op: u8, urgent: bool, eof: bool, e in 0usize..=WsaError::ALL.len()) {
        let status = if e == WsaError::ALL.len() { 0 } else { WsaError::ALL[e].code() as u16 };
        let c = Completion { tag, bytes, conn, status, opcode: op, urgent, eof };
        prop_assert_eq!(Completion::decode(&c.encode()), Ok(c));
    }
}

#[test]
fn opcodes_at_and_past_their_limits() {
    let mut b = Command { opcode: 9, ..Command::default() }.encode();
    assert!(Command::decode(&b).is_ok());
    for bad in [0u8, 10, 255] {
        b[0] = bad;
        assert_eq!(Command::decode(&b), Err(EntryError::UnknownOpcode(bad)));
    }
}

#[test]
fn reserved_bits_must_be_zero() {
    let good = Command { opcode: 1, ..Command::default() }.encode();
    // The tag's last valid bit is 28; 29, 30, 31 (byte 7, bits 5-7) are the queue pair's.
    let top = Command { opcode: 1, tag: TAG_HOST_MASK, ..Command::default() };
    assert_eq!(Command::decode(&top.encode()), Ok(top));
    for (byte, field) in [(1, "flags"), (7, "queue_pair"), (20, "reserved"), (23, "reserved")] {
        let mut b = good;
        b[byte] |= 0x80;
        assert!(
            matches!(Command::decode(&b), Err(EntryError::NonZero { field: f, .. }) if f == field)
        );
    }
    let mut b = good;
    b[7] = 0x20; // bit 29 of the tag: one past the host's
    assert!(matches!(
        Command::decode(&b),
        Err(EntryError::NonZero { field: "queue_pair", value: 1 })
    ));
    let mut b = Completion::default().encode();
    b[13] = 0b100;
    assert!(matches!(Completion::decode(&b), Err(EntryError::NonZero { .. })));
}

#[test]
fn a_completion_ring_entry_carries_its_phase_in_the_last_bit() {
    let c = Completion { tag: 7, bytes: 9, conn: 3, opcode: 6, eof: true, ..Completion::default() };
    for phase in [false, true] {
        let b = c.encode_cq(phase);
        assert_eq!(b[15] >> 7, phase as u8, "bit 127 is the phase");
        assert_eq!(b[..15], c.encode()[..15], "the rest is the completion");
        assert_eq!(Completion::decode_cq(&b), Ok((c, phase)));
    }
    // The engine's stream never carries a phase: a plain decode refuses one.
    assert_eq!(
        Completion::decode(&c.encode_cq(true)),
        Err(EntryError::NonZero { field: "phase", value: 1 })
    );
    // The last reserved bit (126) is still reserved.
    let mut b = c.encode_cq(true);
    b[15] |= 0x40;
    assert!(matches!(
        Completion::decode_cq(&b),
        Err(EntryError::NonZero { field: "reserved", .. })
    ));
}

#[test]
fn a_status_must_be_a_winsock_code_the_switch_reports() {
    let c = Command { opcode: Opcode::Send.code(), tag: 5, ..Command::default() };
    let k = Completion::of(&c, Err(WsaError::NoBufs));
    assert_eq!((k.tag, k.status, k.error()), (5, 10055, Ok(Some(WsaError::NoBufs))));
    let mut b = k.encode();
    b[10..12].copy_from_slice(&10060u16.to_le_bytes()); // WSAETIMEDOUT: never reported
    assert_eq!(Completion::decode(&b), Err(EntryError::UnknownStatus(10060)));
}

#[test]
fn the_doc_is_generated_from_the_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/HOST-ENTRIES.md");
    let want = entries_markdown();
    if std::env::var_os("SANSWITCH_BLESS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "docs/HOST-ENTRIES.md differs from model/src/host.rs's tables: run \
         `SANSWITCH_BLESS=1 cargo test -p sanswitch-model --test host_entries`"
    );
}
