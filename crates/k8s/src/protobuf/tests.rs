//! Bodies written record by record (as client-go's generated marshallers write them) decode to kube-apiserver's
//! JSON.

use serde_json::{Value, json};

use super::*;

fn varint(mut value: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            bytes.push(byte);
            return bytes;
        }
        bytes.push(byte | 0x80);
    }
}

/// A length-delimited record.
fn bytes(number: u32, body: &[u8]) -> Vec<u8> {
    let mut record = varint(u64::from(number) << 3 | 2);
    record.extend(varint(body.len() as u64));
    record.extend_from_slice(body);
    record
}

fn text(number: u32, value: &str) -> Vec<u8> {
    bytes(number, value.as_bytes())
}

fn number(number: u32, value: u64) -> Vec<u8> {
    let mut record = varint(u64::from(number) << 3);
    record.extend(varint(value));
    record
}

fn message(records: &[Vec<u8>]) -> Vec<u8> {
    records.concat()
}

fn entry(number: u32, key: &str, value: &[u8]) -> Vec<u8> {
    bytes(number, &message(&[text(1, key), bytes(2, value)]))
}

fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let type_meta = message(&[text(1, api_version), text(2, kind)]);
    let mut body = MAGIC.to_vec();
    body.extend(message(&[bytes(1, &type_meta), bytes(2, raw)]));
    body
}

#[test]
fn a_deployment_decodes_to_the_json_kube_apiserver_stores() {
    let labels = entry(11, "app", b"web");
    let selector = message(&[entry(1, "app", b"web")]);
    let port = message(&[number(3, 80), text(4, "TCP")]);
    let container = message(&[
        text(1, "app"),
        text(2, "nginx:1.27"),
        bytes(6, &port),
        bytes(8, &[]),
    ]);
    let pod_spec = message(&[bytes(2, &container)]);
    let template = message(&[
        bytes(1, &message(&[labels.clone(), bytes(8, &[])])),
        bytes(2, &pod_spec),
    ]);
    let spec = message(&[
        number(1, 0),
        bytes(2, &selector),
        bytes(3, &template),
        bytes(4, &[]),
        number(5, 0),
        number(7, 0),
    ]);
    let metadata = message(&[text(1, "web"), labels, bytes(8, &[])]);
    let deployment = message(&[bytes(1, &metadata), bytes(2, &spec), bytes(3, &[])]);
    let decoded = decode_object(&envelope("apps/v1", "Deployment", &deployment)).expect("decodes");
    assert_eq!(
        decoded,
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"app": "web"}, "creationTimestamp": null},
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}, "creationTimestamp": null},
                    "spec": {"containers": [{"name": "app", "image": "nginx:1.27", "resources": {},
                        "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}
                },
                "strategy": {}
            },
            "status": {}
        }),
        "a pointer field keeps its zero (replicas), an omitempty one loses it (minReadySeconds, paused)"
    );
}

#[test]
fn secret_bytes_are_base64_and_kubernetes_types_take_their_json_forms() {
    let secret = message(&[
        bytes(1, &message(&[text(1, "token")])),
        entry(2, "key", b"\x00\xffraw"),
        text(3, "Opaque"),
    ]);
    let decoded = decode_object(&envelope("v1", "Secret", &secret)).expect("decodes");
    assert_eq!(decoded["data"], json!({"key": "AP9yYXc="}));
    assert_eq!(decoded["type"], "Opaque");

    // ServicePort: targetPort is an IntOrString (field 4), nodePort an int32 (field 5).
    let by_number = message(&[number(1, 0), number(2, 8080)]);
    let by_name = message(&[number(1, 1), text(3, "http")]);
    let ports = [
        bytes(1, &message(&[number(3, 80), bytes(4, &by_number)])),
        bytes(1, &message(&[number(3, 443), bytes(4, &by_name)])),
    ];
    let spec = message(&ports);
    let service = message(&[bytes(2, &spec)]);
    let decoded = decode_object(&envelope("v1", "Service", &service)).expect("decodes");
    assert_eq!(decoded["spec"]["ports"][0]["targetPort"], 8080);
    assert_eq!(decoded["spec"]["ports"][1]["targetPort"], "http");

    // A Time with seconds, a Quantity in a resource list.
    let time = message(&[number(1, 1_764_667_845)]);
    let metadata = message(&[text(1, "p"), bytes(8, &time)]);
    let limits = entry(1, "memory", &message(&[text(1, "128Mi")]));
    let container = message(&[text(1, "app"), bytes(8, &limits)]);
    let pod = message(&[
        bytes(1, &metadata),
        bytes(2, &message(&[bytes(2, &container)])),
    ]);
    let decoded = decode_object(&envelope("v1", "Pod", &pod)).expect("decodes");
    assert_eq!(
        decoded["metadata"]["creationTimestamp"],
        "2025-12-02T09:30:45Z"
    );
    assert_eq!(
        decoded["spec"]["containers"][0]["resources"]["limits"]["memory"],
        "128Mi"
    );
}

