//! sanswitch's synthesizable blocks, in rust-hdl.
//!
//! One block per file, each built from its parameter struct in `sanswitch_model::params` and
//! exposing the ports of its port structs in `sanswitch_model::blocks`:
//! - [`parser::ControlParser`]: the control-message parser.
//! - [`sequencer::Sequencer`]: the RDMA read/write sequencer (registration table, op table,
//!   RDMA requests, completion requests, remote-access checks).
//!
//! [`verilog`] gives each block's Verilog, the one source the co-simulation build, the
//! `generate` command and the lint tests all use.

pub mod board;
pub mod cosim;
pub mod engine;
pub mod hostif;
pub mod nic;
pub mod parser;
pub mod pool;
pub mod rhsim;
pub mod sequencer;
pub mod synth;
pub mod tools;
pub mod widgets;

pub use rust_hdl;

use rust_hdl::prelude::*;
use sanswitch_model::params::{ParserParams, PoolParams, SequencerParams};

/// The Verilator lint waivers for every generated file (`hdl/verilator.vlt`).
pub const VERILATOR_WAIVERS: &str = include_str!("../verilator.vlt");

/// The ports of a block's top module as the Verilog declares them: (direction, name, width),
/// in declaration order. `direction` is "input" or "output".
pub fn top_ports(v: &str) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    let mut in_top = false;
    for line in v.lines() {
        let t = line.trim();
        if t.starts_with("module ") {
            if in_top {
                break;
            }
            in_top = true;
            continue;
        }
        if !in_top {
            continue;
        }
        let dir = if t.starts_with("input ") {
            "input"
        } else if t.starts_with("output ") {
            "output"
        } else {
            continue;
        };
        let body = t.trim_end_matches(';');
        let name = body.rsplit(' ').next().unwrap_or_default().to_string();
        let width = match (body.find('['), body.find(':')) {
            (Some(a), Some(b)) if b > a => {
                body[a + 1..b].trim().parse::<u32>().map_or(0, |m| m + 1)
            }
            _ => 1,
        };
        out.push((dir.to_string(), name, width));
    }
    out
}

/// A block the generator knows: its file name and how to build its Verilog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockName {
    Parser,
    Pool,
    Sequencer,
    Engine,
    HostIf,
    /// The NIC top: host interface + engine on one host-memory port.
    Nic,
    /// The FrontPanel bridge's core (the development board's host side), in front of two
    /// memories of `sanswitch_model::bridge::NODE_MEM_BYTES`.
    Bridge,
    /// A board node's on-chip memory (the NIC's host memory on the XEM7010), of
    /// `sanswitch_model::bridge::NODE_MEM_BYTES`.
    NodeMem,
    /// The on-chip SAN loopback between the board's two NICs, on two memories of
    /// `sanswitch_model::bridge::NODE_MEM_BYTES`.
    SanLoop,
    /// The board's logic below the FrontPanel pipes (bridge, two NICs of
    /// `EngineParams::board()` with their memories, SAN loopback): co-simulated only
    /// (`generate --board` writes it inside the board's top), so not in [`BlockName::ALL`].
    BoardCore,
    /// The board below FrontPanel's endpoints: the pipe FIFOs (two clocks: `clock`, the
    /// engine's, and `ti_clk`, FrontPanel's) before the board core; co-simulated only.
    BoardPipes,
}

impl BlockName {
    pub const ALL: [BlockName; 9] = [
        BlockName::Parser,
        BlockName::Pool,
        BlockName::Sequencer,
        BlockName::Engine,
        BlockName::HostIf,
        BlockName::Nic,
        BlockName::Bridge,
        BlockName::NodeMem,
        BlockName::SanLoop,
    ];

    /// File stem and Verilator prefix.
    pub fn name(self) -> &'static str {
        match self {
            BlockName::Parser => "parser",
            BlockName::Pool => "pool",
            BlockName::Sequencer => "sequencer",
            BlockName::Engine => "engine",
            BlockName::HostIf => "hostif",
            BlockName::Nic => "nic",
            BlockName::Bridge => "bridge",
            BlockName::NodeMem => "node_mem",
            BlockName::SanLoop => "san_loop",
            BlockName::BoardCore => "board_core",
            BlockName::BoardPipes => "board_pipes",
        }
    }
}

/// Parameters of every block: the one struct every block is built from (the co-simulation
/// build, `sanswitch generate`, the benches). What blocks share (the connection count) is
/// the same in all of them: [`EngineParams::validate`] refuses a set where it differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EngineParams {
    pub parser: ParserParams,
    pub pool: PoolParams,
    pub sequencer: SequencerParams,
    /// The engine's own (its parser and pool are built from these, not from the fields
    /// above, which parameterize the blocks alone).
    pub engine: sanswitch_model::params::EngineParams,
}

