//! The `variant` of a flow: a registered controller's name, read and checked against its
//! declaration ([`crate::tcp::cc::registry`]), or `variant = "python:<module>:<Class>"` for a
//! controller written in Python.

use serde_json::Value;

use super::options::common_names;
use super::Options;
use crate::scenario::reader::Table;
use crate::scenario::{Result, ScenarioError};
use crate::tcp::cc::{registry, Declaration, Variant};
use crate::tcp::recovery;

/// How a variant names a Python controller: `"python:<module or file.py>:<Class>"`.
pub const PYTHON_VARIANT_PREFIX: &str = "python:";

/// The declaration of a registered controller (`reno` when `variant` is absent).
pub(super) fn parse_variant_name(t: &Table<'_>) -> Result<&'static Declaration> {
    let name = t.str("variant")?.unwrap_or("reno");
    registry::declaration(name).ok_or_else(|| {
        ScenarioError::new(
            t.field("variant"),
            format!(
                "unknown variant {name:?}; allowed: {}, or \"{PYTHON_VARIANT_PREFIX}<module>:<Class>\" for a Python controller",
                registry::names().join(", ")
            ),
        )
    })
}

/// Checks the form of `variant = "python:<module or file.py>:<Class>"` (whether the class
/// exists is for Python to say) and returns it as written.
pub(super) fn parse_python_reference(t: &Table<'_>, text: &str) -> Result<String> {
    let bad = |why: &str| {
        ScenarioError::new(
            t.field("variant"),
            format!(
                "{text:?} {why}; a Python controller is \"python:<module or file.py>:<Class>\", e.g. \"python:mymodule:Aimd\" or \"python:controllers/aimd.py:Aimd\""
            ),
        )
    };
    let rest = &text[PYTHON_VARIANT_PREFIX.len()..];
    let Some((module, class)) = rest.rsplit_once(':') else {
        return Err(bad("names no class"));
    };
    let identifier = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    if !class.split('.').all(identifier) {
        return Err(bad("does not end in a class name"));
    }
    let is_file = module.ends_with(".py");
    if module.is_empty() || !(is_file || module.split('.').all(identifier)) {
        return Err(bad(
            "does not name a module (a dotted name, or a file ending in .py)",
        ));
    }
    Ok(text.to_string())
}

/// The options of the recovery called `name`.
pub(super) fn recovery_options(name: &str) -> Vec<&'static str> {
    recovery::declaration(name).map_or(Vec::new(), |r| r.options.iter().map(|o| o.name).collect())
}

/// The options of a Python controller's flow that are not the sender's: the controller's
/// arguments. The sender's options are those of every variant and of the recovery;
/// NewReno's recovery also takes `hoe_sending` for a Python controller (a built-in sets it
/// from its own options).
pub(super) fn python_arguments(
    o: &Table<'_>,
    recovery: &str,
) -> Result<serde_json::Map<String, Value>> {
    let hoe_sending = recovery::newreno::HOE_SENDING.name;
    let mut args = serde_json::Map::new();
    for key in o.keys() {
        let sender = common_names().contains(&key) || recovery_options(recovery).contains(&key);
        if key == hoe_sending && recovery != "newreno" {
            return Err(ScenarioError::new(
                o.field(key),
                format!("is an option of recovery \"newreno\", not {recovery:?}"),
            ));
        }
        if !sender && key != hoe_sending {
            args.insert(key.to_string(), o.get(key).cloned().unwrap_or(Value::Null));
        }
    }
    Ok(args)
}

/// Refuses an option that neither the sender, the controller `variant` nor the recovery
/// takes, naming the controller or recovery it belongs to if any, and listing those
/// allowed.
pub(super) fn check_option_names(
    o: &Table<'_>,
    variant: &Declaration,
    recovery: &str,
) -> Result<()> {
    let mut allowed: Vec<&str> = common_names();
    let own = variant.options.iter().map(|o| o.name);
    for key in own.chain(recovery_options(recovery)) {
        if !allowed.contains(&key) {
            allowed.push(key);
        }
    }
    for key in o.keys() {
        if allowed.contains(&key) {
            continue;
        }
        let controller = registry::owner_of(key);
        let recovery_owner = recovery::RECOVERY_DECLARATIONS
            .iter()
            .find(|r| r.options.iter().any(|x| x.name == key));
        let why = match (controller, recovery_owner) {
            (Some(c), _) => format!(
                "is an option of variant {:?}, not {:?}",
                c.name, variant.name
            ),
            (None, Some(r)) => format!("is an option of recovery {:?}, not {recovery:?}", r.name),
            (None, None) => "is not an option".to_string(),
        };
        return Err(ScenarioError::new(
            o.field(key),
            format!("{why}; options of {}: {}", variant.name, allowed.join(", ")),
        ));
    }
    Ok(())
}

/// The controller `declaration` names, configured from the flow's options.
pub(super) fn parse_variant(o: &Options<'_, '_>, declaration: &Declaration) -> Result<Variant> {
    match Variant::configure(declaration.name, o) {
        Some(configured) => configured.map_err(ScenarioError::from),
        None => Err(ScenarioError::new(
            o.flow.field("variant"),
            "is not registered",
        )),
    }
}
