//! Bench figures of the pool manager and the sequencer: exact cycle counts on the Verilated
//! blocks, each cross-checked against the block's cycle model, plus their mapped area.

use sanswitch_hdl::synth::{SynthStats, synth_xilinx, yosys_available};
use sanswitch_hdl::{BlockName, EngineParams, verilog};
use sanswitch_model::blocks::pool::{PoolIn, PoolModel, PoolOut, class, op};
use sanswitch_model::params::PoolParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{Dut, VPool};
use serde_json::{Map, Value, json};

/// Requests per cycle through the pool manager, `resp_ready` always high: `round_robin`
/// spreads them over every connection in turn, otherwise all go to connection 0 (where each
/// waits a cycle for the one before: the read-after-write stall).
fn pool_ops_per_cycle(step: &mut dyn FnMut(&PoolIn) -> PoolOut, round_robin: bool) -> f64 {
    let p = PoolParams::default();
    let reset = PoolIn { reset: true, ..PoolIn::default() };
    step(&reset);
    // Open every connection, then a steady mix of QUERY, ALLOC and FREE.
    let mut reqs: Vec<PoolIn> = (0..p.connections)
        .map(|c| PoolIn {
            req_op: op::OPEN,
            req_conn: c as u8,
            req_a: 1,
            req_b: 0,
            req_bufs: 8,
            ..PoolIn::default()
        })
        .collect();
    let n = 30_000u32;
    for k in 0..n {
        let conn = if round_robin { (k % p.connections as u32) as u8 } else { 0 };
        let (o, class) = match (k / p.connections as u32) % 3 {
            0 => (op::ALLOC, class::UPDATE),
            1 => (op::FREE, 0),
            _ => (op::QUERY, 0),
        };
        reqs.push(PoolIn { req_op: o, req_conn: conn, req_class: class, ..PoolIn::default() });
    }
    let opened = p.connections as usize;
    let (mut next, mut responses, mut cycle) = (0usize, 0usize, 0u64);
    let (mut first, mut last) = (None, 0u64);
    while responses < reqs.len() && cycle < 10_000_000 {
        let i = match reqs.get(next) {
            Some(r) => PoolIn { req_valid: true, resp_ready: true, ..*r },
            None => PoolIn { resp_ready: true, ..PoolIn::default() },
        };
        let o = step(&i);
        if i.req_valid && o.req_ready {
            next += 1;
        }
        if o.resp_valid {
            responses += 1;
            if responses == opened + 1 {
                first = Some(cycle);
            }
            last = cycle;
        }
        cycle += 1;
    }
    let measured = (reqs.len() - opened - 1) as f64;
    measured / (last - first.unwrap_or(0)) as f64
}

fn synth(block: BlockName) -> Option<SynthStats> {
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

fn area(m: &mut Map<String, Value>, prefix: &str, s: &Option<SynthStats>) {
    m.insert(format!("{prefix}.luts"), json!(s.as_ref().map(|s| s.luts)));
    m.insert(format!("{prefix}.ffs"), json!(s.as_ref().map(|s| s.ffs)));
    m.insert(format!("{prefix}.lut_levels"), json!(s.as_ref().map(|s| s.lut_levels)));
    m.insert(format!("{prefix}.logic_levels"), json!(s.as_ref().map(|s| s.logic_levels)));
    m.insert(format!("{prefix}.bram"), json!(s.as_ref().map(|s| s.bram)));
    m.insert(format!("{prefix}.lutram"), json!(s.as_ref().map(|s| s.lutram)));
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
        );
        let mut model = PoolModel::new(PoolParams::default());
        let sw = pool_ops_per_cycle(
            &mut |i| {
                let o = model.outputs(i);
                model.clock(i);
                o
            },
            rr,
        );
        if hw != sw {
            return Err(format!("{key}: Verilog {hw} but model {sw}"));
        }
        m.insert(key.into(), json!(hw));
    }
    area(&mut m, "pool", &synth(BlockName::Pool));
    let s = sanswitch_sim::sequencer_bench()?;
    m.insert("sequencer.read_beats_per_cycle".into(), json!(s.read_beats_per_cycle));
    m.insert("sequencer.write_beats_per_cycle".into(), json!(s.write_beats_per_cycle));
    m.insert("sequencer.adv_to_read_cycles".into(), json!(s.adv_to_read_cycles));
    m.insert("sequencer.done_to_complete_cycles".into(), json!(s.done_to_complete_cycles));
    area(&mut m, "sequencer", &synth(BlockName::Sequencer));
    Ok(m)
}
