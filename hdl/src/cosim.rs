//! The blocks as the co-simulation (`sim/`) builds them: which Verilog is verilated, under
//! which name, at which parameters. The one list `sim/build.rs` builds from and the lockstep
//! tests take their parameters from, so a test always runs the model at the parameters its
//! Verilog was generated with.
//!
//! Every block is built at its default parameters and at [`EngineParams::small`] (the pool
//! also at [`EngineParams::large`]); `parser_noreset` is a deliberately broken parser (see
//! [`crate::parser::beat::drop_beat_p1_reset`]) that the tests must catch.
//!
//! The Verilog is the simulation view [`cosim_verilog`]: the generated file without its
//! registers' power-up values (rust-hdl writes `initial q = 0` in every flip-flop), so under
//! Verilator's `--x-initial unique` every register starts from a random value and only the
//! reset gives it a known one, as on silicon after a mid-run reset.

use sanswitch_model::params::{POOL_MAX_BUFS, ParserParams, PoolParams, SequencerParams};

use crate::{BlockName, EngineParams, verilog};

impl EngineParams {
    /// The second parameter set of the co-simulation: small tables, where the limits are
    /// reached in few cycles (4 connections; the parser's smallest buffer; the pool's
    /// fewest buffers; a sequencer with 3 connections, 4 registrations, 2 ops, one-beat
    /// segments and a window of 2).
    pub fn small() -> Self {
        // `..default()` even where every field is named: the parameter structs may grow.
        #[allow(clippy::needless_update)]
        let pool =
            PoolParams { connections: 4, send_bufs: 2, recv_bufs: 4, ..PoolParams::default() };
        let sequencer = SequencerParams {
            connections: 3,
            reg_entries: 4,
            ops: 2,
            segment: 8,
            window: 2,
            ..SequencerParams::default()
        };
        #[allow(clippy::needless_update)]
        let parser = ParserParams { connections: 4, buf_size: 64, ..ParserParams::default() };
        EngineParams { parser, pool, sequencer, ..EngineParams::default() }
    }

    /// The large set, built for the pool only: 64 connections (a state RAM of 64 words) and
    /// the most buffers of each kind. The other blocks keep their defaults.
    pub fn large() -> Self {
        #[allow(clippy::needless_update)]
        let pool = PoolParams {
            connections: 64,
            send_bufs: POOL_MAX_BUFS,
            recv_bufs: POOL_MAX_BUFS,
            ..PoolParams::default()
        };
        EngineParams { pool, ..EngineParams::default() }
    }
}

/// A deliberate flaw in a co-simulated block: a test of the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flaw {
    /// The parser's beat tracker leaves `beat_p1` out of its reset.
    ParserBeatP1NotReset,
}

/// One Verilated module of the co-simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CosimBlock {
    /// Its name in `sim` (Verilator prefix `V<name>`; the `sanswitch_sim` type of the same
    /// name in CamelCase, e.g. `parser_small` is `VParserSmall`).
    pub name: &'static str,
    pub block: BlockName,
    /// The parameters its Verilog is generated with (only `block`'s part matters).
    pub params: EngineParams,
    pub flaw: Option<Flaw>,
}

/// Every module the co-simulation builds.
pub fn cosim_blocks() -> Vec<CosimBlock> {
    let b = |name, block, params| CosimBlock { name, block, params, flaw: None };
    let (d, s, l) = (EngineParams::default(), EngineParams::small(), EngineParams::large());
    vec![
        b("parser", BlockName::Parser, d),
        b("pool", BlockName::Pool, d),
        b("sequencer", BlockName::Sequencer, d),
        b("engine", BlockName::Engine, d),
        b(
            "engine_write",
            BlockName::Engine,
            EngineParams { engine: d.engine.without_rdma_read(), ..d },
        ),
        b("hostif", BlockName::HostIf, d),
        b("nic", BlockName::Nic, d),
        b("bridge", BlockName::Bridge, d),
        b("node_mem", BlockName::NodeMem, d),
        b("san_loop", BlockName::SanLoop, d),
        b("board_core", BlockName::BoardCore, d),
        b("board_pipes", BlockName::BoardPipes, d),
        b("parser_small", BlockName::Parser, s),
        b("pool_small", BlockName::Pool, s),
        b("sequencer_small", BlockName::Sequencer, s),
        b("pool_large", BlockName::Pool, l),
        CosimBlock {
            flaw: Some(Flaw::ParserBeatP1NotReset),
            ..b("parser_noreset", BlockName::Parser, d)
        },
    ]
}

/// The co-simulated module called `name`.
///
/// # Panics
/// If there is none (the names are those of [`cosim_blocks`]).
pub fn cosim_block(name: &str) -> CosimBlock {
    cosim_blocks()
        .into_iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no co-simulated block is called {name:?}"))
}

