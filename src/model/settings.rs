//! Which model the Ask panel talks to: the provider's API, the endpoint,
//! the model's name and the step limit; the presets; a deployment's preset
//! (never a key); and which endpoint a saved key may be sent to.

use crate::format::quoted;
use crate::js::bulk::Json;

/// The API a model endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Provider {
    /// OpenAI's Chat Completions, as OpenAI, OpenRouter, Groq, Ollama, LM
    /// Studio, llama.cpp's server and vLLM serve it.
    #[default]
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
}

impl Provider {
    /// Every provider, as Settings lists them.
    pub const ALL: [Self; 2] = [Self::OpenAi, Self::Anthropic];

    /// The name in settings and `sandpit.config.json`.
    pub fn id(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
        }
    }

    /// The provider called `id`.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.id() == id)
    }

    /// What Settings calls it.
    pub fn label(self) -> &'static str {
        match self {
            Self::OpenAi => "OpenAI-compatible (Chat Completions)",
            Self::Anthropic => "Anthropic (Messages API)",
        }
    }
}

/// The default step limit: model turns that call tools, per question.
pub const DEFAULT_STEP_LIMIT: u32 = 8;
/// The most steps Settings accepts.
pub const MAX_STEP_LIMIT: u32 = 50;

/// The model settings, as saved (without the key, which is kept apart).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// The API spoken.
    pub provider: Provider,
    /// The API's base URL, up to and including its version (`.../v1`).
    pub endpoint: String,
    /// The model's name as the endpoint knows it.
    pub model: String,
    /// Model turns that call tools, per question, before the loop stops.
    pub step_limit: u32,
    /// Whether figures go to the model as images (a vision model reads
    /// them; some local servers refuse them).
    pub send_images: bool,
}

impl Default for ModelSettings {
    fn default() -> Self {
        Self {
            provider: Provider::OpenAi,
            endpoint: String::new(),
            model: String::new(),
            step_limit: DEFAULT_STEP_LIMIT,
            send_images: true,
        }
    }
}

/// A provider and endpoint (and maybe a model) filled in by one click.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Its button's label.
    pub label: &'static str,
    /// The API.
    pub provider: Provider,
    /// The base URL.
    pub endpoint: &'static str,
}

/// The presets Settings offers: local servers first, which need no key.
pub const PRESETS: [Preset; 4] = [
    Preset {
        label: "Ollama (local)",
        provider: Provider::OpenAi,
        endpoint: "http://127.0.0.1:11434/v1",
    },
    Preset {
        label: "LM Studio (local)",
        provider: Provider::OpenAi,
        endpoint: "http://127.0.0.1:1234/v1",
    },
    Preset {
        label: "OpenAI",
        provider: Provider::OpenAi,
        endpoint: "https://api.openai.com/v1",
    },
    Preset {
        label: "Anthropic",
        provider: Provider::Anthropic,
        endpoint: "https://api.anthropic.com/v1",
    },
];

impl ModelSettings {
    /// These settings with `preset`'s provider and endpoint.
    pub fn with_preset(mut self, preset: &Preset) -> Self {
        self.provider = preset.provider;
        self.endpoint = preset.endpoint.to_owned();
        self
    }

    /// The step limit within 1 and [`MAX_STEP_LIMIT`].
    pub fn steps(&self) -> u32 {
        self.step_limit.clamp(1, MAX_STEP_LIMIT)
    }

    /// What is missing or wrong before a question can be sent, if anything.
    pub fn problem(&self) -> Option<String> {
        if self.endpoint.trim().is_empty() {
            return Some("Choose a model endpoint in Settings first.".to_owned());
        }
        if let Err(reason) = check_endpoint(&self.endpoint) {
            return Some(reason);
        }
        if self.model.trim().is_empty() {
            return Some("Name the model in Settings first.".to_owned());
        }
        None
    }
}

/// The endpoint as keys are bound to it: trimmed, without trailing slashes.
pub fn normal_endpoint(endpoint: &str) -> String {
    endpoint.trim().trim_end_matches('/').to_owned()
}

