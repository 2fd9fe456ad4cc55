//! The layers of the source tree: data flows one way, from the bytes on the wire to the
//! command line, and no module may import from a layer above its own, nor from another
//! module of its own layer. The test reads every source file with a small tokenizer of its
//! own (no `syn`), which skips comments and string literals, and resolves each path that
//! names a module of this crate: `use` declarations with their `{...}` groups, `pub use`,
//! and paths written inline in code, starting with `crate::`, `self::` or `super::` (from
//! the module the file, or an inline `mod` in it, declares). `$crate::` in macros is the
//! macro's own crate and is skipped. It then fails on any cycle between the top folders,
//! whatever the ranks say, and names it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` with its rank: a module may use modules of a lower rank
/// only (and itself). Modules of one rank know nothing of each other: `crc` and `capture`
/// both sit on the wire views; `filter` and `analyze` both consume packets (through the
/// `fields` they share); `report` and `pipeline` both serve `output` and the commands.
/// `cli` defines the command line and sits below `commands`, which runs it; `main` only
/// maps a result to an exit status. A module not in the tree yet costs nothing here.
const RANKS: [(&str, u8); 13] = [
    ("wire", 0),
    ("crc", 1),
    ("capture", 1),
    ("dissect", 2),
    ("fields", 3),
    ("filter", 4),
    ("analyze", 4),
    ("report", 5),
    ("pipeline", 5),
    ("output", 6),
    ("cli", 7),
    ("commands", 8),
    ("main", 9),
];

fn rank(module: &str) -> Option<u8> {
    RANKS.iter().find(|(m, _)| *m == module).map(|(_, r)| *r)
}

/// What the checker needs of Rust's tokens: names, `::`, and single punctuation.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
    /// A literal or a lifetime: it only separates the tokens around it.
    Other,
}

