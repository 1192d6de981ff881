//! Scripts run natively, without Wasm: the dialect, the libraries, the sandbox and the verdict rules.

use serde_json::json;
use weft_sdk::{Health, Status};

use super::*;

fn check(script: &str, object: serde_json::Value) -> Option<Health> {
    run_check(script, &object)
}

fn message(script: &str) -> String {
    check(script, json!({}))
        .map(|h| h.message)
        .unwrap_or_default()
}

#[test]
fn an_argo_style_script_reads_conditions_with_goto() {
    let script = r#"
local hs = {}
if obj.status ~= nil and obj.status.conditions ~= nil then
  for i, condition in ipairs(obj.status.conditions) do
    if condition.type ~= "Ready" then
      goto continue
    end
    if condition.status == "True" then
      hs.status = "Healthy"
    else
      hs.status = "Degraded"
    end
    hs.message = condition.message
    do return hs end
    ::continue::
  end
end
hs.status = "Progressing"
hs.message = "Waiting for the Ready condition"
return hs
"#;
    let ready = json!({"status": {"conditions": [
        {"type": "Synced", "status": "False", "message": "no"},
        {"type": "Ready", "status": "True", "message": "all good"}
    ]}});
    assert_eq!(check(script, ready), Some(Health::healthy("all good")));
    let failed = json!({"status": {"conditions": [{"type": "Ready", "status": "False", "message": "broken"}]}});
    assert_eq!(check(script, failed), Some(Health::degraded("broken")));
    assert_eq!(
        check(script, json!({"status": null})),
        Some(Health::progressing("Waiting for the Ready condition"))
    );
}

#[test]
fn json_null_is_nil_and_arrays_start_at_one() {
    let script = r#"return {status = "Healthy", message =
  tostring(obj.a == nil) .. " " .. obj.list[1] .. " " .. obj.list[2] .. " " .. #obj.empty .. " " .. obj.n ..
  " " .. obj.f .. " " .. tostring(obj.yes)}"#;
    let verdict = check(
        script,
        json!({"a": null, "list": ["x", "z"], "empty": [], "n": 3, "f": 1.5, "yes": true}),
    );
    assert_eq!(verdict, Some(Health::healthy("true x z 0 3 1.5 true")));
}

