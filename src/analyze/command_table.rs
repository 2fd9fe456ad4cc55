//! What the upper-layer command tables (`nvme`'s queues, `sessions`' sessions) share to
//! stay within `--memory`: one byte budget for the answered rows they keep and the calls
//! they hold open, and per table the statistics that do not depend on the rows.
//!
//! The report's numbers come from the statistics, which cost the same whatever the
//! capture: exact counts, a latency [`Sketch`] and the exact [`SLOWEST`]. The rows (one per
//! answered command, for the HTML charts and export's `commands` table) are kept while
//! their share lasts; beyond it they are counted, not kept, and the percentiles come from
//! the sketch. Open calls beyond theirs are evicted oldest first and counted apart: they
//! are neither answered nor known unanswered.
//!
//! `export` wants every row: it sets [`CommandBudget::hand_over`], and then nothing is
//! dropped; rows and evicted open calls wait in their table until export takes them, which
//! it does whenever the rows' share is full.

use std::collections::HashMap;

use super::sketch::Sketch;

/// The slowest commands kept per queue or session.
pub const SLOWEST: usize = 5;

/// Open calls one table keeps at most: seven eighths of what the dissector keeps waiting
/// per session, so that the analysis forgets a call before the dissector does. A reply the
/// dissector still links to a call evicted here is then recognised by its frame (at or
/// below the table's eviction floor) and not counted as a call of its own.
pub const OPEN_PER_TABLE: usize = crate::dissect::WAITING_PER_SESSION / 8 * 7;

/// The bytes a hash map entry costs beyond its key and value: its control byte, and the
/// eighth of its slots a map keeps free.
fn bytes_in_map<K, V>() -> u64 {
    ((std::mem::size_of::<(K, V)>() + 1) * 8 / 7) as u64
}

/// The rows' and open calls' shares of the command tables' budget, and what they hold.
#[derive(Debug, Clone, Default)]
pub struct CommandBudget {
    rows_limit: u64,
    open_limit: u64,
    rows_bytes: u64,
    open_bytes: u64,
    /// The most rows and open calls held at once, in bytes.
    pub peak: u64,
    /// `export`: rows and evicted open calls are kept until taken, never dropped.
    pub hand_over: bool,
}

impl CommandBudget {
    /// Three quarters of `bytes` for the rows, a quarter for the open calls: a row is only
    /// drawn, an open call times its reply.
    pub fn new(bytes: u64) -> Self {
        CommandBudget {
            rows_limit: bytes / 4 * 3,
            open_limit: bytes / 4,
            ..CommandBudget::default()
        }
    }

    /// Whether a row of `bytes` may be kept; it is charged when it may.
    fn keep_row(&mut self, bytes: u64) -> bool {
        if !self.hand_over && self.rows_bytes + bytes > self.rows_limit {
            return false;
        }
        self.rows_bytes += bytes;
        self.note_peak();
        true
    }

    fn open(&mut self, bytes: u64) {
        self.open_bytes += bytes;
        self.note_peak();
    }

    fn close(&mut self, bytes: u64) {
        self.open_bytes = self.open_bytes.saturating_sub(bytes);
    }

    fn release_rows(&mut self, bytes: u64) {
        self.rows_bytes = self.rows_bytes.saturating_sub(bytes);
    }

    fn note_peak(&mut self) {
        self.peak = self.peak.max(self.rows_bytes + self.open_bytes);
    }

    /// The open calls passed their share: the oldest are to be evicted.
    pub fn open_over(&self) -> bool {
        self.open_bytes > self.open_limit
    }

    /// The rows reached their share: `export` takes them now.
    pub fn rows_full(&self) -> bool {
        self.rows_bytes >= self.rows_limit
    }
}

/// A command as the tables keep it, answered or open.
pub trait Command {
    /// The frame of the command (call, request).
    fn frame(&self) -> u64;
    fn latency_ns(&self) -> Option<u64>;
}

/// A command still open, as old as its time says.
pub trait OpenCommand {
    fn ts_ns(&self) -> Option<u64>;
}

/// A table's open commands, whatever their types, for an eviction across the tables.
pub trait OpenAges {
    /// Each open command's (time, frame).
    fn ages(&self, out: &mut Vec<(u64, u64)>);
    /// Evicts the open commands at or before `oldest`.
    fn evict_through(&mut self, oldest: (u64, u64), budget: &mut CommandBudget);
}

