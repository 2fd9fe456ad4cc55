//! The whole command line, defined once: it drives parsing, `--help`, the man page and the
//! shell completions.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::analyze::AnomalyKind;
use crate::analyze::key::is_legal_pmtu;
use crate::fields::{Field, WiresharkName};
use crate::filter::find_field;
use crate::filter::time::TimeBound;
use crate::filter::{FilterText, KindSelection};
use crate::output::fields::FieldsOption;
use crate::output::time::TimeFormat;

const ABOUT: &str = "Decode and analyse RDMA packet captures: InfiniBand, RoCE v1/v2, PFC";

const READ_EXAMPLES: &str = "\
Examples:
  rdmadump read capture.pcap                       one line per packet
  rdmadump read --json capture.pcap | jq .bth.psn  JSON Lines for pipelines
  rdmadump read -Y 'icrc.status == \"bad\"' cap.pcap  corrupted packets only
  rdmadump read --qp 0xb01 -c 20 capture.pcapng    first 20 packets to QP 0xb01
  tcpdump -i eth2 -w - udp port 4791 | rdmadump read -
  rdmadump read --qp 0x45 -w qp45.pcap cap.pcapng  cut one QP out to a new capture
  rdmadump read -Y 'aeth.kind == \"nak\"' -w - cap.pcap | tshark -r -
  rdmadump read --since '2024-05-01 12:00:00' --until +2s cap.pcap";

const INFO_EXAMPLES: &str = "\
Examples:
  rdmadump info capture.pcap                       container, interfaces, counts, times
  rdmadump info --json a.pcap b.pcapng.zst         one JSON document for both
  rdmadump info --kinds capture.pcap               also count frames by kind (decodes)";

const ANALYZE_EXAMPLES: &str = "\
Examples:
  rdmadump analyze capture.pcap                    summary, flows, PFC, anomalies
  rdmadump analyze --json a.pcap b.pcap            two capture points merged by time
  rdmadump analyze --fail-on icrc_bad,go_back_n,pfc_storm cap.pcap   CI gate (exit 1)
  rdmadump analyze --storm-threshold 200ms --link-speed 400G cap.pcap";

#[cfg(feature = "export")]
const EXPORT_EXAMPLES: &str = "\
Examples:
  rdmadump export -o fleet/ host*.pcap             packets/, connections/, events/ under fleet/
  duckdb -c \"SELECT count(*) FROM 'fleet/packets/**/*.parquet' WHERE icrc_status = 'bad'\"
  rdmadump export -o fleet/ -Y 'bth' cap.pcapng    only RDMA frames in packets/
  tcpdump -i eth2 -w - | rdmadump export --name host17 -o fleet/ -";

#[derive(Debug, Parser)]
#[command(name = "rdmadump", version, about = ABOUT)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parses the command line as `Cli::parse` does, except that a tshark habit, a capture
    /// where the command should be (`rdmadump cap.pcap`, `rdmadump -r cap.pcap`), is told
    /// the command it meant.
    pub fn parse_args() -> Cli {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        match Cli::try_parse_from(&args) {
            Ok(cli) => cli,
            Err(err) => {
                use clap::error::ErrorKind;
                let habit = matches!(
                    err.kind(),
                    ErrorKind::InvalidSubcommand | ErrorKind::UnknownArgument
                );
                match read_instead(&args[1.min(args.len())..]).filter(|_| habit) {
                    Some(meant) => {
                        let text = err.render().to_string();
                        let (message, usage) = text.split_once("\n\n").unwrap_or((&text, ""));
                        eprintln!(
                            "{message}\n\n  tip: to read a capture, run `{meant}`\n\n{usage}"
                        );
                        std::process::exit(2);
                    }
                    None => err.exit(),
                }
            }
        }
    }
}

