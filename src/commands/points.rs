//! Several inputs to `analyze`: which are one file given twice, which are pieces of one
//! capture, and which are capture points of the same traffic, with their clock offsets.

use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::analyze::key::FlowKey;
use crate::analyze::points::plan::{self, PairVerdict, Plan};
use crate::analyze::points::skew::SkewEstimator;
use crate::analyze::points::{Identity, MAX_POINTS};
use crate::capture::merge::display_path;
use crate::cli::AnalyzeArgs;
use crate::filter::PacketFilter;

use super::same_file::FileId;
use super::{PREPARE, for_each_packet_with};

/// Packets the matching pass reads at most: capture points are told apart and their
/// offsets settled long before, and the pass stops sooner once every pair has its samples.
const MATCH_PASS_PACKETS: u64 = 4_000_000;

/// Standard input kept in a file of its own, so that it can be read twice (once to match
/// packets across points, once to analyse) like the other inputs. Removed when dropped.
pub struct SpooledStdin {
    path: PathBuf,
    /// Its place among the inputs, whose report names it as standard input again.
    pub index: usize,
}

impl Drop for SpooledStdin {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl SpooledStdin {
    /// The report's name of the spooled file, put back to standard input's.
    pub fn rename(&self, files: &mut [String]) {
        if let Some(name) = files.get_mut(self.index) {
            *name = display_path(Path::new("-"));
        }
    }
}

/// The inputs with any file given twice (the same file, or a copy with identical bytes)
/// left out, with a warning: read twice, every packet would look sent twice. Each input is
/// looked at once: by its device and inode, then by its size and the hash of its first
/// records, and only files alike in both are compared in full. Comparing every pair made
/// 10,000 rotated pieces, of one size as `tcpdump -C` writes them, take minutes.
pub fn distinct_inputs(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    use std::collections::HashMap;
    let mut kept: Vec<PathBuf> = Vec::with_capacity(paths.len());
    let mut by_file: HashMap<FileId, usize> = HashMap::new();
    let mut by_content: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
    for path in paths {
        let identity = (path.as_os_str() != "-")
            .then(|| FileId::of_path(&path))
            .flatten();
        let Some(id) = identity else {
            kept.push(path);
            continue;
        };
        if let Some(&first) = by_file.get(&id) {
            warn_twice(&path, "the same file as", &kept[first]);
            continue;
        }
        let content = std::fs::metadata(&path)
            .ok()
            .and_then(|m| Some((m.len(), first_records_hash(&path).ok()?)));
        let alike = content.and_then(|c| by_content.get(&c));
        let copy_of = alike.and_then(|indices| {
            indices
                .iter()
                .copied()
                .find(|&k| same_bytes(&kept[k], &path).unwrap_or(false))
        });
        if let Some(first) = copy_of {
            warn_twice(&path, "a copy of", &kept[first]);
            continue;
        }
        by_file.insert(id, kept.len());
        if let Some(content) = content {
            by_content.entry(content).or_default().push(kept.len());
        }
        kept.push(path);
    }
    kept
}

fn warn_twice(path: &Path, why: &str, first: &Path) {
    eprintln!(
        "rdmadump: warning: {} is {why} {}: read once, as one capture point",
        path.display(),
        first.display()
    );
}

/// The hash of a file's first block, past a pcap global header: two files whose hashes
/// differ are not the same capture in [`same_bytes`]'s sense.
fn first_records_hash(path: &Path) -> io::Result<u64> {
    use std::hash::{Hash, Hasher};
    const BLOCK: usize = 1 << 16;
    let mut file = File::open(path)?;
    let mut block = vec![0u8; BLOCK];
    let n = read_full(&mut file, &mut block)?;
    let block = &block[..n];
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    match pcap_magic(block) {
        Some(magic) => (magic, &block[PCAP_HEADER..]).hash(&mut hasher),
        None => block.hash(&mut hasher),
    }
    Ok(hasher.finish())
}

/// A classic pcap file's global header, which two copies of a capture may differ in
/// (a snaplen, a version) while their records are identical.
const PCAP_HEADER: usize = 24;

/// The magic of a classic pcap file (which says its byte order and time unit).
fn pcap_magic(bytes: &[u8]) -> Option<[u8; 4]> {
    let magic: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    (bytes.len() >= PCAP_HEADER
        && matches!(
            magic,
            [0xd4, 0xc3, 0xb2, 0xa1]
                | [0xa1, 0xb2, 0xc3, 0xd4]
                | [0x4d, 0x3c, 0xb2, 0xa1]
                | [0xa1, 0xb2, 0x3c, 0x4d]
        ))
    .then_some(magic)
}

/// Compares two files of one size a block at a time; pieces of one capture differ in their
/// first record, so this stops at once for them. Two pcap files whose global headers alone
/// differ (a snaplen, a version) hold identical records, and are the same capture too.
fn same_bytes(a: &Path, b: &Path) -> io::Result<bool> {
    const BLOCK: usize = 1 << 20;
    let (mut fa, mut fb) = (File::open(a)?, File::open(b)?);
    let (mut ba, mut bb) = (vec![0u8; BLOCK], vec![0u8; BLOCK]);
    let (n, m) = (read_full(&mut fa, &mut ba)?, read_full(&mut fb, &mut bb)?);
    let skip = match (pcap_magic(&ba[..n]), pcap_magic(&bb[..m])) {
        (Some(x), Some(y)) if x == y => PCAP_HEADER,
        _ => 0,
    };
    if n != m || ba[skip..n] != bb[skip..m] {
        return Ok(false);
    }
    if n == 0 {
        return Ok(true);
    }
    loop {
        let n = read_full(&mut fa, &mut ba)?;
        let m = read_full(&mut fb, &mut bb)?;
        if n != m || ba[..n] != bb[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Copies standard input, when it is one of several inputs, into a file beside the system's
/// temporary files, and names that file in its place.
pub fn spool_stdin(paths: &mut [PathBuf]) -> anyhow::Result<Option<SpooledStdin>> {
    let Some(index) = paths.iter().position(|p| p.as_os_str() == "-") else {
        return Ok(None);
    };
    let dir = std::env::temp_dir();
    let mut attempt = 0u32;
    let (path, mut file) = loop {
        let path = dir.join(format!(
            ".rdmadump-stdin-{}-{attempt}.capture",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => break (path, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => {
                return Err(e).with_context(|| {
                    format!(
                        "keeping standard input in {} to read it twice",
                        dir.display()
                    )
                });
            }
        }
    };
    let spooled = SpooledStdin {
        path: path.clone(),
        index,
    };
    io::copy(&mut io::stdin().lock(), &mut file)
        .with_context(|| format!("keeping standard input in {}", path.display()))?;
    paths[index] = path;
    Ok(Some(spooled))
}

/// Input `name`, as `--order` and `--offset` name one: its path or its file name.
pub fn input_named(paths: &[PathBuf], name: &Path, option: &str) -> anyhow::Result<usize> {
    let matches: Vec<usize> = (0..paths.len())
        .filter(|&i| paths[i] == name || paths[i].file_name() == Some(name.as_os_str()))
        .collect();
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => bail!("{option} names {}, which is not an input", name.display()),
        _ => bail!(
            "{option}: {} names several inputs; give the path",
            name.display()
        ),
    }
}

/// Which inputs are capture points, from the data packets that two of them both saw.
pub fn plan_points(paths: &[PathBuf], args: &AnalyzeArgs, bound_ns: u64) -> anyhow::Result<Plan> {
    let mut manual = vec![None; paths.len()];
    for (name, offset) in &args.offsets {
        manual[input_named(paths, name, "--offset")?] = Some(*offset);
    }
    let mut estimator = SkewEstimator::new(paths.len(), bound_ns);
    let mut seen = 0u64;
    for_each_packet_with(
        paths,
        &args.input,
        PREPARE,
        &PacketFilter::default(),
        |file, pkt| {
            if let (Some(key), Some(bth), Some(ts)) = (FlowKey::of(pkt), pkt.bth, pkt.ts_ns) {
                let len = pkt.payload_len.unwrap_or(0);
                let id = Identity::new(&key, bth.psn(), bth.opcode(), len);
                let data = SkewEstimator::is_data(&key, bth.opcode());
                let file = u16::try_from(file).unwrap_or(u16::MAX);
                estimator.observe(file, ts, &key, id, data);
            }
            seen += 1;
            let enough = seen.is_multiple_of(1 << 16) && estimator.satisfied();
            Ok(if enough || seen >= MATCH_PASS_PACKETS {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            })
        },
    )?;
    let plan = plan::plan(estimator, &manual);
    if plan.points() > MAX_POINTS {
        bail!(
            "the inputs are {} capture points, and analyze tells at most {MAX_POINTS} apart: \
             analyse fewer points at a time, or give --single-point to read them as one",
            plan.points()
        );
    }
    warn_of_doubtful_pairs(paths, &plan);
    Ok(plan)
}

/// Files that share a few packets may be two points with little traffic in common: they
/// were read as one, which the user may want to correct.
fn warn_of_doubtful_pairs(paths: &[PathBuf], plan: &Plan) {
    for pair in plan.doubtful() {
        let (a, b) = (paths[pair.lo].display(), paths[pair.hi].display());
        let why = match pair.verdict {
            PairVerdict::TooFew => format!(
                "{} data packets, too few to align two capture points ({} are needed){}",
                pair.matches,
                plan::MIN_MATCHES,
                if pair.disjoint {
                    "; one ends before the other begins, as pieces of one capture do, and a \
                     packet sent again across the cut matches itself"
                } else {
                    ""
                }
            ),
            PairVerdict::TooSpread => format!(
                "{} data packets whose times disagree by {} ns (median deviation), more \
                 than --skew-bound",
                pair.matches, pair.spread_ns
            ),
            PairVerdict::OneConnection => format!(
                "{} data packets, all of one connection where the files carry several",
                pair.matches
            ),
            PairVerdict::Points | PairVerdict::Consecutive => continue,
        };
        eprintln!(
            "rdmadump: warning: {a} and {b} share {why}: read as one capture point; if they \
             are two, give --offset {b}=TIME, or --single-point to say they are one"
        );
    }
}

/// `--order`, which names the points' inputs in path order, as the order of the points.
pub fn point_order(
    order: &[PathBuf],
    paths: &[PathBuf],
    plan: &Plan,
) -> anyhow::Result<Option<Vec<usize>>> {
    if order.is_empty() {
        return Ok(None);
    }
    if plan.points() < 2 {
        bail!(
            "--order needs several capture points, and the inputs are one (no data packet \
             was seen in two of them; give --offset to say which are points)"
        );
    }
    let mut points: Vec<usize> = Vec::with_capacity(plan.points());
    for name in order {
        let point = usize::from(plan.point_of[input_named(paths, name, "--order")?]);
        if points.last() != Some(&point) {
            if points.contains(&point) {
                bail!("--order names capture point {} twice", name.display());
            }
            points.push(point);
        }
    }
    if points.len() != plan.points() {
        bail!(
            "--order must name every capture point ({} named, {} points)",
            points.len(),
            plan.points()
        );
    }
    Ok(Some(points))
}
