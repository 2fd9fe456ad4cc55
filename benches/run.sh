#!/usr/bin/env bash
# Reproducible throughput benchmark: generates large captures under target/bench/ (kept out
# of git), then times rdmadump against `cat FILE > /dev/null` (the I/O floor) and tshark on
# the same data, hot page cache, best of N runs. Prints one table with the ratios.
#
#   benches/run.sh            # 420k x 1 KiB RoCE v2 frames (460 MB), 4M x 64 B frames
#   RUNS=5 benches/run.sh     # more repetitions
#   BIN=/path/to/rdmadump benches/run.sh   # another build (say main's), on the same files
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
DIR=target/bench
mkdir -p "$DIR"
cargo build --release --quiet --bin rdmadump --example gencap --example genpair
BIN=${BIN:-target/release/rdmadump}
GEN=target/release/examples/gencap

# Peak resident set size in MB of one run.
peak_mb() {
    /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1 | awk '{printf "%.1f", $1 / 1024}'
}

size_mb() { stat -c %s "$1" | awk '{printf "%.0f", $1 / 1048576}'; }

# Peak resident memory against the --memory budget (default 256M), on the captures that
# blew it up before it existed: 10M QPs with one packet each, 1M host pairs, and 8,000
# QPs x 1,030 packets, whose time sequences were what --html kept. The bound is 1.25 x the
# budget + 32 MB. `benches/run.sh memory` runs these rows alone. The captures (1.4 GB) are
# written by benches/gen_memory.py, streaming; MEM_QPS=2000000 makes the first smaller.
memory_rows() {
    local qps=$DIR/mem_qps_${MEM_QPS:-10000000}.pcap hosts=$DIR/mem_hosts_1m.pcap
    local dense=$DIR/mem_dense_8k.pcap page=$DIR/mem_report.html out=$DIR/mem_export
    local budget_mb=256 bound f name
    [ -f "$qps" ] || python3 benches/gen_memory.py qps "$qps" "${MEM_QPS:-10000000}"
    [ -f "$hosts" ] || python3 benches/gen_memory.py hosts "$hosts" 1000000
    [ -f "$dense" ] || python3 benches/gen_memory.py dense "$dense" 8000 1030
    bound=$(echo "$budget_mb * 1.25 + 32" | bc -l | xargs printf '%.0f')
    echo "| peak RSS, MB (bound $bound) | analyze --json | analyze --json --html | export |"
    echo "|---|---:|---:|---:|"
    for f in "$qps" "$hosts" "$dense"; do
        name=$(basename "$f" .pcap)
        local an html ex=-
        an=$(peak_mb $BIN analyze --json "$f")
        html=$(peak_mb $BIN analyze --json --html "$page" "$f")
        if $BIN export --help >/dev/null 2>&1; then
            rm -rf "$out"
            ex=$(peak_mb $BIN export -o "$out" "$f")
            rm -rf "$out"
        fi
        echo "| $name ($(size_mb "$f") MB) | $an | $html | $ex |"
    done
    # 10,000 rotated .gz pieces (100 packets each, as `tcpdump -C -z gzip` leaves them):
    # each is opened when the merge reaches it, not all at once (capture/merge.rs).
    local rotated=$DIR/rotated_10k
    [ -f "$rotated/part-09999.pcap.gz" ] || python3 benches/gen_memory.py rotated "$rotated" 10000 100
    local pieces=("$rotated"/part-*.pcap.gz) start secs
    start=$(date +%s.%N)
    an=$(peak_mb $BIN analyze --json "${pieces[@]}")
    secs=$(echo "$(date +%s.%N) - $start" | bc -l | xargs printf '%.1f')
    echo "| 10,000 .gz inputs ($(du -sm "$rotated" | cut -f1) MB), ${secs} s | $an | - | - |"
}

if [ "${1:-}" = memory ]; then
    memory_rows
    exit 0
fi

