# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_rdmadump_global_optspecs
    string join \n h/help V/version
end

function __fish_rdmadump_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_rdmadump_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_rdmadump_using_subcommand
    set -l cmd (__fish_rdmadump_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c rdmadump -n "__fish_rdmadump_needs_command" -s h -l help -d 'Print help'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -s V -l version -d 'Print version'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "read" -d 'List packets, one line each (or one JSON object each with --json)'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "analyze" -d 'Report flows, sequence errors, NAKs, congestion and PFC storms'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "info" -d 'Describe captures as capinfos does: container, interfaces, counts, times, rates'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "export" -d 'Write the packets, connections and events of captures as Parquet datasets for DuckDB, Spark and Trino'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "man" -d 'Print the man page (roff)'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "fields" -d 'List every field a filter can name, with its type, description and Wireshark names'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s d -l roce-port -d 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark\'s Decode As, -d udp.port==PORT,infiniband, is the same' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l decode -d 'Decode RC SENDs to a QP, or CM REQs for a port, as an upper protocol, like Wireshark\'s Decode As: qp=0x8d:nvme-rdma, port=4421:nvme-rdma, qp=0x444:rpcrdma, port=3261:iser, qp=0x644:smbd (repeatable)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s Y -l filter -d 'Only packets matching EXPR, e.g. \'bth.dest_qp == 0xb01 && aeth.kind == "nak"\'; @FILE reads EXPR from FILE' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l filter-file -d 'Only packets matching the filter in FILE, as -Y @FILE: for a filter longer than a command line takes (128 KiB)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l qp -d 'Only packets to this destination QP (decimal or 0x hex); analyze keeps the whole connection it belongs to: both ends, both directions, and its CM messages' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l kind -d 'Only packets of this kind, as the JSON `kind` key names it; `cnp` selects CNPs (BTH opcode 0x81), whose JSON kind stays `roce_v2` or `roce_v1`' -r -f -a "roce_v1\t''
roce_v2\t''
ib\t''
pfc\t''
pause\t''
other\t''
malformed\t''
cnp\t'CNPs: BTH opcode 0x81 (their JSON kind stays roce_v2 or roce_v1)'"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l color -d 'When to use color' -r -f -a "never\t''
auto\t''
always\t''"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l threads -d 'Threads to use (default: one per core): 1 does everything on one core; with 2, one reads and decodes while the other analyses or writes, and CRCs and rendering go to whichever is idler; from 3, one reads, one analyses or writes, and the others decode, check CRCs and render batches of packets side by side; `analyze --html` draws its charts on all of them. Standard input, pipes and compressed files are read on a thread of their own from 2, and batched like a file from 3. Output is identical either way' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s r -l read-file -d 'Read this capture file, as tshark -r does (repeatable; read after the FILEs)' -r -F
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l since -d 'Only packets at or after TIME: 2024-05-01T12:00:00Z (RFC 3339), \'2024-05-01 12:00:00.5\' (UTC), epoch seconds (1714564800.5), or +1.5s / +200ms / +10us after the first packet of the capture' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l until -d 'Only packets before TIME (same forms as --since; the window is [since, until))' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s c -l count -d 'Stop after N matching packets' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s t -l time -d 'How to show timestamps in text output; tshark\'s -t names (r, d, e, u, ud...) work too' -r -f -a "absolute\t'Wall-clock time of day, UTC, to the nanosecond'
relative\t'Seconds since the first packet shown'
delta\t'Seconds since the previous packet shown'
ud\t'UTC date and time of day, to the nanosecond (as tshark -t ud)'
epoch\t'Seconds since the epoch, to the nanosecond (as tshark -t e)'"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s w -l write -d 'Write the selected frames to a capture FILE instead of printing them, byte for byte with their times and original lengths: pcapng if FILE ends in .pcapng, an input is pcapng, or the inputs\' link types differ, else pcap. `-` writes to standard output' -r -F
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s T -d 'Output format, as tshark -T: text (the default), json (as --json), or fields (the fields named with -e, one line per frame)' -r -f -a "text\t'One line per frame (the default)'
json\t'JSON Lines, as --json'
fields\t'The -e fields, one line per frame'"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s e -d 'With -T fields: a field to print, by its filter name, e.g. bth.psn (repeatable; printed in the order given, an absent field as an empty value)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s E -d 'With -T fields, as tshark -E: separator=/t|/s|C, header=y|n, quote=d|s|n, occurrence=f|l|a, aggregator=/s|C (repeatable)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l no-mmap -d 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l json -d 'Write JSON Lines: one object per frame'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s l -l line-buffered -d 'Write each packet\'s output as soon as it is decoded, as tcpdump -l and tshark -l do: for watching a live capture through a pipe (tcpdump -U -w - | rdmadump read -l -)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s V -l verbose -d 'Under each frame\'s line, every decoded field as an indented tree, layer by layer (as tshark -V)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s x -l hex -d 'Under each frame\'s line, its captured bytes in hex and ASCII (as tshark -x)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -s d -l roce-port -d 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark\'s Decode As, -d udp.port==PORT,infiniband, is the same' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l decode -d 'Decode RC SENDs to a QP, or CM REQs for a port, as an upper protocol, like Wireshark\'s Decode As: qp=0x8d:nvme-rdma, port=4421:nvme-rdma, qp=0x444:rpcrdma, port=3261:iser, qp=0x644:smbd (repeatable)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -s Y -l filter -d 'Only packets matching EXPR, e.g. \'bth.dest_qp == 0xb01 && aeth.kind == "nak"\'; @FILE reads EXPR from FILE' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l filter-file -d 'Only packets matching the filter in FILE, as -Y @FILE: for a filter longer than a command line takes (128 KiB)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l qp -d 'Only packets to this destination QP (decimal or 0x hex); analyze keeps the whole connection it belongs to: both ends, both directions, and its CM messages' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l kind -d 'Only packets of this kind, as the JSON `kind` key names it; `cnp` selects CNPs (BTH opcode 0x81), whose JSON kind stays `roce_v2` or `roce_v1`' -r -f -a "roce_v1\t''
roce_v2\t''
ib\t''
pfc\t''
pause\t''
other\t''
malformed\t''
cnp\t'CNPs: BTH opcode 0x81 (their JSON kind stays roce_v2 or roce_v1)'"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l color -d 'When to use color' -r -f -a "never\t''
auto\t''
always\t''"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l threads -d 'Threads to use (default: one per core): 1 does everything on one core; with 2, one reads and decodes while the other analyses or writes, and CRCs and rendering go to whichever is idler; from 3, one reads, one analyses or writes, and the others decode, check CRCs and render batches of packets side by side; `analyze --html` draws its charts on all of them. Standard input, pipes and compressed files are read on a thread of their own from 2, and batched like a file from 3. Output is identical either way' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -s r -l read-file -d 'Read this capture file, as tshark -r does (repeatable; read after the FILEs)' -r -F
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l since -d 'Only packets at or after TIME: 2024-05-01T12:00:00Z (RFC 3339), \'2024-05-01 12:00:00.5\' (UTC), epoch seconds (1714564800.5), or +1.5s / +200ms / +10us after the first packet of the capture' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l until -d 'Only packets before TIME (same forms as --since; the window is [since, until))' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -s c -l count -d 'Analyse only the first N matching packets' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l pmtu -d 'Path MTU in bytes, for READ PSN accounting: 256, 512, 1024, 2048 or 4096 (default: learned from FIRST and MIDDLE packets, else inferred from the largest payload)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l link-speed -d 'Link speed that converts PFC quanta to time: 100M, 1G, 10G, 25G, 40G, 50G, 100G, 200G, 400G, 800G' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l storm-threshold -d 'Continuous pause that makes a PFC storm, e.g. 100ms, 500us, 1s' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l max-flows -d 'Most flows kept at once; beyond it the least recently active flow is evicted' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l memory -d 'Memory for what the analysis keeps (connections, flows, sketches, the series of --html and --interval), e.g. 512M, 2G; at it, the least useful connections are evicted first, and the report says what they carried' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l max-pfc-senders -d 'Most (sender, priority) PFC states kept at once' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l stall -d 'A connection direction with requests outstanding that sends and receives nothing for longer than TIME is stalled, e.g. 50us, 1ms (default: 4 × the direction\'s p99 RTT, and at least 20us)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l dscp-map -d 'The switch\'s priority for untagged traffic by DSCP, e.g. 26=3,46=5; DSCPs not given have priority DSCP/8. Tagged frames have their VLAN PCP\'s' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l fail-on -d 'Exit with status 1 if anomalies of these kinds are found (comma-separated), or if the capture missed more than RATIO of the request packets (capture_loss=RATIO)' -r -f -a "psn_gap\t''
go_back_n\t''
retransmission\t''
nak\t''
rnr_nak\t''
icrc_bad\t''
vcrc_bad\t''
pfc_storm\t''
pause_cascade\t''
malformed\t''
pause_storm\t''
lost_between\t''
capture_loss=RATIO\t'the capture missed more than RATIO (0.05 or 5%) of the request packets that the responders acknowledged'"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l order -d 'The capture points in path order, e.g. host_a.pcap,mirror.pcap,host_b.pcap: a packet a point missed although points on both sides of it saw it was dropped by that point\'s capture, not lost; without it the order is inferred from the times' -r -F
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l skew-bound -d 'Most that two capture points\' clocks may differ for one packet to be recognised as the same packet at both, e.g. 100ms, 5ms' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l offset -d 'FILE is a capture point whose clock is TIME ahead of the first input\'s (negative when behind), e.g. --offset b.pcap=-90us: for points whose packets are too few to match, or to override the estimate. Files given the same TIME are one point' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l interval -d 'Add to each connection a timeline of payload bytes, packets, retransmissions and CNPs per interval, e.g. 1ms, 100us' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l max-buckets -d 'Most timeline buckets per connection direction; a longer connection gets wider ones' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l html -d 'Also write a self-contained HTML report to FILE: summary, connection table, anomalies, a time-sequence graph of each connection direction, goodput and RTT over time, the PFC pause timeline and CRC failures by source. The text or JSON report is still written' -r -F
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l html-top -d 'Connections the HTML report draws, the worst first (by retransmissions, NAKs, CNPs, then bytes); the rest are listed in its table' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l no-mmap -d 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l json -d 'Write one JSON document instead of the text report'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l single-point -d 'The files are consecutive pieces of one capture (e.g. tcpdump -C), not separate capture points of the same traffic'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l all -d 'List every connection in the text report, not only the 20 that lost the most time'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand info" -s r -l read-file -d 'Describe this capture file too, as tshark -r names one (repeatable)' -r -F
complete -c rdmadump -n "__fish_rdmadump_using_subcommand info" -l roce-port -d 'With --kinds, also take UDP destination PORT as RoCE v2 (repeatable)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand info" -l json -d 'Write one JSON document instead of text'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand info" -l kinds -d 'Also count the frames of each kind (roce_v2, ib, pfc...). This decodes every frame, as `read` does, so it runs at decoding speed instead of near `cat` speed; without it only record headers are read. A guess from a few header bytes would disagree with `read` on tunnels, ERF, IPoIB and --roce-port, which is why it is not offered'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand info" -l no-mmap -d 'Read files through a buffer instead of memory-mapping them'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand info" -s h -l help -d 'Print help'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand completions" -s h -l help -d 'Print help'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -s d -l roce-port -d 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark\'s Decode As, -d udp.port==PORT,infiniband, is the same' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l decode -d 'Decode RC SENDs to a QP, or CM REQs for a port, as an upper protocol, like Wireshark\'s Decode As: qp=0x8d:nvme-rdma, port=4421:nvme-rdma, qp=0x444:rpcrdma, port=3261:iser, qp=0x644:smbd (repeatable)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -s Y -l filter -d 'Only packets matching EXPR, e.g. \'bth.dest_qp == 0xb01 && aeth.kind == "nak"\'; @FILE reads EXPR from FILE' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l filter-file -d 'Only packets matching the filter in FILE, as -Y @FILE: for a filter longer than a command line takes (128 KiB)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l qp -d 'Only packets to this destination QP (decimal or 0x hex); analyze keeps the whole connection it belongs to: both ends, both directions, and its CM messages' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l kind -d 'Only packets of this kind, as the JSON `kind` key names it; `cnp` selects CNPs (BTH opcode 0x81), whose JSON kind stays `roce_v2` or `roce_v1`' -r -f -a "roce_v1\t''
roce_v2\t''
ib\t''
pfc\t''
pause\t''
other\t''
malformed\t''
cnp\t'CNPs: BTH opcode 0x81 (their JSON kind stays roce_v2 or roce_v1)'"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l color -d 'When to use color' -r -f -a "never\t''
auto\t''
always\t''"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l threads -d 'Threads to use (default: one per core): 1 does everything on one core; with 2, one reads and decodes while the other analyses or writes, and CRCs and rendering go to whichever is idler; from 3, one reads, one analyses or writes, and the others decode, check CRCs and render batches of packets side by side; `analyze --html` draws its charts on all of them. Standard input, pipes and compressed files are read on a thread of their own from 2, and batched like a file from 3. Output is identical either way' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -s r -l read-file -d 'Read this capture file, as tshark -r does (repeatable; read after the FILEs)' -r -F
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l since -d 'Only packets at or after TIME: 2024-05-01T12:00:00Z (RFC 3339), \'2024-05-01 12:00:00.5\' (UTC), epoch seconds (1714564800.5), or +1.5s / +200ms / +10us after the first packet of the capture' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l until -d 'Only packets before TIME (same forms as --since; the window is [since, until))' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -s o -l output -d 'Directory that receives the packets/, connections/, events/ and captures/ datasets; exports of other captures into it add files beside the ones there' -r -F
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l max-file-size -d 'Start a new file in a dataset once the current one passes SIZE, e.g. 512M, 2G' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l partition -d 'How files are grouped: capture-date (Hive-style capture_date=YYYY-MM-DD directories, from the capture\'s first frame) or none' -r -f -a "capture-date\t''
none\t''"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l name -d 'The capture\'s name in the `capture` column and in file names (default: the file\'s name; `stdin` for standard input). Only with one input' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l pmtu -d 'Path MTU in bytes, for READ PSN accounting: 256, 512, 1024, 2048 or 4096 (default: learned from FIRST and MIDDLE packets, else inferred from the largest payload)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l link-speed -d 'Link speed that converts PFC quanta to time: 100M, 1G, 10G, 25G, 40G, 50G, 100G, 200G, 400G, 800G' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l storm-threshold -d 'Continuous pause that makes a PFC storm, e.g. 100ms, 500us, 1s' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l max-flows -d 'Most flows kept at once; beyond it the least recently active flow is evicted' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l memory -d 'Memory for what the analysis keeps (connections, flows, sketches, the series of --html and --interval), e.g. 512M, 2G; at it, the least useful connections are evicted first, and the report says what they carried' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l max-pfc-senders -d 'Most (sender, priority) PFC states kept at once' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l stall -d 'A connection direction with requests outstanding that sends and receives nothing for longer than TIME is stalled, e.g. 50us, 1ms (default: 4 × the direction\'s p99 RTT, and at least 20us)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l dscp-map -d 'The switch\'s priority for untagged traffic by DSCP, e.g. 26=3,46=5; DSCPs not given have priority DSCP/8. Tagged frames have their VLAN PCP\'s' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l no-mmap -d 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l replace -d 'Replace the files of an earlier export of the same capture (by name) instead of refusing'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -l schema -d 'Print the three datasets\' columns and Arrow types as Markdown, and exit'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand man" -s h -l help -d 'Print help'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand fields" -l json -d 'Write one JSON array instead of text'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand fields" -s h -l help -d 'Print help'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze info completions export man fields help" -f -a "read" -d 'List packets, one line each (or one JSON object each with --json)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze info completions export man fields help" -f -a "analyze" -d 'Report flows, sequence errors, NAKs, congestion and PFC storms'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze info completions export man fields help" -f -a "info" -d 'Describe captures as capinfos does: container, interfaces, counts, times, rates'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze info completions export man fields help" -f -a "completions" -d 'Print a shell completion script'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze info completions export man fields help" -f -a "export" -d 'Write the packets, connections and events of captures as Parquet datasets for DuckDB, Spark and Trino'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze info completions export man fields help" -f -a "man" -d 'Print the man page (roff)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze info completions export man fields help" -f -a "fields" -d 'List every field a filter can name, with its type, description and Wireshark names'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze info completions export man fields help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