#[test]
fn an_inline_volume_source_and_probe_handler_are_the_parents_fields() {
    // Volume: name 1, volumeSource 2 (inline) with configMap 19 {name 1 (inline LocalObjectReference)}.
    let config_map = message(&[bytes(1, &message(&[text(1, "settings")]))]);
    let volume = message(&[
        text(1, "config"),
        bytes(2, &message(&[bytes(19, &config_map)])),
    ]);
    // Probe: handler 1 (inline ProbeHandler) with httpGet 2 {path 1}; periodSeconds 4.
    let probe = message(&[
        bytes(1, &message(&[bytes(2, &message(&[text(1, "/healthz")]))])),
        number(4, 5),
    ]);
    let container = message(&[text(1, "app"), bytes(10, &probe)]);
    let spec = message(&[bytes(1, &volume), bytes(2, &container)]);
    let pod = message(&[bytes(2, &spec)]);
    let decoded = decode_object(&envelope("v1", "Pod", &pod)).expect("decodes");
    assert_eq!(
        decoded["spec"]["volumes"][0],
        json!({"name": "config", "configMap": {"name": "settings"}})
    );
    assert_eq!(
        decoded["spec"]["containers"][0]["livenessProbe"]["httpGet"]["path"],
        "/healthz"
    );
    assert_eq!(
        decoded["spec"]["containers"][0]["livenessProbe"]["periodSeconds"],
        5
    );
}

#[test]
fn negative_int32s_and_delete_options_decode() {
    // DeleteOptions.gracePeriodSeconds (int64, field 1) and propagationPolicy (field 4).
    let options = message(&[number(1, 0), text(4, "Foreground")]);
    let decoded =
        decode_object(&envelope("meta.k8s.io/v1", "DeleteOptions", &options)).expect("decodes");
    assert_eq!(decoded["gracePeriodSeconds"], 0);
    assert_eq!(decoded["propagationPolicy"], "Foreground");
    // Probe.failureThreshold is an int32 (field 6); -1 is ten bytes on the wire.
    let (index, probe) = message_for("v1", "Probe").expect("Probe is a message");
    assert_eq!(probe.name, "k8s.io.api.core.v1.Probe");
    let decoded = decode_message(index, &number(6, (-1i64) as u64)).expect("decodes");
    assert_eq!(decoded["failureThreshold"], -1);
}

#[test]
fn bodies_that_are_not_kubernetes_protobuf_are_refused_with_why() {
    assert_eq!(
        decode_object(b"{\"kind\":\"Pod\"}"),
        Err(ProtobufError::NoMagic)
    );
    assert_eq!(
        decode_object(&envelope("example.com/v1", "Widget", &[])),
        Err(ProtobufError::UnknownKind {
            api_version: "example.com/v1".to_owned(),
            kind: "Widget".to_owned()
        })
    );
    let mut truncated = envelope("v1", "ConfigMap", &text(1, "x"));
    truncated.truncate(truncated.len() - 1);
    assert!(decode_object(&truncated).is_err());
    let not_utf8 = message(&[bytes(1, &message(&[bytes(1, b"\xff\xfe")]))]);
    assert!(matches!(
        decode_object(&envelope("v1", "ConfigMap", &not_utf8)),
        Err(ProtobufError::InvalidUtf8 { .. })
    ));
    assert!(is_protobuf(
        "application/vnd.kubernetes.protobuf; charset=binary"
    ));
    assert!(!is_protobuf("application/json"));
}

#[test]
fn every_message_reference_in_the_table_is_in_range_and_names_are_sorted() {
    for (position, message) in table::MESSAGES.iter().enumerate() {
        if position > 0 {
            assert!(table::MESSAGES[position - 1].name < message.name);
        }
        for field in message.fields {
            if let message::FieldType::Message(index) = field.2 {
                assert!(
                    usize::from(index) < table::MESSAGES.len(),
                    "{}.{}",
                    message.name,
                    field.1
                );
            }
        }
    }
    let _: Value = Value::Null;
}
