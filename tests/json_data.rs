//! `sandpit::js::json_data` reads JSON as `serde_json::from_value` does: the
//! same values, and the same errors word for word (a model reads them when
//! its tool arguments do not fit). In the browser it reads JS values; here
//! the same deserializer reads `serde_json::Value`s, against serde_json.

use std::collections::BTreeMap;
use std::fmt::Debug;

use sandpit::js::json_data::{read, Kind};
use sandpit::tools::{CheckPythonArgs, ResetSessionArgs, RunPythonArgs};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// What `read` and serde_json make of `value` as a `T`, errors as text.
fn both<T: DeserializeOwned + PartialEq + Debug>(value: &Value) -> [Result<T, String>; 2] {
    [
        read::<T>(value.clone()).map_err(|e| e.to_string()),
        serde_json::from_value::<T>(value.clone()).map_err(|e| e.to_string()),
    ]
}

/// Asserts that `read` agrees with serde_json on `value` as a `T`, and
/// returns serde_json's error, if any.
fn agree<T: DeserializeOwned + PartialEq + Debug>(value: Value) -> Option<String> {
    let [ours, theirs] = both::<T>(&value);
    assert_eq!(
        ours,
        theirs,
        "reading {value} as {}",
        std::any::type_name::<T>()
    );
    theirs.err()
}

/// Asserts that one of `refusals` says `expected`: the cases above do fail.
fn assert_some_refusal_says(refusals: &[String], expected: &str) {
    assert!(
        refusals.iter().any(|refusal| refusal.contains(expected)),
        "no refusal says {expected:?}: {refusals:#?}"
    );
}

#[test]
fn tool_arguments_read_the_same_and_fail_in_the_same_words() {
    let refusals: Vec<String> = [
        json!({"code": "print(1)", "session": "s", "timeout_seconds": 2.5,
               "files": [{"path": "a", "text": "x"}, {"path": "b", "content_base64": "AA=="}],
               "packages": ["sympy"]}),
        json!({"code": "1", "timeout_seconds": 30, "session": null}),
        json!({"code": "1", "timeout_seconds": -2}),
        json!({}),
        json!({"code": 42}),
        json!({"code": -42}),
        json!({"code": 2.5}),
        json!({"code": null}),
        json!({"code": true}),
        json!({"code": ["print(1)"]}),
        json!({"code": {"text": "1"}}),
        json!({"code": "1", "colour": "red"}),
        // Of several faults, the same one is named first.
        json!({"session": 5, "code": 6, "zebra": 1}),
        json!({"code": "1", "files": "a.txt"}),
        json!({"code": "1", "files": [{"path": "a", "size": 3}]}),
        json!({"code": "1", "timeout_seconds": "30"}),
        json!({"code": "1", "packages": [1, 2]}),
        json!(["print(1)", "s"]),
        json!(["print(1)", "s", null, [], [], null, null, "one too many"]),
        json!("print(1)"),
        json!(null),
        json!(7),
    ]
    .into_iter()
    .filter_map(|value| {
        agree::<CheckPythonArgs>(value.clone());
        agree::<ResetSessionArgs>(value.clone());
        agree::<RunPythonArgs>(value)
    })
    .collect();
    for expected in [
        "invalid type: integer `42`, expected a string",
        "invalid type: integer `-42`, expected a string",
        "invalid type: floating point `2.5`, expected a string",
        "invalid type: null, expected a string",
        "invalid type: string \"30\", expected f64",
        "missing field `code`",
        "unknown field `colour`",
        "invalid length 8, expected fewer elements in array",
    ] {
        assert_some_refusal_says(&refusals, expected);
    }
}

#[test]
fn numbers_lists_maps_and_options_read_the_same() {
    for value in [
        json!(0),
        json!(255),
        json!(256),
        json!(-1),
        json!(1.5),
        json!(1e300),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(null),
        json!("7"),
    ] {
        agree::<u8>(value.clone());
        agree::<i64>(value.clone());
        agree::<u64>(value.clone());
        agree::<f64>(value.clone());
        agree::<Option<u32>>(value.clone());
        agree::<bool>(value);
    }
    for value in [
        json!([1, 2, 3]),
        json!([1, "2"]),
        json!([]),
        json!({"a": 1, "b": 2}),
        json!({"b": [1], "a": null}),
    ] {
        agree::<Vec<u32>>(value.clone());
        agree::<(u32, u32)>(value.clone());
        agree::<BTreeMap<String, Option<Vec<u32>>>>(value.clone());
        agree::<Vec<Value>>(value.clone());
        agree::<Value>(value);
    }
}

#[test]
fn floats_in_refusals_are_written_as_serde_json_writes_them() {
    let mut refusals = Vec::new();
    for exponent in -324..=308 {
        for mantissa in [
            "1",
            "1.5",
            "2.7021597764222976",
            "9.999999999999999",
            "-4.25",
        ] {
            let value: f64 = format!("{mantissa}e{exponent}").parse().expect("a float");
            refusals.extend(agree::<String>(json!(value)));
        }
    }
    for expected in [
        "`1e-6`",
        "`0.00001`",
        "`1000000000000000.0`",
        "`1e+16`",
        "`-4.25e+307`",
    ] {
        assert_some_refusal_says(&refusals, expected);
    }
}

#[test]
fn js_numbers_are_held_as_serde_json_held_them_after_serde_wasm_bindgen() {
    let kind = Kind::<Value>::of_js_number;
    assert_eq!(kind(42.0), Kind::Unsigned(42));
    assert_eq!(kind(-0.0), Kind::Unsigned(0));
    assert_eq!(kind(-3.0), Kind::Signed(-3));
    assert_eq!(kind(2.5), Kind::Float(2.5));
    assert_eq!(
        kind(9_007_199_254_740_991.0),
        Kind::Unsigned(9_007_199_254_740_991)
    );
    assert_eq!(
        kind(9_007_199_254_740_992.0),
        Kind::Float(9_007_199_254_740_992.0)
    );
    assert_eq!(
        kind(-9_007_199_254_740_992.0),
        Kind::Float(-9_007_199_254_740_992.0)
    );
    assert_eq!(kind(f64::NAN), Kind::Null);
    assert_eq!(kind(f64::INFINITY), Kind::Null);
}
