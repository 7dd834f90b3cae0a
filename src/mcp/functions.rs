//! The functions an MCP client offers to the code it runs (the
//! [`HOST_FUNCTIONS_CAPABILITY`] of its `initialize`): read and checked
//! once, each with its JSON Schema, and a Python signature made from that
//! schema for the model and for `help()`. Plain logic on JSON.

use crate::format::quoted;
use crate::js::bulk::Json;
use crate::names::HOST_FUNCTIONS_CAPABILITY;
use crate::protocol::HostFunction;

/// At most this many functions may be offered.
const MAX_FUNCTIONS: usize = 64;

/// Names a function may not have: Python's keywords, and the host module's own.
const RESERVED: [&str; 38] = [
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
    "call",
    "functions",
    "HostFunctionError",
];

/// One offered function: what the code and the model are told of it, and
/// the schema its arguments are checked against.
#[derive(Debug, Clone, PartialEq)]
pub struct Offered {
    /// Name, description and signature.
    pub function: HostFunction,
    /// Its `inputSchema`.
    pub schema: Json,
}

/// What a client offers: its functions, and the sessions allowed to call them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Offer {
    /// The functions, in the order offered.
    pub functions: Vec<Offered>,
    /// Only these sessions' code may call them; any session when `None`.
    pub sessions: Option<Vec<String>>,
}

impl Offer {
    /// The offer in `capabilities` (an `initialize` request's), or why it is
    /// refused; none offered is an empty offer.
    pub fn read(capabilities: &Json) -> Result<Self, String> {
        let Some(offer) = capabilities
            .get("experimental")
            .and_then(|experimental| experimental.get(HOST_FUNCTIONS_CAPABILITY))
        else {
            return Ok(Self::default());
        };
        let items = match offer.get("functions") {
            None => Vec::new(),
            Some(listed) if listed.is_array() => listed.items(),
            Some(_) => {
                return Err(format!(
                    "{HOST_FUNCTIONS_CAPABILITY}.functions must be an array"
                ))
            }
        };
        if items.len() > MAX_FUNCTIONS {
            return Err(format!(
                "at most {MAX_FUNCTIONS} functions may be offered, not {}",
                items.len()
            ));
        }
        let mut functions: Vec<Offered> = Vec::new();
        for item in items {
            let offered = read_function(&item)?;
            if functions
                .iter()
                .any(|f| f.function.name == offered.function.name)
            {
                return Err(format!(
                    "function {} is offered twice",
                    quoted(&offered.function.name)
                ));
            }
            functions.push(offered);
        }
        let sessions = match offer.get("sessions") {
            None => None,
            Some(sessions) if sessions.is_null() => None,
            Some(sessions) if sessions.is_array() => Some(
                sessions
                    .items()
                    .iter()
                    .map(|session| session.as_string().ok_or("sessions must be strings"))
                    .collect::<Result<_, _>>()?,
            ),
            Some(_) => {
                return Err(format!(
                    "{HOST_FUNCTIONS_CAPABILITY}.sessions must be an array of session names"
                ))
            }
        };
        Ok(Self {
            functions,
            sessions,
        })
    }

    /// The functions code in `session` may call: none when the session is not allowed.
    pub fn for_session(&self, session: &str) -> Vec<HostFunction> {
        let allowed = self
            .sessions
            .as_ref()
            .is_none_or(|sessions| sessions.iter().any(|allowed| allowed == session));
        if !allowed {
            return Vec::new();
        }
        self.for_session_any()
    }

    /// Every function offered, whichever sessions may call them.
    pub fn for_session_any(&self) -> Vec<HostFunction> {
        self.functions.iter().map(|f| f.function.clone()).collect()
    }

    /// The schema of function `name`, if it is offered.
    pub fn schema(&self, name: &str) -> Option<&Json> {
        let offered = self.functions.iter().find(|f| f.function.name == name)?;
        Some(&offered.schema)
    }
}

fn read_function(item: &Json) -> Result<Offered, String> {
    let name = item
        .get("name")
        .and_then(|name| name.as_string())
        .ok_or("each offered function needs a \"name\" (a string)")?;
    let identifier = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier || name.starts_with('_') || RESERVED.contains(&name.as_str()) {
        return Err(format!(
            "function name {} must be a Python identifier that does not start with \"_\", \
             and not a keyword, \"call\" or \"functions\"",
            quoted(&name)
        ));
    }
    let description = match item.get("description") {
        None => String::new(),
        Some(text) => text
            .as_string()
            .ok_or_else(|| format!("the description of {} must be a string", quoted(&name)))?,
    };
    let schema = item
        .get("inputSchema")
        .unwrap_or_else(|| Json::of(&AnyObject { kind: "object" }));
    let says_object = schema
        .get("type")
        .and_then(|kind| kind.as_string())
        .as_deref()
        == Some("object");
    if !schema.is_object() || !says_object {
        return Err(format!(
            "the inputSchema of {} must be a JSON Schema of \"type\": \"object\" (the arguments are keywords)",
            quoted(&name)
        ));
    }
    let signature = signature(&schema);
    Ok(Offered {
        function: HostFunction {
            name,
            description,
            signature,
        },
        schema,
    })
}

/// The schema of a function offered without one: any keywords.
#[derive(serde::Serialize)]
struct AnyObject {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A Python signature for arguments of `schema` (an object's): each
/// property as a keyword with its type, the optional ones after `= ...`.
pub fn signature(schema: &Json) -> String {
    let required: Vec<String> = schema
        .get("required")
        .map(|required| {
            required
                .items()
                .iter()
                .filter_map(Json::as_string)
                .collect()
        })
        .unwrap_or_default();
    let properties = schema.get("properties");
    let names = properties.as_ref().map(Json::keys).unwrap_or_default();
    let (needed, optional): (Vec<String>, Vec<String>) =
        names.into_iter().partition(|name| required.contains(name));
    let described = |name: &String| {
        let kind = properties
            .as_ref()
            .and_then(|all| all.get(name))
            .map(|property| python_type(&property))
            .unwrap_or_else(|| "Any".to_owned());
        format!("{name}: {kind}")
    };
    let parts: Vec<String> = needed
        .iter()
        .map(described)
        .chain(
            optional
                .iter()
                .map(|name| format!("{} = ...", described(name))),
        )
        .collect();
    format!("({})", parts.join(", "))
}

/// The Python type a property's schema describes.
fn python_type(property: &Json) -> String {
    if let Some(choices) = property.get("enum") {
        let literals: Vec<String> = choices
            .items()
            .iter()
            .map(|choice| choice.compact().to_string())
            .collect();
        return format!("Literal[{}]", literals.join(", "));
    }
    let kind = property.get("type");
    let one = |kind: &str| match kind {
        "string" => "str".to_owned(),
        "integer" => "int".to_owned(),
        "number" => "float".to_owned(),
        "boolean" => "bool".to_owned(),
        "null" => "None".to_owned(),
        "array" => {
            let item = property
                .get("items")
                .map(|items| python_type(&items))
                .unwrap_or_else(|| "Any".to_owned());
            format!("list[{item}]")
        }
        "object" => "dict".to_owned(),
        _ => "Any".to_owned(),
    };
    match kind {
        Some(kind) if kind.is_array() => {
            let kinds: Vec<String> = kind
                .items()
                .iter()
                .filter_map(Json::as_string)
                .map(|k| one(&k))
                .collect();
            kinds.join(" | ")
        }
        Some(kind) => kind
            .as_string()
            .map(|k| one(&k))
            .unwrap_or_else(|| "Any".to_owned()),
        None => "Any".to_owned(),
    }
}
