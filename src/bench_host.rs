//! The host interface's and the driver's figures for `sanswitch bench`.
//!
//! - On the host interface alone (`HostIfBench`: host memory answering a fetch after one
//!   cycle, every ready high, a stand-in engine that takes every command at once and
//!   completes it the next cycle), run on the Verilated block and on its model (the cycle
//!   counts must be equal):
//!   - `host.fetch_cmds_per_cycle`: a full ring of 256 commands announced by one doorbell;
//!     commands the engine took over the cycles from the doorbell's write taken to the last
//!     command taken. Paced by the fetch (one request of up to 8 entries at a time, 4 beats
//!     an entry on the 64-bit port) and the memory's latency.
//!   - `host.doorbell_to_fetch_cycles`: from the doorbell's write taken to the first fetch
//!     request taken.
//!   - `host.cpl_to_memory_cycles`: from the engine's completion taken to the last beat of its
//!     entry taken by host memory (the first completion, on an idle port).
//! - On the driver's loopback (two NIC cycle models, 4 connections, 256 KiB each way each):
//!   `host.commands_per_doorbell` and `host.completions_per_poll` (polls that found any).

use serde_json::{Value, json};

use sanswitch_driver::loopback::{self, LoopbackOptions};
use sanswitch_driver::pair::model_pair;
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_model::blocks::hostif::{HostIf, HostIfIn, HostIfOut};
use sanswitch_model::blocks::hostif_bench::HostIfBench;
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::host::{Command, Opcode};
use sanswitch_model::params::EngineParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::regs::{HostParams, qp};
use sanswitch_sim::{Rtl, VHostIf};

/// Entries of the ring the fetch figure fills.
const RING_LOG2: u32 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostFigures {
    pub fetched: u64,
    pub fetch_cycles: u64,
    pub doorbell_to_fetch: u64,
    pub cpl_to_memory: u64,
}

fn measure<H: CycleModel<In = HostIfIn, Out = HostIfOut>>(
    mut b: HostIfBench<H>,
) -> Result<HostFigures, String> {
    b.max_delay = 1;
    b.setup(RING_LOG2, RING_LOG2);
    let n = 1u32 << RING_LOG2;
    for k in 0..n {
        let c = Command {
            opcode: Opcode::Send.code(),
            flags: 0,
            conn: (k % 16) as u16,
            tag: k,
            addr: 0x7000_0000,
            len: 64,
            aux: 0,
        };
        b.put_entry(RING_LOG2, k, &c.encode());
    }
    let (fetch0, cmd0, cpl0, cq0) =
        (b.fetch_at.len(), b.cmd_at.len(), b.cpl_at.len(), b.cq_done_at.len());
    // The doorbell, by hand, to know the cycle its write is taken.
    let door = b.qp + qp::SQ_PROD;
    let mut taken = None;
    for _ in 0..100 {
        let at = b.cycle;
        let o = b.step(|i| {
            if taken.is_none() {
                i.s_axil_awvalid = true;
                i.s_axil_wvalid = true;
                i.s_axil_awaddr = door as u16;
                i.s_axil_wdata = n;
            }
            i.s_axil_bready = true;
        });
        if taken.is_none() && o.s_axil_awready {
            taken = Some(at);
        } else if taken.is_some() && o.s_axil_bvalid {
            break;
        }
    }
    let t0 = taken.ok_or("the doorbell's write was not taken")?;
    for _ in 0..100_000 {
        if b.cmd_at.len() - cmd0 == n as usize && b.cq_done_at.len() - cq0 == n as usize {
            break;
        }
        b.step(|_| {});
    }
    if b.cmd_at.len() - cmd0 != n as usize || b.cq_done_at.len() - cq0 != n as usize {
        return Err(format!(
            "{} of {n} commands taken, {} completions written",
            b.cmd_at.len() - cmd0,
            b.cq_done_at.len() - cq0
        ));
    }
    let last = *b.cmd_at.last().expect("commands");
    Ok(HostFigures {
        fetched: n as u64,
        fetch_cycles: last - t0 + 1,
        doorbell_to_fetch: b.fetch_at[fetch0] - t0,
        cpl_to_memory: b.cq_done_at[cq0] - b.cpl_at[cpl0],
    })
}

