#!/usr/bin/env bash
# Rebuilds the seed corpora under fuzz/corpus/ from the capture fixtures. The output is
# deterministic, so rerunning it after a fixture changes gives a reviewable diff.
#
#   pcap_reader            every fixture capture, as is
#   pcapng_reader          the pcapng fixtures, plus every pcap fixture rewritten as pcapng
#                          (one IDB, EPBs) so pcapng sees every link type
#   erf_records            each record of the ERF captures: 2-byte wire length, the record
#   dissect_all_linktypes  each record of every capture: selector, 2-byte wire length, frame
#   analyze_capture        the seeds of both file readers
#   write_capture, info_capture, html_report, parquet_export
#                          the same capture files, up to 8 KiB
# The new targets' seeds leave out the real capture: only fixtures go into the repository.
#   compressed_input       the compressed fixtures, a few captures gzip-compressed, and a few
#                          plain ones (which read through unchanged)
#   merge_points           a file-count byte and a mode byte before a few capture files
#   threaded_pipeline      a mode byte before each capture file
#   render_packet          the dissect_all_linktypes records of the fixtures, with three
#                          field bytes and a style byte after the selector
#   filter_expr            the filter texts of src/filter/tests.rs
#   cli_parsers            a selector byte before a value of each option
#
# Needs python3 (standard library only). Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - <<'PY'
import glob, gzip, hashlib, os, re, shutil, struct

LINKTYPES = [1, 113, 197, 247, 276, 101, 228, 229, 242]
sources = sorted(glob.glob("fixtures/*.pcap") + glob.glob("fixtures/*.pcapng")
                 + glob.glob("fixtures/scenarios/*.pcap"))
# Never the real captures of ../shared: they belong to their publishers, and the corpus is
# committed. (Fuzz them by hand with `cargo fuzz run TARGET ../shared/captures/`.)
# Compressed captures are the containers' business, not the readers' (their fixtures
# decompress to other fixtures, already here).
def compressed(p):
    start = open(p, "rb").read(4)
    return start[:2] == b"\x1f\x8b" or start == b"\x28\xb5\x2f\xfd"
packed = [p for p in sources if compressed(p)]
sources = [p for p in sources if not compressed(p)]

corpus = {t: {} for t in ["pcap_reader", "pcapng_reader", "erf_records",
                          "dissect_all_linktypes", "analyze_capture", "write_capture",
                          "info_capture", "html_report", "parquet_export",
                          "compressed_input", "merge_points", "threaded_pipeline",
                          "render_packet", "filter_expr", "cli_parsers"]}

def add(target, data):
    corpus[target][hashlib.sha1(data).hexdigest()[:16]] = data

def pcap_records(raw):
    """(linktype, nanosecond, records) of a classic pcap; stops at the first broken record."""
    magic = raw[:4]
    order = {b"\xd4\xc3\xb2\xa1": ("<", False), b"\xa1\xb2\xc3\xd4": (">", False),
             b"\x4d\x3c\xb2\xa1": ("<", True), b"\xa1\xb2\x3c\x4d": (">", True)}[magic]
    e, nano = order
    linktype = struct.unpack(e + "I", raw[20:24])[0] & 0x03FFFFFF
    at, recs = 24, []
    while at + 16 <= len(raw):
        sec, frac, caplen, orig = struct.unpack(e + "IIII", raw[at:at + 16])
        if at + 16 + caplen > len(raw):
            break
        ts = sec * 10**9 + frac * (1 if nano else 1000)
        recs.append((ts, orig, raw[at + 16:at + 16 + caplen]))
        at += 16 + caplen
    return linktype, recs

def pcapng_records(raw):
    """(linktype, records) of the little- or big-endian pcapng fixtures (EPBs only)."""
    e = "<" if raw[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
    at, ifaces, recs = 0, [], []
    while at + 12 <= len(raw):
        btype, blen = struct.unpack(e + "II", raw[at:at + 8])
        if blen < 12 or at + blen > len(raw):
            break
        body = raw[at + 8:at + blen - 4]
        if btype == 1:
            ifaces.append(struct.unpack(e + "H", body[:2])[0])
        elif btype == 6 and len(body) >= 20:
            iface, _, _, caplen, orig = struct.unpack(e + "IIIII", body[:20])
            if iface < len(ifaces):
                recs.append((ifaces[iface], orig, body[20:20 + caplen]))
        at += blen
    return recs

def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)

def as_pcapng(linktype, recs):
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    # if_tsresol 9: nanoseconds, so the timestamps survive the rewrite exactly.
    out += block(1, struct.pack("<HHI", linktype, 0, 0) + struct.pack("<HHB3x", 9, 1, 9)
                 + struct.pack("<HH", 0, 0))
    for ts, orig, data in recs:
        out += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(data), orig) + data)
    return out

