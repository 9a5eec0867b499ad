//! The FrontPanel bridge core's figures for `sanswitch bench` (`board.*` keys), on the
//! Verilated core and on its model (the cycle counts must be equal). The bench drives the
//! core as fast as its neighbours allow: a request word offered every cycle, responses
//! taken at once, memory ready with its word a cycle after a read, register slaves ready
//! with their answer a cycle after the request.
//!
//! - `board.bridge_write_bytes_per_cycle`: 16 `MEM_WRITE`s of 1,024 bytes back to back;
//!   bytes over the engine cycles from the first request word taken to the last response
//!   taken (every status checked OK).
//! - `board.bridge_read_bytes_per_cycle`: 16 `MEM_READ`s of the same bytes (read back and
//!   compared with what was written).
//! - `board.bridge_reg_read_cycles`: a `REG_READ`'s header taken to its last response word
//!   taken.
//! - `board.pipe_bytes_per_ti_cycle`: the bound the pipes put on it: one 16-bit word per
//!   FrontPanel clock, less the request's header words (computed, not simulated).
//! - `board.pipes_write_bytes_per_ti_cycle`, `board.pipes_read_bytes_per_ti_cycle`: the
//!   bridge through the pipes, simulated: the Verilated board below FrontPanel's endpoints
//!   (pipe FIFOs, bridge, NICs, memories; FrontPanel's clock at 48 MHz, the engine's at 125)
//!   driven by the driver's FrontPanel transport in simulation mode with no pauses; one
//!   `MEM_WRITE` of `PIPE_BYTES` to node 0, then one `MEM_READ` of them (compared), each from
//!   the first block's wait for `ep_ready` to the last response word taken
//!   (`board.pipes_write_ti_cycles`, `board.pipes_read_ti_cycles`). No cycle model of the
//!   pipe FIFOs: these are the Verilog's alone.

use serde_json::{Value, json};

use sanswitch_model::blocks::bridge::{BridgeIn, BridgeModel, BridgeOut};
use sanswitch_model::bridge::{NODE_MEM_BYTES, Request, Response, decode_responses, words_spanned};
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{Rtl, VBridge};

const REQS: u32 = 16;
const LEN: u32 = 1024;
/// Bytes of the through-the-pipes write and read.
const PIPE_BYTES: usize = 16 << 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BridgeFigures {
    pub write_cycles: u64,
    pub read_cycles: u64,
    pub reg_read_cycles: u64,
}

/// The bench around a bridge: memories, register slaves, the word streams.
struct Bench<M> {
    m: M,
    mem: [Vec<u64>; 2],
    mem_rd: Option<u64>,
    reg: u32,
    r_pending: bool,
    b_pending: bool,
    cycle: u64,
}

impl<M: CycleModel<In = BridgeIn, Out = BridgeOut>> Bench<M> {
    fn new(mut m: M) -> Self {
        let r = BridgeIn { reset: true, ..Default::default() };
        m.outputs(&r);
        m.clock(&r);
        let words = (NODE_MEM_BYTES / 8) as usize;
        Bench {
            m,
            mem: [vec![0; words], vec![0; words]],
            mem_rd: None,
            reg: 0x1234_5678,
            r_pending: false,
            b_pending: false,
            cycle: 0,
        }
    }