impl EngineParams {
    /// The same connection count in every block.
    pub fn with_connections(mut self, n: u16) -> Self {
        self.parser.connections = n;
        self.pool.connections = n;
        self.sequencer.connections = n;
        self.engine.connections = n;
        self
    }

    /// Every block's parameters valid, and the shared ones equal.
    pub fn validate(&self) -> Result<(), String> {
        self.parser.validate().map_err(|e| format!("parser: {e}"))?;
        self.pool.validate().map_err(|e| format!("pool: {e}"))?;
        self.sequencer.validate().map_err(|e| format!("sequencer: {e}"))?;
        self.engine.validate().map_err(|e| format!("engine: {e}"))?;
        let c = [self.parser.connections, self.pool.connections, self.sequencer.connections];
        if c.iter().any(|&n| n != c[0]) {
            return Err(format!(
                "connections differ between blocks (parser {}, pool {}, sequencer {})",
                c[0], c[1], c[2]
            ));
        }
        Ok(())
    }
}

/// The Verilog of one block. The top module is named after the block.
pub fn verilog(block: BlockName, p: &EngineParams) -> String {
    let v = match block {
        BlockName::Parser => {
            let mut uut = parser::ControlParser::new(&p.parser);
            uut.connect_all();
            generate_verilog(&uut)
        }
        BlockName::Pool => pool_verilog(&p.pool),
        BlockName::Sequencer => {
            let mut uut = sequencer::Sequencer::new(&p.sequencer);
            uut.connect_all();
            generate_verilog(&uut)
        }
        BlockName::Engine => return engine_verilog(&p.engine),
        BlockName::Nic => return nic_verilog(&p.engine),
        BlockName::Bridge => {
            let mut uut = board::Bridge::new(sanswitch_model::bridge::NODE_MEM_BYTES);
            uut.connect_all();
            generate_verilog(&uut)
        }
        BlockName::NodeMem => {
            let words = (sanswitch_model::bridge::NODE_MEM_BYTES / 8) as usize;
            let mut uut = board::NodeMem::new(words);
            uut.connect_all();
            generate_verilog(&uut)
        }
        BlockName::SanLoop => {
            let words = (sanswitch_model::bridge::NODE_MEM_BYTES / 8) as usize;
            let mut uut = board::SanLoop::new(words);
            uut.connect_all();
            generate_verilog(&uut)
        }
        BlockName::BoardCore => return board_core_verilog(),
        BlockName::BoardPipes => return board_pipes_verilog(),
        BlockName::HostIf => {
            let mut uut = hostif::HostIf::<{ hostif::QUEUE_PAIRS }>::new(
                &p.engine,
                &sanswitch_model::regs::HostParams::default(),
            );
            uut.connect_all();
            generate_verilog(&uut)
        }
    };
    rename_top(&v, block.name())
}

/// rust-hdl names every top module `top` and its submodules `top$...`; give them the block's
/// name so several blocks live in one project and file names match module names.
pub fn rename_top(v: &str, name: &str) -> String {
    rename_module_prefix(v, "top", name)
}

/// The inverse of [`rename_top`], for rust-hdl's `yosys_validate`, which wants `top`.
pub fn unrename_top(v: &str, name: &str) -> String {
    rename_module_prefix(v, name, "top")
}

fn rename_module_prefix(v: &str, from: &str, to: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(v.len());
    let mut rest = v;
    while let Some(pos) = rest.find(from) {
        let before = out.chars().last().or_else(|| rest[..pos].chars().last());
        let prev = if pos > 0 { rest[..pos].chars().last() } else { before };
        let after = rest[pos + from.len()..].chars().next();
        let starts_token = prev.is_none_or(|c| !is_ident(c));
        let module_name = matches!(after, Some('$') | Some('('));
        out.push_str(&rest[..pos]);
        out.push_str(if starts_token && module_name { to } else { from });
        rest = &rest[pos + from.len()..];
    }
    out.push_str(rest);
    out
}

/// rust-hdl's `yosys_validate` (hierarchy check, processes, no latches, no implicit or
/// undriven nets) on a block's Verilog as written to its file.
///
/// # Errors
/// The validation's complaint, or [`tools::missing_message`] when Yosys cannot be run.
pub fn yosys_validate_block(block: BlockName, v: &str) -> Result<(), String> {
    tools::check(&tools::YOSYS)?;
    yosys_validate(block.name(), &unrename_top(v, block.name())).map_err(|e| format!("{e:?}"))
}