/// The Verilog `sim` verilates for `b`: the block's Verilog (top module named after the
/// block, as [`verilog`] writes it), its flaw applied, without power-up values.
pub fn cosim_verilog(b: &CosimBlock) -> String {
    let mut v = verilog(b.block, &b.params);
    match b.flaw {
        None => {}
        Some(Flaw::ParserBeatP1NotReset) => v = crate::parser::beat::drop_beat_p1_reset(&v),
    }
    without_power_up_values(&v)
}

/// `v` without the power-up value of any flip-flop: each `initial begin q = <constant>;
/// end` block that rust-hdl writes in a register's module is removed. Other `initial`
/// blocks (memory contents, several statements) are kept.
pub fn without_power_up_values(v: &str) -> String {
    let lines: Vec<&str> = v.split_inclusive('\n').collect();
    let mut out = String::with_capacity(v.len());
    let mut k = 0;
    while k < lines.len() {
        let is_dff_init = lines[k].trim() == "initial begin"
            && lines.get(k + 2).is_some_and(|l| l.trim() == "end")
            && lines.get(k + 1).is_some_and(|l| {
                let t = l.trim();
                t.strip_prefix("q = ").and_then(|r| r.strip_suffix(';')).is_some_and(|c| {
                    c.chars()
                        .all(|ch| ch.is_ascii_hexdigit() || ch == '\'' || ch == 'h' || ch == 'b')
                })
            });
        if is_dff_init {
            k += 3;
        } else {
            out.push_str(lines[k]);
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_up_values_are_removed_and_nothing_else() {
        let v = "module a(d,q,clock);\n    initial begin\n       q = 14'h0;\n    end\n    \
                 always @(posedge clock) begin\n       q <= d;\n    end\nendmodule\n\
                 module m;\n    initial begin\n       mem[0] = 8'h1;\n    end\nendmodule\n";
        let w = without_power_up_values(v);
        assert!(!w.contains("q = 14'h0"), "{w}");
        assert!(w.contains("q <= d;") && w.contains("mem[0] = 8'h1;"), "{w}");
        assert_eq!(w.matches("initial begin").count(), 1, "{w}");
    }

    #[test]
    fn every_register_of_every_block_loses_its_power_up_value() {
        for b in cosim_blocks() {
            let v = cosim_verilog(&b);
            assert!(!v.contains("initial"), "{}: an initial block is left", b.name);
            let raw = verilog(b.block, &b.params);
            assert!(raw.matches("initial begin").count() > 10, "{}", b.name);
        }
    }

    #[test]
    fn the_flawed_parser_differs_by_one_reset_line() {
        let b = cosim_block("parser_noreset");
        let good = verilog(b.block, &b.params);
        let bad = crate::parser::beat::drop_beat_p1_reset(&good);
        let (g, f): (Vec<&str>, Vec<&str>) = (good.lines().collect(), bad.lines().collect());
        assert_eq!(g.len(), f.len() + 1);
        let at = g.iter().zip(&f).position(|(a, b)| a != b).expect("a line is missing");
        assert_eq!(g[at].trim(), "beat_p1$d = 32'h1;");
        assert_eq!(g[at - 2].trim(), "if (reset) begin");
        assert_eq!(g[at + 1..], f[at..], "only that line");
        assert_eq!(good.matches("beat_p1$d = 32'h1;").count(), 2);
        assert_eq!(bad.matches("beat_p1$d = 32'h1;").count(), 1);
        // The default Verilog does not know about the flaw.
        assert_eq!(verilog(BlockName::Parser, &EngineParams::default()), good);
    }

    #[test]
    fn names_are_unique_and_parameters_valid() {
        let all = cosim_blocks();
        for (k, b) in all.iter().enumerate() {
            assert!(all[..k].iter().all(|o| o.name != b.name), "{} twice", b.name);
            assert!(b.name.starts_with(b.block.name()), "{}", b.name);
            match b.block {
                BlockName::Parser => b.params.parser.validate(),
                BlockName::Pool => b.params.pool.validate(),
                BlockName::Sequencer => b.params.sequencer.validate(),
                BlockName::Engine => b.params.engine.validate(),
                BlockName::HostIf | BlockName::Nic => b
                    .params
                    .engine
                    .validate()
                    .and_then(|()| sanswitch_model::regs::HostParams::default().validate()),
                // Built at the board's one memory size, not from the engine's parameters.
                BlockName::Bridge
                | BlockName::NodeMem
                | BlockName::SanLoop
                | BlockName::BoardCore
                | BlockName::BoardPipes => Ok(()),
            }
            .unwrap();
        }
    }
}
