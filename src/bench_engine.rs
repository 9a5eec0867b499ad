//! The engine's figures for `sanswitch bench`: two engines over the cycle-level SAN
//! (`sanswitch_model::engine_pair`), driven by a host loop that keeps every connection's
//! queues full, run on the cycle model and on the Verilated engine (the cycle counts must be
//! equal), then once more in lockstep for the co-simulation speed.
//!
//! What is counted: cycles from the cycle the first send command is offered to the engine to
//! the cycle the last completion (send or receive) leaves it; only completions with status
//! 0 count, and every byte received is checked against what was sent. The connections are
//! established before the count starts. The SAN model carries one 8-byte beat per cycle and
//! direction after a fixed latency, and the host memory answers a read after a fixed latency:
//! the figures are paced by those models, and say so.

use std::rc::Rc;
use std::time::Instant;

use serde_json::{Value, json};

use sanswitch_model::blocks::engine::controller::{CtlStats, Ev};
use sanswitch_model::blocks::engine::{EngineIn, EngineModel, EngineOut};
use sanswitch_model::endpoint::{Action, Config, Event};
use sanswitch_model::engine_pair::{EnginePair, PairConfig};
use sanswitch_model::params::EngineParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::wire::HEADER_BYTES;
use sanswitch_model::workload::Backend;
use sanswitch_sim::{Checked, Rtl, VEngine, VEngineWrite};

/// Bytes a SAN beat carries.
const BEAT: u64 = 8;

/// One streaming run: `conns` connections each sending `sends` sends of `size` bytes from
/// node 0 to node 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    pub conns: usize,
    pub sends: usize,
    pub size: usize,
    /// The largest receive the application posts.
    pub recv_max: usize,
    pub san_latency: u64,
    /// The receiving engine can RDMA-read (`Some(true)`: sends above the threshold go by
    /// RDMA read) or not (`Some(false)`: by RDMA write); `None`: the default engine (which
    /// reads) for sends that take the copy path (at most `rdma_threshold` bytes).
    pub rdma: Option<bool>,
}

/// What a stream took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Streamed {
    pub cycles: u64,
    pub sends_ok: u64,
    pub recvs_ok: u64,
    pub bytes: u64,
    /// Beats node 0 sent on the SAN (data messages) and node 1 (credit updates).
    pub san_beats: [u64; 2],
}

impl Streamed {
    pub fn sends_per_cycle(&self) -> f64 {
        self.sends_ok as f64 / self.cycles as f64
    }
    pub fn bytes_per_cycle(&self) -> f64 {
        self.bytes as f64 / self.cycles as f64
    }
}

/// The byte `k` of connection `conn`'s stream.
fn pattern(conn: usize, k: u64) -> u8 {
    (k.wrapping_mul(131) ^ (conn as u64 * 29)) as u8
}

