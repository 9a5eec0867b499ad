//! The pipe FIFOs in rust-hdl's simulator, with the FrontPanel clock (48 MHz-like) and the
//! engine clock (2.5 times faster) running freely: a host writes blocks only while
//! `pi_ready`, the engine side loops every word back with random stalls, and the host reads
//! blocks only while `po_ready`, taking each word the cycle after its `po_read`. The engine
//! side starts late, so the host must wait for room. Every word
//! must come back once, in order, and no FIFO may over- or underflow (`lost` stays low).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rust_hdl::prelude::*;
use sanswitch_hdl::board::PipeFifos;
use sanswitch_model::bridge::BLOCK_WORDS;

const BLOCKS: usize = 6;

fn word(k: usize) -> u16 {
    (k as u16).wrapping_mul(40503) ^ 0x5A5A
}

#[test]
fn blocks_cross_both_ways_in_order() {
    let mut uut = PipeFifos::new();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(10, |x: &mut Box<PipeFifos>| x.ti_clk.next = !x.ti_clk.val());
    sim.add_clock(4, |x: &mut Box<PipeFifos>| x.eng_clk.next = !x.eng_clk.val());
    let got = Arc::new(Mutex::new(Vec::new()));
    let got_reader = got.clone();
    // The host's writes: a block at a time, only when there is room for all of it.
    sim.add_testbench(move |mut sim: Sim<PipeFifos>| {
        let mut x = sim.init()?;
        wait_clock_true!(sim, ti_clk, x);
        for b in 0..BLOCKS {
            x = sim.watch(|x| x.pi_ready.val() && x.ti_clk.val().clk, x)?;
            for k in 0..BLOCK_WORDS {
                x.pi_write.next = true;
                x.pi_data.next = u64::from(word(b * BLOCK_WORDS + k)).into();
                wait_clock_cycle!(sim, ti_clk, x);
            }
            x.pi_write.next = false;
            wait_clock_cycle!(sim, ti_clk, x);
        }
        sim.done(x)
    });
    // The engine side: every word back, with stalls on both streams.
    sim.add_testbench(move |mut sim: Sim<PipeFifos>| {
        let mut x = sim.init()?;
        let mut held: VecDeque<u16> = VecDeque::new();
        let mut seed = 12345u32;
        let mut chance = |pct: u32| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (seed >> 16) % 100 < pct
        };
        wait_clock_true!(sim, eng_clk, x);
        // Stalled long enough for the host to fill the request FIFO: only `pi_ready` keeps
        // the blocks that would not fit from being sent.
        for _ in 0..10_000 {
            wait_clock_cycle!(sim, eng_clk, x);
        }
        let mut moved = 0;
        while moved < BLOCKS * BLOCK_WORDS {
            let take = chance(60) && held.len() < 4;
            x.m_axis_req_tready.next = take;
            x.s_axis_rsp_tvalid.next = !held.is_empty() && chance(70);
            x.s_axis_rsp_tdata.next = u64::from(held.front().copied().unwrap_or(0)).into();
            let taken = take && x.m_axis_req_tvalid.val();
            let word_in = x.m_axis_req_tdata.val().index() as u16;
            let sent = x.s_axis_rsp_tvalid.next && x.s_axis_rsp_tready.val();
            wait_clock_cycle!(sim, eng_clk, x);
            if sent {
                held.pop_front();
                moved += 1;
            }
            if taken {
                held.push_back(word_in);
            }
        }
        x.s_axis_rsp_tvalid.next = false;
        x.m_axis_req_tready.next = false;
        sim.done(x)
    });
    // The host's reads: a block at a time, only when a whole one is waiting.
    sim.add_testbench(move |mut sim: Sim<PipeFifos>| {
        let mut x = sim.init()?;
        wait_clock_true!(sim, ti_clk, x);
        for _ in 0..BLOCKS {
            x = sim.watch(|x| x.po_ready.val() && x.ti_clk.val().clk, x)?;
            x.po_read.next = true;
            for k in 0..BLOCK_WORDS {
                wait_clock_cycle!(sim, ti_clk, x);
                if k + 1 == BLOCK_WORDS {
                    x.po_read.next = false;
                }
                got_reader.lock().unwrap().push(x.po_data.val().index() as u16);
            }
            wait_clock_cycle!(sim, ti_clk, x);
        }
        // No word was written into a full FIFO or taken from an empty one.
        sim_assert!(sim, !x.lost.val(), x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 2_000_000).unwrap();
    let got = got.lock().unwrap();
    let want: Vec<u16> = (0..BLOCKS * BLOCK_WORDS).map(word).collect();
    assert_eq!(got.len(), want.len());
    let first_bad = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(first_bad, None, "word {first_bad:?} differs");
}

/// The FIFOs' Verilog passes Yosys, and the engine clock's MMCM gets the divider asked for.
#[test]
fn verilog_validates() {
    let mut uut = PipeFifos::new();
    for s in [
        &mut uut.pi_write,
        &mut uut.po_read,
        &mut uut.m_axis_req_tready,
        &mut uut.s_axis_rsp_tvalid,
    ] {
        s.connect();
    }
    uut.pi_data.connect();
    uut.s_axis_rsp_tdata.connect();
    uut.ti_clk.connect();
    uut.eng_clk.connect();
    uut.connect_all();
    yosys_validate("sanswitch_pipe_fifos", &generate_verilog(&uut)).unwrap();
    let clk = sanswitch_xem7010::EngineClock::new(sanswitch_xem7010::clock::DIVIDE_125);
    assert_eq!(clk.mhz(), 125.0);
    let Verilog::Blackbox(b) = clk.hdl() else { panic!("a black box") };
    assert!(b.code.contains("CLKOUT0_DIVIDE_F(8.000)"), "{}", b.code);
}

/// The FIFOs with both clocks running and the engine side idle (it never takes a request
/// word nor offers a response word), for a FrontPanel side driven by one testbench.
fn idle_engine() -> (Simulation<PipeFifos>, Box<PipeFifos>) {
    let mut uut = PipeFifos::new();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(10, |x: &mut Box<PipeFifos>| x.ti_clk.next = !x.ti_clk.val());
    sim.add_clock(4, |x: &mut Box<PipeFifos>| x.eng_clk.next = !x.eng_clk.val());
    (sim, Box::new(uut))
}

/// `lost` stays low while the request FIFO fills to its last word, rises on the one write
/// past it, and stays high (sticky).
#[test]
fn a_write_into_the_full_request_fifo_is_flagged() {
    const WORDS: usize = 1 << sanswitch_hdl::board::pipe_fifos::FIFO_LOG2;
    let flags = Arc::new(Mutex::new(Vec::new()));
    let log = flags.clone();
    let (mut sim, uut) = idle_engine();
    sim.add_testbench(move |mut sim: Sim<PipeFifos>| {
        let mut x = sim.init()?;
        wait_clock_true!(sim, ti_clk, x);
        for k in 0..=WORDS {
            x.pi_write.next = true;
            x.pi_data.next = (k as u64).into();
            wait_clock_cycle!(sim, ti_clk, x);
            log.lock().unwrap().push(x.lost.val());
        }
        x.pi_write.next = false;
        for _ in 0..100 {
            wait_clock_cycle!(sim, ti_clk, x);
            log.lock().unwrap().push(x.lost.val());
        }
        sim.done(x)
    });
    sim.run(uut, 1_000_000).unwrap();
    let flags = flags.lock().unwrap();
    // `flags[k]` is sampled after the edge that takes word `k`: the 1,024 words that fit
    // leave `lost` low; the edge of the one past them raises it.
    assert_eq!(flags.iter().position(|&l| l), Some(WORDS), "lost raised at the wrong write");
    assert!(flags[WORDS..].iter().all(|&l| l), "lost not held");
}

/// A pipe-out read with no word waiting is flagged the same way, and `po_ready` never
/// promised it.
#[test]
fn a_read_from_the_empty_response_fifo_is_flagged() {
    let flags = Arc::new(Mutex::new(Vec::new()));
    let log = flags.clone();
    let (mut sim, uut) = idle_engine();
    sim.add_testbench(move |mut sim: Sim<PipeFifos>| {
        let mut x = sim.init()?;
        wait_clock_true!(sim, ti_clk, x);
        for _ in 0..50 {
            wait_clock_cycle!(sim, ti_clk, x);
            log.lock().unwrap().push((x.lost.val(), x.po_ready.val()));
        }
        x.po_read.next = true;
        wait_clock_cycle!(sim, ti_clk, x);
        x.po_read.next = false;
        for _ in 0..50 {
            wait_clock_cycle!(sim, ti_clk, x);
            log.lock().unwrap().push((x.lost.val(), x.po_ready.val()));
        }
        sim.done(x)
    });
    sim.run(uut, 1_000_000).unwrap();
    let flags = flags.lock().unwrap();
    assert!(flags.iter().all(|&(_, ready)| !ready), "po_ready with nothing waiting");
    assert!(flags[..50].iter().all(|&(l, _)| !l), "lost before any read");
    // The word is popped the cycle after `po_read` (the edge before `flags[50]`), which
    // raises the flag at that edge.
    assert!(flags[50..].iter().all(|&(l, _)| l), "lost not raised, or not held: {flags:?}");
}

/// `po_ready` must not promise a second block while the pops of the first are still in
/// flight: with 2 x BLOCK - 1 words put, the host reads one block, and the flag stays low
/// from the first cycle after it until the engine puts the block's last word.
#[test]
fn po_ready_counts_the_words_being_popped() {
    let samples = Arc::new(Mutex::new(Vec::new()));
    let log = samples.clone();
    let got = Arc::new(Mutex::new(Vec::new()));
    let got_reader = got.clone();
    let (mut sim, uut) = idle_engine();
    // The engine side puts 2 x BLOCK - 1 words at once, then the last one much later.
    sim.add_testbench(move |mut sim: Sim<PipeFifos>| {
        let mut x = sim.init()?;
        wait_clock_true!(sim, eng_clk, x);
        for k in 0..2 * BLOCK_WORDS {
            if k + 1 == 2 * BLOCK_WORDS {
                x.s_axis_rsp_tvalid.next = false;
                for _ in 0..2_000 {
                    wait_clock_cycle!(sim, eng_clk, x);
                }
            }
            x.s_axis_rsp_tvalid.next = true;
            x.s_axis_rsp_tdata.next = u64::from(word(k)).into();
            wait_clock_cycle!(sim, eng_clk, x);
        }
        x.s_axis_rsp_tvalid.next = false;
        sim.done(x)
    });
    // The host reads a block when `po_ready`, then samples the flag every cycle.
    sim.add_testbench(move |mut sim: Sim<PipeFifos>| {
        let mut x = sim.init()?;
        wait_clock_true!(sim, ti_clk, x);
        for _ in 0..2 {
            x = sim.watch(|x| x.po_ready.val() && x.ti_clk.val().clk, x)?;
            x.po_read.next = true;
            for k in 0..BLOCK_WORDS {
                wait_clock_cycle!(sim, ti_clk, x);
                if k + 1 == BLOCK_WORDS {
                    x.po_read.next = false;
                }
                got_reader.lock().unwrap().push(x.po_data.val().index() as u16);
            }
            for _ in 0..200 {
                log.lock().unwrap().push(x.po_ready.val());
                wait_clock_cycle!(sim, ti_clk, x);
            }
        }
        sim_assert!(sim, !x.lost.val(), x);
        sim.done(x)
    });
    sim.run(uut, 2_000_000).unwrap();
    let samples = samples.lock().unwrap();
    let early: Vec<usize> = (0..200).filter(|&i| samples[i]).collect();
    assert!(early.is_empty(), "po_ready promised a block of BLOCK - 1 words at {early:?}");
    let got = got.lock().unwrap();
    let want: Vec<u16> = (0..2 * BLOCK_WORDS).map(word).collect();
    assert_eq!(*got, want);
}
