//! Writes the Verilog of one board NIC (`EngineParams::board()`) with 1 or 4 queue pairs,
//! for the area comparison in docs/BOARD.md:
//!
//! ```text
//! cargo run --release -p sanswitch-hdl --example board_nic -- 1 /tmp/nic1.v
//! yosys -p "read_verilog /tmp/nic1.v; synth_xilinx -flatten -family xc7 -top top; stat"
//! ```
use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

fn build<const Q: usize>() -> String {
    let p = EngineParams::board();
    let h = HostParams { queue_pairs: Q as u8, ..HostParams::default() };
    // The board's 4 connections take 2 address bits.
    assert_eq!(p.pool().addr_bits(), 2);
    let mut uut = sanswitch_hdl::nic::Nic::<2, Q>::new(&p, &h);
    uut.connect_all();
    generate_verilog(&uut)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(q), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: board_nic <1|4> <out.v>");
        std::process::exit(2);
    };
    let q = q.clone();
    // Generating the NIC's Verilog recurses deeply: a big stack, as `sanswitch generate` uses.
    let v = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || match q.as_str() {
            "1" => Ok(build::<1>()),
            "4" => Ok(build::<4>()),
            _ => Err(q),
        })
        .unwrap()
        .join()
        .unwrap();
    match v {
        Ok(v) => std::fs::write(out, v).unwrap(),
        Err(q) => {
            eprintln!("queue pairs {q}: 1 or 4");
            std::process::exit(2);
        }
    }
}
