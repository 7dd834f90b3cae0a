//! A conversation as a Jupyter notebook (nbformat 4.5): the person's
//! questions and the model's text as markdown cells, each run as a code cell
//! with its outputs (figures included), its tests as a cell of their own; and
//! the final code as a Python file.

use serde::Serialize;

use super::conversation::{Conversation, Entry};
use crate::js::bulk::Text;
use crate::mcp::summary::verification_summary;
use crate::protocol::{MimeBundle, RunResult, StreamName};
use crate::tools::Tool;

/// A notebook, as `.ipynb` holds it.
#[derive(Serialize, Debug)]
pub struct Notebook {
    nbformat: u32,
    nbformat_minor: u32,
    metadata: Metadata,
    cells: Vec<Cell>,
}

#[derive(Serialize, Debug)]
struct Metadata {
    kernelspec: KernelSpec,
    language_info: LanguageInfo,
}

#[derive(Serialize, Debug)]
struct KernelSpec {
    name: &'static str,
    display_name: &'static str,
    language: &'static str,
}

#[derive(Serialize, Debug)]
struct LanguageInfo {
    name: &'static str,
}

/// No metadata: `{}`.
#[derive(Serialize, Debug)]
struct Empty {}

#[derive(Serialize, Debug)]
#[serde(tag = "cell_type", rename_all = "snake_case")]
enum Cell {
    Markdown {
        id: String,
        metadata: Empty,
        source: String,
    },
    Code {
        id: String,
        metadata: Empty,
        execution_count: Option<u32>,
        source: String,
        outputs: Vec<Output>,
    },
}

#[derive(Serialize, Debug)]
#[serde(tag = "output_type", rename_all = "snake_case")]
enum Output {
    Stream {
        name: &'static str,
        text: Text,
    },
    DisplayData {
        data: MimeBundle,
        metadata: Empty,
    },
    ExecuteResult {
        execution_count: u32,
        data: MimeBundle,
        metadata: Empty,
    },
    Error {
        ename: String,
        evalue: String,
        traceback: Vec<String>,
    },
}

impl Notebook {
    /// `conversation` as a notebook.
    pub fn of(conversation: &Conversation) -> Self {
        let mut cells = Vec::new();
        let mut count = 0;
        for (index, entry) in conversation.entries.iter().enumerate() {
            match entry {
                Entry::Asked(text) => markdown(&mut cells, format!("**Asked:** {text}")),
                Entry::Answer(answer) => {
                    let mut text = answer.text.trim().to_owned();
                    if answer.is_final() {
                        let verdict = conversation.verdict(index).text();
                        text = format!("{text}\n\n*{verdict}*").trim().to_owned();
                    }
                    if !text.is_empty() {
                        markdown(&mut cells, text);
                    }
                    for call in answer
                        .calls
                        .iter()
                        .filter(|c| c.name == Tool::RunPython.name())
                    {
                        let (Some(code), Some(result)) = (call.code(), call.run_result()) else {
                            continue;
                        };
                        count += 1;
                        let id = format!("cell-{}", cells.len() + 1);
                        cells.push(Cell::Code {
                            id,
                            metadata: Empty {},
                            execution_count: Some(count),
                            source: code,
                            outputs: outputs(&result, count),
                        });
                        if let (Some(tests), Some(verification)) =
                            (call.tests(), &result.verification)
                        {
                            let summary = MimeBundle {
                                text: verification_summary(verification).into(),
                                ..MimeBundle::default()
                            };
                            let id = format!("cell-{}", cells.len() + 1);
                            cells.push(Cell::Code {
                                id,
                                metadata: Empty {},
                                execution_count: None,
                                source: format!("# Tests\n{tests}"),
                                outputs: vec![Output::DisplayData {
                                    data: summary,
                                    metadata: Empty {},
                                }],
                            });
                        }
                    }
                }
                Entry::Note(_) => {}
            }
        }
        Self {
            nbformat: 4,
            nbformat_minor: 5,
            metadata: Metadata {
                kernelspec: KernelSpec {
                    name: "python3",
                    display_name: "Python 3 (Pyodide)",
                    language: "python",
                },
                language_info: LanguageInfo { name: "python" },
            },
            cells,
        }
    }
}

fn markdown(cells: &mut Vec<Cell>, source: String) {
    let id = format!("cell-{}", cells.len() + 1);
    cells.push(Cell::Markdown {
        id,
        metadata: Empty {},
        source,
    });
}

/// A run's outputs as a notebook shows them: its streams in order, its
/// displays, its value (unless a display shows it already), its error.
fn outputs(result: &RunResult, count: u32) -> Vec<Output> {
    let mut outputs: Vec<Output> = result
        .output
        .iter()
        .map(|chunk| Output::Stream {
            name: match chunk.stream {
                StreamName::Stdout => "stdout",
                StreamName::Stderr => "stderr",
            },
            text: chunk.text.clone(),
        })
        .collect();
    outputs.extend(result.displays.iter().map(|bundle| Output::DisplayData {
        data: bundle.clone(),
        metadata: Empty {},
    }));
    if let Some(value) = &result.value {
        if !result.displays.iter().any(|d| d.text == value.repr) {
            outputs.push(Output::ExecuteResult {
                execution_count: count,
                data: MimeBundle {
                    text: value.repr.clone(),
                    ..MimeBundle::default()
                },
                metadata: Empty {},
            });
        }
    }
    if let Some(error) = &result.error {
        outputs.push(Output::Error {
            ename: error.kind.clone(),
            evalue: error.message.clone(),
            traceback: error.traceback.lines().map(str::to_owned).collect(),
        });
    }
    outputs
}

/// Calls the tests' `test_*` functions when the file runs, as Sandpit did.
const RUN_TEST_FUNCTIONS: &str = "\n# Run the test functions, as Sandpit did.\n\
for _name, _test in list(globals().items()):\n\
    if _name.startswith(\"test\") and callable(_test):\n\
        _test()\n";

/// The final code as a Python file: the last run's code, then its tests
/// under a heading, so running the file checks it.
pub fn python_file(conversation: &Conversation) -> Option<String> {
    let (code, tests) = conversation.final_code()?;
    let mut file = code.trim_end().to_owned();
    file.push('\n');
    if let Some(tests) = tests {
        file.push_str(&format!("\n\n# Tests\n{}\n", tests.trim_end()));
        if tests.contains("def test") {
            file.push_str(RUN_TEST_FUNCTIONS);
        }
    }
    Some(file)
}