/// Whether the page may talk to `endpoint`: `https:` anywhere, `http:` only
/// on this machine (a local model server); nothing else.
pub fn check_endpoint(endpoint: &str) -> Result<(), String> {
    let endpoint = normal_endpoint(endpoint);
    let (scheme, rest) = endpoint
        .split_once("://")
        .ok_or_else(|| format!("{} is not a URL (https://host/v1).", quoted(&endpoint)))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host_of(authority);
    if host.is_empty() || authority.contains('@') {
        return Err(format!(
            "{} names no host (https://host/v1).",
            quoted(&endpoint)
        ));
    }
    match scheme.to_ascii_lowercase().as_str() {
        "https" => Ok(()),
        "http" if is_loopback(host) => Ok(()),
        "http" => Err(format!(
            "{} is plain http on another machine: the key and the code would travel unencrypted. Use https, or a server on this machine (127.0.0.1).",
            quoted(&endpoint)
        )),
        _ => Err(format!(
            "{} must start with https:// (or http:// for a server on this machine).",
            quoted(&endpoint)
        )),
    }
}

/// The host of `host[:port]` or `[v6]:port`.
fn host_of(authority: &str) -> &str {
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split(']').next().unwrap_or_default();
    }
    authority.split(':').next().unwrap_or_default()
}

/// Whether `host` is this machine.
fn is_loopback(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    host == "localhost" || host == "::1" || host.starts_with("127.")
}

/// The saved API key and the endpoint it was entered for: it is sent there
/// and nowhere else, until the person enters it again or confirms it for
/// another endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyBinding {
    /// The endpoint ([`normal_endpoint`]) the key belongs to.
    pub endpoint: String,
    /// The key.
    pub key: String,
}

impl KeyBinding {
    /// `key`, entered for `endpoint`.
    pub fn new(endpoint: &str, key: &str) -> Self {
        Self {
            endpoint: normal_endpoint(endpoint),
            key: key.trim().to_owned(),
        }
    }

    /// The key, if it may be sent to `endpoint`.
    pub fn key_for(&self, endpoint: &str) -> Option<&str> {
        (self.endpoint == normal_endpoint(endpoint) && !self.key.is_empty())
            .then_some(self.key.as_str())
    }
}

/// Names a key goes by, refused in a deployment's config.
const KEY_FIELDS: [&str; 6] = [
    "key",
    "api_key",
    "apiKey",
    "token",
    "authorization",
    "secret",
];

/// The fields a deployment's model preset may have.
const PRESET_FIELDS: [&str; 3] = ["provider", "endpoint", "model"];

