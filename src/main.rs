//! `sanswitch`: the command-line front of the project.
//!
//! Subcommands live in their own modules; `cli` holds the argument definitions.
//! Exit status: 0 on success, 1 when a run finished but failed its check (data not intact,
//! a generated file that does not lint or validate, Verilog and model disagreeing), 2 on a
//! usage or configuration error.

mod bench;
mod bench_blocks;
mod bench_board;
mod bench_engine;
mod bench_host;
mod board;
mod cli;
mod engines;
mod error;
mod generate;
mod generate_board;
mod loopback;
mod simulate;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate(args) => simulate::run(&args),
        Command::Generate(args) => generate::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Loopback(args) => loopback::run(&args),
        Command::Board(args) => board::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
