//! Every block's Verilog against its model at a second parameter set,
//! `EngineParams::small()` (and the pool at `EngineParams::large()`, 64 connections), with
//! resets at random cycles and registers starting from random values. The parameters come
//! from `sanswitch_hdl::cosim`, the list `build.rs` generated the Verilog from.

use sanswitch_hdl::cosim::{cosim_block, cosim_blocks};
use sanswitch_model::blocks::parser::ParserModel;
use sanswitch_model::blocks::parser_stimulus::ParserDriver;
use sanswitch_model::blocks::pool::{PoolIn, PoolModel, PoolOut};
use sanswitch_model::blocks::pool_stimulus::PoolDriver;
use sanswitch_model::blocks::sequencer::SequencerModel;
use sanswitch_model::blocks::sequencer_stimulus::SeqDriver;
use sanswitch_sim::{
    BUILT, Dut, LockstepOptions, MODULES, VParserSmall, VPoolLarge, VPoolSmall, VSequencerSmall,
    lockstep,
};

#[test]
fn every_module_of_the_cosim_list_is_built_and_has_a_type() {
    let names: Vec<&str> = cosim_blocks().iter().map(|b| b.name).collect();
    assert_eq!(names, BUILT.split(',').collect::<Vec<_>>(), "build.rs built another list");
    assert_eq!(names, MODULES, "sanswitch_sim's module types");
}

#[test]
fn parser_small_lockstep() {
    let p = cosim_block("parser_small").params.parser;
    let mut model = ParserModel::new(p);
    let mut d = ParserDriver::new(31, p.buf_size, p.connections, 0.33);
    d.record = false;
    d.valid_rate = 0.85;
    d.ready_rate = 0.7;
    let opts = LockstepOptions::with_resets(200_000, 5e-4, 31);
    let r =
        lockstep(&mut model, &VParserSmall::new, &mut d, &opts).unwrap_or_else(|m| panic!("{m}"));
    assert!(r.resets > 20, "{r:?}");
}

fn pool<D: Dut<In = PoolIn, Out = PoolOut>>(name: &str, make_dut: &dyn Fn() -> D, seed: u64) {
    let p = cosim_block(name).params.pool;
    let mut model = PoolModel::new(p);
    let mut d = PoolDriver::new(seed, p, 0.1);
    let opts = LockstepOptions::with_resets(200_000, 1e-4, seed);
    lockstep(&mut model, make_dut, &mut d, &opts).unwrap_or_else(|m| panic!("{name}: {m}"));
}

#[test]
fn pool_small_lockstep() {
    pool("pool_small", &VPoolSmall::new, 32);
}

#[test]
fn pool_large_lockstep() {
    assert_eq!(cosim_block("pool_large").params.pool.connections, 64);
    pool("pool_large", &VPoolLarge::new, 33);
}

#[test]
fn sequencer_small_lockstep() {
    let p = cosim_block("sequencer_small").params.sequencer;
    let mut model = SequencerModel::new(p);
    let mut d = SeqDriver::new(34, p);
    let opts = LockstepOptions::with_resets(200_000, 1e-4, 34);
    lockstep(&mut model, &VSequencerSmall::new, &mut d, &opts).unwrap_or_else(|m| panic!("{m}"));
    eprintln!("{:#?}", d.stats);
    assert!(d.stats.completions.iter().sum::<u64>() > 100, "{:?}", d.stats);
}
