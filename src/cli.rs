//! The whole command line, defined once: it drives parsing, `--help`, the man page and the
//! shell completions.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::analyze::AnomalyKind;
use crate::analyze::flows::is_legal_pmtu;
use crate::filter::KindSelection;
use crate::output::time::TimeFormat;

const ABOUT: &str = "Decode and analyse RDMA packet captures: InfiniBand, RoCE v1/v2, PFC";

const READ_EXAMPLES: &str = "\
Examples:
  rdmadump read capture.pcap                       one line per packet
  rdmadump read --json capture.pcap | jq .bth.psn  JSON Lines for pipelines
  rdmadump read -Y 'icrc.status == \"bad\"' cap.pcap  corrupted packets only
  rdmadump read --qp 0xb01 -c 20 capture.pcapng    first 20 packets to QP 0xb01
  tcpdump -i eth2 -w - udp port 4791 | rdmadump read -";

const ANALYZE_EXAMPLES: &str = "\
Examples:
  rdmadump analyze capture.pcap                    summary, flows, PFC, anomalies
  rdmadump analyze --json a.pcap b.pcap            two capture points merged by time
  rdmadump analyze --fail-on icrc_bad,go_back_n,pfc_storm cap.pcap   CI gate (exit 1)
  rdmadump analyze --storm-threshold 200ms --link-speed 400G cap.pcap";

#[derive(Debug, Parser)]
#[command(name = "rdmadump", version, about = ABOUT)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List packets, one line each (or one JSON object each with --json)
    #[command(after_help = READ_EXAMPLES)]
    Read(ReadArgs),
    /// Report flows, sequence errors, NAKs, congestion and PFC storms
    #[command(after_help = ANALYZE_EXAMPLES)]
    Analyze(AnalyzeArgs),
    /// Print a shell completion script
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff)
    Man,
    /// List every field a filter can name, with its type, description and Wireshark names
    Fields(FieldsArgs),
}

#[derive(Debug, Args)]
pub struct FieldsArgs {
    /// Write one JSON array instead of text
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// Capture files (pcap or pcapng); `-` or nothing reads standard input
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is)
    #[arg(long = "roce-port", value_name = "PORT")]
    pub roce_ports: Vec<u16>,

    /// Only packets matching EXPR, e.g. 'bth.dest_qp == 0xb01 && aeth.kind == "nak"'
    #[arg(short = 'Y', long = "filter", value_name = "EXPR")]
    pub filter: Option<String>,

    /// Only packets to this destination QP (decimal or 0x hex)
    #[arg(long, value_name = "N", value_parser = parse_number)]
    pub qp: Option<u64>,

    /// Only packets of this kind, as the JSON `kind` key names it; `cnp` selects CNPs (BTH
    /// opcode 0x81), whose JSON kind stays `roce_v2` or `roce_v1`
    #[arg(long, value_enum, value_name = "KIND")]
    pub kind: Option<KindArg>,

    /// Read files through a buffer instead of memory-mapping them (safe for files that may
    /// be truncated while rdmadump reads them)
    #[arg(long)]
    pub no_mmap: bool,

    /// When to use color
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Threads to use: 1 does everything on one core; 2 or more (the default on a machine
    /// with several cores) shares decoding, CRCs and rendering between two. Output is
    /// identical either way
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(usize))]
    pub threads: Option<usize>,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Write JSON Lines: one object per frame (schema: docs/json-schema.md)
    #[arg(long)]
    pub json: bool,

    /// Stop after N matching packets
    #[arg(short = 'c', long = "count", value_name = "N")]
    pub count: Option<u64>,

    /// Under each frame's line, every decoded field as an indented tree, layer by layer
    /// (as tshark -V)
    #[arg(short = 'V', long, conflicts_with = "json")]
    pub verbose: bool,

    /// Under each frame's line, its captured bytes in hex and ASCII (as tshark -x)
    #[arg(short = 'x', long = "hex", conflicts_with = "json")]
    pub hex: bool,

    /// How to show timestamps in text output
    #[arg(long, value_enum, default_value_t = TimeArg(TimeFormat::Absolute), value_name = "FORMAT")]
    pub time: TimeArg,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Write one JSON document instead of the text report
    #[arg(long)]
    pub json: bool,

    /// Analyse only the first N matching packets
    #[arg(short = 'c', long = "count", value_name = "N")]
    pub count: Option<u64>,

    /// Path MTU in bytes, for READ PSN accounting: 256, 512, 1024, 2048 or 4096 (default:
    /// learned from FIRST and MIDDLE packets, else inferred from the largest payload)
    #[arg(long, value_name = "BYTES", value_parser = parse_pmtu)]
    pub pmtu: Option<u32>,

    /// Link speed that converts PFC quanta to time: 100M, 1G, 10G, 25G, 40G, 50G, 100G, 200G,
    /// 400G, 800G
    #[arg(long, default_value = "100G", value_parser = parse_link_speed, value_name = "SPEED")]
    pub link_speed: u64,

    /// Continuous pause that makes a PFC storm, e.g. 100ms, 500us, 1s
    #[arg(long, default_value = "100ms", value_parser = parse_duration, value_name = "TIME")]
    pub storm_threshold: Duration,

    /// Most flows kept at once; beyond it the least recently active flow is evicted
    #[arg(long, default_value_t = 1_000_000, value_name = "N")]
    pub max_flows: usize,

    /// Most (sender, priority) PFC states kept at once
    #[arg(long, default_value_t = 65_536, value_name = "N")]
    pub max_pfc_senders: usize,

    /// Exit with status 1 if anomalies of these kinds are found (comma-separated)
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KINDS")]
    pub fail_on: Vec<AnomalyKindArg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Never,
    Auto,
    Always,
}