for path in sources:
    raw = open(path, "rb").read()
    add("pcap_reader", raw)
    if raw[:4] == b"\x0a\x0d\x0d\x0a":
        add("pcapng_reader", raw)
        recs = pcapng_records(raw)
    else:
        linktype, pcap_recs = pcap_records(raw)
        add("pcapng_reader", as_pcapng(linktype, pcap_recs))
        recs = [(linktype, orig, data) for _, orig, data in pcap_recs]
    for linktype, orig, data in recs:
        if linktype not in LINKTYPES:
            continue
        orig = min(orig, 0xFFFF)
        record = bytes([LINKTYPES.index(linktype)]) + struct.pack(">H", orig) + data
        add("dissect_all_linktypes", record)
        # The new targets' seeds come from the fixtures alone: no byte of a real capture
        # goes into the repository.
        if path != real:
            add("render_packet", record[:1] + hashlib.sha1(record).digest()[:4] + record[1:])
        if linktype == 197:
            add("erf_records", struct.pack(">H", orig) + data)

corpus["analyze_capture"] = {**corpus["pcap_reader"], **corpus["pcapng_reader"]}
# Small captures only: larger ones mostly repeat records, and the seeds live in git.
real_bytes = open(real, "rb").read() if os.path.exists(real) else None
small_files = {k: v for k, v in corpus["analyze_capture"].items()
               if len(v) <= 8192 and v != real_bytes}
for target in ["write_capture", "info_capture", "html_report", "parquet_export"]:
    corpus[target] = dict(small_files)

for path in packed:
    add("compressed_input", open(path, "rb").read())
small = sorted(corpus["pcap_reader"].values(), key=lambda d: (len(d), d))[:12]
for data in small:
    add("compressed_input", data)
    add("compressed_input", gzip.compress(data, mtime=0))
    # Two members, as `cat a.gz b.gz` makes.
    add("compressed_input", gzip.compress(data[:len(data) // 2], mtime=0)
        + gzip.compress(data[len(data) // 2:], mtime=0))

for path in sources:
    raw = open(path, "rb").read()
    if len(raw) > 8192 or path == real:
        continue
    digest = hashlib.sha1(raw).digest()
    for mode in [0x42 if digest[0] % 2 else 0x83, digest[0]]:
        add("threaded_pipeline", bytes([mode]) + raw)
    if "points" in path or "merge" in path or digest[1] % 8 == 0:
        for files, mode in [(3, 0x19), (31, 0x08 | digest[2] & 0xf7)]:
            add("merge_points", bytes([files, mode]) + raw)

tests = open("src/filter/tests.rs", encoding="utf-8").read()
for literal in re.findall(r'"((?:[^"\\]|\\.)*)"', tests):
    text = literal.encode().decode("unicode_escape").encode("latin-1", "replace") \
        if "\\" in literal else literal.encode()
    if len(text) >= 3 and any(op in text for op in [b"==", b"!=", b"<", b">", b" in ",
                                                     b"contains", b"matches", b"[", b"~"]):
        add("filter_expr", text)

cli_values = {
    0: ["2024-05-01T12:00:00Z\n+1.5s", "1714564800.5", "+200ms", "2024-02-29 23:59:60.999999999",
        "2024-05-01T12:00:00+05:30", "+10us"],
    2: ["100ms", "250us", "2s", "500ns", "1.5s", "0.000000001s"],
    3: ["512M", "2G", "64K", "1000", "1TiB", "65536"],
    4: ["100G", "25g", "400Gbps", "100M", "1T", "10b/s"],
    5: ["0x1F", "17", "4096", "256", "18446744073709551615"],
    6: ["b.pcap=-90us", "a=1s", "x=+5ns", "26=3", "63=7"],
    7: ["bth.psn", "infiniband.bth.psn", "frame.len", "eth.src", "mad.cm.msg"],
    8: ["separator=/t\nheader=y", "quote=d\noccurrence=f", "aggregator=/s\nseparator=,",
        "occurrence=l\nquote=s", "separator=\u00e9"],
}
for selector, values in cli_values.items():
    for value in values:
        add("cli_parsers", bytes([selector]) + value.encode())

total = 0
for target, files in corpus.items():
    d = os.path.join("fuzz", "corpus", target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for name, data in sorted(files.items()):
        open(os.path.join(d, name), "wb").write(data)
        total += len(data)
    print(f"{target}: {len(files)} seeds")
print(f"{total} bytes in all")
PY