big=$DIR/roce_1k.pcap
bigng=$DIR/roce_1k.pcapng
small=$DIR/roce_64.pcap
prefix=$DIR/roce_1k_40k.pcap
[ -f "$big" ] || $GEN "$big" 420000 1024 1000 pcap
[ -f "$bigng" ] || $GEN "$bigng" 420000 1024 1000 pcapng
[ -f "$small" ] || $GEN "$small" 4000000 64 1000 pcap
[ -f "$prefix" ] || $GEN "$prefix" 40000 1024 1000 pcap
# Few, long connections: each direction fills its 4096 time-sequence points, the worst
# case for the size of the --html page.
dense=$DIR/roce_256_20qp.pcap
[ -f "$dense" ] || $GEN "$dense" 200000 256 20 pcap
# Many connections: 10,000 QPs take turns, and their state no longer fits the caches.
many=$DIR/roce_1k_10kqp.pcap
[ -f "$many" ] || $GEN "$many" 420000 1024 10000 pcap

# Linear time (issue 31): each pair of rows doubles the input; a cost per packet that
# grows with what came before (a scan) shows as 4 x instead of 2 x. Pairing by traffic:
# request QPs whose ends stay unpaired, and responses that answer none of them.
PAIRGEN=target/release/examples/genpair
pair_half=$DIR/pair_5k_200k.pcap
pair_full=$DIR/pair_10k_400k.pcap
[ -f "$pair_half" ] || $PAIRGEN "$pair_half" 5000 200000
[ -f "$pair_full" ] || $PAIRGEN "$pair_full" 10000 400000
# The k-way merge: 500, then 1,000 inputs of 2,000 packets each.
merge_dir=$DIR/merge_2k
if [ ! -f "$merge_dir/999.pcap" ]; then
    mkdir -p "$merge_dir"
    for i in $(seq 0 999); do $GEN "$merge_dir/$i.pcap" 2000 64 4 pcap; done
fi
merge_half=$(for i in $(seq 0 499); do printf '%s ' "$merge_dir/$i.pcap"; done)
merge_full=$(for i in $(seq 0 999); do printf '%s ' "$merge_dir/$i.pcap"; done)

# Every run reads fresh copies, and reads them as a user's capture is read: from disk into
# the page cache, then hot. How the cache holds a file decides what mapping it costs. Read
# from disk, with this VM's 8 MiB readahead on ext4 (Linux 6.18), the cache fills with
# 2 MiB folios and each one is mapped by a single page-table entry: touching every page of
# the 440 MB capture through a mapping took 581 page faults and 6-12 ms of CPU. A copy just
# written by `cp` is held in small folios, mapped sixteen 4 KiB pages per fault: 7257
# faults and 29 ms, which `cat`, copying with read(), barely notices (0.038-0.041 s both
# ways) and `analyze` does (0.065-0.077 s against 0.077-0.093 s, 2026-11-26). Both states
# are timed; the just-written copy has its own rows. Before the copies were fresh, a cache
# the kernel had reclaimed in part between sittings moved the ratios by a quarter.
written=$DIR/roce_1k_written.pcap
for f in "$big" "$bigng" "$small" "$prefix" "$dense" "$many"; do
    cp "$f" "$f.fresh" && mv "$f.fresh" "$f"
    sync "$f"
    dd if="$f" iflag=nocache count=0 status=none
    cat "$f" >/dev/null
done
cp "$big" "$written"

# Every timed command, by name. They are timed in rounds, each command once per round, and
# each keeps its best of $RUNS: this machine slows down two or three times for seconds at a
# time, and a slow phase then costs every command one round instead of costing one command
# all of its runs, which moved a ratio by a third from one run of this script to the next.
declare -A timed best
order=()
time_as() { timed[$1]=$2; order+=("$1"); }

# Runs the rounds; warms the page cache first. EPOCHREALTIME, unlike $(date), forks nothing
# inside the timed interval.
run_rounds() {
    local name start end t
    for name in "${order[@]}"; do eval "${timed[$name]}" >/dev/null 2>&1 || true; done
    for _ in $(seq "$RUNS"); do
        for name in "${order[@]}"; do
            start=$EPOCHREALTIME
            eval "${timed[$name]}" >/dev/null 2>&1 || true
            end=$EPOCHREALTIME
            t=$(echo "$end - $start" | bc -l)
            if [ -z "${best[$name]:-}" ] || [ "$(echo "$t < ${best[$name]}" | bc -l)" = 1 ]; then
                best[$name]=$t
            fi
        done
    done
    for name in "${order[@]}"; do best[$name]=$(printf '%.4f' "${best[$name]}"); done
}

ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
rate() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }

