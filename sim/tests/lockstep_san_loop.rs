//! The Verilated SAN loopback against its cycle model, cycle by cycle: two NICs' messages,
//! teardowns and RDMA requests (granted, denied, of no bytes, outside the memories), two
//! memories answering word reads, random backpressure and resets. The stimulus also checks
//! the SAN's meaning (every delivery, response and byte written).

use sanswitch_model::blocks::san_loop::{SanLoopIn, SanLoopModel, SanLoopOut};
use sanswitch_model::blocks::san_loop_stimulus::SanLoopDriver;
use sanswitch_model::bridge::NODE_MEM_BYTES;
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{LockstepOptions, VSanLoop, lockstep};

const WORDS: u32 = NODE_MEM_BYTES / 8;

fn run(seed: u64, cycles: u64, rate: f64, reset_rate: f64) -> SanLoopDriver {
    let mut m = SanLoopModel::new(WORDS);
    let mut stim = SanLoopDriver::new(seed, WORDS);
    stim.rate = rate;
    let opts = LockstepOptions::with_resets(cycles, reset_rate, seed);
    if let Err(e) = lockstep(&mut m, &VSanLoop::new, &mut stim, &opts) {
        panic!("{e}");
    }
    assert!(stim.problems.is_empty(), "{:#?}", stim.problems);
    stim
}

#[test]
fn san_loop_lockstep_one_million_cycles() {
    let s = run(2026, 1_000_000, 0.7, 0.0);
    eprintln!(
        "{} beats, {} teardowns, {} copies ({} B), {} denied, {} outside",
        s.beats, s.downs, s.copies, s.copied_bytes, s.denied, s.oob
    );
    assert!(s.beats > 300_000 && s.downs > 20_000, "{} {}", s.beats, s.downs);
    assert!(s.copies > 20_000 && s.denied > 5_000 && s.oob > 3_000);
}

#[test]
fn san_loop_lockstep_with_resets() {
    run(7, 200_000, 1.0, 2e-4);
    run(8, 200_000, 0.3, 2e-4);
}

/// A model with one deliberate bug: the last word of a copy keeps every byte.
struct WholeLastWord(SanLoopModel);

impl CycleModel for WholeLastWord {
    type In = SanLoopIn;
    type Out = SanLoopOut;
    fn outputs(&self, i: &SanLoopIn) -> SanLoopOut {
        let mut o = self.0.outputs(i);
        if o.m_mem_valid_0 && o.m_mem_write_0 && o.m_mem_wmask_0 != 0xFF {
            o.m_mem_wmask_0 = 0xFF;
        }
        o
    }
    fn clock(&mut self, i: &SanLoopIn) {
        self.0.clock(i)
    }
}

#[test]
fn lockstep_catches_a_wrong_write_mask() {
    let dir = std::env::temp_dir().join(format!("sanswitch-san-loop-bug-{}", std::process::id()));
    let opts = LockstepOptions {
        vcd_window: 100,
        vcd_dir: Some(dir.clone()),
        ..LockstepOptions::with_resets(100_000, 0.0, 3)
    };
    let m = sanswitch_sim::assert_lockstep_catches(
        &|| WholeLastWord(SanLoopModel::new(WORDS)),
        std::rc::Rc::new(|| SanLoopModel::new(WORDS)),
        &VSanLoop::new,
        &|| SanLoopDriver::new(3, WORDS),
        &opts,
    );
    assert_eq!(m.port, "m_mem_wmask_0");
    assert_eq!(m.model, 0xFF);
    let _ = std::fs::remove_dir_all(dir);
}
