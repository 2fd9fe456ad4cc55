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
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "man" -d 'Print the man page (roff)'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "fields" -d 'List every field a filter can name, with its type, description and Wireshark names'
complete -c rdmadump -n "__fish_rdmadump_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l roce-port -d 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s Y -l filter -d 'Only packets matching EXPR, e.g. \'bth.dest_qp == 0xb01 && aeth.kind == "nak"\'' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l qp -d 'Only packets to this destination QP (decimal or 0x hex)' -r
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
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l threads -d 'Threads to use: 1 does everything on one core; 2 or more (the default on a machine with several cores) shares decoding, CRCs and rendering between two. Output is identical either way' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s c -l count -d 'Stop after N matching packets' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l time -d 'How to show timestamps in text output' -r -f -a "absolute\t'Wall-clock time of day, UTC, to the nanosecond'
relative\t'Seconds since the first packet shown'
delta\t'Seconds since the previous packet shown'"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l no-mmap -d 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -l json -d 'Write JSON Lines: one object per frame (schema: docs/json-schema.md)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s V -l verbose -d 'Under each frame\'s line, every decoded field as an indented tree, layer by layer (as tshark -V)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s x -l hex -d 'Under each frame\'s line, its captured bytes in hex and ASCII (as tshark -x)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l roce-port -d 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -s Y -l filter -d 'Only packets matching EXPR, e.g. \'bth.dest_qp == 0xb01 && aeth.kind == "nak"\'' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l qp -d 'Only packets to this destination QP (decimal or 0x hex)' -r
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
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l threads -d 'Threads to use: 1 does everything on one core; 2 or more (the default on a machine with several cores) shares decoding, CRCs and rendering between two. Output is identical either way' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -s c -l count -d 'Analyse only the first N matching packets' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l pmtu -d 'Path MTU in bytes, for READ PSN accounting: 256, 512, 1024, 2048 or 4096 (default: learned from FIRST and MIDDLE packets, else inferred from the largest payload)' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l link-speed -d 'Link speed that converts PFC quanta to time: 100M, 1G, 10G, 25G, 40G, 50G, 100G, 200G, 400G, 800G' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l storm-threshold -d 'Continuous pause that makes a PFC storm, e.g. 100ms, 500us, 1s' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l max-flows -d 'Most flows kept at once; beyond it the least recently active flow is evicted' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l max-pfc-senders -d 'Most (sender, priority) PFC states kept at once' -r
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l fail-on -d 'Exit with status 1 if anomalies of these kinds are found (comma-separated)' -r -f -a "psn_gap\t''
go_back_n\t''
nak\t''
rnr_nak\t''
icrc_bad\t''
vcrc_bad\t''
pfc_storm\t''
pause_cascade\t''
malformed\t''
pause_storm\t''"
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l no-mmap -d 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -l json -d 'Write one JSON document instead of the text report'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand analyze" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand completions" -s h -l help -d 'Print help'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand man" -s h -l help -d 'Print help'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand fields" -l json -d 'Write one JSON array instead of text'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand fields" -s h -l help -d 'Print help'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze completions man fields help" -f -a "read" -d 'List packets, one line each (or one JSON object each with --json)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze completions man fields help" -f -a "analyze" -d 'Report flows, sequence errors, NAKs, congestion and PFC storms'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze completions man fields help" -f -a "completions" -d 'Print a shell completion script'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze completions man fields help" -f -a "man" -d 'Print the man page (roff)'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze completions man fields help" -f -a "fields" -d 'List every field a filter can name, with its type, description and Wireshark names'
complete -c rdmadump -n "__fish_rdmadump_using_subcommand help; and not __fish_seen_subcommand_from read analyze completions man fields help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
