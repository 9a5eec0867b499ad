//! Every "section N" in the docs names a section `docs/PROTOCOL.md` has, and every Rust or
//! Markdown file a doc or a source comment cites under tests/ or docs/ exists.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `## N. Title` headings of PROTOCOL.md.
fn protocol_sections() -> Vec<u32> {
    read(&root().join("docs/PROTOCOL.md"))
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter_map(|l| l.split_once('.').and_then(|(n, _)| n.parse().ok()))
        .collect()
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() && !name.starts_with('.') && name != "target" {
            files(&p, ext, out);
        } else if name.ends_with(ext) {
            out.push(p);
        }
    }
}

#[test]
fn section_references_name_existing_sections() {
    let sections = protocol_sections();
    assert!(sections.len() >= 14, "{sections:?}");
    let mut docs = Vec::new();
    files(&root().join("docs"), ".md", &mut docs);
    for d in docs {
        let text = read(&d);
        for (i, _) in text.match_indices("section ") {
            let n: String = text[i + 8..].chars().take_while(|c| c.is_ascii_digit()).collect();
            if let Ok(n) = n.parse::<u32>() {
                assert!(
                    sections.contains(&n),
                    "{} cites section {n}, which docs/PROTOCOL.md does not have",
                    d.display()
                );
            }
        }
    }
}

#[test]
fn cited_files_exist() {
    let mut sources = Vec::new();
    for dir in ["docs", "hdl", "model", "sim", "driver", "src", "tests"] {
        files(&root().join(dir), ".rs", &mut sources);
        files(&root().join(dir), ".md", &mut sources);
    }
    sources.push(root().join("README.md"));
    let mut missing = Vec::new();
    for f in sources {
        let text = read(&f);
        for prefix in ["tests/", "docs/"] {
            for (i, _) in text.match_indices(prefix) {
                // Only whole paths: preceded by a backtick, a space or a slash of a crate dir.
                let before = text[..i].chars().last().unwrap_or(' ');
                if !matches!(before, '`' | ' ' | '/' | '(') {
                    continue;
                }
                let rest: String = text[i..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.' | '-'))
                    .collect();
                let rest = rest.trim_end_matches('.');
                if !(rest.ends_with(".rs") || rest.ends_with(".md")) {
                    continue;
                }
                // Relative to the root, or to the crate the citing file lives in.
                let krate = f.strip_prefix(root()).ok().and_then(|p| p.iter().next());
                let here = krate.map(|k| root().join(k).join(rest));
                let found = root().join(rest).exists() || here.is_some_and(|h| h.exists());
                // A crate's path before it (`model/`, `fpga/xem7010/`): the whole path counts.
                let prefixed = text[..i].ends_with('/');
                let full = if prefixed {
                    let start = text[..i].rfind(|c: char| !c.is_ascii_alphanumeric() && c != '/');
                    let p = &text[start.map_or(0, |s| s + 1)..i];
                    root().join(p).join(rest).exists()
                } else {
                    false
                };
                if !(found || full) {
                    missing.push(format!("{} cites {rest}", f.display()));
                }
            }
        }
    }
    assert!(missing.is_empty(), "cited files that do not exist:\n{}", missing.join("\n"));
}
