//! Light and dark: the system's unless the person picks one. The pick is
//! kept in localStorage, where index.html's script reads it before the
//! first paint; the theme is `data-theme` on `<html>` (see style.css).

use gloo_events::EventListener;
use leptos::prelude::*;

use crate::names::THEME_STORAGE_KEY;

/// What the person picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeChoice {
    /// Follow the system's setting, also when it changes.
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    /// The choice kept under [`THEME_STORAGE_KEY`] (none or anything else: the system's).
    pub fn from_stored(stored: Option<&str>) -> Self {
        match stored {
            Some("light") => Self::Light,
            Some("dark") => Self::Dark,
            _ => Self::System,
        }
    }

    /// The choice as the switch's option value.
    pub fn name(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::Light => "light",
            Self::Dark => "dark",
        }
    }

    /// The theme shown: `light` or `dark`.
    pub fn applied(self, system_dark: bool) -> &'static str {
        match self {
            Self::Light => "light",
            Self::Dark => "dark",
            Self::System if system_dark => "dark",
            Self::System => "light",
        }
    }
}

const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

fn system_dark() -> bool {
    window()
        .match_media(DARK_QUERY)
        .ok()
        .flatten()
        .is_some_and(|query| query.matches())
}

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

thread_local! {
    static SHOWN: std::cell::OnceCell<RwSignal<&'static str>> = const { std::cell::OnceCell::new() };
}

/// The theme shown (`light` or `dark`), for what must be rebuilt when it
/// changes (HTML outputs' frames): at first what index.html's script set.
pub fn shown() -> ReadSignal<&'static str> {
    SHOWN
        .with(|shown| {
            *shown.get_or_init(|| {
                let dark = document()
                    .document_element()
                    .and_then(|root| root.get_attribute("data-theme"))
                    .map_or_else(system_dark, |theme| theme == "dark");
                RwSignal::new(if dark { "dark" } else { "light" })
            })
        })
        .read_only()
}

/// Shows `theme` (`light` or `dark`) on the whole page.
pub fn show(theme: &'static str) {
    if let Some(root) = document().document_element() {
        // Setting an attribute on <html> cannot fail in a way worth reporting.
        let _ = root.set_attribute("data-theme", theme);
    }
    shown();
    SHOWN.with(|shown| {
        if let Some(signal) = shown.get() {
            signal.set(theme);
        }
    });
}

fn apply(choice: ThemeChoice) {
    show(choice.applied(system_dark()));
}

/// The theme switch; applies the kept choice at once and follows the system while it is "System".
#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let stored = storage().and_then(|s| s.get_item(THEME_STORAGE_KEY).ok().flatten());
    let choice = RwSignal::new(ThemeChoice::from_stored(stored.as_deref()));
    apply(choice.get_untracked());
    if let Some(query) = window().match_media(DARK_QUERY).ok().flatten() {
        // Kept by the switch's owner, and removed with it.
        StoredValue::new_local(EventListener::new(&query, "change", move |_| {
            if choice.get_untracked() == ThemeChoice::System {
                apply(ThemeChoice::System);
            }
        }));
    }
    let pick = move |event: leptos::ev::Event| {
        let picked = ThemeChoice::from_stored(Some(&event_target_value(&event)));
        choice.set(picked);
        if let Some(storage) = storage() {
            let _ = match picked {
                ThemeChoice::System => storage.remove_item(THEME_STORAGE_KEY),
                other => storage.set_item(THEME_STORAGE_KEY, other.name()),
            };
        }
        apply(picked);
    };
    view! {
        <label class="theme-switch">
            "Theme "
            <select data-testid="theme" prop:value=move || choice.get().name() on:change=pick>
                <option value="system">"System"</option>
                <option value="light">"Light"</option>
                <option value="dark">"Dark"</option>
            </select>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_decides_until_the_person_picks() {
        assert_eq!(ThemeChoice::from_stored(None), ThemeChoice::System);
        assert_eq!(
            ThemeChoice::from_stored(Some("purple")),
            ThemeChoice::System
        );
        assert_eq!(ThemeChoice::System.applied(true), "dark");
        assert_eq!(ThemeChoice::System.applied(false), "light");
        assert_eq!(
            ThemeChoice::from_stored(Some("light")).applied(true),
            "light"
        );
        assert_eq!(
            ThemeChoice::from_stored(Some("dark")).applied(false),
            "dark"
        );
        for choice in [ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark] {
            assert_eq!(ThemeChoice::from_stored(Some(choice.name())), choice);
        }
    }
}
