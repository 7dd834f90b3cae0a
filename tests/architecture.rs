//! The crate's modules depend on each other without cycles: neither its files
//! nor its top-level folders. Read from the `crate::` and `super::` paths in
//! `src/` (comments aside), so a cycle that comes back fails `cargo test`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every module of the crate by path (`store::records`), with its source.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files
        .into_iter()
        .filter(|path| !path.ends_with("main.rs"))
        .map(|path| {
            let relative = path.strip_prefix(&root).expect("under src/");
            let mut parts: Vec<String> = relative
                .with_extension("")
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            let source = std::fs::read_to_string(&path).expect("a source file");
            (parts.join("::"), source)
        })
        .collect()
}

/// The paths a line names, as written: `crate::a::b`, `super::x`, and each
/// item of a `{...}` group after them, one level deep.
fn paths_in(line: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for start in ["crate::", "super::"] {
        let mut rest = line;
        while let Some(at) = rest.find(start) {
            let preceded = rest[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let tail = &rest[at..];
            rest = &tail[start.len()..];
            if preceded {
                continue;
            }
            let mut segments: Vec<String> = Vec::new();
            let mut chars = tail;
            loop {
                let end = chars
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(chars.len());
                segments.push(chars[..end].to_owned());
                chars = &chars[end..];
                if let Some(next) = chars.strip_prefix("::") {
                    chars = next;
                    if let Some(group) = chars.strip_prefix('{') {
                        let inner = group.split('}').next().unwrap_or_default();
                        for item in inner.split(',') {
                            let mut path = segments.clone();
                            path.extend(
                                item.trim()
                                    .split("::")
                                    .map(|s| s.trim().to_owned())
                                    .filter(|s| !s.is_empty() && s != "self"),
                            );
                            found.push(path);
                        }
                        segments.clear();
                        break;
                    }
                } else {
                    break;
                }
            }
            if !segments.is_empty() {
                found.push(segments);
            }
        }
    }
    found
}

/// What each module uses of the others: the longest module each path names.
fn dependencies(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let names: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let mut graph = BTreeMap::new();
    for (module, source) in modules {
        let own: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
        let mut uses = BTreeSet::new();
        for line in source.lines().map(str::trim) {
            // A test module's glob of its own file's items.
            if line.starts_with("//") || line == "use super::*;" {
                continue;
            }
            let mut paths = paths_in(line);
            // `use child::Item;` in a module whose children are its files.
            if let Some(rest) = line.strip_prefix("use ").or(line.strip_prefix("pub use ")) {
                let first = rest.split("::").next().unwrap_or_default();
                let child = [own.as_slice(), &[first]].concat().join("::");
                if names.contains(child.as_str()) && child != *module {
                    paths.push(vec!["crate".to_owned(), child]);
                }
            }
            for path in paths {
                let mut absolute: Vec<String> = match path[0].as_str() {
                    "crate" => Vec::new(),
                    // `super::` in `a/b.rs` is `a`, whether or not `b` has children.
                    _ => own[..own.len().saturating_sub(1)]
                        .iter()
                        .map(|s| s.to_string())
                        .collect(),
                };
                absolute.extend(
                    path[1..]
                        .iter()
                        .flat_map(|s| s.split("::"))
                        .map(str::to_owned),
                );
                let target = (0..=absolute.len())
                    .rev()
                    .map(|n| absolute[..n].join("::"))
                    .find(|name| names.contains(name.as_str()));
                if let Some(target) = target.filter(|t| t != module && !t.is_empty()) {
                    uses.insert(target);
                }
            }
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

/// A cycle in `graph`, if it has one, as the modules along it.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, done, path) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

#[test]
fn no_module_file_depends_on_itself_through_others() {
    let graph = dependencies(&modules());
    if let Some(found) = cycle(&graph) {
        panic!("an import cycle: {}", found.join(" -> "));
    }
}

#[test]
fn no_top_level_folder_depends_on_itself_through_others() {
    let mut folders: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, uses) in dependencies(&modules()) {
        let top = |name: &str| name.split("::").next().unwrap_or_default().to_owned();
        let entry = folders.entry(top(&module)).or_default();
        entry.extend(uses.iter().map(|u| top(u)).filter(|u| *u != top(&module)));
    }
    if let Some(found) = cycle(&folders) {
        panic!("an import cycle between folders: {}", found.join(" -> "));
    }
}

#[test]
fn the_check_sees_a_cycle_when_there_is_one() {
    let sources = BTreeMap::from([
        ("a".to_owned(), "use crate::b::Thing;".to_owned()),
        ("b".to_owned(), "use crate::c::{self, Other};".to_owned()),
        ("c".to_owned(), "fn f() { crate::a::go() }".to_owned()),
        (
            "d".to_owned(),
            "// use crate::a::x; only a comment".to_owned(),
        ),
    ]);
    let graph = dependencies(&sources);
    assert_eq!(
        cycle(&graph),
        Some(
            vec!["a", "b", "c", "a"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    assert!(graph["d"].is_empty());
}
