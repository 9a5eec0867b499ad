//! The Verilated node memory against its cycle model, cycle by cycle: a NIC reading and
//! writing at odd addresses (some outside), a word port, random backpressure and resets.

use sanswitch_model::blocks::node_mem::NodeMemModel;
use sanswitch_model::blocks::node_mem_stimulus::NodeMemDriver;
use sanswitch_model::bridge::NODE_MEM_BYTES;
use sanswitch_sim::{LockstepOptions, VNodeMem, lockstep};

const WORDS: usize = (NODE_MEM_BYTES / 8) as usize;

fn run(seed: u64, cycles: u64, rate: f64, reset_rate: f64) -> (NodeMemDriver, NodeMemModel) {
    let mut m = NodeMemModel::new(WORDS);
    let mut stim = NodeMemDriver::new(seed, WORDS);
    stim.rate = rate;
    let opts = LockstepOptions::with_resets(cycles, reset_rate, seed);
    if let Err(e) = lockstep(&mut m, &VNodeMem::new, &mut stim, &opts) {
        panic!("{e}");
    }
    (stim, m)
}

#[test]
fn node_mem_lockstep_one_million_cycles() {
    let (s, _) = run(2026, 1_000_000, 0.7, 0.0);
    eprintln!(
        "{} reads, {} beats read, {} beats written, {} word accesses",
        s.reads, s.beats_read, s.beats_written, s.words
    );
    assert!(s.reads > 20_000 && s.beats_read > 50_000, "reads {} beats {}", s.reads, s.beats_read);
    assert!(s.beats_written > 50_000 && s.words > 50_000);
}

#[test]
fn node_mem_lockstep_with_resets() {
    run(7, 200_000, 1.0, 2e-4);
    run(8, 200_000, 0.3, 2e-4);
}
