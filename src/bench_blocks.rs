//! Bench figures of the pool manager and the sequencer: exact cycle counts on the Verilated
//! blocks, each cross-checked against the block's cycle model, plus their mapped area.

use sanswitch_hdl::synth::{SynthStats, synth_xilinx, yosys_available};
use sanswitch_hdl::{BlockName, EngineParams, verilog};
use sanswitch_model::blocks::pool::{PoolIn, PoolModel, PoolOut, class, op, status};
use sanswitch_model::params::PoolParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{Dut, VPool};
use serde_json::{Map, Value, json};

/// Accepted requests per cycle through the pool manager, `m_axis_resp_tready` always high.
///
/// Every connection is opened, then each runs the life of a message in both directions, over
/// and over: ALLOC (a Data message: buffer and credit), FREE (its send completed), RECV (the
/// peer's message in the next receive buffer, acknowledging everything sent), REPOST (that
/// buffer processed), QUERY. Credits flow (each RECV acknowledges the ALLOC before it) and
/// receive buffers are re-posted, so every request is served: the run fails on any status
/// but OK. `round_robin` interleaves the connections request by request; otherwise every
/// request goes to connection 0, where each waits a cycle for the one before (the
/// read-after-write stall). The count runs from the first response after the OPENs to the
/// last, and counts responses (all OK).
fn pool_ops_per_cycle(
    step: &mut dyn FnMut(&PoolIn) -> PoolOut,
    round_robin: bool,
) -> Result<(f64, u64, u64), String> {
    let p = PoolParams::default();
    let reset = PoolIn { reset: true, ..PoolIn::default() };
    step(&reset);
    let conns = if round_robin { p.connections as usize } else { 1 };
    let mut reqs: Vec<PoolIn> = (0..conns)
        .map(|c| PoolIn {
            s_axis_req_op: op::OPEN,
            s_axis_req_conn: c as u8,
            s_axis_req_a: 1,
            s_axis_req_b: 0,
            s_axis_req_c: 0,
            s_axis_req_bufs: p.recv_bufs as u16,
            ..PoolIn::default()
        })
        .collect();
    let opened = reqs.len();
    // Per connection: next mseq to send, last mseq received, next receive buffer.
    let mut tx = vec![1u32; conns];
    let mut rx = vec![0u32; conns];
    let mut next_buf = vec![0u8; conns];
    let rounds = 30_000 / (5 * conns);
    for _ in 0..rounds {
        for step_kind in 0..5 {
            for c in 0..conns {
                let base = PoolIn { s_axis_req_conn: c as u8, ..PoolIn::default() };
                let r = match step_kind {
                    0 => {
                        tx[c] = tx[c].wrapping_add(1);
                        PoolIn { s_axis_req_op: op::ALLOC, s_axis_req_class: class::DATA, ..base }
                    }
                    1 => PoolIn { s_axis_req_op: op::FREE, s_axis_req_buf: 0, ..base },
                    2 => {
                        rx[c] = rx[c].wrapping_add(1);
                        PoolIn {
                            s_axis_req_op: op::RECV,
                            s_axis_req_buf: next_buf[c],
                            s_axis_req_a: rx[c],
                            s_axis_req_b: tx[c].wrapping_sub(1),
                            s_axis_req_bufs: p.recv_bufs as u16,
                            ..base
                        }
                    }
                    3 => {
                        let b = next_buf[c];
                        next_buf[c] = (b + 1) % p.recv_bufs;
                        PoolIn { s_axis_req_op: op::REPOST, s_axis_req_buf: b, ..base }
                    }
                    _ => PoolIn { s_axis_req_op: op::QUERY, ..base },
                };
                reqs.push(r);
            }
        }
    }
    let (mut next, mut responses, mut cycle) = (0usize, 0usize, 0u64);
    let (mut first, mut last) = (None, 0u64);
    while responses < reqs.len() && cycle < 10_000_000 {
        let i = match reqs.get(next) {
            Some(r) => PoolIn { s_axis_req_tvalid: true, m_axis_resp_tready: true, ..*r },
            None => PoolIn { m_axis_resp_tready: true, ..PoolIn::default() },
        };
        let o = step(&i);
        if i.s_axis_req_tvalid && o.s_axis_req_tready {
            next += 1;
        }
        if o.m_axis_resp_tvalid {
            if o.m_axis_resp_status != status::OK {
                return Err(format!(
                    "response {responses} (op {}, connection {}) refused with status {}",
                    o.m_axis_resp_op,
                    o.m_axis_resp_conn,
                    status::NAMES[o.m_axis_resp_status as usize]
                ));
            }
            responses += 1;
            if responses == opened + 1 {
                first = Some(cycle);
            }
            last = cycle;
        }
        cycle += 1;
    }
    if responses < reqs.len() {
        return Err(format!("{responses} of {} requests answered", reqs.len()));
    }
    let measured = (reqs.len() - opened - 1) as u64;
    let cycles = last - first.unwrap_or(0);
    Ok((measured as f64 / cycles as f64, measured, cycles))
}

