//! Where a block's area is: Yosys `synth_xilinx` with every sub-block kept as its own module
//! (see `sanswitch_hdl::synth::synth_xilinx_by_block` for what that does and does not
//! measure), a table of each module's own LUTs, flip-flops and RAMs, largest first:
//!
//! ```text
//! cargo run --release -p sanswitch-hdl --example area_by_block -- engine
//! cargo run --release -p sanswitch-hdl --example area_by_block -- engine --flat
//! cargo run --release -p sanswitch-hdl --example area_by_block -- engine --flat-only
//! ```
//!
//! `--depth N` keeps only the blocks at most N levels below the top and flattens each
//! deeper one into its kept ancestor (`--depth 2`: the controller, sequencer, pool manager,
//! parser and the rest each flattened on its own, their sum close to the flattened total).
//!
//! `--flat` also synthesizes the block flattened (as `sanswitch generate` reports it), so
//! the two totals can be compared: their difference is what crossing block boundaries saves.
//! `--flat-only` gives the flattened total alone (half the time: the quick check of an
//! experiment's area).
use sanswitch_hdl::synth::{synth_xilinx, synth_xilinx_by_block};
use sanswitch_hdl::tools::require_yosys;
use sanswitch_hdl::{BlockName, EngineParams, verilog};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flat_only = args.iter().any(|a| a == "--flat-only");
    let flat = flat_only || args.iter().any(|a| a == "--flat");
    let depth_at = args.iter().position(|a| a == "--depth");
    let depth = depth_at.map(|i| {
        args.get(i + 1).and_then(|d| d.parse::<usize>().ok()).unwrap_or_else(|| {
            eprintln!("--depth takes a number of levels");
            std::process::exit(2)
        })
    });
    let name = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && depth_at.is_none_or(|d| *i != d + 1))
        .map_or("engine", |(_, s)| s.as_str());
    let all = BlockName::ALL.iter().chain(&[BlockName::BoardCore, BlockName::BoardPipes]);
    let Some(&block) = all.clone().find(|b| b.name() == name) else {
        let names: Vec<_> = all.map(|b| b.name()).collect();
        eprintln!("usage: area_by_block [{}] [--depth N] [--flat | --flat-only]", names.join("|"));
        std::process::exit(2);
    };
    require_yosys();
    // Generating the larger blocks' Verilog recurses deeply: a big stack, as `generate` uses.
    let v = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || verilog(block, &EngineParams::default()))
        .unwrap()
        .join()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("sanswitch-area-{}", std::process::id()));
    if !flat_only {
        by_block(&dir, name, &v, depth);
    }
    if flat {
        match synth_xilinx(&dir, name, &v) {
            Ok(s) => println!(
                "flattened (as `sanswitch generate`): {} LUTs, {} FFs, {} LUT-RAM cells ({} LUT \
                 sites with the LUTs), {} LUT levels\ncells: {:?}\nLUTs by LUT level (1 \
                 first): {:?}\ndeepest path: {:#?}",
                s.luts,
                s.ffs,
                s.lutram,
                s.lut_sites,
                s.lut_levels,
                s.cells,
                s.luts_by_level,
                s.deepest_path
            ),
            Err(e) => eprintln!("flattened synthesis failed: {e}"),
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The table of each module's own cells, largest first, and their sums.
fn by_block(dir: &std::path::Path, name: &str, v: &str, depth: Option<usize>) {
    let blocks = synth_xilinx_by_block(dir, name, v, depth).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    match depth {
        Some(d) => println!(
            "{name}: each module's own cells (blocks to depth {d} kept apart, deeper ones flattened \
             into them, registers in their block)"
        ),
        None => println!(
            "{name}: each module's own cells (sub-blocks kept apart, registers in their block)"
        ),
    }
    println!("{:>7} {:>7} {:>7} {:>5} {:>9}  module", "LUTs", "FFs", "LUTRAM", "BRAM", "with subs");
    for b in blocks.iter().filter(|b| b.luts + b.ffs + b.lutram > 0 || b.bram > 0.0) {
        println!(
            "{:>7} {:>7} {:>7} {:>5} {:>9}  {}",
            b.luts, b.ffs, b.lutram, b.bram, b.luts_with_subblocks, b.module
        );
    }
    let sum = |f: fn(&sanswitch_hdl::synth::BlockArea) -> u64| blocks.iter().map(f).sum::<u64>();
    println!(
        "total with blocks kept: {} LUTs, {} FFs, {} LUT-RAM cells",
        sum(|b| b.luts),
        sum(|b| b.ffs),
        sum(|b| b.lutram)
    );
}