page=$DIR/report.html
out=$DIR/export
time_as cat_big "cat $big"
time_as an_big "$BIN analyze --json $big"
time_as cat_written "cat $written"
time_as an_written "$BIN analyze --json $written"
time_as an_ng "$BIN analyze --json $bigng"
time_as an_many "$BIN analyze --json $many"
time_as read_big "$BIN read --json $big"
time_as cat_small "cat $small"
time_as read_small "$BIN read --json $small"
time_as an_big_1 "$BIN analyze --threads 1 --json $big"
time_as an_big_2 "$BIN analyze --threads 2 --json $big"
time_as read_small_1 "$BIN read --threads 1 --json $small"
time_as read_small_2 "$BIN read --threads 2 --json $small"
time_as an_stdin "cat $big | $BIN analyze --json -"
time_as an_redirect "$BIN analyze --json - < $big"
time_as an_prefix "$BIN analyze --json $prefix"
time_as cat_prefix "cat $prefix"
# analyze --html: what drawing the report costs over analyze alone, and the page's size
# (issue 14 asked for at most 1.5 x the time of analyze and a page of at most 10 MB).
time_as an_html "$BIN analyze --json --html $page $big"
time_as an_dense "$BIN analyze --json $dense"
time_as html_dense "$BIN analyze --json --html $page $dense"
# A generated set of 14,000 QPNs (from a file: the filter is longer than an argument
# should be) against a set of one, on the same capture: a set is searched, not scanned.
set_big=$DIR/qps_14000.filter
[ -f "$set_big" ] || { printf 'bth.dest_qp in {'; seq -s ', ' 100001 114000 | head -c -1; printf '}\n'; } >"$set_big"
time_as read_set_big "$BIN read --json -Y @$set_big $big"
time_as read_set_one "$BIN read --json -Y 'bth.dest_qp in {100000}' $big"
have_tshark=$(command -v tshark >/dev/null 2>&1 && echo 1 || echo 0)
[ "$have_tshark" = 1 ] && time_as ts_prefix "tshark -r $prefix -T fields -e infiniband.bth.psn"
have_export=$($BIN export --help >/dev/null 2>&1 && echo 1 || echo 0)
[ "$have_export" = 1 ] && time_as ex_big "rm -rf $out; $BIN export -o $out $big"
# The Python package (issue 33; `pip install ./python`, a release wheel): packets() into
# Arrow batches against export, analyze() against the CLI. Skipped when not installed.
have_python=0
python3 -c "import rdmadump" >/dev/null 2>&1 && have_python=1
if [ "$have_python" = 1 ]; then
    time_as py_packets "python3 -c 'import rdmadump; [None for _ in rdmadump.packets(\"$big\")]'"
    time_as py_start "python3 -c 'import rdmadump'"
fi
# Spark (issue 33): rdmadump.spark.export in local[2] over 4 copies of the big capture,
# against `rdmadump export` of the 4 one after the other. Needs pyspark and Java.
have_spark=0
if [ "$have_python" = 1 ] && [ "$have_export" = 1 ] && python3 -c "import pyspark" >/dev/null 2>&1 \
    && command -v java >/dev/null 2>&1; then
    have_spark=1
    four=$DIR/four
    mkdir -p "$four"
    for i in 1 2 3 4; do
        [ -f "$four/copy$i.pcap" ] || ln "$big" "$four/copy$i.pcap" 2>/dev/null || cp "$big" "$four/copy$i.pcap"
    done
    time_as ex_four "rm -rf $out; $BIN export -o $out $four/copy1.pcap $four/copy2.pcap $four/copy3.pcap $four/copy4.pcap"
fi
time_as pair_half "$BIN analyze --json $pair_half"
time_as pair_full "$BIN analyze --json $pair_full"
time_as merge_half "$BIN read --json $merge_half"
time_as merge_full "$BIN read --json $merge_full"
run_rounds
for name in "${order[@]}"; do printf -v "$name" '%s' "${best[$name]}"; done