impl<Row: Command + Clone, Open: OpenCommand> OpenAges for Table<Row, Open> {
    fn ages(&self, out: &mut Vec<(u64, u64)>) {
        out.extend(self.open.iter().map(|(f, o)| (o.ts_ns().unwrap_or(0), *f)));
    }

    fn evict_through(&mut self, oldest: (u64, u64), budget: &mut CommandBudget) {
        self.evict(|f, o| (o.ts_ns().unwrap_or(0), f) <= oldest, budget);
    }
}

/// Evicts the oldest eighth of the open commands of all `tables` (by time, then frame):
/// one pass over them buys an eighth of the share's insertions.
pub fn evict_oldest(tables: Vec<&mut dyn OpenAges>, budget: &mut CommandBudget) {
    let mut ages = Vec::new();
    for table in &tables {
        table.ages(&mut ages);
    }
    if ages.is_empty() {
        return;
    }
    let cut = (ages.len() / 8).max(1);
    let (_, oldest, _) = ages.select_nth_unstable(cut - 1);
    let oldest = *oldest;
    for table in tables {
        table.evict_through(oldest, budget);
    }
}

/// The slowest answered commands, slowest first (ties by frame), [`SLOWEST`] at most.
#[derive(Debug, Clone)]
pub struct Slowest<T>(Vec<T>);

impl<T> Default for Slowest<T> {
    fn default() -> Self {
        Slowest(Vec::new())
    }
}

impl<T: Command + Clone> Slowest<T> {
    fn offer(&mut self, row: &T) {
        let Some(latency) = row.latency_ns() else {
            return;
        };
        let order = |t: &T| (std::cmp::Reverse(t.latency_ns()), t.frame());
        let key = (std::cmp::Reverse(Some(latency)), row.frame());
        let at = self.0.partition_point(|t| order(t) < key);
        if at < SLOWEST {
            self.0.insert(at, row.clone());
            self.0.truncate(SLOWEST);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.0.iter()
    }
}

/// One queue's or session's answered rows, open calls and the statistics kept whatever
/// the budget.
#[derive(Debug, Clone)]
pub struct Table<Row, Open> {
    /// Answered commands kept, in order of answer.
    pub rows: Vec<Row>,
    /// Open commands by frame.
    open: HashMap<u64, Open>,
    /// Answered commands, kept or not.
    pub answered: u64,
    pub latency: Sketch,
    pub slowest: Slowest<Row>,
    /// Answered rows not kept (the budget was spent) and taken by `export`.
    pub rows_dropped: u64,
    pub rows_taken: u64,
    /// Open commands evicted at the budget before any reply: not known answered.
    pub evicted: u64,
    /// The newest command frame evicted: a reply to a frame at or below it that is not
    /// open answers an evicted command.
    evicted_floor: Option<u64>,
    /// With `hand_over`: evicted open commands, until `export` takes them.
    pub evicted_open: Vec<(u64, Open)>,
}

impl<Row, Open> Default for Table<Row, Open> {
    fn default() -> Self {
        Table {
            rows: Vec::new(),
            open: HashMap::new(),
            answered: 0,
            latency: Sketch::default(),
            slowest: Slowest::default(),
            rows_dropped: 0,
            rows_taken: 0,
            evicted: 0,
            evicted_floor: None,
            evicted_open: Vec::new(),
        }
    }
}

/// What a reply's command was, to the table.
pub enum Opened<Open> {
    /// Open until now.
    Open(Open),
    /// Evicted before its reply: counted already, not to be timed.
    Evicted,
    /// Never seen: the traffic taught the table by this reply.
    Unseen,
}

impl<Row: Command + Clone, Open> Table<Row, Open> {
    fn row_bytes() -> u64 {
        std::mem::size_of::<Row>() as u64
    }

    fn open_bytes() -> u64 {
        bytes_in_map::<u64, Open>()
    }

    /// Whether every answered command's row is here: the percentiles are then exact.
    pub fn rows_complete(&self) -> bool {
        self.rows_dropped == 0 && self.rows_taken == 0
    }

    /// Holds `open` until its reply; past [`OPEN_PER_TABLE`] the oldest eighth is evicted.
    pub fn open(&mut self, frame: u64, open: Open, budget: &mut CommandBudget) {
        if self.open.insert(frame, open).is_none() {
            budget.open(Self::open_bytes());
        }
        if self.open.len() > OPEN_PER_TABLE {
            let mut frames: Vec<u64> = self.open.keys().copied().collect();
            let cut = frames.len() / 8;
            let (_, oldest_kept, _) = frames.select_nth_unstable(cut);
            let oldest_kept = *oldest_kept;
            self.evict(|frame, _| frame < oldest_kept, budget);
        }
    }

