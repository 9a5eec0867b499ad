//! The Verilated board below FrontPanel's endpoints (`board_pipes.v`) with its two clocks,
//! as the driver's FrontPanel transport sees it in simulation mode
//! ([`sanswitch_driver::pipe_sim::PipeEndpoints`]), and the bridge's throughput through the
//! pipes (`sanswitch bench`'s `board.pipes_*`, `sim/tests/loopback_board_pipes.rs`).

use sanswitch_driver::frontpanel::Bridge;
use sanswitch_driver::pipe_sim::{BtPipes, PipeDrive, PipeEndpoints, PipeSense, PipeTiming};
use sanswitch_model::blocks::board_pipes::BoardPipesIn;
use sanswitch_model::bridge::{Request, Response};

use crate::{Dut, StartValues, VBoardPipes};

/// FrontPanel's clock on USB 2.0 boards (48 MHz) and the engine's (125 MHz), in picoseconds.
pub const TI_PS: u64 = 20_833;
pub const ENG_PS: u64 = 8_000;

/// The Verilated board with both clocks: each FrontPanel cycle lets every engine edge that
/// falls inside it pass, then the FrontPanel edge. Panics if the bridge answers `ERROR`, a
/// memory access falls outside a memory, or a pipe FIFO loses a word (`lost`).
pub struct PipeBoard {
    dut: VBoardPipes,
    /// The time of the last FrontPanel edge, and of the next engine edge.
    now_ps: u64,
    next_eng_ps: u64,
    /// Engine cycles run.
    pub eng_cycles: u64,
}

impl Default for PipeBoard {
    fn default() -> Self {
        Self::new()
    }
}

impl PipeBoard {
    pub fn new() -> Self {
        // The pipe FIFOs have no reset: they start empty with the FPGA's configuration, so
        // the registers start at zero here; the engine clock's reset clears the rest.
        let mut dut = VBoardPipes::with_start(StartValues::Zero);
        dut.reset_cycle();
        PipeBoard { dut, now_ps: 0, next_eng_ps: ENG_PS, eng_cycles: 0 }
    }
}

impl PipeEndpoints for PipeBoard {
    fn ti_cycle(&mut self, d: &PipeDrive) -> PipeSense {
        let mut i = BoardPipesIn {
            reset: false,
            ti_clk: false,
            pi_write: d.pi_write,
            pi_data: d.pi_data,
            po_read: d.po_read,
        };
        self.dut.set(&i);
        let edge = self.now_ps + TI_PS;
        while self.next_eng_ps < edge {
            self.dut.tick();
            self.next_eng_ps += ENG_PS;
            self.eng_cycles += 1;
        }
        let o = self.dut.get();
        assert_eq!(o.errors, 0, "the bridge answered ERROR");
        assert!(!o.oob, "a memory access outside a memory");
        assert!(!o.lost, "a pipe FIFO written full or read empty");
        i.ti_clk = true;
        self.dut.set(&i);
        i.ti_clk = false;
        self.dut.set(&i);
        self.now_ps = edge;
        PipeSense { pi_ready: o.pi_ready, po_ready: o.po_ready, po_data: o.po_data }
    }
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|k| (k as u8).wrapping_mul(73).wrapping_add(seed) ^ (k >> 8) as u8).collect()
}

/// Writes `bytes` to node `node`'s memory (node 1's range starting inside a word) in one
/// `MEM_WRITE` and reads them back in one `MEM_READ`, every byte compared; the FrontPanel
/// cycles of each transaction (the first block's wait for `ep_ready` to the last response
/// word taken).
pub fn write_then_read(
    b: &mut Bridge<BtPipes<PipeBoard>>,
    node: usize,
    bytes: usize,
) -> Result<(u64, u64), String> {
    let data = pattern(bytes, node as u8 + 1);
    let addr = 8 + 5 * node as u32;
    let t0 = b.link.ti_cycles;
    let r = b
        .transact(&[Request::MemWrite { node, addr, data: data.clone() }])
        .map_err(|e| e.to_string())?;
    if !matches!(r[..], [Response::MemWrite { status: 0, .. }]) {
        return Err(format!("node {node}: memory write answered {r:?}"));
    }
    let t1 = b.link.ti_cycles;
    let r = b
        .transact(&[Request::MemRead { node, addr, len: bytes as u32 }])
        .map_err(|e| e.to_string())?;
    let t2 = b.link.ti_cycles;
    let [Response::MemRead { status: 0, ref words, .. }] = r[..] else {
        return Err(format!("node {node}: memory read answered {r:?}"));
    };
    let got: Vec<u8> =
        words.iter().flat_map(|w| w.to_le_bytes()).skip(addr as usize % 8).take(bytes).collect();
    if got != data {
        return Err(format!("node {node}: the {bytes} bytes read are not those written"));
    }
    Ok((t1 - t0, t2 - t1))
}

/// The bridge's throughput through the pipes, the host side with no pauses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipeFigures {
    pub bytes: u64,
    /// FrontPanel cycles of the write and of the read, node 0.
    pub write_ti_cycles: u64,
    pub read_ti_cycles: u64,
    /// Engine cycles of both.
    pub eng_cycles: u64,
}

/// [`PipeFigures`] for `bytes` (at most `MAX_MEM_BYTES`) written to node 0 and read back.
pub fn pipe_figures(bytes: usize) -> Result<PipeFigures, String> {
    let mut b = Bridge::new(BtPipes::new(PipeBoard::new(), PipeTiming::default()));
    let (w, r) = write_then_read(&mut b, 0, bytes)?;
    Ok(PipeFigures {
        bytes: bytes as u64,
        write_ti_cycles: w,
        read_ti_cycles: r,
        eng_cycles: b.link.ends.eng_cycles,
    })
}