/// `rdmadump read ...` for arguments that start with a capture file or tshark's `-r`.
fn read_instead(args: &[std::ffi::OsString]) -> Option<String> {
    let first = args.first()?.to_string_lossy();
    let rest: Vec<String> = args
        .iter()
        .skip(usize::from(first == "-r"))
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let file = rest.first()?;
    let capture = [".pcap", ".pcapng", ".cap", ".erf", ".gz", ".zst"]
        .iter()
        .any(|ext| file.ends_with(ext));
    (first == "-r" || capture || std::path::Path::new(file).is_file())
        .then(|| format!("rdmadump read {}", rest.join(" ")))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List packets, one line each (or one JSON object each with --json)
    #[command(after_help = READ_EXAMPLES)]
    Read(ReadArgs),
    /// Report flows, sequence errors, NAKs, congestion and PFC storms
    #[command(after_help = ANALYZE_EXAMPLES)]
    Analyze(AnalyzeArgs),
    /// Describe captures as capinfos does: container, interfaces, counts, times, rates
    #[command(after_help = INFO_EXAMPLES)]
    Info(InfoArgs),
    /// Print a shell completion script
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the packets, connections and events of captures as Parquet datasets for
    /// DuckDB, Spark and Trino
    #[cfg(feature = "export")]
    #[command(after_help = EXPORT_EXAMPLES)]
    Export(ExportArgs),
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

    /// Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark's
    /// Decode As, -d udp.port==PORT,infiniband, is the same
    #[arg(short = 'd', long = "roce-port", value_name = "PORT", value_parser = parse_roce_port)]
    pub roce_ports: Vec<u16>,

    /// Decode RC SENDs to a QP, or CM REQs for a port, as an upper protocol, like
    /// Wireshark's Decode As: qp=0x8d:nvme-rdma, port=4421:nvme-rdma, qp=0x444:rpcrdma,
    /// port=3261:iser, qp=0x644:smbd (repeatable)
    #[arg(long = "decode", value_name = "TARGET:PROTO")]
    pub decode: Vec<crate::dissect::DecodeAs>,

    /// Only packets matching EXPR, e.g. 'bth.dest_qp == 0xb01 && aeth.kind == "nak"';
    /// @FILE reads EXPR from FILE
    #[arg(short = 'Y', long = "filter", value_name = "EXPR", value_parser = FilterText::argument)]
    pub filter: Option<FilterText>,

    /// Only packets matching the filter in FILE, as -Y @FILE: for a filter longer than a
    /// command line takes (128 KiB)
    #[arg(long = "filter-file", value_name = "FILE", conflicts_with = "filter", value_parser = FilterText::file)]
    pub filter_file: Option<FilterText>,

    /// Only packets to this destination QP (decimal or 0x hex); analyze keeps the whole
    /// connection it belongs to: both ends, both directions, and its CM messages
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

    /// Threads to use (default: one per core): 1 does everything on one core; with 2, one
    /// reads and decodes while the other analyses or writes, and CRCs and rendering go to
    /// whichever is idler; from 3, one reads, one analyses or writes, and the others decode,
    /// check CRCs and render batches of packets side by side; `analyze --html` draws its
    /// charts on all of them. Standard input, pipes and compressed files are read on a
    /// thread of their own from 2, and batched like a file from 3. Output is identical
    /// either way
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(usize))]
    pub threads: Option<usize>,

    /// Read this capture file, as tshark -r does (repeatable; read after the FILEs)
    #[arg(short = 'r', long = "read-file", value_name = "FILE")]
    pub read_files: Vec<PathBuf>,

    /// Only packets at or after TIME: 2024-05-01T12:00:00Z (RFC 3339), '2024-05-01
    /// 12:00:00.5' (UTC), epoch seconds (1714564800.5), or +1.5s / +200ms / +10us after the
    /// first packet of the capture
    #[arg(long, value_name = "TIME", value_parser = TimeBound::parse)]
    pub since: Option<TimeBound>,

    /// Only packets before TIME (same forms as --since; the window is [since, until))
    #[arg(long, value_name = "TIME", value_parser = TimeBound::parse)]
    pub until: Option<TimeBound>,
}

impl InputArgs {
    /// The filter of `-Y` or `--filter-file`, whichever was given.
    pub fn filter_text(&self) -> Option<&FilterText> {
        self.filter.as_ref().or(self.filter_file.as_ref())
    }
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Write JSON Lines: one object per frame
    #[arg(long)]
    pub json: bool,

    /// Stop after N matching packets
    #[arg(short = 'c', long = "count", value_name = "N")]
    pub count: Option<u64>,

