//! `rdmadump analyze`: filled in by the analysis engine.

use crate::cli::AnalyzeArgs;

pub fn run(_args: &AnalyzeArgs) -> anyhow::Result<std::process::ExitCode> {
    anyhow::bail!("analyze is not built yet")
}