    /// Runs `reqs` to their last response; the responses and the cycles from the first
    /// word taken to the last response word taken.
    fn run(&mut self, reqs: &[Request]) -> Result<(Vec<Response>, u64), String> {
        let mut words = Vec::new();
        for r in reqs {
            r.encode(&mut words).map_err(|e| e.to_string())?;
        }
        let want: usize = reqs.iter().map(Request::response_words).sum();
        let (mut at, mut got, mut first, mut last) = (0, Vec::new(), None, 0);
        while got.len() < want {
            if self.cycle > 10_000_000 {
                return Err(format!("stuck: {} of {want} response words", got.len()));
            }
            let i = BridgeIn {
                s_axis_req_tvalid: at < words.len(),
                s_axis_req_tdata: words.get(at).copied().unwrap_or(0),
                m_axis_rsp_tready: true,
                m_mem_ready: true,
                s_mem_rvalid: self.mem_rd.is_some(),
                s_mem_rdata: self.mem_rd.unwrap_or(0),
                m_axil_awready_0: true,
                m_axil_wready_0: true,
                m_axil_arready_0: true,
                m_axil_bvalid_0: self.b_pending,
                m_axil_rvalid_0: self.r_pending,
                m_axil_rdata_0: self.reg,
                ..Default::default()
            };
            let o = self.m.outputs(&i);
            self.m.clock(&i);
            if i.s_axis_req_tvalid && o.s_axis_req_tready {
                first.get_or_insert(self.cycle);
                at += 1;
            }
            if o.m_axis_rsp_tvalid {
                got.push(o.m_axis_rsp_tdata);
                last = self.cycle;
            }
            self.mem_rd = None;
            if o.m_mem_valid {
                let w = &mut self.mem[usize::from(o.m_mem_node)][usize::from(o.m_mem_index)];
                if o.m_mem_write {
                    let m = (0..8)
                        .filter(|b| o.m_mem_wmask >> b & 1 != 0)
                        .fold(0u64, |a, b| a | 0xFF << (8 * b));
                    *w = *w & !m | o.m_mem_wdata & m;
                } else {
                    self.mem_rd = Some(*w);
                }
            }
            self.b_pending = o.m_axil_awvalid_0 || (self.b_pending && !o.m_axil_bready_0);
            if o.m_axil_wvalid_0 {
                self.reg = o.m_axil_wdata_0;
            }
            self.r_pending = o.m_axil_arvalid_0 || (self.r_pending && !o.m_axil_rready_0);
            self.cycle += 1;
        }
        let start = first.ok_or("no request word taken")?;
        let rs = decode_responses(&got).map_err(|e| e.to_string())?;
        Ok((rs, last - start + 1))
    }
}

fn measure<M: CycleModel<In = BridgeIn, Out = BridgeOut>>(m: M) -> Result<BridgeFigures, String> {
    let mut b = Bench::new(m);
    let data = |k: u32| (0..LEN).map(|j| (k * 31 + j * 7) as u8).collect::<Vec<u8>>();
    let writes: Vec<Request> =
        (0..REQS).map(|k| Request::MemWrite { node: 0, addr: k * LEN, data: data(k) }).collect();
    let (rs, write_cycles) = b.run(&writes)?;
    if rs.iter().any(|r| *r != Response::MemWrite { node: 0, status: 0 }) {
        return Err(format!("a write was refused: {rs:?}"));
    }
    let reads: Vec<Request> =
        (0..REQS).map(|k| Request::MemRead { node: 0, addr: k * LEN, len: LEN }).collect();
    let (rs, read_cycles) = b.run(&reads)?;
    for (k, r) in rs.iter().enumerate() {
        let Response::MemRead { status: 0, words, .. } = r else {
            return Err(format!("read {k} refused: {r:?}"));
        };
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if words.len() as u32 != words_spanned(0, LEN) || bytes != data(k as u32) {
            return Err(format!("read {k} does not return what was written"));
        }
    }
    let (rs, reg_read_cycles) = b.run(&[Request::RegRead { node: 0, offset: 0x10 }])?;
    if rs != [Response::RegRead { node: 0, resp: 0, value: 0x1234_5678 }] {
        return Err(format!("register read: {rs:?}"));
    }
    Ok(BridgeFigures { write_cycles, read_cycles, reg_read_cycles })
}