/// Offers a library enum on the command line under the names the library gives it, so the
/// domain types need no clap and the names are defined once.
macro_rules! choice {
    ($(#[$doc:meta])* $arg:ident($inner:ty), |$v:ident| $help:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $arg(pub $inner);

        impl $arg {
            const VARIANTS: [$arg; <$inner>::ALL.len()] = {
                let mut out = [$arg(<$inner>::ALL[0]); <$inner>::ALL.len()];
                let mut i = 0;
                while i < out.len() {
                    out[i] = $arg(<$inner>::ALL[i]);
                    i += 1;
                }
                out
            };
        }

        impl ValueEnum for $arg {
            fn value_variants<'a>() -> &'a [Self] {
                &Self::VARIANTS
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                let $v = self.0;
                let help: Option<&'static str> = $help;
                let value = PossibleValue::new($v.name());
                Some(match help {
                    Some(help) => value.help(help),
                    None => value,
                })
            }
        }
    };
}

choice!(
    /// `--kind`: a frame kind as the JSON `kind` key names it, or `cnp`.
    KindArg(KindSelection),
    |kind| match kind {
        KindSelection::Cnp => Some("CNPs: BTH opcode 0x81 (their JSON kind stays roce_v2 or roce_v1)"),
        KindSelection::Kind(_) => None,
    }
);
choice!(
    /// `--fail-on`: an anomaly kind as the report names it.
    AnomalyKindArg(AnomalyKind),
    |kind| None
);
choice!(
    /// `--time`: how text output shows timestamps.
    TimeArg(TimeFormat),
    |format| Some(format.about())
);

/// Decimal or `0x` hexadecimal.
pub fn parse_number(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| format!("`{s}` is not a decimal or 0x-hex number"))
}

/// One of the path MTUs InfiniBand defines; no other exists.
pub fn parse_pmtu(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(bytes) if is_legal_pmtu(bytes) => Ok(bytes),
        _ => Err(format!(
            "`{s}` is not a path MTU: use 256, 512, 1024, 2048 or 4096"
        )),
    }
}

/// `100G`, `25g`, `400Gbps`, `100M` → bits per second.
pub fn parse_link_speed(s: &str) -> Result<u64, String> {
    let lower = s.trim().to_ascii_lowercase();
    let digits = lower.trim_end_matches("bps").trim_end_matches("b/s");
    let (number, scale) = match digits.char_indices().last() {
        Some((i, 'g')) => (&digits[..i], 1_000_000_000),
        Some((i, 'm')) => (&digits[..i], 1_000_000),
        Some((i, 't')) => (&digits[..i], 1_000_000_000_000),
        _ => (digits, 1_000_000_000),
    };
    match number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
    {
        Some(bps) if bps > 0 => Ok(bps),
        _ => Err(format!("`{s}` is not a link speed like 25G, 100G or 400G")),
    }
}

/// `100ms`, `250us`, `2s`, `500ns`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a duration like 100ms, 500us or 1s"))?;
    let ns_per = match unit {
        "s" => 1e9,
        "ms" => 1e6,
        "us" | "µs" => 1e3,
        "ns" => 1.0,
        _ => return Err(format!("`{s}`: unit must be s, ms, us or ns")),
    };
    Ok(Duration::from_nanos((value * ns_per).round() as u64))
}

/// The man page: the top-level page, then each subcommand's synopsis, options and examples.
pub fn render_man(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use clap::CommandFactory;
    let cmd = Cli::command();
    clap_mangen::Man::new(cmd.clone()).render(out)?;
    for sub in cmd
        .get_subcommands()
        .filter(|s| matches!(s.get_name(), "read" | "analyze"))
    {
        writeln!(out, ".SH \"RDMADUMP {}\"", sub.get_name().to_uppercase())?;
        let man =
            clap_mangen::Man::new(sub.clone().bin_name(format!("rdmadump {}", sub.get_name())));
        man.render_synopsis_section(out)?;
        man.render_description_section(out)?;
        man.render_options_section(out)?;
        man.render_extra_section(out)?;
    }
    Ok(())
}

/// Writes the completion script for `shell`, named as clap_complete names it.
pub fn render_completions(shell: clap_complete::Shell, out: &mut dyn std::io::Write) {
    use clap::CommandFactory;
    clap_complete::generate(shell, &mut Cli::command(), "rdmadump", out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_parsers() {
        assert_eq!(parse_number("0xb01"), Ok(0xb01));
        assert_eq!(parse_number("17"), Ok(17));
        assert_eq!(parse_link_speed("100G"), Ok(100_000_000_000));
        assert_eq!(parse_link_speed("25g"), Ok(25_000_000_000));
        assert!(parse_link_speed("fast").is_err());
        assert_eq!(parse_link_speed("100M"), Ok(100_000_000));
        assert_eq!(parse_link_speed("1G"), Ok(1_000_000_000));
        assert_eq!(parse_pmtu("1024"), Ok(1024));
        assert!(parse_pmtu("1000").is_err());
        assert!(parse_pmtu("8192").is_err());
        assert!(
            parse_link_speed("99999999999t").is_err(),
            "overflow is refused, not wrapped"
        );
        assert_eq!(parse_duration("100ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("5 parsecs").is_err());
    }

    #[test]
    fn definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
