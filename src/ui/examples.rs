//! The examples menu: short programs that show what Sandpit is for. Each
//! opens in a session of its own, so nobody's code is replaced.

use leptos::prelude::*;

/// One example program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// Its session's name, and the menu's option value.
    pub slug: &'static str,
    /// What the menu shows.
    pub title: &'static str,
    /// The program.
    pub code: &'static str,
}

/// The menu, in the order shown.
pub const EXAMPLES: &[Example] = &[
    Example {
        slug: "example-words",
        title: "Text: the most common words",
        code: r#"from collections import Counter
import re

text = """It was the best of times, it was the worst of times,
it was the age of wisdom, it was the age of foolishness."""
words = re.findall(r"[a-z']+", text.lower())
Counter(words).most_common(4)
"#,
    },
    Example {
        slug: "example-algebra",
        title: "Algebra with sympy: solve, then check the answer",
        code: r#"import sympy as sp

x = sp.symbols("x")
roots = sp.solve(x**2 - 5*x + 6, x)
print("roots:", roots)
assert all(r**2 - 5*r + 6 == 0 for r in roots), "a root does not solve the equation"
sp.factor(x**2 - 5*x + 6)
"#,
    },
    Example {
        slug: "example-identity",
        title: "A verified identity (rendered as math)",
        code: r#"import sympy as sp

t = sp.symbols("t")
identity = sp.Eq(sp.sin(t)**2 + sp.cos(t)**2, 1)
assert sp.simplify(identity.lhs - identity.rhs) == 0
print("verified for every t")
identity
"#,
    },
    Example {
        slug: "example-files",
        title: "Files in and out: write a CSV, read it back",
        code: r#"import csv

rows = [("city", "population"), ("Lagos", 15_388_000), ("Lima", 10_151_000), ("Oslo", 709_000)]
with open("cities.csv", "w", newline="") as f:
    csv.writer(f).writerows(rows)

with open("cities.csv", newline="") as f:
    table = list(csv.DictReader(f))
print(f"read {len(table)} rows back; cities.csv is in the Files panel")
max(table, key=lambda row: int(row["population"]))["city"]
"#,
    },
    Example {
        slug: "example-dates",
        title: "Dates: days between, weekdays",
        code: r#"from datetime import date, timedelta

start = date(2026, 1, 1)
launch = date(2026, 12, 5)
print("days between:", (launch - start).days)
print("100 days after launch:", launch + timedelta(days=100))
launch.strftime("%A")
"#,
    },
    Example {
        slug: "example-json",
        title: "JSON: parse, reshape, write",
        code: r#"import json

orders = json.loads('[{"id": 1, "items": [3, 4]}, {"id": 2, "items": [10]}]')
totals = {order["id"]: sum(order["items"]) for order in orders}
print(json.dumps(totals, indent=2))
totals
"#,
    },
    Example {
        slug: "example-async",
        title: "Async: three waits at once",
        code: r#"import asyncio
import time

async def fetch(name, seconds):
    await asyncio.sleep(seconds)
    return f"{name} after {seconds}s"

began = time.perf_counter()
results = await asyncio.gather(fetch("a", 0.3), fetch("b", 0.2), fetch("c", 0.1))
print(results)
round(time.perf_counter() - began, 1)
"#,
    },
    Example {
        slug: "example-table",
        title: "A table as HTML",
        code: r#"from tabulate import tabulate

class Table:
    def __init__(self, rows, headers):
        self.rows, self.headers = rows, headers
    def _repr_html_(self):
        return tabulate(self.rows, self.headers, tablefmt="html")

Table([("pi", 3.14159), ("e", 2.71828), ("phi", 1.61803)], ["name", "value"])
"#,
    },
    Example {
        slug: "example-error",
        title: "An error and its repair hint",
        code: r#"# Nobody can answer input() in a sandbox: the result says which line
# asked, and its hint says how to repair the code.
name = input("Your name? ")
print(f"Hello, {name}")
"#,
    },
    Example {
        slug: "example-plot",
        title: "A plot (matplotlib downloads on first use)",
        code: r#"# matplotlib is not part of the offline copy: the first run downloads it
# (a few MB), later runs use the cached copy.
import matplotlib.pyplot as plt

xs = [x / 10 for x in range(63)]
plt.plot(xs, [x * x for x in xs], label="x²")
plt.legend()
plt.show()
"#,
    },
];

/// The example whose slug is `slug`.
pub fn example(slug: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|example| example.slug == slug)
}

/// The menu; picking calls `on_pick`, then goes back to its prompt.
#[component]
pub fn ExamplesMenu<F>(on_pick: F) -> impl IntoView
where
    F: Fn(&'static Example) + Copy + 'static,
{
    let pick = move |event: leptos::ev::Event| {
        let select = event_target::<web_sys::HtmlSelectElement>(&event);
        if let Some(example) = example(&select.value()) {
            on_pick(example);
        }
        select.set_value("");
    };
    view! {
        <label class="examples">
            <span class="visually-hidden">"Examples"</span>
            <select data-testid="examples" on:change=pick title="Each example opens in a session of its own">
                <option value="">"Examples…"</option>
                {EXAMPLES
                    .iter()
                    .map(|example| view! { <option value=example.slug>{example.title}</option> }.into_any())
                    .collect_view()}
            </select>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_has_a_session_of_its_own() {
        for (index, each) in EXAMPLES.iter().enumerate() {
            assert!(each.slug.starts_with("example-"), "{}", each.slug);
            assert!(!each.code.trim().is_empty());
            assert_eq!(example(each.slug), Some(each));
            assert!(
                EXAMPLES[..index]
                    .iter()
                    .all(|other| other.slug != each.slug),
                "{} twice",
                each.slug
            );
        }
        assert!((8..=12).contains(&EXAMPLES.len()));
    }
}
