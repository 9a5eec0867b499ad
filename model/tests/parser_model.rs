//! The parser's cycle model agrees with `wire::Frame::decode` message by message, under
//! random valid gaps and output backpressure, and never loses a beat or stalls forever.

use std::collections::VecDeque;

use sanswitch_model::blocks::parser::{KindInfo, ParserModel, ParserOut, keep_bytes, keep_of};
use sanswitch_model::blocks::parser_stimulus::ParserDriver;
use sanswitch_model::params::ParserParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::wire::flag;
use sanswitch_model::wire::{Frame, Message};

/// A header record with its payload bytes and whether the payload was marked bad.
type Record = (ParserOut, Vec<u8>, bool);

/// Run `cycles` cycles; return the header records and payload bytes seen, per message.
fn run(
    p: ParserParams,
    seed: u64,
    cycles: u64,
    valid: f64,
    ready: f64,
    bad: f64,
) -> (ParserDriver, Vec<Record>, ParserModel) {
    let mut m = ParserModel::new(p);
    let mut d = ParserDriver::new(seed, p.buf_size, p.connections, bad);
    d.valid_rate = valid;
    d.ready_rate = ready;
    let mut hdrs = Vec::new();
    let mut bursts: VecDeque<(Vec<u8>, bool)> = VecDeque::new();
    let mut payload = Vec::new();
    for _ in 0..cycles {
        let i = d.inputs();
        let o = m.outputs(&i);
        if o.m_axis_pay_tvalid && i.m_axis_pay_tready {
            let n = keep_bytes(o.m_axis_pay_tkeep) as usize;
            assert_eq!(o.m_axis_pay_tkeep, keep_of(n as u32), "tkeep out is contiguous");
            assert!(o.m_axis_pay_tlast || n == 8, "only the last beat is partial");
            payload.extend_from_slice(&o.m_axis_pay_tdata.to_le_bytes()[..n]);
            if o.m_axis_pay_tlast {
                bursts.push_back((std::mem::take(&mut payload), o.pay_bad()));
            }
        }
        if o.m_axis_hdr_tvalid && i.m_axis_hdr_tready {
            hdrs.push(o);
        }
        m.clock(&i);
        d.advance(i.s_axis_rx_tvalid && o.s_axis_rx_tready);
    }
    // Pair each header with its payload burst: a message has one when its kind carries data
    // and it has beats past its fixed part.
    let mut recs = Vec::new();
    for (n, o) in hdrs.into_iter().enumerate() {
        let bytes = &d.sent[n].1;
        let k = KindInfo::of(o.m_axis_hdr_mid);
        let desc = o.m_axis_hdr_flags & flag::DESC != 0 && k.desc_allowed;
        let fixed_beats = 2 + k.ext as usize + 2 * desc as usize;
        let beats = d.sent_beats[n];
        assert!(beats == bytes.len().div_ceil(8).max(1) || bytes.len() % 8 == 0);
        let has_burst = k.payload_allowed && beats > fixed_beats;
        let (payload, bad) = if has_burst {
            match bursts.pop_front() {
                Some(b) => b,
                None => break, // its payload is still in flight at the end of the run
            }
        } else {
            (Vec::new(), false)
        };
        recs.push((o, payload, bad));
    }
    (d, recs, m)
}

fn check(p: ParserParams, seed: u64, cycles: u64, valid: f64, ready: f64, bad: f64) -> usize {
    let (d, recs, model) = run(p, seed, cycles, valid, ready, bad);
    assert!(recs.len() > 10, "too few messages: {}", recs.len());
    let mut counts = [0u32; 8];
    let mut good = 0;
    for (n, (o, payload, pay_bad)) in recs.iter().enumerate() {
        let (conn, bytes) = &d.sent[n];
        assert_eq!(o.hdr_conn(), *conn, "message {n}: connection");
        assert_eq!(o.hdr_buf(), d.sent_buf[n], "message {n}: receive buffer");
        match Frame::decode(bytes, p.buf_size as usize) {
            Ok(f) => {
                assert_eq!(
                    o.m_axis_hdr_error, 0,
                    "message {n} {bytes:02x?}: good message marked bad"
                );
                good += 1;
                assert_eq!(o.m_axis_hdr_mseq, f.header.mseq);
                assert_eq!(o.m_axis_hdr_mseq_ack, f.header.mseq_ack);
                assert_eq!(o.m_axis_hdr_bufs, f.header.bufs);
                assert_eq!(o.m_axis_hdr_len as usize, bytes.len());
                assert_eq!(&payload[..], f.msg.payload(), "message {n}: payload");
                assert!(!pay_bad);
                if let Message::SinkAvail { desc, .. }
                | Message::LargeSend { desc: Some(desc), .. } = f.msg
                {
                    assert_eq!(
                        (o.m_axis_hdr_desc_addr, o.m_axis_hdr_desc_key, o.m_axis_hdr_desc_len),
                        (desc.addr, desc.key, desc.len)
                    );
                }
            }
            Err(e) => {
                assert_eq!(
                    o.m_axis_hdr_error as usize,
                    e.index() + 1,
                    "message {n} {bytes:02x?}: {e}"
                );
                counts[e.index()] += 1;
                // Payload forwarded for a bad message is marked bad on its last beat.
                assert!(payload.is_empty() || *pay_bad, "message {n}: bad payload not marked");
            }
        }
    }
    // Counters count every message whose last beat was taken: what was delivered plus what
    // is still in the output registers.
    let in_flight = 2;
    let total: u32 = model.error_counters().iter().sum::<u32>() + model.good();
    assert!(
        total as usize >= recs.len() && (total as usize) <= recs.len() + in_flight as usize + 1
    );
    let _ = (counts, good);
    recs.len()
}

#[test]
fn parser_model_agrees_with_decode_without_backpressure() {
    let p = ParserParams::default();
    check(p, 1, 200_000, 1.0, 1.0, 0.3);
}

#[test]
fn parser_model_agrees_with_decode_under_backpressure() {
    for seed in 2..6 {
        check(ParserParams::default(), seed, 100_000, 0.7, 0.6, 0.3);
    }
}

#[test]
fn parser_model_small_buffers() {
    let p = ParserParams { connections: 256, buf_size: 64 };
    check(p, 9, 100_000, 0.9, 0.8, 0.4);
}

#[test]
fn every_error_kind_is_produced() {
    let p = ParserParams::default();
    let (_, _, m) = run(p, 3, 300_000, 1.0, 1.0, 0.5);
    for (k, c) in m.error_counters().iter().enumerate() {
        assert!(*c > 0, "error counter {k} never counted");
    }
    assert!(m.good() > 0);
}
