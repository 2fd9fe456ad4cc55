use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = rdmadump::cli::Cli::parse_args();
    match rdmadump::commands::run(cli) {
        Ok(code) => code,
        Err(err) if rdmadump::commands::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("rdmadump: {err:#}");
            ExitCode::from(rdmadump::commands::EXIT_ERROR)
        }
    }
}
