//! The FrontPanel transport's simulation mode: the bridge's words carried over FrontPanel's
//! two block-throttled pipes as `okHost` presents them to the design, one FrontPanel clock
//! cycle (`ti_clk`) at a time, on whatever holds the endpoints' other side (the Verilated
//! board below its endpoints, `sim/tests/loopback_board_pipes.rs`).
//!
//! What FrontPanel does, and so what [`BtPipes`] does (Opal Kelly's FrontPanel user's
//! manual, "Block-Throttled Pipes"; `docs/BOARD.md`):
//! - **Pipe in** (`okBTPipeIn`): before each block the host waits until the design's
//!   `ep_ready` is high (it samples it at a clock edge), then writes the block's words, one
//!   per cycle in which `ep_write` is high, the word on `ep_dataout` in the same cycle. The
//!   USB transfer may pause between words: cycles with `ep_write` low inside a block
//!   ([`PipeTiming::gap`]).
//! - **Pipe out** (`okBTPipeOut`): before each block the host waits for `ep_ready`, then reads
//!   the block's words: `ep_read` high in a cycle asks for a word, which the design presents
//!   on `ep_datain` in the next cycle, where the host takes it; reads may pause as writes do.
//! - The host's own time between blocks and transactions (USB round trips) is not modelled:
//!   the figures are the design's, the pipes running as fast as FrontPanel's clock lets them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sanswitch_model::bridge::BLOCK_WORDS;

use crate::Error;
use crate::frontpanel::PipeLink;

/// What the host side drives in one FrontPanel clock cycle: the pipe-in endpoint's
/// `ep_write` and `ep_dataout`, the pipe-out endpoint's `ep_read`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipeDrive {
    pub pi_write: bool,
    pub pi_data: u16,
    pub po_read: bool,
}

/// What the design drives, as the host samples it at the end of the cycle (the next rising
/// edge of `ti_clk`): the pipe-in endpoint's `ep_ready`, the pipe-out's `ep_ready` and
/// `ep_datain`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipeSense {
    pub pi_ready: bool,
    pub po_ready: bool,
    pub po_data: u16,
}

/// The design's side of the two endpoints, one FrontPanel clock cycle at a time.
pub trait PipeEndpoints {
    /// Drives `d` for one `ti_clk` cycle (whatever else runs meanwhile, the engine clock,
    /// runs), returns what the design drives at its end, then lets the rising edge pass.
    fn ti_cycle(&mut self, d: &PipeDrive) -> PipeSense;
}

/// How the host's pipe transfers pause.
#[derive(Clone, Copy, Debug)]
pub struct PipeTiming {
    /// Chance that a cycle inside a block carries no word (a pause in the USB transfer).
    pub gap: f64,
    /// Seed of the pauses.
    pub seed: u64,
    /// FrontPanel cycles a read may wait for its blocks before it is an error.
    pub patience: u64,
}

impl Default for PipeTiming {
    fn default() -> Self {
        PipeTiming { gap: 0.0, seed: 1, patience: 1 << 22 }
    }
}

/// A [`PipeLink`] that moves every block through the endpoints' signals, as `okHost` does.
pub struct BtPipes<E> {
    pub ends: E,
    timing: PipeTiming,
    rng: ChaCha8Rng,
    /// FrontPanel clock cycles run.
    pub ti_cycles: u64,
    /// Cycles a block waited for `ep_ready` (pipe in, pipe out).
    pub ready_waits: [u64; 2],
    /// Words moved (pipe in, pipe out).
    pub words: [u64; 2],
}

impl<E: PipeEndpoints> BtPipes<E> {
    pub fn new(ends: E, timing: PipeTiming) -> Self {
        BtPipes {
            ends,
            rng: ChaCha8Rng::seed_from_u64(timing.seed),
            timing,
            ti_cycles: 0,
            ready_waits: [0; 2],
            words: [0; 2],
        }
    }

    fn cycle(&mut self, d: &PipeDrive) -> PipeSense {
        self.ti_cycles += 1;
        self.ends.ti_cycle(d)
    }

    fn pause(&mut self) -> bool {
        self.timing.gap > 0.0 && self.rng.gen_bool(self.timing.gap)
    }

    /// Idles until the endpoint `which` (0 in, 1 out) says ready; `deadline` bounds it.
    fn wait_ready(&mut self, which: usize, deadline: u64) -> Result<(), Error> {
        loop {
            let s = self.cycle(&PipeDrive::default());
            if [s.pi_ready, s.po_ready][which] {
                return Ok(());
            }
            self.ready_waits[which] += 1;
            if self.ti_cycles >= deadline {
                return Err(Error::Protocol(format!(
                    "pipe {}'s ep_ready low for {} FrontPanel cycles",
                    ["in", "out"][which],
                    self.timing.patience
                )));
            }
        }
    }
}

impl<E: PipeEndpoints> PipeLink for BtPipes<E> {
    fn write_blocks(&mut self, words: &[u16]) -> Result<(), Error> {
        assert_eq!(words.len() % BLOCK_WORDS, 0, "whole blocks");
        for block in words.chunks(BLOCK_WORDS) {
            let deadline = self.ti_cycles + self.timing.patience;
            self.wait_ready(0, deadline)?;
            let mut k = 0;
            while k < block.len() {
                if self.pause() {
                    self.cycle(&PipeDrive::default());
                    continue;
                }
                self.cycle(&PipeDrive { pi_write: true, pi_data: block[k], po_read: false });
                k += 1;
            }
            self.words[0] += block.len() as u64;
        }
        Ok(())
    }

    fn read_blocks(&mut self, n: usize) -> Result<Vec<u16>, Error> {
        assert_eq!(n % BLOCK_WORDS, 0, "whole blocks");
        let mut got = Vec::with_capacity(n);
        let deadline = self.ti_cycles + self.timing.patience;
        for _ in 0..n / BLOCK_WORDS {
            self.wait_ready(1, deadline)?;
            // A read strobe's word is on `ep_datain` in the cycle after it.
            let (mut asked, mut taken, mut pending) = (0, 0, false);
            while taken < BLOCK_WORDS {
                let read = asked < BLOCK_WORDS && !self.pause();
                let s = self.cycle(&PipeDrive { po_read: read, ..PipeDrive::default() });
                if pending {
                    got.push(s.po_data);
                    taken += 1;
                }
                pending = read;
                asked += usize::from(read);
            }
            self.words[1] += BLOCK_WORDS as u64;
        }
        Ok(got)
    }

    fn wait(&mut self) {
        for _ in 0..32 {
            self.cycle(&PipeDrive::default());
        }
    }

    fn now_cycles(&self) -> Option<u64> {
        Some(self.ti_cycles)
    }
}