    pub fn open_len(&self) -> usize {
        self.open.len()
    }

    /// Commands outstanding as far as the table knows: those open and those evicted open,
    /// which it never sees answered.
    pub fn outstanding(&self) -> u64 {
        self.open.len() as u64 + self.evicted
    }

    pub fn open_get_mut(&mut self, frame: u64) -> Option<&mut Open> {
        self.open.get_mut(&frame)
    }

    pub fn open_iter(&self) -> impl Iterator<Item = (u64, &Open)> {
        self.open.iter().map(|(f, o)| (*f, o))
    }

    /// The command a reply to `frame` answers.
    pub fn close(&mut self, frame: u64, budget: &mut CommandBudget) -> Opened<Open> {
        match self.open.remove(&frame) {
            Some(open) => {
                budget.close(Self::open_bytes());
                Opened::Open(open)
            }
            None if self.evicted_floor.is_some_and(|floor| frame <= floor) => Opened::Evicted,
            None => Opened::Unseen,
        }
    }

    /// Evicts the open commands `old` picks, counting them; with `hand_over`, they wait in
    /// `evicted_open` for `export`.
    pub fn evict(&mut self, old: impl Fn(u64, &Open) -> bool, budget: &mut CommandBudget) {
        let mut gone = 0u64;
        for (frame, open) in self.open.extract_if(|frame, open| old(*frame, open)) {
            gone += 1;
            self.evicted_floor = self.evicted_floor.max(Some(frame));
            if budget.hand_over {
                self.evicted_open.push((frame, open));
            }
        }
        self.evicted += gone;
        budget.close(gone * Self::open_bytes());
        if budget.hand_over {
            // They wait for `export` as rows do, and fill the rows' share as rows do.
            budget.rows_bytes += gone * Self::open_bytes();
            budget.note_peak();
        }
    }

    /// An answered command: counted, timed, and kept as a row while the budget allows.
    pub fn answer(&mut self, row: Row, budget: &mut CommandBudget) -> Option<&mut Row> {
        self.answered += 1;
        if let Some(latency) = row.latency_ns() {
            self.latency.add(latency);
        }
        self.slowest.offer(&row);
        if !budget.keep_row(Self::row_bytes()) {
            self.rows_dropped += 1;
            return None;
        }
        self.rows.push(row);
        self.rows.last_mut()
    }

    /// The rows kept so far and the open commands evicted, for `export`, which writes
    /// them; the budget gets their room back.
    pub fn take(&mut self, budget: &mut CommandBudget) -> (Vec<Row>, Vec<(u64, Open)>) {
        let rows = std::mem::take(&mut self.rows);
        let evicted = std::mem::take(&mut self.evicted_open);
        self.rows_taken += rows.len() as u64;
        budget.release_rows(rows.len() as u64 * Self::row_bytes());
        budget.release_rows(evicted.len() as u64 * Self::open_bytes());
        (rows, evicted)
    }

    /// Latencies of the answered commands kept, sorted.
    pub fn latencies(&self) -> Vec<u64> {
        let mut all: Vec<u64> = self.rows.iter().filter_map(|r| r.latency_ns()).collect();
        all.sort_unstable();
        all
    }

    /// The open commands, by command frame.
    pub fn open_by_frame(&self) -> Vec<(u64, &Open)> {
        let mut all: Vec<(u64, &Open)> = self.open_iter().collect();
        all.sort_unstable_by_key(|(frame, _)| *frame);
        all
    }
}

/// The p50, p99 and max of a table's latencies: exact from its rows while it has them
/// all, else from its sketch.
pub fn latency_summary<Row: Command + Clone, Open>(
    table: &Table<Row, Open>,
) -> (Option<u64>, Option<u64>, Option<u64>, Vec<u64>) {
    let latencies = table.latencies();
    if table.rows_complete() {
        return (
            percentile(&latencies, 50),
            percentile(&latencies, 99),
            latencies.last().copied(),
            latencies,
        );
    }
    (
        table.latency.quantile(0.5),
        table.latency.quantile(0.99),
        table.latency.max(),
        latencies,
    )
}

/// The nearest-rank percentile `p` (0-100) of sorted values.
pub fn percentile(sorted: &[u64], p: u64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as u64).div_ceil(100).max(1);
    sorted.get(rank as usize - 1).copied()
}