pub fn synth(block: BlockName) -> Option<SynthStats> {
    if !yosys_available() {
        return None;
    }
    let dir = std::env::temp_dir().join(format!(
        "sanswitch-bench-{}-{}",
        block.name(),
        std::process::id()
    ));
    let s = synth_xilinx(&dir, block.name(), &verilog(block, &EngineParams::default()));
    let _ = std::fs::remove_dir_all(&dir);
    s.map_err(|e| eprintln!("warning: yosys synth_xilinx failed for {}: {e}", block.name())).ok()
}

pub fn area(m: &mut Map<String, Value>, prefix: &str, s: &Option<SynthStats>) {
    m.insert(format!("{prefix}.luts"), json!(s.as_ref().map(|s| s.luts)));
    m.insert(format!("{prefix}.ffs"), json!(s.as_ref().map(|s| s.ffs)));
    m.insert(format!("{prefix}.lut_levels"), json!(s.as_ref().map(|s| s.lut_levels)));
    m.insert(format!("{prefix}.logic_levels"), json!(s.as_ref().map(|s| s.logic_levels)));
    m.insert(format!("{prefix}.bram"), json!(s.as_ref().map(|s| s.bram)));
    m.insert(format!("{prefix}.lutram"), json!(s.as_ref().map(|s| s.lutram)));
    m.insert(format!("{prefix}.lut_sites"), json!(s.as_ref().map(|s| s.lut_sites)));
}

/// The pool manager's and the sequencer's figures, as flat JSON keys.
pub fn figures() -> Result<Map<String, Value>, String> {
    let mut m = Map::new();
    for (rr, key) in [(true, "pool.ops_per_cycle"), (false, "pool.same_connection_ops_per_cycle")] {
        let mut dut = VPool::new();
        let hw = pool_ops_per_cycle(
            &mut |i| {
                dut.set(i);
                let o = dut.get();
                dut.tick();
                o
            },
            rr,
        )
        .map_err(|e| format!("{key}, Verilated pool: {e}"))?;
        let mut model = PoolModel::new(PoolParams::default());
        let sw = pool_ops_per_cycle(
            &mut |i| {
                let o = model.outputs(i);
                model.clock(i);
                o
            },
            rr,
        )
        .map_err(|e| format!("{key}, pool model: {e}"))?;
        if hw != sw {
            return Err(format!("{key}: Verilog {hw:?} but model {sw:?}"));
        }
        m.insert(key.into(), json!(hw.0));
        m.insert(format!("{key}.accepted"), json!(hw.1));
        m.insert(format!("{key}.cycles"), json!(hw.2));
    }
    area(&mut m, "pool", &synth(BlockName::Pool));
    let s = sanswitch_sim::sequencer_bench()?;
    // Each figure's start and end: `SequencerFigures`' field documentation.
    // START taken → completion request valid, through the ideal SAN model (its pace bounds
    // these: `san_model.beats_per_cycle`).
    m.insert("sequencer.read_beats_per_cycle".into(), json!(s.read_beats_per_cycle));
    m.insert("sequencer.write_beats_per_cycle".into(), json!(s.write_beats_per_cycle));
    // REGISTER of the landing region offered → first RDMA read request valid.
    m.insert("sequencer.adv_to_read_cycles".into(), json!(s.adv_to_read_cycles));
    // START_READ taken → first RDMA read request valid.
    m.insert("sequencer.start_to_read_cycles".into(), json!(s.start_to_read_cycles));
    // Last RDMA response presented → completion request valid.
    m.insert("sequencer.done_to_complete_cycles".into(), json!(s.done_to_complete_cycles));
    // The sequencer's own rate: requests per cycle with a SAN model without bandwidth limit.
    m.insert("sequencer.issue_requests_per_cycle".into(), json!(s.issue_requests_per_cycle));
    // The ideal SAN model's own pace: its first beat to its last.
    m.insert("san_model.beats_per_cycle".into(), json!(s.san_beats_per_cycle));
    area(&mut m, "sequencer", &synth(BlockName::Sequencer));
    Ok(m)
}
