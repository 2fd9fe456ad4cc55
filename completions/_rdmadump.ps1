
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
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff)')
            [CompletionResult]::new('fields', 'fields', [CompletionResultType]::ParameterValue, 'List every field a filter can name, with its type, description and Wireshark names')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'rdmadump;read' {
            [CompletionResult]::new('--roce-port', '--roce-port', [CompletionResultType]::ParameterName, 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is)')
            [CompletionResult]::new('-Y', '-Y ', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''')
            [CompletionResult]::new('--qp', '--qp', [CompletionResultType]::ParameterName, 'Only packets to this destination QP (decimal or 0x hex)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only packets of this kind, as the JSON `kind` key names it; `cnp` selects CNPs (BTH opcode 0x81), whose JSON kind stays `roce_v2` or `roce_v1`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads to use: 1 does everything on one core; 2 or more (the default on a machine with several cores) shares decoding, CRCs and rendering between two. Output is identical either way')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Stop after N matching packets')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Stop after N matching packets')
            [CompletionResult]::new('--time', '--time', [CompletionResultType]::ParameterName, 'How to show timestamps in text output')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write JSON Lines: one object per frame (schema: docs/json-schema.md)')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Under each frame''s line, every decoded field as an indented tree, layer by layer (as tshark -V)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Under each frame''s line, every decoded field as an indented tree, layer by layer (as tshark -V)')
            [CompletionResult]::new('-x', '-x', [CompletionResultType]::ParameterName, 'Under each frame''s line, its captured bytes in hex and ASCII (as tshark -x)')
            [CompletionResult]::new('--hex', '--hex', [CompletionResultType]::ParameterName, 'Under each frame''s line, its captured bytes in hex and ASCII (as tshark -x)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'rdmadump;analyze' {
            [CompletionResult]::new('--roce-port', '--roce-port', [CompletionResultType]::ParameterName, 'Also take UDP destination PORT as RoCE v2 (repeatable; 4791 always is)')
            [CompletionResult]::new('-Y', '-Y ', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only packets matching EXPR, e.g. ''bth.dest_qp == 0xb01 && aeth.kind == "nak"''')
            [CompletionResult]::new('--qp', '--qp', [CompletionResultType]::ParameterName, 'Only packets to this destination QP (decimal or 0x hex)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only packets of this kind, as the JSON `kind` key names it; `cnp` selects CNPs (BTH opcode 0x81), whose JSON kind stays `roce_v2` or `roce_v1`')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Threads to use: 1 does everything on one core; 2 or more (the default on a machine with several cores) shares decoding, CRCs and rendering between two. Output is identical either way')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Analyse only the first N matching packets')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Analyse only the first N matching packets')
            [CompletionResult]::new('--pmtu', '--pmtu', [CompletionResultType]::ParameterName, 'Path MTU in bytes, for READ PSN accounting: 256, 512, 1024, 2048 or 4096 (default: learned from FIRST and MIDDLE packets, else inferred from the largest payload)')
            [CompletionResult]::new('--link-speed', '--link-speed', [CompletionResultType]::ParameterName, 'Link speed that converts PFC quanta to time: 100M, 1G, 10G, 25G, 40G, 50G, 100G, 200G, 400G, 800G')
            [CompletionResult]::new('--storm-threshold', '--storm-threshold', [CompletionResultType]::ParameterName, 'Continuous pause that makes a PFC storm, e.g. 100ms, 500us, 1s')
            [CompletionResult]::new('--max-flows', '--max-flows', [CompletionResultType]::ParameterName, 'Most flows kept at once; beyond it the least recently active flow is evicted')
            [CompletionResult]::new('--max-pfc-senders', '--max-pfc-senders', [CompletionResultType]::ParameterName, 'Most (sender, priority) PFC states kept at once')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with status 1 if anomalies of these kinds are found (comma-separated)')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read files through a buffer instead of memory-mapping them (safe for files that may be truncated while rdmadump reads them)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write one JSON document instead of the text report')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'rdmadump;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
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
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
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
        'rdmadump;help;completions' {
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
