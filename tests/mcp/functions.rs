//! The functions a client offers to the code at `initialize`: checked,
//! named in `run_python`'s description with Python signatures, handed to
//! the runs of the sessions it allows, and its answers to host calls read.

use super::*;
use sandpit::mcp::functions::{signature, Offer};

fn offering(functions: Value, sessions: Option<Value>) -> Value {
    let mut offer = json!({ "functions": functions });
    if let Some(sessions) = sessions {
        offer["sessions"] = sessions;
    }
    json!({"protocolVersion": "2025-11-25", "capabilities": {"experimental": {"sandpit/functions": offer}}})
}

fn lookup() -> Value {
    json!({
        "name": "lookup",
        "description": "A city's country.",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}, "year": {"type": "integer"}}, "required": ["city"]},
    })
}

#[test]
fn the_description_names_each_function_with_its_signature() {
    let mut server = Server::new();
    let reply = sent(server.handle(&request("initialize", offering(json!([lookup()]), None))));
    assert!(reply["result"]["serverInfo"].is_object(), "{reply}");
    let listed = sent(server.handle(&request("tools/list", json!({}))));
    let description = listed["result"]["tools"][0]["description"]
        .as_str()
        .expect("text");
    assert!(description.starts_with(Tool::RunPython.description()));
    assert!(
        description.ends_with("\n- `host.lookup(city: str, year: int = ...)`: A city's country."),
        "{description}"
    );
    assert!(description.contains("from sandpit import host"));
    // The other tools, and a client that offers nothing, see the descriptions as shipped.
    assert_eq!(
        listed["result"]["tools"][1]["description"],
        Tool::CheckPython.description()
    );
    let plain = sent(Server::new().handle(&request("tools/list", json!({}))));
    assert_eq!(
        plain["result"]["tools"][0]["description"],
        Tool::RunPython.description()
    );
}

#[test]
fn runs_of_the_allowed_sessions_get_the_functions_and_others_none() {
    let mut server = Server::new();
    server.handle(&request(
        "initialize",
        offering(json!([lookup()]), Some(json!(["chat"]))),
    ));
    let functions_of = |server: &mut Server, session: &str| match server.handle(&request(
        "tools/call",
        json!({"name": "run_python", "arguments": {"code": "1", "session": session}}),
    )) {
        Reply::Call {
            call: ToolCall::RunPython(request),
            ..
        } => request.host_functions,
        other => panic!("{other:?}"),
    };
    let allowed = functions_of(&mut server, "chat");
    assert_eq!(allowed.len(), 1);
    assert_eq!(allowed[0].signature, "(city: str, year: int = ...)");
    assert!(functions_of(&mut server, "main").is_empty());
}

#[test]
fn a_bad_offer_is_refused_at_initialize_with_what_is_wrong() {
    for (functions, says) in [
        (json!([{"name": "import"}]), "must be a Python identifier"),
        (json!([{"name": "_hidden"}]), "must be a Python identifier"),
        (json!([{"name": "call"}]), "must be a Python identifier"),
        (
            json!([{"name": "f", "inputSchema": {"type": "array"}}]),
            "must be a JSON Schema of \"type\": \"object\"",
        ),
        (json!([{"name": "f"}, {"name": "f"}]), "offered twice"),
        (json!("lookup"), "must be an array"),
    ] {
        let reply = sent(Server::new().handle(&request("initialize", offering(functions, None))));
        assert_eq!(reply["error"]["code"], ERROR_INVALID_PARAMS, "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains(says),
            "{reply}"
        );
    }
}

#[test]
fn signatures_say_types_and_what_is_optional() {
    let schema = Json::from(json!({
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "unit": {"enum": ["km", "mi"]},
            "id": {"type": ["integer", "null"]},
            "any": {},
        },
        "required": ["id"],
    }));
    assert_eq!(
        signature(&schema),
        r#"(id: int | None, any: Any = ..., tags: list[str] = ..., unit: Literal["km", "mi"] = ...)"#
    );
    let offer = Offer::read(&Json::from(json!({}))).expect("nothing offered is fine");
    assert!(offer.functions.is_empty());
}

#[test]
fn a_clients_answer_to_our_request_is_handed_over() {
    let mut server = Server::new();
    let answer = Json::from(json!({"jsonrpc": "2.0", "id": 7, "result": {"value": "France"}}));
    match server.handle(&answer) {
        Reply::Answered { id, result, error } => {
            assert_eq!(value(id), json!(7));
            assert_eq!(value(result.expect("a result")), json!({"value": "France"}));
            assert!(error.is_none());
        }
        other => panic!("{other:?}"),
    }
}
