//! The examples of the README and the recipes of docs/cli.md, run as written: every
//! ```console block's `$ command` runs in bash from the repository root with the built
//! rdmadump first on PATH, and its output must be the lines shown under it.

use std::process::Command;

use crate::harness::root;

struct Recipe {
    command: String,
    expected: Vec<String>,
}

/// The documents whose ```console blocks are run.
const DOCUMENTS: [&str; 2] = ["README.md", "docs/cli.md"];

fn recipes(document: &str) -> Vec<Recipe> {
    let text = std::fs::read_to_string(root().join(document))
        .unwrap_or_else(|e| panic!("{document}: {e}"));
    let mut recipes = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.starts_with("```console") {
            in_block = true;
        } else if line.starts_with("```") {
            in_block = false;
        } else if in_block {
            if let Some(command) = line.strip_prefix("$ ") {
                recipes.push(Recipe {
                    command: command.to_string(),
                    expected: Vec::new(),
                });
            } else if let Some(recipe) = recipes.last_mut() {
                recipe.expected.push(line.to_string());
            }
        }
    }
    recipes
}

#[test]
fn the_recipes_of_the_readme_and_cli_md_run_as_documented() {
    let jq = crate::harness::tool_available("jq");
    if !crate::harness::wireshark_tools()
        || !crate::harness::required(jq, "jq", "apt-get install -y jq")
    {
        return;
    }
    let counts = DOCUMENTS.map(|document| recipes(document).len());
    assert!(
        counts[0] >= 2 && counts[1] >= 4,
        "the README should show its examples and docs/cli.md its recipes: {counts:?}"
    );
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_rdmadump"))
        .parent()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for recipe in DOCUMENTS.iter().flat_map(|document| recipes(document)) {
        let out = Command::new("bash")
            .args(["-o", "pipefail", "-c", &recipe.command])
            .current_dir(root())
            .env("PATH", &path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let got: Vec<&str> = stdout.lines().collect();
        assert!(
            out.status.success(),
            "recipe failed: {}\n{}",
            recipe.command,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            got, recipe.expected,
            "recipe output drifted: {}",
            recipe.command
        );
    }
}