    /// Write each packet's output as soon as it is decoded, as tcpdump -l and tshark -l do:
    /// for watching a live capture through a pipe (tcpdump -U -w - | rdmadump read -l -)
    #[arg(short = 'l', long = "line-buffered")]
    pub line_buffered: bool,

    /// Under each frame's line, every decoded field as an indented tree, layer by layer
    /// (as tshark -V)
    #[arg(short = 'V', long, conflicts_with = "json")]
    pub verbose: bool,

    /// Under each frame's line, its captured bytes in hex and ASCII (as tshark -x)
    #[arg(short = 'x', long = "hex", conflicts_with = "json")]
    pub hex: bool,

    /// How to show timestamps in text output; tshark's -t names (r, d, e, u, ud...) work too
    #[arg(short = 't', long, value_enum, default_value_t = TimeArg(TimeFormat::Absolute), value_name = "FORMAT")]
    pub time: TimeArg,

    /// Write the selected frames to a capture FILE instead of printing them, byte for byte
    /// with their times and original lengths: pcapng if FILE ends in .pcapng, an input is
    /// pcapng, or the inputs' link types differ, else pcap. `-` writes to standard output
    #[arg(short = 'w', long = "write", value_name = "FILE", conflicts_with_all = ["json", "verbose", "hex"])]
    pub write: Option<PathBuf>,

    /// Output format, as tshark -T: text (the default), json (as --json), or fields (the
    /// fields named with -e, one line per frame)
    #[arg(
        short = 'T',
        value_enum,
        value_name = "FORMAT",
        conflicts_with = "json"
    )]
    pub format: Option<OutputFormat>,

    /// With -T fields: a field to print, by its filter name, e.g. bth.psn (repeatable; printed
    /// in the order given, an absent field as an empty value)
    #[arg(short = 'e', value_name = "FIELD", value_parser = parse_field)]
    pub fields: Vec<FieldArg>,

    /// With -T fields, as tshark -E: separator=/t|/s|C, header=y|n, quote=d|s|n,
    /// occurrence=f|l|a, aggregator=/s|C (repeatable)
    #[arg(short = 'E', value_name = "OPTION=VALUE", value_parser = FieldsOption::parse)]
    pub fields_options: Vec<FieldsOption>,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Capture files (pcap or pcapng, plain, gzip or zstd); `-` or nothing reads standard
    /// input
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Describe this capture file too, as tshark -r names one (repeatable)
    #[arg(short = 'r', long = "read-file", value_name = "FILE")]
    pub read_files: Vec<PathBuf>,

    /// Write one JSON document instead of text
    #[arg(long)]
    pub json: bool,

    /// Also count the frames of each kind (roce_v2, ib, pfc...). This decodes every frame,
    /// as `read` does, so it runs at decoding speed instead of near `cat` speed; without it
    /// only record headers are read. A guess from a few header bytes would disagree with
    /// `read` on tunnels, ERF, IPoIB and --roce-port, which is why it is not offered
    #[arg(long)]
    pub kinds: bool,

    /// With --kinds, also take UDP destination PORT as RoCE v2 (repeatable)
    #[arg(long = "roce-port", value_name = "PORT", requires = "kinds")]
    pub roce_ports: Vec<u16>,

    /// Read files through a buffer instead of memory-mapping them
    #[arg(long)]
    pub no_mmap: bool,
}

/// `-T`: what `read` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// One line per frame (the default)
    Text,
    /// JSON Lines, as --json
    Json,
    /// The -e fields, one line per frame
    Fields,
}

/// A field of `-e`: the name as given (for the header line) and the field it names.
#[derive(Debug, Clone)]
pub struct FieldArg {
    pub name: String,
    pub field: &'static Field,
}