/// Run `s` on `pair`; an error names the first thing that went wrong (a failed completion,
/// a wrong byte, a stuck run).
pub fn stream<E: CycleModel<In = EngineIn, Out = EngineOut>>(
    pair: &mut EnginePair<E>,
    s: Stream,
) -> Result<Streamed, String> {
    let depth = pair.params().queue_depth as usize;
    for _ in 0..s.conns {
        pair.connect([Config::default(), Config::default()]);
    }
    while pair.step() {}
    let early = pair.take_outputs();
    if !early.is_empty() || !pair.problems().is_empty() {
        return Err(format!("connecting: {early:?} {:?}", pair.problems()));
    }
    let start = pair.cycle;
    let beats0 = pair.san_beats;
    // Per connection: sends submitted, sends and receives outstanding, bytes received.
    let mut submitted = vec![0usize; s.conns];
    let mut sends_out = vec![0usize; s.conns];
    let mut recvs_out = vec![0usize; s.conns];
    let mut got = vec![0u64; s.conns];
    let total = (s.conns * s.sends * s.size) as u64;
    let mut r = Streamed { cycles: 0, sends_ok: 0, recvs_ok: 0, bytes: 0, san_beats: [0; 2] };
    let mut next_req = 0u64;
    let mut refill = |pair: &mut EnginePair<E>,
                      submitted: &mut [usize],
                      sends_out: &mut [usize],
                      recvs_out: &mut [usize],
                      got: &[u64]| {
        for c in 0..s.conns {
            while sends_out[c] < depth && submitted[c] < s.sends {
                let off = (submitted[c] * s.size) as u64;
                let data = (0..s.size as u64).map(|k| pattern(c, off + k)).collect();
                next_req += 1;
                pair.app(c, 0, Event::AppSend { req: next_req, data, urgent: false });
                submitted[c] += 1;
                sends_out[c] += 1;
            }
            let want = (s.sends * s.size) as u64;
            while recvs_out[c] < depth
                && got[c] + ((recvs_out[c] * s.recv_max) as u64) < want.max(1)
            {
                next_req += 1;
                pair.app(c, 1, Event::AppRecv { req: next_req, max: s.recv_max });
                recvs_out[c] += 1;
            }
        }
    };
    refill(pair, &mut submitted, &mut sends_out, &mut recvs_out, &got);
    let mut last = start;
    while r.sends_ok < (s.conns * s.sends) as u64 || r.bytes < total {
        if !pair.step() && !pair.has_outputs() {
            return Err(format!(
                "stopped after {} cycles: {} sends, {} of {total} bytes; {:?}",
                pair.cycle - start,
                r.sends_ok,
                r.bytes,
                pair.problems()
            ));
        }
        for o in pair.take_outputs() {
            let c = o.conn;
            match o.action {
                Action::CompleteSend { result: Ok(n), .. } if n == s.size => {
                    r.sends_ok += 1;
                    sends_out[c] -= 1;
                }
                Action::CompleteRecv { result: Ok(rc), .. } if !rc.urgent => {
                    for (k, b) in rc.data.iter().enumerate() {
                        let at = got[c] + k as u64;
                        if *b != pattern(c, at) {
                            return Err(format!("conn {c}: byte {at} is {b:#04x}"));
                        }
                    }
                    got[c] += rc.data.len() as u64;
                    r.bytes += rc.data.len() as u64;
                    r.recvs_ok += 1;
                    recvs_out[c] -= 1;
                }
                other => return Err(format!("conn {c}: unexpected {other:?}")),
            }
            last = pair.cycle;
        }
        refill(pair, &mut submitted, &mut sends_out, &mut recvs_out, &got);
    }
    if let Some(p) = pair.problems().first() {
        return Err(p.clone());
    }
    r.cycles = last - start;
    r.san_beats = [pair.san_beats[0] - beats0[0], pair.san_beats[1] - beats0[1]];
    Ok(r)
}

/// The engines' parameters: the default (the Verilated `engine`), or without RDMA read
/// (`engine_write`).
fn config(s: &Stream) -> PairConfig {
    let mut params = EngineParams::default();
    if s.rdma == Some(false) {
        params = params.without_rdma_read();
    }
    PairConfig { params, san_latency: s.san_latency, ..PairConfig::default() }
}

/// `s` on two Verilated engines of `config(s)`'s parameters.
fn rtl_stream(s: Stream) -> Result<Streamed, String> {
    let cfg = config(&s);
    let r = if cfg.params.rdma_read {
        stream(&mut EnginePair::new(cfg, [Rtl::new(VEngine::new()), Rtl::new(VEngine::new())]), s)
    } else {
        let e = || Rtl::new(VEngineWrite::new());
        stream(&mut EnginePair::new(cfg, [e(), e()]), s)
    };
    r.map_err(|e| format!("Verilated engine: {e}"))
}