/// The figures on the Verilog, checked equal to the model's.
pub fn figures() -> Result<serde_json::Map<String, Value>, String> {
    let sw = measure(BridgeModel::new(NODE_MEM_BYTES))?;
    let hw = measure(Rtl::new(VBridge::new()))?;
    if sw != hw {
        return Err(format!("bridge: Verilog {hw:?}, model {sw:?}"));
    }
    let bytes = f64::from(REQS * LEN);
    // A MEM_WRITE's words: header, address (2), length, then the data, 2 bytes a word.
    let write_words = f64::from(4 + LEN / 2);
    let mut m = serde_json::Map::new();
    m.insert("board.bridge_bytes_moved".into(), json!(REQS * LEN));
    m.insert("board.bridge_write_cycles".into(), json!(hw.write_cycles));
    m.insert("board.bridge_write_bytes_per_cycle".into(), json!(bytes / hw.write_cycles as f64));
    m.insert("board.bridge_read_cycles".into(), json!(hw.read_cycles));
    m.insert("board.bridge_read_bytes_per_cycle".into(), json!(bytes / hw.read_cycles as f64));
    m.insert("board.bridge_reg_read_cycles".into(), json!(hw.reg_read_cycles));
    m.insert("board.pipe_bytes_per_ti_cycle".into(), json!(f64::from(LEN) / write_words));
    m.insert("board.model_agrees".into(), json!(true));
    let p = sanswitch_sim::board_pipes::pipe_figures(PIPE_BYTES)?;
    m.insert("board.pipes_bytes".into(), json!(p.bytes));
    m.insert("board.pipes_write_ti_cycles".into(), json!(p.write_ti_cycles));
    m.insert(
        "board.pipes_write_bytes_per_ti_cycle".into(),
        json!(p.bytes as f64 / p.write_ti_cycles as f64),
    );
    m.insert("board.pipes_read_ti_cycles".into(), json!(p.read_ti_cycles));
    m.insert(
        "board.pipes_read_bytes_per_ti_cycle".into(),
        json!(p.bytes as f64 / p.read_ti_cycles as f64),
    );
    Ok(m)
}

/// The lines `sanswitch bench` prints for these figures.
pub fn text(m: &serde_json::Map<String, Value>) -> String {
    let f = |k: &str| m.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    format!(
        "board bridge core (Verilog and model agree; request words every cycle, memory and \
         register slaves answering after 1 cycle)\n  \
         memory write    {:.3} B/cycle ({} B in {} cycles, 1 KiB requests)\n  \
         memory read     {:.3} B/cycle ({} cycles)\n  \
         register read   {} cycles, header taken to last response word\n  \
         pipe bound      {:.3} B per FrontPanel cycle (16-bit words, headers included)\n\
         board below FrontPanel's endpoints (Verilog: pipe FIFOs, bridge, NICs; 48 and 125 \
         MHz; one {} B transaction each)\n  \
         write through the pipes  {:.3} B per FrontPanel cycle ({} cycles)\n  \
         read through the pipes   {:.3} B per FrontPanel cycle ({} cycles)\n",
        f("board.bridge_write_bytes_per_cycle"),
        f("board.bridge_bytes_moved"),
        f("board.bridge_write_cycles"),
        f("board.bridge_read_bytes_per_cycle"),
        f("board.bridge_read_cycles"),
        f("board.bridge_reg_read_cycles"),
        f("board.pipe_bytes_per_ti_cycle"),
        f("board.pipes_bytes"),
        f("board.pipes_write_bytes_per_ti_cycle"),
        f("board.pipes_write_ti_cycles"),
        f("board.pipes_read_bytes_per_ti_cycle"),
        f("board.pipes_read_ti_cycles"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The core keeps up with the pipe: at 125 MHz against the pipe's 48 MHz, it moves more
    /// bytes per second both ways than one 16-bit word per FrontPanel cycle brings.
    #[test]
    fn bridge_figures_agree_and_outrun_the_pipe() {
        let m = figures().expect("figures");
        println!("{}", text(&m));
        let f = |k: &str| m[k].as_f64().unwrap_or_else(|| panic!("{k}: {m:?}"));
        let pipe = f("board.pipe_bytes_per_ti_cycle") * 48.0;
        for k in ["board.bridge_write_bytes_per_cycle", "board.bridge_read_bytes_per_cycle"] {
            assert!(f(k) * 125.0 > pipe, "{k}: {} MB/s against the pipe's {pipe}", f(k) * 125.0);
            assert!(f(k) <= 2.0, "{k}: more than a 16-bit word a cycle");
        }
        assert!((3.0..=12.0).contains(&f("board.bridge_reg_read_cycles")), "{m:?}");
        // Through the pipes: below the pipe bound, and not far below it.
        for k in ["board.pipes_write_bytes_per_ti_cycle", "board.pipes_read_bytes_per_ti_cycle"] {
            assert!(f(k) < f("board.pipe_bytes_per_ti_cycle") && f(k) > 1.6, "{k}: {m:?}");
        }
    }
}
