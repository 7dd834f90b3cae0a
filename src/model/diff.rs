//! What a repair changed: the lines of two attempts compared, as a short
//! unified diff (lines kept, removed, added), with unchanged stretches
//! folded to a few lines of context.

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    /// In both attempts.
    Same(String),
    /// Only in the earlier one.
    Removed(String),
    /// Only in the later one.
    Added(String),
    /// This many unchanged lines, not shown.
    Folded(usize),
}

/// Unchanged lines kept around each change.
const CONTEXT: usize = 2;
/// Past this many lines in both attempts together, the diff is the whole
/// of both (the comparison's table grows with their product).
const MAX_LINES: usize = 2000;

/// The lines of `before` and `after` compared: the longest run of lines
/// they share kept, the rest removed or added.
pub fn diff(before: &str, after: &str) -> Vec<DiffLine> {
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let lines = if old.len() + new.len() > MAX_LINES {
        old.iter()
            .map(|l| DiffLine::Removed((*l).to_owned()))
            .chain(new.iter().map(|l| DiffLine::Added((*l).to_owned())))
            .collect()
    } else {
        compare(&old, &new)
    };
    fold(lines)
}

/// The longest common subsequence of lines, by dynamic programming.
fn compare(old: &[&str], new: &[&str]) -> Vec<DiffLine> {
    let width = new.len() + 1;
    // shared[i * width + j]: lines shared by old[i..] and new[j..].
    let mut shared = vec![0u32; (old.len() + 1) * width];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            shared[i * width + j] = if old[i] == new[j] {
                shared[(i + 1) * width + j + 1] + 1
            } else {
                shared[(i + 1) * width + j].max(shared[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut lines = Vec::new();
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            lines.push(DiffLine::Same(old[i].to_owned()));
            i += 1;
            j += 1;
        } else if i < old.len()
            && (j == new.len() || shared[(i + 1) * width + j] >= shared[i * width + j + 1])
        {
            lines.push(DiffLine::Removed(old[i].to_owned()));
            i += 1;
        } else {
            lines.push(DiffLine::Added(new[j].to_owned()));
            j += 1;
        }
    }
    lines
}

/// Runs of unchanged lines longer than the context around changes, folded.
fn fold(lines: Vec<DiffLine>) -> Vec<DiffLine> {
    let changed: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| !matches!(line, DiffLine::Same(_)))
        .map(|(n, _)| n)
        .collect();
    let near_change = |n: usize| changed.iter().any(|&c| c.abs_diff(n) <= CONTEXT);
    let mut folded = Vec::new();
    let mut hidden = 0;
    for (n, line) in lines.into_iter().enumerate() {
        if matches!(line, DiffLine::Same(_)) && !near_change(n) {
            hidden += 1;
            continue;
        }
        if hidden > 0 {
            folded.push(DiffLine::Folded(hidden));
            hidden = 0;
        }
        folded.push(line);
    }
    if hidden > 0 {
        folded.push(DiffLine::Folded(hidden));
    }
    folded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) -> DiffLine {
        DiffLine::Same(text.into())
    }

    #[test]
    fn a_one_line_repair_is_one_line_out_and_one_in() {
        let before = "def add(a, b):\n    return a - b\n";
        let after = "def add(a, b):\n    return a + b\n";
        assert_eq!(
            diff(before, after),
            [
                same("def add(a, b):"),
                DiffLine::Removed("    return a - b".into()),
                DiffLine::Added("    return a + b".into()),
            ]
        );
    }

    #[test]
    fn far_unchanged_lines_are_folded() {
        let before: String = (1..=10).map(|n| format!("line {n}\n")).collect();
        let after = before.replace("line 9\n", "line 9\nnew\n");
        let lines = diff(&before, &after);
        assert_eq!(lines[0], DiffLine::Folded(7));
        assert_eq!(
            &lines[1..],
            [
                same("line 8"),
                same("line 9"),
                DiffLine::Added("new".into()),
                same("line 10")
            ]
        );
        assert_eq!(diff("a\nb", "a\nb"), [DiffLine::Folded(2)]);
        assert_eq!(diff("", "x"), [DiffLine::Added("x".into())]);
    }
}