/// A zero-copy stream on the cycle model with the pair's port trace, and on the Verilated
/// engines (the same figures, or an error): the figures, and the cycles from the
/// LargeSend's last beat into the receiver to its first RDMA request (read mode: the
/// landing region registered and the reads started), and from the transfer's last RDMA
/// response to the first beat of its completion message (ReadComplete from the receiver,
/// WriteComplete from the sender).
fn zero_copy(s: Stream) -> Result<(Streamed, u64, u64), String> {
    let read = s.rdma.expect("a zero-copy stream");
    let mut pair = EnginePair::models(config(&s));
    pair.trace = Some(Vec::new());
    let r = stream(&mut pair, s).map_err(|e| format!("model: {e}"))?;
    let v = rtl_stream(s)?;
    if r != v {
        return Err(format!(
            "{s:?}: the model and the Verilog disagree:\n  model {r:?}\n  rtl   {v:?}"
        ));
    }
    let t = pair.trace.take().expect("traced");
    let find = |from: u64, node: usize, port: &str, what: &str| {
        t.iter()
            .find(|e| e.cycle >= from && e.node == node && e.port == port && e.what.contains(what))
            .map(|e| e.cycle)
            .ok_or_else(|| format!("no {port} \"{what}\" at node {node} after cycle {from}"))
    };
    let adv = find(0, 1, "s_axis_rx", "LargeSend first beat")?;
    let adv_last = find(adv, 1, "s_axis_rx", "last beat")?;
    let (initiator, done_msg) = if read { (1, "ReadComplete") } else { (0, "WriteComplete") };
    let first_rq = find(adv_last, initiator, "m_axis_rq", "RDMA")?;
    let last_rs = t
        .iter()
        .filter(|e| e.node == initiator && e.port == "s_axis_rs")
        .map(|e| e.cycle)
        .max()
        .ok_or("no RDMA response")?;
    let done = find(last_rs, initiator, "m_axis_tx", done_msg)?;
    Ok((r, first_rq - adv_last, done - last_rs))
}

/// `s` on the cycle model and on the Verilated engine: the same figures, or an error; and
/// each engine's controller counters for the whole run (from the model).
fn both(s: Stream) -> Result<(Streamed, [CtlStats; 2]), String> {
    let mut pair = EnginePair::models(config(&s));
    let m = stream(&mut pair, s).map_err(|e| format!("model: {e}"))?;
    let events = [0, 1].map(|n| pair.engine(n).ctl.stats.clone());
    let v = rtl_stream(s)?;
    if m != v {
        return Err(format!(
            "{s:?}: the model and the Verilog disagree:\n  model {m:?}\n  rtl   {v:?}"
        ));
    }
    Ok((m, events))
}

/// Cycles per second of `s` on two engines of one kind (wall clock; the machine is shared,
/// so this is a rough figure, never asserted).
fn speed<E: CycleModel<In = EngineIn, Out = EngineOut>>(
    mut pair: EnginePair<E>,
    s: Stream,
) -> Result<(u64, f64), String> {
    let t = Instant::now();
    stream(&mut pair, s)?;
    Ok((pair.cycle, pair.cycle as f64 / t.elapsed().as_secs_f64()))
}

