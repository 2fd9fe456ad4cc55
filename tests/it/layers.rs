//! The layers of the source tree: data flows one way, capture → dissect → analyze → output
//! → commands, and no module may import from a layer above its own. The test reads every
//! source file, so an upward `use crate::...` (or `super::super::...` into another layer)
//! fails here instead of in a review.

use std::fs;
use std::path::Path;

/// Each top-level module of `src/` with its rank: a module may use modules of a lower or
/// equal rank only. `wire` and `crc` are the byte-level base; `filter` and `analyze` both
/// consume packets and know nothing of each other's output.
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

/// The modules a file names through `crate::NAME`.
fn crate_imports(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        // `rdmadump::crate` never occurs; skip `$crate::` in macros.
        if text[..at].ends_with('$') {
            continue;
        }
        let name: String = text[at + "crate::".len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        found.push(name);
    }
    found
}

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
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
fn no_module_imports_from_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    assert!(files.len() > 40, "found only {} source files", files.len());
    let mut checked = 0;
    let mut upward = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src");
        let top = relative
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .map(|s| s.trim_end_matches(".rs"))
            .expect("file name");
        if top == "lib" {
            continue;
        }
        let own = rank(top).unwrap_or_else(|| panic!("{top}: module without a layer"));
        let text = fs::read_to_string(file).expect("read source");
        for used in crate_imports(&text) {
            let theirs = rank(&used).unwrap_or_else(|| panic!("{used}: unknown module"));
            checked += 1;
            if theirs > own {
                upward.push(format!("{} uses crate::{used}", relative.display()));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} imports seen: the scan is broken"
    );
    assert!(upward.is_empty(), "imports pointing upward: {upward:#?}");
}

#[test]
fn the_scan_sees_an_upward_import() {
    let imports =
        crate_imports("use crate::commands::run;\nmacro_rules! m { () => { $crate::x } }");
    assert_eq!(imports, ["commands"]);
    assert!(rank("analyze") < rank("output"));
}
