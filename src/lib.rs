//! rdmadump: decode and analyse captures of RDMA traffic (InfiniBand, RoCE v1/v2, PFC).
#![deny(unsafe_code)]

pub mod analyze;
pub mod capture;
pub mod cli;
pub mod commands;
pub mod crc;
pub mod dissect;
pub mod filter;
pub mod output;
pub mod wire;

use std::process::ExitCode;

use cli::{Cli, Command};

/// Exit status for usage and I/O errors, and for inputs that could not be read.
pub const EXIT_ERROR: u8 = 2;

/// Runs one command line; `main` only maps the result to an exit status.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Read(args) => Ok(if commands::read::run(&args)? {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_ERROR)
        }),
        Command::Analyze(args) => commands::analyze::run(&args),
        Command::Completions { shell } => {
            cli::render_completions(shell, &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            cli::render_man(&mut std::io::stdout())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// True when the error chain bottoms out in a closed pipe (`rdmadump read | head`).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