/// Every engine figure, as flat `engine.*` keys.
pub fn figures() -> Result<serde_json::Map<String, Value>, String> {
    let p = EngineParams::default();
    let small = |conns, san_latency| Stream {
        conns,
        sends: 4000 / conns,
        size: 64,
        recv_max: 64,
        san_latency,
        rdma: None,
    };
    // A 64-byte send is one Data message: header and payload, in beats.
    let small_beats = (HEADER_BYTES as u64 + 64).div_ceil(BEAT);
    let bound = 1.0 / small_beats as f64;
    let (one, _) = both(small(1, 1))?;
    let (all, stats) = both(small(p.connections as usize, 1))?;
    let per_send = |n: u64| n as f64 / all.sends_ok as f64;
    let (one_far, _) = both(small(1, 32))?;
    let (all_far, _) = both(small(p.connections as usize, 32))?;
    // 1 MiB by copy: sends of the threshold's size (a larger one goes zero-copy).
    let thr = p.rdma_threshold as usize;
    let mib = Stream {
        conns: 1,
        sends: (1 << 20) / thr,
        size: thr,
        recv_max: thr,
        san_latency: 1,
        rdma: None,
    };
    let (copy, _) = both(mib)?;
    let (copy_far, _) = both(Stream { san_latency: 32, ..mib })?;
    // A full buffer's message: the most payload per beat the copy path can carry.
    let full = (p.buf_size as u64 - HEADER_BYTES as u64) as f64 / (p.buf_size as u64 / BEAT) as f64;
    // 1 MiB zero-copy into one posted receive of 1 MiB, each mode: payload beats per cycle
    // from the command to the last completion, registrations and completion messages in.
    let zc = |read| Stream { sends: 1, size: 1 << 20, recv_max: 1 << 20, rdma: Some(read), ..mib };
    let (rd, adv_to_read, rd_done) = zero_copy(zc(true))?;
    let (wr, _, wr_done) = zero_copy(zc(false))?;
    let beats = |r: &Streamed| r.bytes.div_ceil(BEAT) as f64 / r.cycles as f64;

    let lock = small(p.connections as usize, 32);
    let checked = || Checked::new(EngineModel::new(p), Rc::new(VEngine::new));
    let (lock_cycles, lockstep) =
        speed(EnginePair::new(config(&lock), [checked(), checked()]), lock)?;
    let (_, model) = speed(EnginePair::models(config(&lock)), lock)?;
    let rtl = [Rtl::new(VEngine::new()), Rtl::new(VEngine::new())];
    let (_, verilator) = speed(EnginePair::new(config(&lock), rtl), lock)?;

    let d = PairConfig::default();
    let v = json!({
        "engine.connections": p.connections,
        "engine.buf_size": p.buf_size,
        "engine.send_bufs": p.send_bufs,
        "engine.recv_bufs": p.recv_bufs,
        "engine.queue_depth": p.queue_depth,
        "engine.dma_latency_cycles": d.dma_latency,
        "engine.small_send_beats": small_beats,
        "engine.small_send_beat_bound": bound,
        "engine.small_sends_per_cycle": one.sends_per_cycle(),
        "engine.small_sends_cycles": one.cycles,
        "engine.small_sends_16_per_cycle": all.sends_per_cycle(),
        "engine.small_sends_16_cycles": all.cycles,
        "engine.small_sends_share_of_bound": one.sends_per_cycle() / bound,
        "engine.small_sends_16_share_of_bound": all.sends_per_cycle() / bound,
        // What paces the small sends: the controller takes one event at a time.
        "engine.small_sends_16_sender_events_per_send": per_send(stats[0].events),
        "engine.small_sends_16_receiver_events_per_send": per_send(stats[1].events),
        "engine.small_sends_16_sender_cycles_per_event": all.cycles as f64 / stats[0].events as f64,
        "engine.small_sends_per_cycle_latency_32": one_far.sends_per_cycle(),
        "engine.small_sends_16_per_cycle_latency_32": all_far.sends_per_cycle(),
        "engine.copy_bytes_per_cycle": copy.bytes_per_cycle(),
        "engine.copy_cycles": copy.cycles,
        "engine.copy_bytes_per_cycle_bound": full,
        "engine.copy_share_of_bound": copy.bytes_per_cycle() / full,
        "engine.copy_bytes_per_cycle_latency_32": copy_far.bytes_per_cycle(),
        "engine.copy_send_bytes": thr,
        // Zero-copy: the model's figures, the Verilog's the same (checked).
        "engine.zero_copy_measured_on": "model and verilog",
        "engine.read_beats_per_cycle": beats(&rd),
        "engine.read_cycles": rd.cycles,
        "engine.write_beats_per_cycle": beats(&wr),
        "engine.write_cycles": wr.cycles,
        "engine.adv_to_read_cycles": adv_to_read,
        "engine.done_to_complete_cycles": rd_done.max(wr_done),
        "engine.done_to_complete_cycles_read": rd_done,
        "engine.done_to_complete_cycles_write": wr_done,
        "engine.model_agrees": true,
        "engine.lockstep_cycles": lock_cycles,
        "engine.lockstep_cycles_per_s": lockstep,
        "engine.model_cycles_per_s": model,
        "engine.verilator_cycles_per_s": verilator,
    });
    let Value::Object(mut m) = v else { unreachable!("an object") };
    // Which events those are, by kind (what a merge of two events into one would save).
    for (node, st) in [("sender", &stats[0]), ("receiver", &stats[1])] {
        for (name, n) in Ev::KINDS.iter().zip(st.events_by_kind) {
            let key = format!("engine.small_sends_16_{node}_{name}_events_per_send");
            m.insert(key, json!(per_send(n)));
        }
    }
    // Area of the whole engine at these parameters (Yosys synth_xilinx; null without Yosys).
    let area = crate::bench_blocks::synth(sanswitch_hdl::BlockName::Engine);
    crate::bench_blocks::area(&mut m, "engine", &area);
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The harness itself: a few sends on the model, every byte checked, the count starting
    /// after the connections are up.
    #[test]
    fn a_short_stream_on_the_model() {
        let s = Stream { conns: 2, sends: 10, size: 64, recv_max: 64, san_latency: 4, rdma: None };
        let r = stream(&mut EnginePair::models(config(&s)), s).unwrap();
        assert_eq!((r.sends_ok, r.bytes), (20, 1280));
        assert!(r.recvs_ok >= 20 && r.cycles > 0, "{r:?}");
        // At least one Data message of 10 beats per send went out.
        assert!(r.san_beats[0] >= 200, "{r:?}");
    }

    /// The controller's counters by kind add up to its events, and every 64-byte send costs
    /// each side at least its header (receiver) or command (sender) event.
    #[test]
    fn small_sends_events_by_kind_add_up() {
        let s =
            Stream { conns: 16, sends: 250, size: 64, recv_max: 64, san_latency: 1, rdma: None };
        let mut pair = EnginePair::models(config(&s));
        let r = stream(&mut pair, s).unwrap();
        assert_eq!(r.sends_ok, 4000);
        for n in 0..2 {
            let st = &pair.engine(n).ctl.stats;
            assert_eq!(st.events_by_kind.iter().sum::<u64>(), st.events, "{st:?}");
            let per: Vec<_> = Ev::KINDS
                .iter()
                .zip(st.events_by_kind)
                .map(|(k, e)| format!("{k} {:.2}", e as f64 / r.sends_ok as f64))
                .collect();
            eprintln!("node {n}, events per send: {}", per.join(", "));
        }
        let [tx, rx] = [0, 1].map(|n| pair.engine(n).ctl.stats.events_by_kind);
        assert!(tx[Ev::Cmd(Default::default()).kind()] >= r.sends_ok, "{tx:?}");
        assert!(rx[Ev::Rx(Default::default()).kind()] >= r.sends_ok, "{rx:?}");
    }

    /// The zero-copy figures' harness: 200 KB in each mode lands whole in one receive, and
    /// the traced intervals are found.
    #[test]
    fn zero_copy_streams_on_the_model() {
        for read in [true, false] {
            let s = Stream {
                conns: 1,
                sends: 1,
                size: 200_000,
                recv_max: 1 << 20,
                san_latency: 1,
                rdma: Some(read),
            };
            let (r, adv, done) = zero_copy(s).unwrap();
            assert_eq!((r.sends_ok, r.recvs_ok, r.bytes), (1, 1, 200_000), "{r:?}");
            // Nearly everything moved by RDMA: node 0 sent one LargeSend and little else.
            assert!(r.san_beats[0] < 200, "read {read}: {r:?}");
            assert!(adv > 0 && done > 0, "read {read}: {adv} {done}");
            // Not slower than measured (budget 8, docs/HARDWARE.md): the transfer's last
            // event asks for the owed message's buffer itself (19 cycles when the pump did).
            assert!(done <= 16, "read {read}: done->complete {done}");
            if read {
                assert!(adv <= 17, "adv->read {adv}");
            }
            eprintln!("read {read}: {r:?}, adv->read {adv}, done->complete {done}");
        }
    }
}