$BIN analyze --json --html "$page" "$dense" >/dev/null
dense_mb=$(stat -c %s "$page" | awk '{printf "%.2f", $1 / 1048576}')
$BIN analyze --json --html "$page" "$big" >/dev/null
page_mb=$(stat -c %s "$page" | awk '{printf "%.2f", $1 / 1048576}')
rss_html=$(peak_mb $BIN analyze --json --html "$page" "$big")
rss_stdin=$(peak_mb bash -c "cat $big | $BIN analyze --json -")
rss_an=$(peak_mb $BIN analyze --json "$big")
rss_an1=$(peak_mb $BIN analyze --threads 1 --json "$big")
rss_read=$(peak_mb $BIN read --json "$big")

echo "| what | file | time s | rate | vs floor |"
echo "|---|---|---:|---:|---:|"
echo "| cat > /dev/null (I/O floor) | $(size_mb "$big") MB, 420k x 1 KiB | $cat_big | $(rate "$(size_mb "$big")" "$cat_big") MB/s | 1.00 |"
echo "| rdmadump analyze --json | same | $an_big | $(rate "$(size_mb "$big")" "$an_big") MB/s, $(rate 0.42 "$an_big") Mpps | $(ratio "$an_big" "$cat_big") x cat |"
echo "| cat > /dev/null, a copy just written by cp | same | $cat_written | | $(ratio "$cat_written" "$cat_big") x read from disk |"
echo "| rdmadump analyze --json, same copy | same | $an_written | | $(ratio "$an_written" "$cat_written") x its cat |"
echo "| rdmadump analyze --json --html | same | $an_html | page $page_mb MB, peak RSS $rss_html MB | $(ratio "$an_html" "$an_big") x analyze |"
echo "| rdmadump analyze --json --html | 200k x 256 B, 20 connections | $html_dense | page $dense_mb MB | $(ratio "$html_dense" "$an_dense") x analyze |"
echo "| rdmadump read --json > /dev/null | same | $read_big | $(rate 0.42 "$read_big") Mpps | $(ratio "$read_big" "$cat_big") x cat |"
echo "| read --json -Y 'bth.dest_qp in {14,000 values}' / {1 value} | same | $read_set_big / $read_set_one | | $(ratio "$read_set_big" "$read_set_one") x one value |"
echo "| rdmadump analyze --json, pcapng | $(size_mb "$bigng") MB | $an_ng | | $(ratio "$an_ng" "$an_big") x pcap |"
echo "| rdmadump analyze --json, 10,000 QPs | $(size_mb "$many") MB, 1 KiB | $an_many | $(rate 0.42 "$an_many") Mpps | $(ratio "$an_many" "$an_big") x 1,000 QPs |"
echo "| cat > /dev/null | $(size_mb "$small") MB, 4M x 64 B | $cat_small | | 1.00 |"
echo "| rdmadump read --json > /dev/null | same | $read_small | $(rate 4 "$read_small") Mpps | $(ratio "$read_small" "$cat_small") x cat |"
echo "| analyze --json, --threads 1 / 2 | $(size_mb "$big") MB, 1 KiB | $an_big_1 / $an_big_2 | | $(ratio "$an_big_1" "$an_big_2") x speedup |"
echo "| read --json, --threads 1 / 2 | 4M x 64 B | $read_small_1 / $read_small_2 | $(rate 4 "$read_small_1") / $(rate 4 "$read_small_2") Mpps | $(ratio "$read_small_1" "$read_small_2") x speedup |"
echo "| cat big.pcap \| rdmadump analyze --json - | same | $an_stdin | | $(ratio "$an_stdin" "$an_big") x mapped |"
echo "| rdmadump analyze --json - < big.pcap | same | $an_redirect | | $(ratio "$an_redirect" "$an_big") x mapped |"
echo "| cat big.pcap \| rdmadump analyze - | peak RSS | | $rss_stdin MB | |"
echo "| rdmadump analyze --json, mapped | peak RSS, $(size_mb "$big") MB file | | $rss_an MB | |"
echo "| rdmadump analyze --threads 1 --json, mapped | peak RSS | | $rss_an1 MB | |"
echo "| rdmadump read --json, mapped | peak RSS | | $rss_read MB | |"
echo "| analyze --json, 5k / 10k unpaired QPs, 200k / 400k unanswered responses | doubled | $pair_half / $pair_full | | $(ratio "$pair_full" "$pair_half") x (linear: 2) |"
echo "| read --json, 500 / 1,000 inputs of 2,000 packets | doubled | $merge_half / $merge_full | | $(ratio "$merge_full" "$merge_half") x (linear: 2) |"
if [ "$have_tshark" = 1 ]; then
    echo "| tshark -T fields -e infiniband.bth.psn | 40k x 1 KiB | $ts_prefix | $(rate 0.04 "$ts_prefix") Mpps | |"
    echo "| rdmadump analyze --json | 40k x 1 KiB | $an_prefix | $(rate 0.04 "$an_prefix") Mpps | $(ratio "$ts_prefix" "$an_prefix") x faster than tshark |"
    echo "| cat > /dev/null (the bound) | 40k x 1 KiB | $cat_prefix | | $(ratio "$ts_prefix" "$cat_prefix") x faster than tshark |"
    echo "| per-packet rate, analyze vs tshark | | | | $(echo "(0.42 / $an_big) / (0.04 / $ts_prefix)" | bc -l | xargs printf '%.0f') x |"