/// The tokens of a source file, each with its line, without comments, string and character
/// literals (doc comments and messages name paths that are not imports).
fn tokenize(text: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Skips to the end of a quoted literal whose opening quote is at `i`, honouring `\`.
    let skip_quoted = |mut i: usize, quote: char, line: &mut usize| -> usize {
        i += 1;
        while i < chars.len() && chars[i] != quote {
            if chars[i] == '\\' {
                i += 1;
            }
            if at(i) == '\n' {
                *line += 1;
            }
            i += 1;
        }
        i + 1
    };
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_quoted(i, '"', &mut line);
            tokens.push((Token::Other, start_line));
        } else if c == '\'' {
            if at(i + 1) == '\\' || at(i + 2) == '\'' {
                // A character literal: 'a', '\'', '\u{1F600}'.
                i = skip_quoted(i, '\'', &mut line);
            } else {
                // A lifetime or a label: 'a, 'static.
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
            tokens.push((Token::Other, start_line));
        } else if c.is_alphabetic() || c == '_' {
            let begin = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let word: String = chars[begin..i].iter().collect();
            let raw_string = matches!(word.as_str(), "r" | "br" | "cr")
                && (at(i) == '"' || (at(i) == '#' && matches!(at(i + 1), '#' | '"')));
            if raw_string {
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i += 1;
                loop {
                    if i >= chars.len() {
                        break;
                    }
                    if chars[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#') {
                        i += 1 + hashes;
                        break;
                    }
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                tokens.push((Token::Other, start_line));
            } else if word == "r" && at(i) == '#' {
                // A raw identifier, r#type.
                let begin = i + 1;
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
                tokens.push((Token::Ident(chars[begin..i].iter().collect()), start_line));
            } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                i = skip_quoted(i, '"', &mut line);
                tokens.push((Token::Other, start_line));
            } else if word == "b" && at(i) == '\'' {
                i = skip_quoted(i, '\'', &mut line);
                tokens.push((Token::Other, start_line));
            } else {
                tokens.push((Token::Ident(word), start_line));
            }
        } else if c.is_ascii_digit() {
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            tokens.push((Token::Other, start_line));
        } else if c == ':' && at(i + 1) == ':' {
            tokens.push((Token::PathSep, start_line));
            i += 2;
        } else {
            tokens.push((Token::Punct(c), start_line));
            i += 1;
        }
    }
    tokens
}

/// A path as written, with the line it starts on.
type WrittenPath = (Vec<String>, usize);

/// Reads one use tree from `tokens[*i]` on, and adds each path it names, prefixed with
/// `prefix`, to `out`: `a::b`, `a::{b, c::{d, self}}`, `a::*`, `a as b`.
fn use_tree(
    tokens: &[(Token, usize)],
    i: &mut usize,
    prefix: &[String],
    out: &mut Vec<WrittenPath>,
) {
    let mut path = prefix.to_vec();
    let line = tokens.get(*i).map_or(0, |t| t.1);
    while let Some((token, _)) = tokens.get(*i) {
        match token {
            Token::PathSep => *i += 1,
            Token::Ident(word) if word == "as" => *i += 2,
            Token::Ident(word) => {
                path.push(word.clone());
                *i += 1;
            }
            Token::Punct('*') => *i += 1,
            Token::Punct('{') => {
                *i += 1;
                while let Some((token, _)) = tokens.get(*i) {
                    match token {
                        Token::Punct('}') => {
                            *i += 1;
                            break;
                        }
                        Token::Punct(',') => *i += 1,
                        _ => {
                            let before = *i;
                            use_tree(tokens, i, &path, out);
                            // Something no use tree holds: step over it rather than loop.
                            if *i == before {
                                *i += 1;
                            }
                        }
                    }
                }
                return;
            }
            _ => break,
        }
    }
    out.push((path, line));
}

/// Every path of `tokens` that starts with `crate`, `self` or `super` (or `rdmadump`, the
/// library's name in `main.rs`), as written: those of `use` declarations, and those used
/// inline. Each comes with the inline `mod` blocks it sits in.
fn written_paths(tokens: &[(Token, usize)]) -> Vec<(Vec<String>, WrittenPath)> {
    let mut found = Vec::new();
    // Inline modules open around the current token, with the brace depth inside them.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    let ident = |i: usize| match tokens.get(i) {
        Some((Token::Ident(word), _)) => Some(word.as_str()),
        _ => None,
    };
    while let Some((token, line)) = tokens.get(i) {
        let after_sep_or_dollar =
            i > 0 && matches!(tokens[i - 1].0, Token::PathSep | Token::Punct('$'));
        let enclosing = || {
            inline
                .iter()
                .map(|(name, _)| name.clone())
                .collect::<Vec<_>>()
        };
        match token {
            Token::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Token::Punct('}') => {
                if inline.last().is_some_and(|(_, open)| *open == depth) {
                    inline.pop();
                }
                depth -= 1;
                i += 1;
            }
            Token::Ident(word)
                if word == "mod" && tokens.get(i + 2).is_some_and(|t| t.0 == Token::Punct('{')) =>
            {
                if let Some(name) = ident(i + 1) {
                    inline.push((name.to_string(), depth + 1));
                }
                i += 2;
            }
            Token::Ident(word) if word == "use" && !after_sep_or_dollar => {
                i += 1;
                let mut paths = Vec::new();
                use_tree(tokens, &mut i, &[], &mut paths);
                let enclosing = enclosing();
                found.extend(paths.into_iter().map(|p| (enclosing.clone(), p)));
            }
            Token::Ident(word)
                if matches!(word.as_str(), "crate" | "self" | "super" | "rdmadump")
                    && !after_sep_or_dollar
                    && tokens.get(i + 1).is_some_and(|t| t.0 == Token::PathSep) =>
            {
                let mut path = vec![word.clone()];
                i += 1;
                while tokens.get(i).is_some_and(|t| t.0 == Token::PathSep) {
                    let Some(next) = ident(i + 1) else { break };
                    path.push(next.to_string());
                    i += 2;
                }
                found.push((enclosing(), (path, *line)));
            }
            _ => i += 1,
        }
    }
    found
}

/// The module a file declares: `a/b.rs` and `a/b/mod.rs` are both `a::b`; `main.rs` is a
/// crate root of its own.
fn module_of(relative: &str) -> Vec<String> {
    let trimmed = relative.trim_end_matches(".rs");
    let mut path: Vec<String> = trimmed.split('/').map(str::to_string).collect();
    if path.last().is_some_and(|last| last == "mod") || trimmed == "main" {
        path.pop();
    }
    path
}

/// The absolute path (from the crate root) that `written` names from inside `module`;
/// `None` for a path into another crate, `Err` for a `super` above the root.
fn resolve(module: &[String], written: &[String]) -> Result<Option<Vec<String>>, String> {
    let mut resolved = match written.first().map(String::as_str) {
        Some("crate" | "rdmadump") => Vec::new(),
        Some("self" | "super") => module.to_vec(),
        // An external crate, or a name in scope here: a child module, or something the
        // file imported, which is checked where it is imported.
        _ => return Ok(None),
    };
    for (n, segment) in written.iter().enumerate() {
        match segment.as_str() {
            "super" => {
                if resolved.pop().is_none() {
                    return Err(format!("{} goes above the crate root", written.join("::")));
                }
            }
            "crate" | "rdmadump" if n == 0 => {}
            // `self` names the module the path is in so far: `a::{self, b}` is `a`.
            "self" => {}
            _ => resolved.push(segment.clone()),
        }
    }
    Ok(Some(resolved))
}

/// What the check found in a source tree.
#[derive(Debug, Default)]
struct Findings {
    /// Paths into another top folder of this crate, each one checked.
    imports: usize,
    problems: Vec<String>,
}

/// Checks the files of a source tree, given by their path under `src/` and their text.
fn check(files: &[(String, String)]) -> Findings {
    let mut findings = Findings::default();
    // Which top folder uses which, for the cycle check.
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (relative, text) in files {
        let owner = relative
            .split('/')
            .next()
            .unwrap_or_default()
            .trim_end_matches(".rs");
        if owner == "lib" {
            continue;
        }
        let Some(own) = rank(owner) else {
            findings
                .problems
                .push(format!("{relative}: {owner} is a module without a layer"));
            continue;
        };
        let module = module_of(relative);
        for (enclosing, (written, line)) in written_paths(&tokenize(text)) {
            let within: Vec<String> = module.iter().cloned().chain(enclosing).collect();
            let absolute = match resolve(&within, &written) {
                Ok(Some(absolute)) => absolute,
                Ok(None) => continue,
                Err(message) => {
                    findings
                        .problems
                        .push(format!("{relative}:{line}: {message}"));
                    continue;
                }
            };
            let Some(used) = absolute.first() else {
                continue;
            };
            if used == owner {
                continue;
            }
            findings.imports += 1;
            let shown = format!(
                "{relative}:{line}: {} (crate::{})",
                written.join("::"),
                absolute.join("::")
            );
            let Some(theirs) = rank(used) else {
                findings
                    .problems
                    .push(format!("{shown}: {used} is an unknown module"));
                continue;
            };
            uses.entry(owner.to_string())
                .or_default()
                .insert(used.clone());
            if theirs > own {
                findings.problems.push(format!(
                    "{shown}: {owner} (rank {own}) uses {used} (rank {theirs}), a layer above its own"
                ));
            } else if theirs == own {
                findings.problems.push(format!(
                    "{shown}: {owner} uses {used}, of the same rank {own}: modules of one rank know nothing of each other"
                ));
            }
        }
    }
    for (cycle, group) in cycles(&uses) {
        let mut problem = format!("cycle between top folders: {}", cycle.join(" → "));
        let others: Vec<&str> = group
            .iter()
            .filter(|m| !cycle.contains(m))
            .map(String::as_str)
            .collect();
        if !others.is_empty() {
            problem += &format!(" (and through it {})", others.join(", "));
        }
        findings.problems.push(problem);
    }
    findings
}

/// The shortest way from `from` to `to` along one edge or more, both ends included.
fn shortest_way(
    uses: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    to: &str,
) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(node) = queue.pop_front() {
        for next in uses.get(node).into_iter().flatten() {
            if came_from.contains_key(next.as_str()) {
                continue;
            }
            came_from.insert(next, node);
            if next == to {
                let mut way = vec![to.to_string()];
                let mut at = node;
                while at != from {
                    way.push(at.to_string());
                    at = came_from[at];
                }
                way.push(from.to_string());
                way.reverse();
                return Some(way);
            }
            queue.push_back(next);
        }
    }
    None
}

/// Each group of top folders that reach each other (a strongly connected component), once:
/// the shortest cycle in it, from its first module in alphabetical order, and all of the
/// group's modules. One wrong import can close many cycles; they are named once.
fn cycles(uses: &BTreeMap<String, BTreeSet<String>>) -> Vec<(Vec<String>, BTreeSet<String>)> {
    let nodes: BTreeSet<&str> = uses
        .iter()
        .flat_map(|(from, to)| std::iter::once(from).chain(to))
        .map(String::as_str)
        .collect();
    let mut grouped: BTreeSet<&str> = BTreeSet::new();
    let mut found = Vec::new();
    for &node in &nodes {
        if grouped.contains(node) || shortest_way(uses, node, node).is_none() {
            continue;
        }
        let group: BTreeSet<String> = nodes
            .iter()
            .filter(|&&other| {
                other == node
                    || (shortest_way(uses, node, other).is_some()
                        && shortest_way(uses, other, node).is_some())
            })
            .map(|other| other.to_string())
            .collect();
        let shortest = group
            .iter()
            .filter_map(|member| shortest_way(uses, member, member))
            .filter(|cycle| cycle.iter().all(|n| group.contains(n)))
            .map(|mut cycle| {
                // Start from the cycle's first module in alphabetical order.
                cycle.pop();
                let first = (0..cycle.len()).min_by_key(|&at| &cycle[at]).unwrap_or(0);
                cycle.rotate_left(first);
                cycle.push(cycle[0].clone());
                cycle
            })
            .min_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        grouped.extend(group.iter().filter_map(|m| nodes.get(m.as_str())));
        if let Some(cycle) = shortest {
            found.push((cycle, group));
        }
    }
    found
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            walk(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_module_imports_from_a_layer_above_its_own_or_beside_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    walk(&src, &mut paths);
    assert!(paths.len() > 40, "found only {} source files", paths.len());
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|path| {
            let relative = path.strip_prefix(&src).expect("under src");
            let relative = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            (relative, fs::read_to_string(path).expect("read source"))
        })
        .collect();
    let findings = check(&files);
    assert!(
        findings.imports > 50,
        "only {} imports seen: the scan is broken",
        findings.imports
    );
    assert!(
        findings.problems.is_empty(),
        "the layers are broken: {:#?}",
        findings.problems
    );
}

/// The checker on one file of a tree, and `dissect/mod.rs` that uses `capture` and `wire`
/// as the real one does.
fn problems_with(relative: &str, text: &str) -> Vec<String> {
    let files = [
        (relative.to_string(), text.to_string()),
        (
            "dissect/mod.rs".to_string(),
            "use crate::capture::Record;\nuse crate::wire::bth::Bth;".to_string(),
        ),
    ];
    check(&files).problems
}

fn assert_fails(problems: &[String], expected: &str) {
    assert!(
        problems.iter().any(|p| p.contains(expected)),
        "expected a problem with {expected:?}, got {problems:#?}"
    );
}

#[test]
fn a_super_path_out_of_wire_into_output_fails() {
    let problems = problems_with(
        "wire/mad/cm.rs",
        "use super::super::super::output::json::write_packet;",
    );
    assert_fails(
        &problems,
        "wire/mad/cm.rs:1: super::super::super::output::json::write_packet (crate::output::json::write_packet): wire (rank 0) uses output (rank 6), a layer above its own",
    );
    // From an inline test module, one `super` more is needed to leave the file.
    let problems = problems_with(
        "wire/udp.rs",
        "#[cfg(test)]\nmod tests {\n    fn f() { super::super::super::output::run(); }\n}",
    );
    assert_fails(
        &problems,
        "wire/udp.rs:3: super::super::super::output::run (crate::output::run): wire (rank 0) uses output",
    );
    let problems = problems_with("wire/mod.rs", "use super::super::output;");
    assert_fails(&problems, "super::super::output goes above the crate root");
}

#[test]
fn analyze_using_filter_fails_as_the_same_rank() {
    let problems = problems_with(
        "analyze/flows.rs",
        "use std::io;\nuse crate::filter::Field;",
    );
    assert_fails(
        &problems,
        "analyze/flows.rs:2: crate::filter::Field (crate::filter::Field): analyze uses filter, of the same rank 4",
    );
}

#[test]
fn a_grouped_import_is_resolved_path_by_path() {
    let legal = problems_with("analyze/flows.rs", "use crate::{dissect::Packet};");
    assert_eq!(legal, Vec::<String>::new());
    let legal = problems_with(
        "analyze/flows.rs",
        "pub use crate::{dissect::{Packet, self}, wire::{bth::{self, Bth}, *}};",
    );
    assert_eq!(legal, Vec::<String>::new());
    let problems = problems_with(
        "analyze/flows.rs",
        "use crate::{dissect::Packet, output::{json, text::Line}};",
    );
    assert_fails(
        &problems,
        "crate::output::json (crate::output::json): analyze (rank 4) uses output (rank 6)",
    );
    assert_fails(
        &problems,
        "crate::output::text::Line (crate::output::text::Line): analyze (rank 4) uses output",
    );
}

#[test]
fn an_inline_path_in_code_is_checked() {
    let problems = problems_with(
        "capture/merge.rs",
        "fn f() -> usize {\n    crate::output::json::width() + 1\n}",
    );
    assert_fails(
        &problems,
        "capture/merge.rs:2: crate::output::json::width (crate::output::json::width): capture (rank 1) uses output",
    );
}

#[test]
fn comments_strings_and_macro_paths_are_not_imports() {
    let text = r##"
        //! Uses [`crate::output::json`] in the docs only.
        /* crate::commands::run() /* nested */ crate::cli::Cli */
        const HELP: &str = "see crate::commands::run";
        const RAW: &str = r#"crate::commands "quoted" run"#;
        const QUOTE: char = '"';
        fn f<'a>(x: &'a str) -> &'a str { let _ = b"crate::cli"; x }
        macro_rules! m { () => { $crate::output::run() } }
        use self::inner::Thing;
        use super::sibling;
    "##;
    assert_eq!(problems_with("wire/bth.rs", text), Vec::<String>::new());
}

#[test]
fn a_cycle_between_top_folders_fails_and_is_named() {
    // dissect uses capture (see `problems_with`); capture using dissect closes the loop.
    let problems = problems_with("capture/merge.rs", "use crate::dissect::Packet;");
    assert_fails(
        &problems,
        "cycle between top folders: capture → dissect → capture",
    );
    // A cycle is found whatever the ranks say: here through three modules.
    let uses = BTreeMap::from([
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]);
    let abc = BTreeSet::from(["a", "b", "c"].map(String::from));
    assert_eq!(
        cycles(&uses),
        [(["a", "b", "c", "a"].map(String::from).to_vec(), abc)]
    );
}

#[test]
fn a_module_outside_the_table_fails() {
    let problems = problems_with("analyze/flows.rs", "use crate::nowhere::Thing;");
    assert_fails(&problems, "nowhere is an unknown module");
}