/// Calls `$build::<A>($p)` with the const generic `A` (a state RAM's address width, 1..=8)
/// equal to `$bits`: the pool manager's, and through it the engine's and the NIC's.
macro_rules! with_addr_bits {
    ($bits:expr, $build:ident($p:expr)) => {
        match $bits {
            1 => $build::<1>($p),
            2 => $build::<2>($p),
            3 => $build::<3>($p),
            4 => $build::<4>($p),
            5 => $build::<5>($p),
            6 => $build::<6>($p),
            7 => $build::<7>($p),
            _ => $build::<8>($p),
        }
    };
}

/// The pool manager's Verilog: its state RAM's address width is a const generic, chosen here
/// from the connection count.
fn pool_verilog(p: &PoolParams) -> String {
    fn build<const A: usize>(p: &PoolParams) -> String {
        let mut uut = pool::PoolManager::<A>::new(p);
        uut.connect_all();
        generate_verilog(&uut)
    }
    with_addr_bits!(p.addr_bits(), build(p))
}

/// The stack of the threads that build or simulate the engine in rust-hdl.
pub const ENGINE_STACK: usize = 256 << 20;

/// Runs `f` on a thread of its own with an [`ENGINE_STACK`]: rust-hdl builds the engine's
/// records and walks its hierarchy recursively, more than a test thread's 2 MiB allows.
pub fn on_big_stack<R: Send + 'static>(name: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(ENGINE_STACK)
        .spawn(f)
        .expect("a thread with a large stack")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// The board core's Verilog (top module `board_core`): NICs of `EngineParams::board()`,
/// memories of `sanswitch_model::bridge::NODE_MEM_BYTES`.
pub fn board_core_verilog() -> String {
    fn build<const A: usize>(p: &sanswitch_model::params::EngineParams) -> String {
        let mut uut = board::BoardCore::<A>::new(
            p,
            &sanswitch_model::regs::HostParams::board(),
            sanswitch_model::bridge::NODE_MEM_BYTES,
        );
        uut.connect_all();
        generate_verilog(&uut)
    }
    let p = sanswitch_model::params::EngineParams::board();
    let v = on_big_stack("board-core-verilog", move || {
        with_addr_bits!(p.pool().addr_bits(), build(&p))
    });
    rename_top(&v, "board_core")
}

/// The board's Verilog below FrontPanel's endpoints (top module `board_pipes`): the pipe
/// FIFOs before the board core of [`board_core_verilog`].
pub fn board_pipes_verilog() -> String {
    fn build<const A: usize>(p: &sanswitch_model::params::EngineParams) -> String {
        let mut uut = board::BoardPipes::<A>::new(
            p,
            &sanswitch_model::regs::HostParams::board(),
            sanswitch_model::bridge::NODE_MEM_BYTES,
        );
        uut.connect_all();
        generate_verilog(&uut)
    }
    let p = sanswitch_model::params::EngineParams::board();
    let v = on_big_stack("board-pipes-verilog", move || {
        with_addr_bits!(p.pool().addr_bits(), build(&p))
    });
    rename_top(&v, "board_pipes")
}

/// The engine's Verilog (top module `engine`): its pool manager's state-RAM address width is
/// a const generic, chosen here from the connection count.
pub fn engine_verilog(p: &sanswitch_model::params::EngineParams) -> String {
    fn build<const A: usize>(p: &sanswitch_model::params::EngineParams) -> String {
        let mut uut = engine::Engine::<A>::new(p);
        uut.connect_all();
        generate_verilog(&uut)
    }
    let p = *p;
    let v =
        on_big_stack("engine-verilog", move || with_addr_bits!(p.pool().addr_bits(), build(&p)));
    rename_top(&v, "engine")
}

/// The NIC top's Verilog (top module `nic`: host interface + engine, default host
/// parameters).
pub fn nic_verilog(p: &sanswitch_model::params::EngineParams) -> String {
    fn build<const A: usize>(p: &sanswitch_model::params::EngineParams) -> String {
        let mut uut = nic::Nic::<A, { hostif::QUEUE_PAIRS }>::new(
            p,
            &sanswitch_model::regs::HostParams::default(),
        );
        uut.connect_all();
        generate_verilog(&uut)
    }
    let p = *p;
    let v = on_big_stack("nic-verilog", move || with_addr_bits!(p.pool().addr_bits(), build(&p)));
    rename_top(&v, "nic")
}