/// A field name of `-e`, as the filter knows it.
pub fn parse_field(name: &str) -> Result<FieldArg, String> {
    match find_field(name) {
        Some(field) => Ok(FieldArg {
            name: name.to_string(),
            field,
        }),
        None => Err(crate::filter::unknown_field(name)),
    }
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

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    /// Exit with status 1 if anomalies of these kinds are found (comma-separated), or if
    /// the capture missed more than RATIO of the request packets (capture_loss=RATIO)
    #[arg(long, value_parser = FailOnParser, value_delimiter = ',', value_name = "KINDS")]
    pub fail_on: Vec<FailOn>,

    /// The files are consecutive pieces of one capture (e.g. tcpdump -C), not separate
    /// capture points of the same traffic
    #[arg(long)]
    pub single_point: bool,

    /// The capture points in path order, e.g. host_a.pcap,mirror.pcap,host_b.pcap: a packet
    /// a point missed although points on both sides of it saw it was dropped by that
    /// point's capture, not lost; without it the order is inferred from the times
    #[arg(long, value_delimiter = ',', value_name = "FILES")]
    pub order: Vec<PathBuf>,

    /// Most that two capture points' clocks may differ for one packet to be recognised as
    /// the same packet at both, e.g. 100ms, 5ms
    #[arg(long, default_value = "100ms", value_parser = parse_duration, value_name = "TIME")]
    pub skew_bound: Duration,

    /// List every connection in the text report, not only the 20 that lost the most time
    #[arg(long)]
    pub all: bool,

    /// FILE is a capture point whose clock is TIME ahead of the first input's (negative
    /// when behind), e.g. --offset b.pcap=-90us: for points whose packets are too few to
    /// match, or to override the estimate. Files given the same TIME are one point
    #[arg(long = "offset", value_parser = parse_offset, value_name = "FILE=TIME")]
    pub offsets: Vec<(PathBuf, i64)>,

    /// Add to each connection a timeline of payload bytes, packets, retransmissions and
    /// CNPs per interval, e.g. 1ms, 100us
    #[arg(long, value_parser = parse_interval, value_name = "TIME")]
    pub interval: Option<Duration>,

    /// Most timeline buckets per connection direction; a longer connection gets wider ones
    #[arg(long, default_value_t = 1000, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_buckets: u32,

    /// Also write a self-contained HTML report to FILE: summary, connection table,
    /// anomalies, a time-sequence graph of each connection direction, goodput and RTT over
    /// time, the PFC pause timeline and CRC failures by source. The text or JSON report is
    /// still written
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Connections the HTML report draws, the worst first (by retransmissions, NAKs, CNPs,
    /// then bytes); the rest are listed in its table
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub html_top: usize,
}

/// What the analysis assumes of the fabric, for `analyze` and `export`.
#[derive(Debug, Args)]
pub struct AnalysisArgs {
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
    #[arg(long, default_value_t = 1_000_000, value_name = "N", value_parser = parse_max_flows)]
    pub max_flows: usize,

    /// Memory for what the analysis keeps (connections, flows, sketches, the series of
    /// --html and --interval), e.g. 512M, 2G; at it, the least useful connections are
    /// evicted first, and the report says what they carried
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    pub memory: u64,

    /// Most (sender, priority) PFC states kept at once
    #[arg(long, default_value_t = 65_536, value_name = "N")]
    pub max_pfc_senders: usize,

    /// A connection direction with requests outstanding that sends and receives nothing
    /// for longer than TIME is stalled, e.g. 50us, 1ms (default: 4 × the direction's p99
    /// RTT, and at least 20us)
    #[arg(long, value_parser = parse_duration, value_name = "TIME")]
    pub stall: Option<Duration>,

    /// The switch's priority for untagged traffic by DSCP, e.g. 26=3,46=5; DSCPs not
    /// given have priority DSCP/8. Tagged frames have their VLAN PCP's
    #[arg(long, value_delimiter = ',', value_parser = parse_dscp_pair, value_name = "DSCP=PRIO")]
    pub dscp_map: Vec<(u8, u8)>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Directory that receives the packets/, connections/, events/ and captures/ datasets;
    /// exports of other captures into it add files beside the ones there
    #[arg(short = 'o', long, value_name = "DIR", default_value = ".")]
    pub output: PathBuf,

    /// Start a new file in a dataset once the current one passes SIZE, e.g. 512M, 2G
    #[arg(long, value_name = "SIZE", default_value = "512M", value_parser = parse_size)]
    pub max_file_size: u64,

    /// How files are grouped: capture-date (Hive-style capture_date=YYYY-MM-DD directories,
    /// from the capture's first frame) or none
    #[arg(long, value_enum, value_name = "SCHEME", default_value_t = PartitionArg::CaptureDate)]
    pub partition: PartitionArg,

    /// Replace the files of an earlier export of the same capture (by name) instead of
    /// refusing
    #[arg(long)]
    pub replace: bool,

    /// The capture's name in the `capture` column and in file names (default: the file's
    /// name; `stdin` for standard input). Only with one input
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Print the three datasets' columns and Arrow types as Markdown, and exit
    #[arg(long, exclusive = true)]
    pub schema: bool,

    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// `--partition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PartitionArg {
    CaptureDate,
    None,
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
        choice!($(#[$doc])* $arg($inner), |$v| $help, |_v| &[]);
    };
    ($(#[$doc:meta])* $arg:ident($inner:ty), |$v:ident| $help:expr, |$a:ident| $aliases:expr) => {
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
                let $a = self.0;
                let aliases: &[&'static str] = $aliases;
                let value = PossibleValue::new($v.name()).aliases(aliases.iter().copied());
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
/// One `--fail-on` condition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FailOn {
    Kind(AnomalyKind),
    /// The capture missed more than this fraction of the request packets.
    CaptureLoss(f64),
}

/// `--fail-on`: an anomaly kind, or `capture_loss=RATIO` (a fraction, or a percentage).
#[derive(Debug, Clone, Copy)]
pub struct FailOnParser;

impl clap::builder::TypedValueParser for FailOnParser {
    type Value = FailOn;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<FailOn, clap::Error> {
        let text = value.to_string_lossy();
        if let Some(ratio) = text.strip_prefix("capture_loss=") {
            return parse_ratio(ratio).map(FailOn::CaptureLoss).map_err(|e| {
                clap::Error::raw(
                    clap::error::ErrorKind::InvalidValue,
                    format!("invalid value '{text}' for '--fail-on <KINDS>': {e}\n"),
                )
                .with_cmd(cmd)
            });
        }
        let kind = AnomalyKind::ALL
            .into_iter()
            .find(|kind| kind.name() == text);
        kind.map(FailOn::Kind).ok_or_else(|| {
            let names: Vec<&str> = AnomalyKind::ALL.iter().map(|kind| kind.name()).collect();
            let name = arg.map_or("--fail-on".into(), |a| a.to_string());
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!(
                    "invalid value '{text}' for '{name}'\n  [possible values: {}, \
                     capture_loss=RATIO]\n",
                    names.join(", ")
                ),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let kinds = AnomalyKindArg::VARIANTS
            .into_iter()
            .filter_map(|kind| kind.to_possible_value());
        let loss = PossibleValue::new("capture_loss=RATIO").help(
            "the capture missed more than RATIO (0.05 or 5%) of the request packets that the \
             responders acknowledged",
        );
        Some(Box::new(kinds.chain([loss])))
    }
}

/// `0.05` or `5%`: a fraction from 0 to 1.
fn parse_ratio(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let ratio = match s.strip_suffix('%') {
        Some(pct) => pct.trim().parse::<f64>().map(|p| p / 100.0),
        None => s.parse::<f64>(),
    };
    match ratio {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(format!(
            "`{s}` is not a ratio: give a fraction from 0 to 1, or a percentage"
        )),
    }
}

choice!(
    /// `--time`: how text output shows timestamps.
    TimeArg(TimeFormat),
    |format| Some(format.about()),
    |format| format.tshark_names()
);

/// `--roce-port`: a port, or tshark's Decode As of one, `udp.port==4792,infiniband`.
pub fn parse_roce_port(s: &str) -> Result<u16, String> {
    let port = match s.split_once(',') {
        Some((table, "infiniband")) => table
            .split_once("==")
            .filter(|(field, _)| field.trim() == "udp.port")
            .map(|(_, port)| port.trim()),
        Some(_) => None,
        None => Some(s.trim()),
    };
    port.and_then(|p| p.parse().ok()).ok_or_else(|| {
        format!(
            "`{s}` is not a port: give one, like 4792, or as tshark's Decode As, \
             udp.port==4792,infiniband (rdmadump decodes only InfiniBand over UDP so)"
        )
    })
}

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

/// `512M`, `2G`, `64K`, `1000` → bytes (binary multiples); at least 64 KiB, so that a file
/// holds at least a page of each column.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_uppercase();
    let t = t.trim_end_matches("IB").trim_end_matches('B');
    let (number, shift) = match t.char_indices().last() {
        Some((i, 'K')) => (&t[..i], 10),
        Some((i, 'M')) => (&t[..i], 20),
        Some((i, 'G')) => (&t[..i], 30),
        Some((i, 'T')) => (&t[..i], 40),
        _ => (t, 0),
    };
    match number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
    {
        Some(bytes) if bytes >= 1 << 16 => Ok(bytes),
        Some(_) => Err(format!(
            "`{s}` is too small: a file size must be at least 64K"
        )),
        None => Err(format!("`{s}` is not a size like 256M or 2G")),
    }
}

/// `FILE=TIME` of `--offset`, TIME a duration with an optional sign: `b.pcap=-90us`.
pub fn parse_offset(s: &str) -> Result<(PathBuf, i64), String> {
    let Some((file, time)) = s.rsplit_once('=') else {
        return Err(format!("`{s}` is not FILE=TIME, e.g. b.pcap=-90us"));
    };
    if file.is_empty() {
        return Err(format!(
            "`{s}` names no file; give FILE=TIME, e.g. b.pcap=-90us"
        ));
    }
    let (negative, magnitude) = match time.trim().strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, time.trim().strip_prefix('+').unwrap_or(time.trim())),
    };
    let ns = i64::try_from(parse_duration(magnitude)?.as_nanos())
        .map_err(|_| format!("`{time}` is too long for an offset"))?;
    Ok((PathBuf::from(file), if negative { -ns } else { ns }))
}

/// `26=3`: DSCP 26 travels on priority 3.
pub fn parse_dscp_pair(s: &str) -> Result<(u8, u8), String> {
    let bad = || format!("`{s}` is not DSCP=PRIORITY like 26=3 (DSCP 0-63, priority 0-7)");
    let (dscp, priority) = s.trim().split_once('=').ok_or_else(bad)?;
    let dscp: u8 = dscp.trim().parse().map_err(|_| bad())?;
    let priority: u8 = priority.trim().parse().map_err(|_| bad())?;
    if dscp > 63 || priority > 7 {
        return Err(bad());
    }
    Ok((dscp, priority))
}

/// `100ms`, `250us`, `2s`, `500ns`.
/// `--interval`: a timeline of buckets 0 ns wide would never end.
fn parse_interval(s: &str) -> Result<Duration, String> {
    let interval = parse_duration(s)?;
    if interval.is_zero() {
        return Err(format!("`{s}`: the interval must be at least 1ns"));
    }
    Ok(interval)
}

/// `--max-flows`: a table that keeps no flow would report nothing it read.
fn parse_max_flows(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("at least 1 flow must be kept".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("`{s}`: {e}")),
    }
}

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

/// The man page: the top-level page, each subcommand's synopsis, options and examples,
/// then the filter language with every field, the `-T fields` output and the exit status.
/// Subcommands are sections of this one page, so it names no other page.
pub fn render_man(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    let documented: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| s.get_name() != "help")
        .cloned()
        .collect();
    writeln!(out, ".SH SYNOPSIS")?;
    for (i, sub) in documented.iter().enumerate() {
        if i > 0 {
            writeln!(out, ".br")?;
        }
        let usage = usage(sub);
        let name = sub.get_bin_name().unwrap_or_else(|| sub.get_name());
        let rest = usage.strip_prefix(name).unwrap_or(&usage);
        writeln!(out, "\\fB{}\\fR{}", roff_escape(name), roff_escape(rest))?;
    }
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    writeln!(out, ".SH COMMANDS")?;
    for sub in &documented {
        writeln!(out, ".TP\n\\fBrdmadump {}\\fR", sub.get_name())?;
        writeln!(
            out,
            "{}",
            roff_escape(&sub.get_about().map(|a| a.to_string()).unwrap_or_default())
        )?;
    }
    for sub in documented
        .iter()
        .filter(|s| matches!(s.get_name(), "read" | "analyze" | "info"))
    {
        writeln!(out, ".SH \"RDMADUMP {}\"", sub.get_name().to_uppercase())?;
        let usage = usage(sub);
        let man = clap_mangen::Man::new(sub.clone().override_usage(usage));
        // The subcommand's parts are subsections of its section.
        let mut part = Vec::new();
        man.render_synopsis_section(&mut part)?;
        man.render_description_section(&mut part)?;
        man.render_options_section(&mut part)?;
        man.render_extra_section(&mut part)?;
        let part = String::from_utf8_lossy(&part)
            .replace(".SH EXTRA\nExamples:\n", ".SS EXAMPLES\n")
            .replace(".SH ", ".SS ");
        out.write_all(part.as_bytes())?;
    }
    render_filter_section(out)?;
    out.write_all(FIELD_OUTPUT_SECTION.as_bytes())?;
    out.write_all(EXIT_STATUS_SECTION.as_bytes())?;
    man.render_version_section(out)
}

/// `rdmadump read [OPTIONS] [FILE]...`: the usage line clap shows in `--help`.
fn usage(sub: &clap::Command) -> String {
    let usage = sub.clone().render_usage().to_string();
    usage
        .strip_prefix("Usage: ")
        .unwrap_or(&usage)
        .trim()
        .to_string()
}

/// Text as roff shows it literally: backslashes and hyphens escaped, and a leading `.` or
/// `'` kept from being read as a request.
fn roff_escape(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// The filter language as `-Y` accepts it. Every example here is compiled by a test.
pub const FILTER_EXAMPLES: [&str; 8] = [
    "bth.dest_qp == 0xb01",
    "icrc.status == bad",
    "infiniband.bth.destqp == 0x45 and infiniband.aeth.syndrome != 0",
    "!(bth.psn >= 10 || bth.psn < 2) && bth.fecn",
    "ip.src == 10.0.0.0/24 and eth.src != 02:00:00:00:00:01",
    "bth.opcode in {0x06 0x07 0x08} or kind == cnp",
    "ip.addr == 10.0.0.1 xor qp == 0x11",
    "reth && !immdt",
];

const FILTER_GRAMMAR: &str = r#".SH FILTER
\fB\-Y\fR \fIEXPR\fR keeps the frames for which \fIEXPR\fR holds. The language is
Wireshark 4's display-filter language for the fields rdmadump decodes, and a filter copied
from Wireshark runs unchanged (the fields below list the Wireshark names each one answers to).
.PP
.nf
.RS 2
expr       = or
or         = xor { ("or" | "||") xor }
xor        = and { ("xor" | "^^") and }
and        = unary { ("and" | "&&") unary }
unary      = ("not" | "!") unary | "(" expr ")" | test
test       = value [ relation value | ["not"] "in" set | "contains" value
             | "matches" string | "&" value ]
relation   = "==" | "eq" | "any_eq" | "!=" | "ne" | "all_ne" | "~=" | "any_ne"
             | "===" | "all_eq" | ">" | "gt" | "<" | "lt" | ">=" | "ge" | "<=" | "le"
value      = field [ "[" slice "]" ] | function "(" field ")" | literal
function   = "len" | "lower" | "upper"
set        = "{" item { [","] item } "}"      item = literal [ ".." literal ]
literal    = integer (decimal, 0x hex, 0 octal, 0b binary) | IPv4 or IPv6 [ "/" bits ]
             | GID | MAC (":" "-" or "." separated) | bytes (aa:bb:cc) | "string" | true | false
.RE
.fi
.PP
A bare \fIfield\fR is true when the frame has it (and, for an rdmadump flag, when it is
set). A comparison with a field the frame lacks is false, even \fB!=\fR. A field that
occurs more than once in a frame (tunnels, PFC classes, either-direction fields such as
\fBip.addr\fR, \fBeth.addr\fR, \fBudp.port\fR, \fBlrh.lid\fR and \fBqp\fR) matches as in
Wireshark: \fB==\fR when any occurrence matches, \fB!=\fR when all differ. An unknown
name gets the nearest field's name; a Wireshark name rdmadump does not decode names the
nearest field it has. Parentheses and negations nest at most 256 deep. Examples:
.PP
.nf
.RS 2
"#;

fn render_filter_section(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    out.write_all(FILTER_GRAMMAR.as_bytes())?;
    for example in FILTER_EXAMPLES {
        writeln!(
            out,
            "rdmadump read \\-Y {}",
            roff_escape(&format!("'{example}'"))
        )?;
    }
    writeln!(out, ".RE\n.fi\n.SS FIELDS")?;
    writeln!(
        out,
        "Every field \\fB\\-Y\\fR and \\fB\\-e\\fR know, with its type (\\fIint\\fR, \
         \\fIbool\\fR, \\fIstring\\fR, \\fIip\\fR: IPv4, IPv6 or GID, \\fImac\\fR, \\fItime\\fR: \
         epoch seconds), what it is, and the Wireshark names that mean the same. \
         \\fBrdmadump fields \\-\\-json\\fR gives the same list as JSON."
    )?;
    for field in crate::fields::all() {
        let per_element = if field.each.is_some() {
            ", once per occurrence"
        } else {
            ""
        };
        writeln!(
            out,
            ".TP\n\\fB{}\\fR (\\fI{}\\fR{per_element})",
            roff_escape(field.name),
            field.ty.name()
        )?;
        let also = match field.wireshark {
            WiresharkName::Other(theirs) => format!("; Wireshark: {theirs}"),
            WiresharkName::None | WiresharkName::Same => String::new(),
        };
        writeln!(
            out,
            "{}",
            roff_escape(&format!("{}{also}", field.description))
        )?;
    }
    Ok(())
}

const FIELD_OUTPUT_SECTION: &str = r#".SH FIELD OUTPUT
\fBread \-T fields \-e\fR \fIFIELD\fR... prints one line per frame with the values of the
fields in the order given, separated by a tab, as \fBtshark \-T fields\fR does; a field the
frame lacks is an empty value. Integers are decimal; flags are \fB1\fR or \fB0\fR; IPv4
addresses are dotted, IPv6 addresses and GIDs compressed (RFC 5952); MACs are lowercase
with colons; names (\fBkind\fR, \fBicrc.status\fR...) are as in the JSON. A field that
occurs once per tunnel gives every occurrence, joined by the aggregator. \fB\-E\fR shapes
the output as tshark's option does: \fBseparator=\fR\fI/t|/s|C\fR, \fBheader=y\fR (a first
line of the field names), \fBquote=d|s|n\fR (around each non\-empty value),
\fBoccurrence=f|l|a\fR (first, last or all occurrences), \fBaggregator=\fR\fI/s|C\fR.
"#;

const EXIT_STATUS_SECTION: &str = r#".SH EXIT STATUS
.TP
\fB0\fR
Success. Frames that could not be decoded (shown as \fBmalformed\fR) and a capture cut
short (a warning on standard error) do not change it, nor does a closed output pipe.
.TP
\fB1\fR
\fBanalyze \-\-fail\-on\fR found anomalies of a kind it names.
.TP
\fB2\fR
A bad command line (a usage error, an unknown field, a filter that does not compile); an
output that is one of the inputs (\fB\-w\fR, \fB\-\-html\fR, \fBexport \-o\fR, or standard
output redirected onto an input: compared by device and inode); an input that could not be
opened or is not a capture (the other inputs are still read, and a \fB\-w\fR or
\fB\-\-html\fR file is then left as it was); an error writing the output. When every input
fails, nothing is printed on standard output.
"#;

/// Writes the completion script for `shell`, named as clap_complete names it. The script
/// is made in memory first: clap_complete panics when its writer fails (a full disk).
pub fn render_completions(
    shell: clap_complete::Shell,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use clap::CommandFactory;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "rdmadump", &mut script);
    out.write_all(&script)?;
    out.flush()
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
        assert_eq!(parse_dscp_pair("26=3"), Ok((26, 3)));
        assert!(parse_dscp_pair("64=3").is_err());
        assert!(parse_dscp_pair("26=8").is_err());
        assert!(parse_dscp_pair("26").is_err());
    }

    #[test]
    fn filter_examples_of_the_man_page_compile() {
        for example in FILTER_EXAMPLES {
            assert!(
                crate::filter::PacketFilter::from_expr(example).is_ok(),
                "{example}"
            );
        }
    }

    #[test]
    fn definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
