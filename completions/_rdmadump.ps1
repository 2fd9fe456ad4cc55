
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'rdmadump' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'rdmadump'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'rdmadump' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'List packets, one line each (or one JSON object each with --json)')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Report flows, sequence errors, NAKs, congestion and PFC storms')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Describe captures as capinfos does: container, interfaces, counts, times, rates')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write the packets, connections and events of captures as Parquet datasets for DuckDB, Spark and Trino')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
            [CompletionResult]::new('fields', 'fields', [CompletionResultType]::ParameterValue, 'List every field a filter can name, with its type, description and Wireshark names')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'rdmadump;read' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark''s Decode As, -d udp.port==PORT,infiniband, is the same')
            [CompletionResult]::new('--roce-port', '--roce-port', [CompletionResultType]::ParameterName, 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark''s Decode As, -d udp.port==PORT,infiniband, is the same')
            [CompletionResult]::new('--decode', '--decode', [CompletionResultType]::ParameterName, 'Decode RC SENDs to a QP, or CM REQs for a port, as an upper protocol, like Wireshark''s Decode As: qp=0x8d:nvme-rdma, port=4421:nvme-rdma, qp=0x444:rpcrdma, port=3261:iser, qp=0x644:smbd (repeatable)')
            [CompletionResult]::new('-Y', '-Y ', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''; @FILE reads EXPR from FILE')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''; @FILE reads EXPR from FILE')
            [CompletionResult]::new('--filter-file', '--filter-file', [CompletionResultType]::ParameterName, 'Only packets matching the filter in FILE, as -Y @FILE: for a filter longer than a command line takes (128 KiB)')
            [CompletionResult]::new('--qp', '--qp', [CompletionResultType]::ParameterName, 'Only packets to this destination QP (decimal or 0x hex); analyze keeps the whole connection it belongs to: both ends, both directions, and its CM messages')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only packets of this kind, as the JSON `kind` key names it; `cnp` selects CNPs (BTH opcode 0x81), whose JSON kind stays `roce_v2` or `roce_v1`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads to use (default: one per core): 1 does everything on one core; with 2, one reads and decodes while the other analyses or writes, and CRCs and rendering go to whichever is idler; from 3, one reads, one analyses or writes, and the others decode, check CRCs and render batches of packets side by side; `analyze --html` draws its charts on all of them. Standard input, pipes and compressed files are read on a thread of their own from 2, and batched like a file from 3. Output is identical either way')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Read this capture file, as tshark -r does (repeatable; read after the FILEs)')
            [CompletionResult]::new('--read-file', '--read-file', [CompletionResultType]::ParameterName, 'Read this capture file, as tshark -r does (repeatable; read after the FILEs)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only packets at or after TIME: 2024-05-01T12:00:00Z (RFC 3339), ''2024-05-01 12:00:00.5'' (UTC), epoch seconds (1714564800.5), or +1.5s / +200ms / +10us after the first packet of the capture')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only packets before TIME (same forms as --since; the window is [since, until))')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Stop after N matching packets')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Stop after N matching packets')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'How to show timestamps in text output; tshark''s -t names (r, d, e, u, ud...) work too')
            [CompletionResult]::new('--time', '--time', [CompletionResultType]::ParameterName, 'How to show timestamps in text output; tshark''s -t names (r, d, e, u, ud...) work too')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Write the selected frames to a capture FILE instead of printing them, byte for byte with their times and original lengths: pcapng if FILE ends in .pcapng, an input is pcapng, or the inputs'' link types differ, else pcap. `-` writes to standard output')
            [CompletionResult]::new('--write', '--write', [CompletionResultType]::ParameterName, 'Write the selected frames to a capture FILE instead of printing them, byte for byte with their times and original lengths: pcapng if FILE ends in .pcapng, an input is pcapng, or the inputs'' link types differ, else pcap. `-` writes to standard output')
            [CompletionResult]::new('-T', '-T ', [CompletionResultType]::ParameterName, 'Output format, as tshark -T: text (the default), json (as --json), or fields (the fields named with -e, one line per frame)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'With -T fields: a field to print, by its filter name, e.g. bth.psn (repeatable; printed in the order given, an absent field as an empty value)')
            [CompletionResult]::new('-E', '-E ', [CompletionResultType]::ParameterName, 'With -T fields, as tshark -E: separator=/t|/s|C, header=y|n, quote=d|s|n, occurrence=f|l|a, aggregator=/s|C (repeatable)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write JSON Lines: one object per frame')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Write each packet''s output as soon as it is decoded, as tcpdump -l and tshark -l do: for watching a live capture through a pipe (tcpdump -U -w - | rdmadump read -l -)')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Write each packet''s output as soon as it is decoded, as tcpdump -l and tshark -l do: for watching a live capture through a pipe (tcpdump -U -w - | rdmadump read -l -)')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Under each frame''s line, every decoded field as an indented tree, layer by layer (as tshark -V)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Under each frame''s line, every decoded field as an indented tree, layer by layer (as tshark -V)')
            [CompletionResult]::new('-x', '-x', [CompletionResultType]::ParameterName, 'Under each frame''s line, its captured bytes in hex and ASCII (as tshark -x)')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Under each frame''s line, its captured bytes in hex and ASCII (as tshark -x)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'rdmadump;analyze' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark''s Decode As, -d udp.port==PORT,infiniband, is the same')
            [CompletionResult]::new('--roce-port', '--roce-port', [CompletionResultType]::ParameterName, 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark''s Decode As, -d udp.port==PORT,infiniband, is the same')
            [CompletionResult]::new('--decode', '--decode', [CompletionResultType]::ParameterName, 'Decode RC SENDs to a QP, or CM REQs for a port, as an upper protocol, like Wireshark''s Decode As: qp=0x8d:nvme-rdma, port=4421:nvme-rdma, qp=0x444:rpcrdma, port=3261:iser, qp=0x644:smbd (repeatable)')
            [CompletionResult]::new('-Y', '-Y ', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''; @FILE reads EXPR from FILE')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''; @FILE reads EXPR from FILE')
            [CompletionResult]::new('--filter-file', '--filter-file', [CompletionResultType]::ParameterName, 'Only packets matching the filter in FILE, as -Y @FILE: for a filter longer than a command line takes (128 KiB)')
            [CompletionResult]::new('--qp', '--qp', [CompletionResultType]::ParameterName, 'Only packets to this destination QP (decimal or 0x hex); analyze keeps the whole connection it belongs to: both ends, both directions, and its CM messages')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only packets of this kind, as the JSON `kind` key names it; `cnp` selects CNPs (BTH opcode 0x81), whose JSON kind stays `roce_v2` or `roce_v1`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads to use (default: one per core): 1 does everything on one core; with 2, one reads and decodes while the other analyses or writes, and CRCs and rendering go to whichever is idler; from 3, one reads, one analyses or writes, and the others decode, check CRCs and render batches of packets side by side; `analyze --html` draws its charts on all of them. Standard input, pipes and compressed files are read on a thread of their own from 2, and batched like a file from 3. Output is identical either way')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Read this capture file, as tshark -r does (repeatable; read after the FILEs)')
            [CompletionResult]::new('--read-file', '--read-file', [CompletionResultType]::ParameterName, 'Read this capture file, as tshark -r does (repeatable; read after the FILEs)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only packets at or after TIME: 2024-05-01T12:00:00Z (RFC 3339), ''2024-05-01 12:00:00.5'' (UTC), epoch seconds (1714564800.5), or +1.5s / +200ms / +10us after the first packet of the capture')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only packets before TIME (same forms as --since; the window is [since, until))')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Analyse only the first N matching packets')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Analyse only the first N matching packets')
            [CompletionResult]::new('--pmtu', '--pmtu', [CompletionResultType]::ParameterName, 'Path MTU in bytes, for READ PSN accounting: 256, 512, 1024, 2048 or 4096 (default: learned from FIRST and MIDDLE packets, else inferred from the largest payload)')
            [CompletionResult]::new('--link-speed', '--link-speed', [CompletionResultType]::ParameterName, 'Link speed that converts PFC quanta to time: 100M, 1G, 10G, 25G, 40G, 50G, 100G, 200G, 400G, 800G')
            [CompletionResult]::new('--storm-threshold', '--storm-threshold', [CompletionResultType]::ParameterName, 'Continuous pause that makes a PFC storm, e.g. 100ms, 500us, 1s')
            [CompletionResult]::new('--max-flows', '--max-flows', [CompletionResultType]::ParameterName, 'Most flows kept at once; beyond it the least recently active flow is evicted')
            [CompletionResult]::new('--memory', '--memory', [CompletionResultType]::ParameterName, 'Memory for what the analysis keeps (connections, flows, sketches, the series of --html and --interval), e.g. 512M, 2G; at it, the least useful connections are evicted first, and the report says what they carried')
            [CompletionResult]::new('--max-pfc-senders', '--max-pfc-senders', [CompletionResultType]::ParameterName, 'Most (sender, priority) PFC states kept at once')
            [CompletionResult]::new('--stall', '--stall', [CompletionResultType]::ParameterName, 'A connection direction with requests outstanding that sends and receives nothing for longer than TIME is stalled, e.g. 50us, 1ms (default: 4 × the direction''s p99 RTT, and at least 20us)')
            [CompletionResult]::new('--dscp-map', '--dscp-map', [CompletionResultType]::ParameterName, 'The switch''s priority for untagged traffic by DSCP, e.g. 26=3,46=5; DSCPs not given have priority DSCP/8. Tagged frames have their VLAN PCP''s')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with status 1 if anomalies of these kinds are found (comma-separated), or if the capture missed more than RATIO of the request packets (capture_loss=RATIO)')
            [CompletionResult]::new('--order', '--order', [CompletionResultType]::ParameterName, 'The capture points in path order, e.g. host_a.pcap,mirror.pcap,host_b.pcap: a packet a point missed although points on both sides of it saw it was dropped by that point''s capture, not lost; without it the order is inferred from the times')
            [CompletionResult]::new('--skew-bound', '--skew-bound', [CompletionResultType]::ParameterName, 'Most that two capture points'' clocks may differ for one packet to be recognised as the same packet at both, e.g. 100ms, 5ms')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'FILE is a capture point whose clock is TIME ahead of the first input''s (negative when behind), e.g. --offset b.pcap=-90us: for points whose packets are too few to match, or to override the estimate. Files given the same TIME are one point')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Add to each connection a timeline of payload bytes, packets, retransmissions and CNPs per interval, e.g. 1ms, 100us')
            [CompletionResult]::new('--max-buckets', '--max-buckets', [CompletionResultType]::ParameterName, 'Most timeline buckets per connection direction; a longer connection gets wider ones')
            [CompletionResult]::new('--html', '--html', [CompletionResultType]::ParameterName, 'Also write a self-contained HTML report to FILE: summary, connection table, anomalies, a time-sequence graph of each connection direction, goodput and RTT over time, the PFC pause timeline and CRC failures by source. The text or JSON report is still written')
            [CompletionResult]::new('--html-top', '--html-top', [CompletionResultType]::ParameterName, 'Connections the HTML report draws, the worst first (by retransmissions, NAKs, CNPs, then bytes); the rest are listed in its table')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write one JSON document instead of the text report')
            [CompletionResult]::new('--single-point', '--single-point', [CompletionResultType]::ParameterName, 'The files are consecutive pieces of one capture (e.g. tcpdump -C), not separate capture points of the same traffic')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'List every connection in the text report, not only the 20 that lost the most time')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'rdmadump;info' {
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Describe this capture file too, as tshark -r names one (repeatable)')
            [CompletionResult]::new('--read-file', '--read-file', [CompletionResultType]::ParameterName, 'Describe this capture file too, as tshark -r names one (repeatable)')
            [CompletionResult]::new('--roce-port', '--roce-port', [CompletionResultType]::ParameterName, 'With --kinds, also take UDP destination PORT as RoCE v2 (repeatable)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write one JSON document instead of text')
            [CompletionResult]::new('--kinds', '--kinds', [CompletionResultType]::ParameterName, 'Also count the frames of each kind (roce_v2, ib, pfc...). This decodes every frame, as `read` does, so it runs at decoding speed instead of near `cat` speed; without it only record headers are read. A guess from a few header bytes would disagree with `read` on tunnels, ERF, IPoIB and --roce-port, which is why it is not offered')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files through a buffer instead of memory-mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'rdmadump;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'rdmadump;export' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark''s Decode As, -d udp.port==PORT,infiniband, is the same')
            [CompletionResult]::new('--roce-port', '--roce-port', [CompletionResultType]::ParameterName, 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is). tshark''s Decode As, -d udp.port==PORT,infiniband, is the same')
            [CompletionResult]::new('--decode', '--decode', [CompletionResultType]::ParameterName, 'Decode RC SENDs to a QP, or CM REQs for a port, as an upper protocol, like Wireshark''s Decode As: qp=0x8d:nvme-rdma, port=4421:nvme-rdma, qp=0x444:rpcrdma, port=3261:iser, qp=0x644:smbd (repeatable)')
            [CompletionResult]::new('-Y', '-Y ', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''; @FILE reads EXPR from FILE')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''; @FILE reads EXPR from FILE')
            [CompletionResult]::new('--filter-file', '--filter-file', [CompletionResultType]::ParameterName, 'Only packets matching the filter in FILE, as -Y @FILE: for a filter longer than a command line takes (128 KiB)')
            [CompletionResult]::new('--qp', '--qp', [CompletionResultType]::ParameterName, 'Only packets to this destination QP (decimal or 0x hex); analyze keeps the whole connection it belongs to: both ends, both directions, and its CM messages')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only packets of this kind, as the JSON `kind` key names it; `cnp` selects CNPs (BTH opcode 0x81), whose JSON kind stays `roce_v2` or `roce_v1`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads to use (default: one per core): 1 does everything on one core; with 2, one reads and decodes while the other analyses or writes, and CRCs and rendering go to whichever is idler; from 3, one reads, one analyses or writes, and the others decode, check CRCs and render batches of packets side by side; `analyze --html` draws its charts on all of them. Standard input, pipes and compressed files are read on a thread of their own from 2, and batched like a file from 3. Output is identical either way')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Read this capture file, as tshark -r does (repeatable; read after the FILEs)')
            [CompletionResult]::new('--read-file', '--read-file', [CompletionResultType]::ParameterName, 'Read this capture file, as tshark -r does (repeatable; read after the FILEs)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only packets at or after TIME: 2024-05-01T12:00:00Z (RFC 3339), ''2024-05-01 12:00:00.5'' (UTC), epoch seconds (1714564800.5), or +1.5s / +200ms / +10us after the first packet of the capture')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only packets before TIME (same forms as --since; the window is [since, until))')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Directory that receives the packets/, connections/, events/ and captures/ datasets; exports of other captures into it add files beside the ones there')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Directory that receives the packets/, connections/, events/ and captures/ datasets; exports of other captures into it add files beside the ones there')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Start a new file in a dataset once the current one passes SIZE, e.g. 512M, 2G')
            [CompletionResult]::new('--partition', '--partition', [CompletionResultType]::ParameterName, 'How files are grouped: capture-date (Hive-style capture_date=YYYY-MM-DD directories, from the capture''s first frame) or none')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The capture''s name in the `capture` column and in file names (default: the file''s name; `stdin` for standard input). Only with one input')
            [CompletionResult]::new('--pmtu', '--pmtu', [CompletionResultType]::ParameterName, 'Path MTU in bytes, for READ PSN accounting: 256, 512, 1024, 2048 or 4096 (default: learned from FIRST and MIDDLE packets, else inferred from the largest payload)')
            [CompletionResult]::new('--link-speed', '--link-speed', [CompletionResultType]::ParameterName, 'Link speed that converts PFC quanta to time: 100M, 1G, 10G, 25G, 40G, 50G, 100G, 200G, 400G, 800G')
            [CompletionResult]::new('--storm-threshold', '--storm-threshold', [CompletionResultType]::ParameterName, 'Continuous pause that makes a PFC storm, e.g. 100ms, 500us, 1s')
            [CompletionResult]::new('--max-flows', '--max-flows', [CompletionResultType]::ParameterName, 'Most flows kept at once; beyond it the least recently active flow is evicted')
            [CompletionResult]::new('--memory', '--memory', [CompletionResultType]::ParameterName, 'Memory for what the analysis keeps (connections, flows, sketches, the series of --html and --interval), e.g. 512M, 2G; at it, the least useful connections are evicted first, and the report says what they carried')
            [CompletionResult]::new('--max-pfc-senders', '--max-pfc-senders', [CompletionResultType]::ParameterName, 'Most (sender, priority) PFC states kept at once')
            [CompletionResult]::new('--stall', '--stall', [CompletionResultType]::ParameterName, 'A connection direction with requests outstanding that sends and receives nothing for longer than TIME is stalled, e.g. 50us, 1ms (default: 4 × the direction''s p99 RTT, and at least 20us)')
            [CompletionResult]::new('--dscp-map', '--dscp-map', [CompletionResultType]::ParameterName, 'The switch''s priority for untagged traffic by DSCP, e.g. 26=3,46=5; DSCPs not given have priority DSCP/8. Tagged frames have their VLAN PCP''s')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)')
            [CompletionResult]::new('--replace', '--replace', [CompletionResultType]::ParameterName, 'Replace the files of an earlier export of the same capture (by name) instead of refusing')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'Print the three datasets'' columns and Arrow types as Markdown, and exit')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'rdmadump;man' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'rdmadump;fields' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write one JSON array instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'rdmadump;help' {
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'List packets, one line each (or one JSON object each with --json)')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Report flows, sequence errors, NAKs, congestion and PFC storms')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Describe captures as capinfos does: container, interfaces, counts, times, rates')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write the packets, connections and events of captures as Parquet datasets for DuckDB, Spark and Trino')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
            [CompletionResult]::new('fields', 'fields', [CompletionResultType]::ParameterValue, 'List every field a filter can name, with its type, description and Wireshark names')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'rdmadump;help;read' {
            break
        }
        'rdmadump;help;analyze' {
            break
        }
        'rdmadump;help;info' {
            break
        }
        'rdmadump;help;completions' {
            break
        }
        'rdmadump;help;export' {
            break
        }
        'rdmadump;help;man' {
            break
        }
        'rdmadump;help;fields' {
            break
        }
        'rdmadump;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