/// The settings a deployment presets in its config's `model` (`None` when
/// it has none): provider, endpoint, model. A key there is refused with the
/// reason: the config is served to everyone who opens the page.
pub fn deployment_preset(model: Option<&Json>) -> Result<Option<ModelSettings>, String> {
    let Some(model) = model.filter(|m| !m.is_null()) else {
        return Ok(None);
    };
    if !model.is_object() {
        return Err(format!(
            "{}: `model` must be an object",
            crate::names::CONFIG_FILE
        ));
    }
    let fields = model.keys();
    if let Some(field) = fields.iter().find(|f| KEY_FIELDS.contains(&f.as_str())) {
        return Err(format!(
            "{}: model.{field} is refused: an API key must never be in the deployment's config, which every visitor can read. Each person enters their own key in Settings.",
            crate::names::CONFIG_FILE
        ));
    }
    let mut given = [None, None, None];
    for field in fields {
        let Some(at) = PRESET_FIELDS.iter().position(|known| *known == field) else {
            return Err(format!(
                "{}: model: unknown field {}, expected provider, endpoint or model",
                crate::names::CONFIG_FILE,
                quoted(&field)
            ));
        };
        let value = model
            .get(&field)
            .and_then(|v| v.as_string())
            .ok_or_else(|| {
                format!(
                    "{}: model.{field} must be a string",
                    crate::names::CONFIG_FILE
                )
            })?;
        given[at] = Some(value);
    }
    let [provider, endpoint, name] = given;
    let mut settings = ModelSettings::default();
    if let Some(id) = provider {
        settings.provider = Provider::from_id(&id).ok_or_else(|| {
            format!(
                "{}: model.provider must be \"openai\" or \"anthropic\", not {}",
                crate::names::CONFIG_FILE,
                quoted(&id)
            )
        })?;
    }
    if let Some(endpoint) = endpoint {
        check_endpoint(&endpoint)
            .map_err(|e| format!("{}: model.endpoint: {e}", crate::names::CONFIG_FILE))?;
        settings.endpoint = normal_endpoint(&endpoint);
    }
    settings.model = name.unwrap_or_default();
    Ok(Some(settings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn endpoints_are_https_or_this_machine() {
        assert!(check_endpoint("https://api.example.org/v1").is_ok());
        assert!(check_endpoint("http://127.0.0.1:11434/v1").is_ok());
        assert!(check_endpoint("http://localhost:1234/v1/").is_ok());
        assert!(check_endpoint("http://[::1]:8000/v1").is_ok());
        let plain = check_endpoint("http://192.168.1.5:11434/v1").expect_err("refused");
        assert!(plain.contains("unencrypted"), "{plain}");
        assert!(check_endpoint("ftp://example.org").is_err());
        assert!(check_endpoint("example.org/v1").is_err());
        assert!(check_endpoint("https://user:pw@example.org/v1").is_err());
        assert!(check_endpoint("https:///v1").is_err());
    }

    #[test]
    fn a_key_goes_only_to_the_endpoint_it_was_entered_for() {
        let binding = KeyBinding::new("https://api.example.org/v1/", " sk-1 ");
        assert_eq!(binding.key_for("https://api.example.org/v1"), Some("sk-1"));
        assert_eq!(
            binding.key_for(" https://api.example.org/v1/ "),
            Some("sk-1")
        );
        assert_eq!(binding.key_for("https://evil.example.net/v1"), None);
        assert_eq!(binding.key_for("https://api.example.org/v2"), None);
        assert_eq!(
            KeyBinding::new("https://a.org", "").key_for("https://a.org"),
            None
        );
    }

    #[test]
    fn settings_say_what_is_missing() {
        let mut settings = ModelSettings::default();
        assert!(settings
            .problem()
            .expect("no endpoint")
            .contains("endpoint"));
        settings = settings.with_preset(&PRESETS[0]);
        assert_eq!(settings.endpoint, "http://127.0.0.1:11434/v1");
        assert!(settings.problem().expect("no model").contains("model"));
        settings.model = "qwen2.5-coder".into();
        assert_eq!(settings.problem(), None);
        settings.step_limit = 0;
        assert_eq!(settings.steps(), 1);
        settings.step_limit = 1000;
        assert_eq!(settings.steps(), MAX_STEP_LIMIT);
    }

    #[test]
    fn a_deployment_presets_a_model_but_never_a_key() {
        let preset = deployment_preset(Some(&Json::from(json!({
            "provider": "anthropic", "endpoint": "https://api.anthropic.com/v1/", "model": "claude"
        }))))
        .expect("valid")
        .expect("a preset");
        assert_eq!(preset.provider, Provider::Anthropic);
        assert_eq!(preset.endpoint, "https://api.anthropic.com/v1");
        assert_eq!(preset.model, "claude");
        assert_eq!(deployment_preset(None), Ok(None));
        for key in ["key", "api_key", "apiKey"] {
            let refused = deployment_preset(Some(&Json::from(
                json!({"endpoint": "https://a.org/v1", key: "sk-secret"}),
            )))
            .expect_err("a key is refused");
            assert!(
                refused.contains(&format!("model.{key} is refused")),
                "{refused}"
            );
            assert!(
                !refused.contains("sk-secret"),
                "the key is not repeated: {refused}"
            );
        }
        let unknown = deployment_preset(Some(&Json::from(json!({"colour": "red"}))));
        assert!(unknown
            .expect_err("refused")
            .contains("unknown field \"colour\""));
        let number = deployment_preset(Some(&Json::from(json!({"model": 4}))));
        assert!(number
            .expect_err("refused")
            .contains("model.model must be a string"));
        let provider = deployment_preset(Some(&Json::from(json!({"provider": "gemini"}))));
        assert!(provider.expect_err("refused").contains("\"gemini\""));
        let http = deployment_preset(Some(&Json::from(json!({"endpoint": "http://10.0.0.2/v1"}))));
        assert!(http.expect_err("refused").contains("model.endpoint"));
    }
}
