//! What Sandpit adds to a run beyond reporting it: a fix it proposes for
//! the error and tries before offering it, the warnings of its lint
//! (dangerous code, figures that show or say nothing), and a summary of
//! each figure a test can check.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::js::bulk::Text;
use crate::js::reader::{FromSource, WireName};

/// A fix of the submitted program, proposed for a failed run (or a lint
/// warning) and tried before it is offered.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct Fix {
    /// What it changes, in one line: `import math`, `` `totl` → `total` ``.
    pub summary: String,
    /// The whole submitted program with the fix applied.
    pub code: Text,
    /// A unified diff of the submitted program and the fixed one.
    pub diff: Text,
    /// True only when Sandpit ran the fixed program before answering (a
    /// trial: a fresh namespace, a copy of the session's files, the call's
    /// tests) and it ended `ok` with every test passing.
    pub verified: bool,
    /// What the trial gave instead, when the fix is not verified.
    pub outcome: Option<FixOutcome>,
    /// How long Sandpit spent trying fixes for this one, in milliseconds
    /// (rounded up): what proving it added to the run's answer.
    pub trial_ms: u32,
}

/// What a fix's trial gave, when it did not prove the fix.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct FixOutcome {
    /// How the trial ended.
    pub status: TrialStatus,
    /// The exception the fixed program raised, when it raised one.
    pub error_type: Option<String>,
    /// What happened, for a model or a person.
    pub message: String,
}

/// How a fix's trial ended.
#[derive(
    Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource, WireName,
)]
#[serde(rename_all = "snake_case")]
pub enum TrialStatus {
    /// The fixed program ran to the end, but a test failed.
    Ok,
    /// The fixed program raised.
    Error,
    /// The trial ran past its time budget.
    Timeout,
    /// The host stopped the run while the trial went on.
    Cancelled,
    /// Not tried (a check runs nothing; the program awaits at top level; no
    /// time or room was left): the fix is only a guess.
    NotRun,
}

/// Code that runs but is dangerous, or a figure that shows or says nothing.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq, Eq, FromSource)]
#[serde(deny_unknown_fields)]
pub struct LintWarning {
    /// Which rule.
    pub rule: LintRule,
    /// 1-based line in the code; absent for a figure's.
    pub line: Option<u32>,
    /// 1-based column where the dangerous code starts.
    pub column: Option<u32>,
    /// 1-based column just past its end, when it ends on the same line.
    pub end_column: Option<u32>,
    /// Why it is dangerous and what to do instead.
    pub message: String,
    /// The mechanical fix, where there is one, tried as an error's is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// The lint's rules.
#[derive(
    Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, FromSource, WireName,
)]
#[serde(rename_all = "kebab-case")]
pub enum LintRule {
    /// SQL built by formatting, concatenation or an f-string and passed to
    /// `execute`: a value holding a quote changes the query (injection).
    SqlBuiltFromStrings,
    /// `eval` or `exec` of a string made at run time.
    EvalOfInput,
    /// `pickle.loads`, or `yaml.load` without a safe loader: loading runs
    /// code the data names.
    UnsafeDeserialization,
    /// `random` used for a token, password or other secret.
    WeakRandomForSecret,
    /// `md5` or `sha1` used for a password.
    WeakHashForPassword,
    /// An axes of a figure with nothing plotted.
    FigureEmptyAxes,
    /// A plotted series whose every value is NaN.
    FigureAllNan,
    /// Plotted axes with neither axis labelled.
    FigureUnlabelled,
}

/// What a matplotlib figure shows (a display's
/// `application/vnd.sandpit.figure+json`), for a model to read and a test
/// (`sandpit.verify.figures()`) to check.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FigureSummary {
    /// Each axes, in the figure's order.
    pub axes: Vec<AxesSummary>,
}

/// One axes of a figure.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AxesSummary {
    /// Its title (`""` when it has none).
    pub title: String,
    /// Its x axis label.
    pub xlabel: String,
    /// Its y axis label.
    pub ylabel: String,
    /// Its legend's entries, in order.
    pub legend: Vec<String>,
    /// What is plotted on it: lines, then collections (scatter), bars, images.
    pub series: Vec<SeriesSummary>,
}

/// One plotted series.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SeriesSummary {
    /// `line`, `scatter`, `bar`, `barh`, `image`, or a collection's class name.
    pub kind: String,
    /// Its label, when it was given one.
    pub label: Option<String>,
    /// How many points (bars, pixels).
    pub points: u64,
    /// The finite x values' range; absent when none are numbers.
    pub x: Option<ValueRange>,
    /// The finite y values' range.
    pub y: Option<ValueRange>,
    /// How many y values are NaN.
    pub nan: u64,
    /// How many y values are infinite.
    pub inf: u64,
    /// Whether y only rises or only falls, over its finite values in order;
    /// absent for fewer than two.
    pub monotonic: Option<Monotonic>,
}

/// The smallest and largest of some values.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ValueRange {
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

/// How a series' values go, in order.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Monotonic {
    /// Never falls, and rises somewhere.
    Increasing,
    /// Never rises, and falls somewhere.
    Decreasing,
    /// Every value the same.
    Constant,
    /// Rises and falls.
    Neither,
}
