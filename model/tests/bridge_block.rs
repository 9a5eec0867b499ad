//! The bridge's cycle model under its random stimulus, checked word by word against the
//! protocol's reference behaviour (`BridgeExec`), with and without resets, at three memory
//! sizes (the smallest a single word). The Verilog is checked against this model in
//! `sim/tests/lockstep_bridge.rs`.

use sanswitch_model::blocks::bridge::{BridgeIn, BridgeModel};
use sanswitch_model::blocks::bridge_stimulus::BridgeDriver;
use sanswitch_model::ports::{CycleModel, Stimulus};

/// Runs `cycles`; a reset every `reset_every` cycles (0: never). The driver.
fn run(mem_bytes: u32, seed: u64, cycles: u64, reset_every: u64) -> BridgeDriver {
    let mut m = BridgeModel::new(mem_bytes);
    let mut d = BridgeDriver::new(seed, mem_bytes);
    for c in 1..=cycles {
        let mut i: BridgeIn = d.next();
        i.reset = reset_every != 0 && c % reset_every == 0;
        let o = m.outputs(&i);
        m.clock(&i);
        d.observe(&i, &o);
        if i.reset {
            d.reset();
        }
    }
    d
}

#[test]
fn every_response_word_is_the_references() {
    for (mem, seed) in [(4096, 1), (65536, 2), (8, 3)] {
        let d = run(mem, seed, 300_000, 0);
        let c = d.counts;
        println!("{mem} B: {c:?}");
        assert!(c.requests.iter().all(|n| *n > 100), "{c:?}");
        assert!(c.checked_words > 50_000, "{c:?}");
        assert!(c.mem_writes > 1_000 || mem == 8, "{c:?}");
        assert!(c.mem_reads > 1_000 || mem == 8, "{c:?}");
        assert!(c.reg_writes > 500 && c.reg_reads > 500, "{c:?}");
        assert!(
            d.owed() < 2 * sanswitch_model::bridge::BLOCK_WORDS,
            "the bridge fell behind: {} words owed",
            d.owed()
        );
    }
}

#[test]
fn resets_lose_nothing_after_them() {
    let d = run(4096, 7, 300_000, 997);
    assert!(d.counts.checked_words > 30_000, "{:?}", d.counts);
}