fi

# rdmadump export: time and memory against read --json, size of what it writes, and a
# DuckDB scan of the export against analyze over the pcap (needs `pip install duckdb`).
if [ "$have_export" = 1 ]; then
    rm -rf "$out"
    rss_export=$(peak_mb $BIN export -o "$out" "$big")
    packets_mb=$(du -sm "$out/packets" | cut -f1)
    echo "| rdmadump export | $(size_mb "$big") MB, 1 KiB | $ex_big | | $(ratio "$ex_big" "$read_big") x read --json |"
    echo "| rdmadump export | peak RSS, output | | $rss_export MB | packets/ $packets_mb MB of $(size_mb "$big") MB pcap |"
    if python3 -c "import duckdb" >/dev/null 2>&1; then
        query="SELECT capture, bth_dest_qp, count(*) FROM read_parquet('$out/packets/**/*.parquet') WHERE icrc_status = 'bad' GROUP BY ALL"
        # The query's own time, best of $RUNS, inside one Python process (its start-up and
        # `import duckdb` are not the query's).
        duck=$(python3 -c "
import duckdb, time
best = None
for _ in range($RUNS + 1):
    start = time.perf_counter()
    duckdb.sql(\"$query\").fetchall()
    t = time.perf_counter() - start
    best = t if best is None else min(best, t)
print(f'{best:.4f}')")
        echo "| DuckDB: ICRC-bad per QP over the export | packets/ | $duck | | $(ratio "$duck" "$an_big") x analyze on the pcap |"
    fi
fi

if [ "$have_python" = 1 ]; then
    # analyze()'s own time, best of $RUNS + 1 in one interpreter, as DuckDB's above: a
    # notebook starts Python and imports the package once, not per analysis.
    py_analyze=$(python3 -c "
import rdmadump, time
best = None
for _ in range($RUNS + 1):
    start = time.perf_counter()
    rdmadump.analyze('$big').report
    t = time.perf_counter() - start
    best = t if best is None else min(best, t)
print(f'{best:.4f}')")
    rss_py=$(peak_mb python3 -c "import rdmadump; [None for _ in rdmadump.packets('$big')]")
    vs_export=
    [ "$have_export" = 1 ] && vs_export="$(ratio "$py_packets" "$ex_big") x export (target 1.5)"
    echo "| Python: rdmadump.packets() into Arrow batches | $(size_mb "$big") MB | $py_packets | peak RSS $rss_py MB | $vs_export |"
    echo "| Python: rdmadump.analyze(path).report, in one interpreter | same | $py_analyze | | $(ratio "$py_analyze" "$an_big") x analyze --json (target 1.1); starting Python and importing: $py_start s |"
fi

if [ "$have_spark" = 1 ]; then
    # The session is started before the clock: a fleet's cluster is up before its job.
    read -r spark_job spark_start < <(python3 benches/spark_export.py "$four" "$DIR/spark_out" "$RUNS" 2>/dev/null)
    echo "| Spark local[2]: rdmadump.spark.export, 4 copies | 4 x $(size_mb "$big") MB | $spark_job | session start $spark_start s | $(ratio "$spark_job" "$ex_four") x export one after the other ($ex_four s; target 2) |"
fi

echo
memory_rows
