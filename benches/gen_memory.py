#!/usr/bin/env python3
"""Writes the captures that measure what `--memory` bounds (kept out of git, under
target/bench/), streaming, so that a 10-million-QP capture never sits in memory.

    gen_memory.py qps   OUT N          N QPs with one request each, 10.0.0.1 -> 10.0.0.2
    gen_memory.py hosts OUT N          N host pairs with one request each
    gen_memory.py dense OUT QPS PKTS   QPS QPs taking turns, PKTS requests each
    gen_memory.py rotated DIR N PKTS   N gzip files DIR/part-00000.pcap.gz ..., PKTS
                                       requests each of 8 QPs, each file going on where
                                       the one before stopped, as `tcpdump -C -z gzip`
                                       leaves a long capture

Every packet is Ethernet/IPv4/UDP 4791/BTH RC SEND_ONLY with a valid ICRC and no payload,
100 ns apart, so the analysis finds nothing wrong and every connection is as useful as the
next: what the budget keeps is decided by packets and recency alone.
"""
import gzip
import os
import struct
import sys
import zlib

START_NS = 1_700_000_000_000_000_000
MACS = bytes([0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1]) + b"\x08\x00"
BTH_LEN, ICRC_LEN = 12, 4
UDP_LEN = 8 + BTH_LEN + ICRC_LEN
IP_LEN = 20 + UDP_LEN
FRAME_LEN = 14 + IP_LEN


def ip_header(src, dst):
    h = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0x02, IP_LEN, 0, 0x4000, 64, 17, 0, src, dst))
    words = sum(struct.unpack(">10H", h))
    words = (words & 0xFFFF) + (words >> 16)
    struct.pack_into(">H", h, 10, ~words & 0xFFFF)
    return bytes(h)


def masked_prefix_crc(ip, udp):
    """The ICRC's running CRC over the masked pseudo-LRH, IPv4 and UDP headers."""
    m = bytearray(ip)
    m[1] = m[8] = m[10] = m[11] = 0xFF
    u = bytearray(udp)
    u[6] = u[7] = 0xFF
    return zlib.crc32(b"\xff" * 8 + bytes(m) + bytes(u))


UDP = struct.pack(">HHHH", 49152, 4791, UDP_LEN, 0)


def frame(ip, prefix_crc, qp, psn):
    bth = struct.pack(">BBHII", 0x04, 0, 0xFFFF, qp & 0xFFFFFF, psn & 0xFFFFFF)
    # The BTH's FECN/BECN byte (its fifth) is masked; it is 0 here and becomes 0xff.
    masked = bth[:4] + b"\xff" + bth[5:]
    icrc = zlib.crc32(masked, prefix_crc)
    return MACS + ip + UDP + bth + struct.pack("<I", icrc)


def address(i, first):
    return bytes([first, (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF])


def write(out, packets, first=0, opener=None):
    opener = opener or (lambda path, mode: open(path, mode, buffering=1 << 20))
    with opener(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, 1))
        record = struct.Struct("<IIII")
        for n, data in enumerate(packets, start=first):
            ts = START_NS + n * 100
            f.write(record.pack(ts // 1_000_000_000, ts % 1_000_000_000, len(data), len(data)))
            f.write(data)


def rotated(out_dir, files, pkts):
    os.makedirs(out_dir, exist_ok=True)
    ip = ip_header(address(1, 10), address(2, 10))
    prefix = masked_prefix_crc(ip, UDP)
    qps = 8
    for i in range(files):
        first = i * pkts
        chunk = (frame(ip, prefix, 0x100 + n % qps, n // qps) for n in range(first, first + pkts))
        write(os.path.join(out_dir, f"part-{i:05}.pcap.gz"), chunk, first, gzip.open)


def qps(n):
    ip = ip_header(address(1, 10), address(2, 10))
    prefix = masked_prefix_crc(ip, UDP)
    for i in range(n):
        yield frame(ip, prefix, 0x100 + i, 0)


def hosts(n):
    for i in range(n):
        ip = ip_header(address(i, 10), address(i, 11))
        yield frame(ip, masked_prefix_crc(ip, UDP), 0x100, 0)


def dense(qps, pkts):
    ip = ip_header(address(1, 10), address(2, 10))
    prefix = masked_prefix_crc(ip, UDP)
    for psn in range(pkts):
        for q in range(qps):
            yield frame(ip, prefix, 0x100 + q, psn)


def main():
    mode, out, *numbers = sys.argv[1:]
    numbers = [int(x) for x in numbers]
    if mode == "rotated":
        rotated(out, *numbers)
        return
    make = {"qps": qps, "hosts": hosts, "dense": dense}[mode]
    write(out, make(*numbers))


if __name__ == "__main__":
    main()