/// The figures on the Verilog, checked equal to the model's.
pub fn figures() -> Result<serde_json::Map<String, Value>, String> {
    let model = HostIf::new(&EngineParams::default(), &HostParams::default());
    let sw = measure(HostIfBench::with(model, 1, 0.0))?;
    let hw = measure(HostIfBench::with(Rtl::new(VHostIf::new()), 1, 0.0))?;
    if sw != hw {
        return Err(format!("host interface: Verilog {hw:?}, model {sw:?}"));
    }
    let lb = loopback_figures()?;
    let mut m = serde_json::Map::new();
    m.insert("host.fetched_commands".into(), json!(hw.fetched));
    m.insert("host.fetch_cycles".into(), json!(hw.fetch_cycles));
    m.insert("host.fetch_cmds_per_cycle".into(), json!(hw.fetched as f64 / hw.fetch_cycles as f64));
    m.insert("host.doorbell_to_fetch_cycles".into(), json!(hw.doorbell_to_fetch));
    m.insert("host.cpl_to_memory_cycles".into(), json!(hw.cpl_to_memory));
    m.insert("host.model_agrees".into(), json!(true));
    m.extend(lb);
    Ok(m)
}

fn loopback_figures() -> Result<serde_json::Map<String, Value>, String> {
    let sc = SocketConfig { tx_staging: 2 << 20, max_send: 1 << 20, ..SocketConfig::default() };
    let mut eps = Vec::new();
    for t in model_pair(PairConfig::default(), &HostParams::default()) {
        let dev = Device::open(t).map_err(|e| e.to_string())?;
        eps.push(Endpoint::new(dev, sc.clone()).map_err(|e| e.to_string())?);
    }
    let eps: [_; 2] = eps.try_into().map_err(|_| "two endpoints")?;
    let o = LoopbackOptions { connections: 4, bytes: 256 << 10, ..LoopbackOptions::default() };
    let r = loopback::run(&eps, &o, |_, _| {}).map_err(|e| e.to_string())?;
    let mut m = serde_json::Map::new();
    m.insert("host.loopback_bytes".into(), json!(r.bytes));
    m.insert("host.loopback_cycles".into(), json!(r.cycles));
    m.insert("host.loopback_bytes_per_cycle".into(), json!(r.bytes_per_cycle()));
    m.insert("host.commands_per_doorbell".into(), json!(r.commands_per_doorbell()));
    m.insert("host.completions_per_poll".into(), json!(r.completions_per_poll()));
    Ok(m)
}

/// The lines `sanswitch bench` prints for these figures.
pub fn text(m: &serde_json::Map<String, Value>) -> String {
    let g = |k: &str| m.get(k).cloned().unwrap_or(Value::Null);
    format!(
        "host interface (Verilog and model agree; host memory answers after 1 cycle, a \
         stand-in engine always ready)\n  \
         fetch           {:.3} commands/cycle ({} commands of one doorbell in {} cycles, \
         doorbell taken to last command taken)\n  \
         doorbell        {} cycles to the first fetch request\n  \
         completion      {} cycles from the engine's completion to its entry in host memory\n\
         driver loopback (two NIC models, 4 connections, 256 KiB each way each)\n  \
         batches         {:.2} commands per doorbell, {:.2} completions per poll that found \
         any; {:.2} B/cycle\n",
        g("host.fetch_cmds_per_cycle").as_f64().unwrap_or(0.0),
        g("host.fetched_commands"),
        g("host.fetch_cycles"),
        g("host.doorbell_to_fetch_cycles"),
        g("host.cpl_to_memory_cycles"),
        g("host.commands_per_doorbell").as_f64().unwrap_or(0.0),
        g("host.completions_per_poll").as_f64().unwrap_or(0.0),
        g("host.loopback_bytes_per_cycle").as_f64().unwrap_or(0.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_figures_agree_and_are_within_the_port_bounds() {
        let m = figures().expect("figures");
        let f = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("{k}: {m:?}"));
        // 4 beats an entry on a 64-bit port: at most a quarter of a command per cycle.
        let rate = f("host.fetch_cmds_per_cycle");
        assert!(rate > 0.15 && rate <= 0.25, "{rate}");
        assert!((1.0..=8.0).contains(&f("host.doorbell_to_fetch_cycles")), "{m:?}");
        assert!((1.0..=4.0).contains(&f("host.cpl_to_memory_cycles")), "{m:?}");
        assert!(f("host.commands_per_doorbell") >= 1.0, "{m:?}");
        assert!(f("host.completions_per_poll") >= 1.0, "{m:?}");
        assert_eq!(m["host.loopback_bytes"].as_u64(), Some(2 * 4 * (256 << 10)));
        println!("{}", text(&m));
    }
}
