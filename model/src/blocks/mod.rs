//! Cycle-accurate models of the hardware blocks, one per file, each with its port structs.
//! They are the oracle the Verilated Verilog is checked against, cycle by cycle.

pub mod board_core;
pub mod board_pipes;
pub mod bridge;
pub mod bridge_stimulus;
pub mod dma_arb;
pub mod engine;
pub mod hostif;
pub mod hostif_bench;
pub mod hostif_stimulus;
pub mod nic;
pub mod node_mem;
pub mod node_mem_stimulus;
pub mod parser;
pub mod parser_stimulus;
pub mod pool;
pub mod pool_stimulus;
pub mod san;
pub mod san_loop;
pub mod san_loop_stimulus;
pub mod sequencer;
pub mod sequencer_stimulus;
pub mod widgets;

use crate::ports::{PortInfo, Ports};

/// A block's port tables, by the name its Verilog module and files carry.
#[derive(Clone, Copy, Debug)]
pub struct BlockPorts {
    pub name: &'static str,
    pub inputs: &'static [PortInfo],
    pub outputs: &'static [PortInfo],
}

/// Every block with a cycle model, for the co-simulation build and the port checks.
pub const BLOCKS: &[BlockPorts] = &[
    BlockPorts {
        name: "parser",
        inputs: parser::ParserIn::PORTS,
        outputs: parser::ParserOut::PORTS,
    },
    BlockPorts { name: "pool", inputs: pool::PoolIn::PORTS, outputs: pool::PoolOut::PORTS },
    BlockPorts {
        name: "engine",
        inputs: engine::EngineIn::PORTS,
        outputs: engine::EngineOut::PORTS,
    },
    BlockPorts {
        name: "hostif",
        inputs: hostif::HostIfIn::PORTS,
        outputs: hostif::HostIfOut::PORTS,
    },
    BlockPorts { name: "nic", inputs: nic::NicIn::PORTS, outputs: nic::NicOut::PORTS },
    BlockPorts {
        name: "node_mem",
        inputs: node_mem::NodeMemIn::PORTS,
        outputs: node_mem::NodeMemOut::PORTS,
    },
    BlockPorts {
        name: "board_core",
        inputs: board_core::BoardCoreIn::PORTS,
        outputs: board_core::BoardCoreOut::PORTS,
    },
    BlockPorts {
        name: "board_pipes",
        inputs: board_pipes::BoardPipesIn::PORTS,
        outputs: board_pipes::BoardPipesOut::PORTS,
    },
    BlockPorts {
        name: "san_loop",
        inputs: san_loop::SanLoopIn::PORTS,
        outputs: san_loop::SanLoopOut::PORTS,
    },
    BlockPorts {
        name: "bridge",
        inputs: bridge::BridgeIn::PORTS,
        outputs: bridge::BridgeOut::PORTS,
    },
    BlockPorts {
        name: "sequencer",
        inputs: sequencer::SequencerIn::PORTS,
        outputs: sequencer::SequencerOut::PORTS,
    },
];