#[test]
fn json_null_in_an_array_is_skipped_and_later_items_move_down_as_in_argo_cd() {
    // Argo CD appends each item with gopher-lua's `LTable.Append`, which skips nil: no hole, a shorter array.
    let script = r#"
local seen = {}
for i, v in ipairs(obj.list) do seen[#seen + 1] = i .. "=" .. v end
return {status = "Healthy", message = #obj.list .. " " .. table.concat(seen, ",") .. " " ..
  tostring(obj.list[3]) .. " " .. #obj.nulls .. " " .. #obj.nested .. ":" .. #obj.nested[1] .. ":" ..
  obj.nested[2][1]}"#;
    let verdict = check(
        script,
        json!({"list": ["a", null, "c", null, "e"], "nulls": [null, null],
               "nested": [[null], [null, "x"]]}),
    );
    assert_eq!(verdict, Some(Health::healthy("3 1=a,2=c,3=e e 0 2:0:x")));
}

#[test]
fn lua_5_1_helpers_and_the_string_library_are_there() {
    let script = r#"
local t = {"a", "b", "c"}
local x, y = unpack(t)
local found = string.find("Available: 3/3", "3/3", 1, true)
local cap = string.match("progress 42%", "(%d+)%%")
local parts = {}
for w in string.gmatch("a,b,c", "[^,]+") do table.insert(parts, w) end
return {status = "Healthy", message = table.getn(t) .. x .. y .. found .. cap .. table.concat(parts, "-") ..
  string.format("%s=%d", "n", 7) .. string.upper("ok") .. math.floor(2.7)}"#;
    assert_eq!(message(script), "3ab1242a-b-cn=7OK2");
}

#[test]
fn the_safe_os_has_time_clock_and_date_only() {
    let script = r#"
local os2 = require("os")
local stamp = os.time({year = 2024, month = 1, day = 2, hour = 3, min = 4, sec = 5})
return {status = "Healthy", message = tostring(os2 == os) .. " " .. stamp .. " " ..
  os.date("!%Y-%m-%dT%H:%M:%SZ", stamp) .. " " .. tostring(os.time() > stamp) .. " " ..
  type(os.clock()) .. " " .. tostring(os.execute) .. " " .. tostring(os.getenv) .. " " .. tostring(os.remove) ..
  " " .. tostring(io) .. " " .. tostring(dofile) .. " " .. tostring(loadfile) .. " " .. os.date("%c", 0) ..
  " " .. os.time({year = 2024, month = 13, day = 0, hour = 0}) .. " " .. os.date("*t", stamp).yday}"#;
    assert_eq!(
        message(script),
        "true 1704164645 2024-01-02T03:04:05Z true number nil nil nil nil nil nil Thu Jan  1 00:00:00 1970 1735603200 2"
    );
}

#[test]
fn require_of_anything_but_os_fails() {
    let verdict = check(
        r#"local io = require("io") return {status = "Healthy"}"#,
        json!({}),
    );
    let verdict = verdict.unwrap();
    assert_eq!(verdict.status, Status::Unknown);
    assert!(
        verdict.message.contains("module 'io' not found"),
        "{verdict:?}"
    );
}

#[test]
fn the_returned_value_follows_argo_cds_rules() {
    assert_eq!(check("return nil", json!({})), None);
    assert_eq!(check("local x = 1", json!({})), None);
    assert_eq!(check("return {}", json!({})), None);
    assert_eq!(
        check(r#"return {status = "Fine", message = "x"}"#, json!({})),
        Some(Health::unknown(INVALID_STATUS))
    );
    assert_eq!(
        check(r#"return {status = "healthy"}"#, json!({})),
        Some(Health::unknown(INVALID_STATUS))
    );
    assert_eq!(
        check(r#"return {message = "only a message"}"#, json!({})),
        Some(Health::unknown(INVALID_STATUS))
    );
    assert_eq!(
        check(r#"return "Healthy""#, json!({})),
        Some(Health::unknown(
            "expect table output from Lua script, not string"
        ))
    );
    assert_eq!(
        check(r#"return {status = "Suspended"}"#, json!({})),
        Some(Health::suspended(""))
    );
}

#[test]
fn a_status_or_message_that_is_not_a_string_is_argo_cds_empty_health() {
    // Argo CD encodes the returned table to JSON and decodes it into `HealthStatus{Status, Message string}`; since
    // v2.12 (argo-cd#18700) any JSON type error there is taken for an empty table and gives the empty health,
    // as `{}` does: no opinion.
    for script in [
        r#"return {status = "Degraded", message = 3}"#,
        r#"return {status = "Healthy", message = 2.5}"#,
        r#"return {status = "Healthy", message = true}"#,
        r#"return {status = "Healthy", message = {"a", "b"}}"#,
        r#"return {status = 1, message = "x"}"#,
        r#"return {status = false}"#,
        r#"return {status = {}, message = "x"}"#,
        // The type error comes before the status is checked.
        r#"return {status = "Fine", message = 3}"#,
        // A list encodes as a JSON array, which does not decode into an object either.
        r#"return {"Healthy", "all good"}"#,
    ] {
        assert_eq!(check(script, json!({})), None, "{script}");
    }
    // A table with other keys is an object without a status.
    for script in [
        r#"return {state = "Healthy"}"#,
        r#"return {"Healthy", x = 1}"#,
    ] {
        assert_eq!(
            check(script, json!({})),
            Some(Health::unknown(INVALID_STATUS)),
            "{script}"
        );
    }
    // A value JSON cannot hold fails the encoding, which Argo CD reports as unknown with gopher-json's message.
    for (script, field) in [
        (
            r#"return {status = "Healthy", message = tostring}"#,
            "message",
        ),
        (r#"return {status = print, message = "x"}"#, "status"),
    ] {
        let verdict = check(script, json!({})).unwrap();
        assert_eq!(verdict.status, Status::Unknown, "{script}");
        assert!(
            verdict.message.contains("cannot encode function to JSON")
                && verdict
                    .message
                    .contains(&format!("`{field}` is a function")),
            "{script}: {verdict:?}"
        );
    }
}

#[test]
fn lua_errors_are_unknown_with_the_lua_message() {
    let runtime = check("local x = nil\nreturn x.y", json!({})).unwrap();
    assert_eq!(runtime.status, Status::Unknown);
    assert!(
        runtime.message.starts_with("health.lua:2:") && runtime.message.contains("nil value"),
        "{runtime:?}"
    );
    let raised = check(r#"error("custom failure")"#, json!({})).unwrap();
    assert_eq!(raised, Health::unknown("health.lua:1: custom failure"));
    let syntax = check("return {status = ", json!({})).unwrap();
    assert_eq!(syntax.status, Status::Unknown);
    assert!(syntax.message.contains("health.lua:1:"), "{syntax:?}");
}

#[test]
fn load_takes_source_but_never_bytecode() {
    let script = r#"
local f = load("return 1 + 1")
local ok = pcall(load, string.dump(function() return 1 end))
local g, err = load(string.dump(function() return 1 end))
return {status = "Healthy", message = f() .. " " .. tostring(g) .. " " .. tostring(err ~= nil)}"#;
    assert_eq!(message(script), "2 nil true");
}

#[test]
fn a_batch_compiles_once_and_each_check_still_starts_fresh() {
    let script =
        r#"seen = (seen or 0) + 1 return {status = "Healthy", message = obj.n .. ":" .. seen}"#;
    for n in 0..3 {
        assert_eq!(
            check(script, json!({"n": n})),
            Some(Health::healthy(format!("{n}:1")))
        );
    }
    // A runtime error from the cached bytecode still names the line.
    let failing = "local x = nil\nreturn x.y";
    for _ in 0..2 {
        let verdict = check(failing, json!({})).unwrap();
        assert!(verdict.message.starts_with("health.lua:2:"), "{verdict:?}");
    }
}

#[test]
fn every_check_gets_a_fresh_state() {
    let script =
        r#"counter = (counter or 0) + 1 return {status = "Healthy", message = tostring(counter)}"#;
    assert_eq!(message(script), "1");
    assert_eq!(message(script), "1");
}

#[test]
fn the_plugin_reads_its_script_from_the_settings() {
    let obj =
        weft_sdk::Object::new(json!({"apiVersion": "example.com/v1", "kind": "Widget"})).unwrap();
    let settings = json!({"script": "return {status = 'Healthy', message = obj.kind}"}).to_string();
    let verdict = weft_sdk::settings::with_settings(&settings, || {
        weft_sdk::testing::assess::<LuaHealth>(&obj)
    });
    assert_eq!(verdict, Ok(Some(Health::healthy("Widget"))));
    let missing = weft_sdk::testing::assess::<LuaHealth>(&obj).unwrap_err();
    assert!(missing.message.contains("configured with"), "{missing}");
    let bad = weft_sdk::settings::with_settings("{\"scrpt\": 1}", || {
        weft_sdk::testing::assess::<LuaHealth>(&obj)
    });
    assert!(bad.unwrap_err().message.contains("settings must be"));
}

fn assess_with(settings: &str, object: serde_json::Value) -> Result<Option<Health>, PluginError> {
    let obj = weft_sdk::Object::new(object).unwrap();
    weft_sdk::settings::with_settings(settings, || weft_sdk::testing::assess::<LuaHealth>(&obj))
}

#[test]
fn the_hosts_bytecode_runs_with_the_scripts_lines_and_globals() {
    let script = "local t = {}\ntable.insert(t, obj.kind)\nif obj.fail then\n  local x = nil\n  return x.y\nend\n\
                  return {status = 'Healthy', message = t[1] .. ' ' .. table.getn(t)}";
    let settings = settings_for(script).unwrap();
    let parsed: serde_json::Value = serde_json::from_str(&settings).unwrap();
    assert!(parsed.get("script").is_none(), "{parsed}");
    assert_eq!(parsed["globals"], json!(["table.getn"]));
    assert_eq!(
        assess_with(&settings, json!({"kind": "Widget"})),
        Ok(Some(Health::healthy("Widget 1")))
    );
    // Runtime errors from the bytecode name the line, as from the source.
    let failed = assess_with(&settings, json!({"kind": "Widget", "fail": true}))
        .unwrap()
        .unwrap();
    assert!(failed.message.starts_with("health.lua:5:"), "{failed:?}");
    assert_eq!(
        run_check(script, &json!({"kind": "Widget", "fail": true})),
        Some(failed)
    );
}

#[test]
fn unusable_bytecode_is_unknown_with_a_message_never_a_trap() {
    let good: serde_json::Value =
        serde_json::from_str(&settings_for("return {status = 'Healthy'}").unwrap()).unwrap();
    let with = |field: &str, value: serde_json::Value| {
        let mut settings = good.clone();
        settings[field] = value;
        assess_with(&settings.to_string(), json!({}))
    };
    let unknown = |outcome: Result<Option<Health>, PluginError>| {
        let health = outcome.unwrap().unwrap();
        assert_eq!(health.status, Status::Unknown, "{health:?}");
        health.message
    };
    assert!(unknown(with("bytecode", json!("AAAA"))).contains("digest"));
    assert!(unknown(with("bytecode", json!("not base64!"))).contains("base64"));
    assert!(unknown(with("digest", json!("0123456789abcdef"))).contains("digest"));
    assert!(unknown(with("globals", json!(["io"]))).contains("unknown sandbox global"));
    // Bytes that are no chunk at all, with a digest that matches them.
    let garbage: Vec<u8> = (0..64u8).collect();
    let forged = json!({
        "bytecode": base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &garbage),
        "digest": precompiled::digest(&garbage),
    });
    assert!(unknown(assess_with(&forged.to_string(), json!({}))).contains("not a Lua 5.2 chunk"));
    let mut no_digest = good.clone();
    no_digest.as_object_mut().unwrap().remove("digest");
    assert!(unknown(assess_with(&no_digest.to_string(), json!({}))).contains("without its digest"));
    // A script that is itself a binary chunk is refused: bytecode only ever comes from compiling source.
    let binary = json!({"script": "\u{1b}Lua\u{52}\u{0}"}).to_string();
    assert!(unknown(assess_with(&binary, json!({}))).contains("binary chunk"));
    assert!(compile("\u{1b}Lua").unwrap_err().contains("binary chunk"));
}

#[test]
fn upper_and_lower_map_unicode_text_as_gopher_lua_does() {
    // gopher-lua uses Go's Unicode-aware `strings.ToUpper`/`ToLower`; PUC Lua's are byte-wise (ASCII only).
    let script = r#"
local bad = string.char(255) .. "ab"
return {status = "Healthy", message = string.upper("état ok") .. "|" .. ("ÀÉÎ Straße"):lower() .. "|" ..
  string.lower("MIXED Ünïcode") .. "|" .. string.upper(12) .. string.lower(2.5) .. "|" ..
  string.byte(string.upper(bad), 1) .. string.sub(string.upper(bad), 2) .. "|" ..
  string.byte(bad:lower(), 1) .. string.sub(bad:lower(), 2)}"#;
    assert_eq!(
        message(script),
        "ÉTAT OK|àéî straße|mixed ünïcode|122.5|255AB|255ab"
    );
    // The host's compiled form names them too, so they are built for it.
    let settings = settings_for("return {status = 'Healthy', message = obj.name:upper()}").unwrap();
    let parsed: serde_json::Value = serde_json::from_str(&settings).unwrap();
    assert_eq!(parsed["globals"], json!(["string.upper"]));
    assert_eq!(
        assess_with(&settings, json!({"name": "café"})),
        Ok(Some(Health::healthy("CAFÉ")))
    );
    // Argument errors stay Lua's, with the script's line.
    assert_eq!(
        check("local x = 1\nreturn string.upper()", json!({})),
        Some(Health::unknown(
            "health.lua:2: bad argument #1 to 'upper' (string expected, got no value)"
        ))
    );
    assert_eq!(
        check("return ('x'):lower() .. string.lower({})", json!({})),
        Some(Health::unknown(
            "health.lua:1: bad argument #1 to 'lower' (string expected, got table)"
        ))
    );
    // Without Lua's `error` (the script removed it) the message has no line, but is still the argument error.
    assert_eq!(
        check("error = nil\nreturn string.upper(true)", json!({})),
        Some(Health::unknown(
            "bad argument #1 to 'upper' (string expected, got boolean)"
        ))
    );
}
