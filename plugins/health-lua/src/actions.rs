//! Argo CD's Lua resource actions, run in the same sandbox as the health checks: a discovery script says which
//! actions an object offers, an action script changes the object (or makes others).
//!
//! Both run as Argo CD runs them (`ExecuteResourceActionDiscovery`, `ExecuteResourceAction` in its `util/lua`): a
//! fresh state, the live object as `obj`, the action's parameters as the `actionParams` table (name to string), and
//! the returned table read through its JSON (gopher-json's encoding, see `tojson`):
//!
//! - discovery: `[]` (an empty table) offers nothing; otherwise an object of action name to either `{}` (an
//!   enabled action) or `{disabled = ..., iconClass = ..., displayName = ..., params = {{name = ...}}}`;
//! - an action: an object is the object patched (an old-style action); a list is new-style, each element
//!   `{operation = "patch" | "create", resource = ...}`. For a patch, an empty table where the live object had a
//!   map becomes `{}` again (Argo CD's `cleanReturnedObj`: Lua cannot tell `{}` from `[]`).
//!
//! A script error is an error with Lua's message (`error("invalid number: x", 0)` is `invalid number: x`); so is a
//! return value Argo CD would refuse.

use serde::Deserialize;
use serde_json::{Map, Value as Json};

use crate::sandbox::{Program, run_script};
use crate::tojson::to_json;
use crate::verdict::type_name;

/// A parameter an action takes, as its discovery script declares it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct ActionParam {
    /// The parameter's name (`replicas`).
    pub name: String,
    /// A value the script gives it.
    pub value: String,
    /// Its type, as the script says (free text in Argo CD).
    #[serde(rename = "type")]
    pub kind: String,
    /// Its default.
    pub default: String,
}

/// One action a discovery script offers (Argo CD's `ResourceAction`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ActionOffer {
    /// The action's name: the directory of its `action.lua`.
    pub name: String,
    /// Offered but not runnable now.
    pub disabled: bool,
    /// The icon Argo CD's UI shows (`fa fa-fw fa-redo`).
    pub icon_class: String,
    /// The name to show, when not the action's.
    pub display_name: String,
    /// The parameters it takes.
    pub params: Vec<ActionParam>,
}

/// What to do with an object an action returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// Patch the live object to the returned one.
    Patch,
    /// Create the returned object.
    Create,
}

/// One object an action returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Impacted {
    /// Patch or create.
    pub operation: Operation,
    /// The object.
    pub object: Json,
}

/// The message Argo CD gives for a script that returns something other than a table.
fn not_a_table(value: &omnilua::Value) -> String {
    format!(
        "expect table output from Lua script, not {}",
        type_name(value)
    )
}

/// Runs a discovery script: the actions it offers, sorted by name.
pub fn discover(program: &mut Program, object: &Json) -> Result<Vec<ActionOffer>, String> {
    let returned = run_script(program, object, Some(&[]), |value| {
        if !matches!(value, omnilua::Value::Table(_)) {
            return Err(not_a_table(value));
        }
        to_json(value).map_err(|e| format!("error in converting to lua table: {e}"))
    })?;
    offers(returned)
}

/// The actions of a discovery script's returned JSON, as Argo CD reads them.
pub fn offers(returned: Json) -> Result<Vec<ActionOffer>, String> {
    let table = match returned {
        Json::Array(items) if items.is_empty() => return Ok(Vec::new()),
        Json::Object(table) => table,
        other => {
            return Err(format!(
                "error unmarshaling action table: json: cannot unmarshal {} into Go value of type \
                 map[string]interface {{}}",
                json_kind(&other)
            ));
        }
    };
    let mut offers = Vec::with_capacity(table.len());
    for (name, value) in table {
        let mut offer = match value {
            // `{}`: an action with nothing to say about itself.
            Json::Array(_) => ActionOffer::default(),
            Json::Object(_) => serde_json::from_value(value)
                .map_err(|e| format!("error unmarshaling resource action: {e}"))?,
            other => {
                return Err(format!(
                    "error unmarshaling resource action: json: cannot unmarshal {} into Go value of type \
                     v1alpha1.ResourceAction",
                    json_kind(&other)
                ));
            }
        };
        if offer.name.is_empty() {
            offer.name = name;
        }
        offers.push(offer);
    }
    offers.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(offers)
}

/// Runs an action script with its parameters: the objects it patches or creates.
pub fn run(
    program: &mut Program,
    object: &Json,
    params: &[(String, String)],
) -> Result<Vec<Impacted>, String> {
    let returned = run_script(program, object, Some(params), |value| {
        if !matches!(value, omnilua::Value::Table(_)) {
            return Err(not_a_table(value));
        }
        to_json(value)
    })?;
    impacted(returned, object)
}

/// The objects of an action's returned JSON (see the module docs), patches cleaned against `live`.
pub fn impacted(returned: Json, live: &Json) -> Result<Vec<Impacted>, String> {
    let mut impacted = match returned {
        Json::Array(items) => items
            .into_iter()
            .map(|item| {
                #[derive(Deserialize)]
                struct Item {
                    #[serde(default)]
                    operation: String,
                    #[serde(default)]
                    resource: Json,
                }
                let item: Item = serde_json::from_value(item).map_err(|e| {
                    format!("the action returned a list whose element is not {{operation, resource}}: {e}")
                })?;
                let operation = match item.operation.as_str() {
                    "patch" => Operation::Patch,
                    "create" => Operation::Create,
                    other => {
                        return Err(format!(
                            "unsupported operation {other:?}: an action's operation is \"patch\" or \"create\""
                        ));
                    }
                };
                if !item.resource.is_object() {
                    return Err(format!(
                        "the action's {} resource is not an object",
                        item.operation
                    ));
                }
                Ok(Impacted {
                    operation,
                    object: item.resource,
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        object @ Json::Object(_) => vec![Impacted {
            operation: Operation::Patch,
            object,
        }],
        other => {
            return Err(format!(
                "Lua output was not a valid json object or array: {}",
                json_kind(&other)
            ));
        }
    };
    for item in &mut impacted {
        if item.operation == Operation::Patch
            && let (Json::Object(new), Json::Object(old)) = (&mut item.object, live)
        {
            clean_object(new, old);
        }
    }
    Ok(impacted)
}

/// Argo CD's `cleanReturnedObj`: where the live object had a map and the script returned an empty list (an empty
/// table, which gopher-json encodes as `[]`), the map comes back as `{}`; nested maps and lists are walked.
fn clean_object(new: &mut Map<String, Json>, old: &Map<String, Json>) {
    for (key, old_value) in old {
        let Some(new_value) = new.get_mut(key) else {
            continue;
        };
        match (new_value, old_value) {
            (Json::Object(new_map), Json::Object(old_map)) => clean_object(new_map, old_map),
            (new_value @ Json::Array(_), Json::Object(_))
                if new_value.as_array().is_some_and(Vec::is_empty) =>
            {
                *new_value = Json::Object(Map::new());
            }
            (Json::Array(new_list), Json::Array(old_list)) => clean_array(new_list, old_list),
            _ => {}
        }
    }
}

/// Argo CD's `cleanReturnedArray`: the elements both lists have are cleaned pairwise.
fn clean_array(new: &mut [Json], old: &[Json]) {
    for (new_value, old_value) in new.iter_mut().zip(old) {
        match (new_value, old_value) {
            (Json::Object(new_map), Json::Object(old_map)) => clean_object(new_map, old_map),
            (Json::Array(new_list), Json::Array(old_list)) => clean_array(new_list, old_list),
            _ => {}
        }
    }
}

/// Go's name for a JSON value's type in an unmarshal error.
fn json_kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "bool",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn source(script: &str) -> Program {
        Program::Source(script.to_string())
    }

    #[test]
    fn discovery_reads_enabled_disabled_and_parameterised_actions_sorted_by_name() {
        let script = r#"
local actions = {}
actions["restart"] = {}
actions["resume"] = {["disabled"] = not obj.spec.paused, ["iconClass"] = "fa fa-play"}
actions["scale"] = {["params"] = {{["name"] = "replicas"}}, ["displayName"] = "Scale"}
return actions"#;
        let offers = discover(&mut source(script), &json!({"spec": {"paused": false}})).unwrap();
        assert_eq!(
            offers,
            [
                ActionOffer {
                    name: "restart".into(),
                    ..ActionOffer::default()
                },
                ActionOffer {
                    name: "resume".into(),
                    disabled: true,
                    icon_class: "fa fa-play".into(),
                    ..ActionOffer::default()
                },
                ActionOffer {
                    name: "scale".into(),
                    display_name: "Scale".into(),
                    params: vec![ActionParam {
                        name: "replicas".into(),
                        ..ActionParam::default()
                    }],
                    ..ActionOffer::default()
                },
            ]
        );
        assert_eq!(discover(&mut source("return {}"), &json!({})), Ok(vec![]));
    }

    #[test]
    fn discovery_refuses_what_argo_cd_refuses() {
        let error = discover(&mut source("return 'restart'"), &json!({})).unwrap_err();
        assert_eq!(error, "expect table output from Lua script, not string");
        let error = discover(&mut source("return {restart = true}"), &json!({})).unwrap_err();
        assert!(
            error.starts_with("error unmarshaling resource action"),
            "{error}"
        );
        let error = discover(&mut source("return {'restart'}"), &json!({})).unwrap_err();
        assert!(error.contains("cannot unmarshal array"), "{error}");
    }

    #[test]
    fn an_old_style_action_patches_the_object_it_ran_on_and_reads_its_parameters() {
        let script = r#"
local replicas = tonumber(actionParams["replicas"])
if not replicas then
    error("invalid number: " .. actionParams["replicas"], 0)
end
obj.spec.replicas = replicas
return obj"#;
        let live = json!({"kind": "Deployment", "metadata": {"name": "web", "labels": {}},
                          "spec": {"replicas": 1, "selector": {}}});
        let params = [("replicas".to_string(), "6".to_string())];
        let impacted = run(&mut source(script), &live, &params).unwrap();
        assert_eq!(
            impacted,
            [Impacted {
                operation: Operation::Patch,
                object: json!({"kind": "Deployment", "metadata": {"name": "web", "labels": {}},
                               "spec": {"replicas": 6, "selector": {}}}),
            }],
            "the live object's empty maps stay maps"
        );
        let params = [("replicas".to_string(), "many".to_string())];
        assert_eq!(
            run(&mut source(script), &live, &params),
            Err("invalid number: many".to_string())
        );
    }

    #[test]
    fn a_new_style_action_lists_what_it_patches_and_creates() {
        let script = r#"
local job = {apiVersion = "batch/v1", kind = "Job", metadata = {name = obj.metadata.name .. "-1"}}
return {{operation = "create", resource = job}, {operation = "patch", resource = obj}}"#;
        let live = json!({"kind": "CronJob", "metadata": {"name": "report"}});
        let impacted = run(&mut source(script), &live, &[]).unwrap();
        assert_eq!(impacted.len(), 2);
        assert_eq!(impacted[0].operation, Operation::Create);
        assert_eq!(impacted[0].object["metadata"]["name"], "report-1");
        assert_eq!(impacted[1].operation, Operation::Patch);
        let error = run(
            &mut source("return {{operation = 'delete', resource = obj}}"),
            &live,
            &[],
        )
        .unwrap_err();
        assert!(
            error.contains("unsupported operation \"delete\""),
            "{error}"
        );
        assert_eq!(run(&mut source("return {}"), &live, &[]), Ok(vec![]));
        assert_eq!(
            run(&mut source("return nil"), &live, &[]),
            Err("expect table output from Lua script, not nil".to_string())
        );
    }
}
