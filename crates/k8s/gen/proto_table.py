#!/usr/bin/env python3
"""Generates crates/k8s/src/protobuf/table.rs: the protobuf messages of Kubernetes' built-in kinds, from the
`generated.proto` files (field numbers and types) and the Go types beside them (JSON names, `omitempty`, pointers),
so a protobuf body decodes to the JSON kube-apiserver would have stored.

Usage: proto_table.py API_DIR APIMACHINERY_DIR > crates/k8s/src/protobuf/table.rs (needs rustfmt on PATH)
where the directories are kubernetes/api and kubernetes/apimachinery at the same release (v0.34.9 for 1.34):
    git -C api archive v0.34.9 | tar -x -C /tmp/kapi
"""

import os
import re
import subprocess
import sys

SCALARS = {
    "string": "String",
    "bytes": "Bytes",
    "bool": "Bool",
    "int32": "Int32",
    "int64": "Int64",
    "uint32": "Uint32",
    "uint64": "Uint64",
    "double": "Double",
    "float": "Float",
}

FIELD = re.compile(r"^\s+(optional|repeated)\s+(\S+)\s+(\w+)\s*=\s*(\d+)\s*;")
MAP_FIELD = re.compile(r"^\s+map<\s*(\S+)\s*,\s*(\S+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;")
GO_FIELD = re.compile(r"^\s+(\w+)\s+(\S+)\s+`([^`]*)`")
GO_EMBEDDED = re.compile(r"^\s+(\S+)\s+`([^`]*)`")
GO_SLICE_TYPE = re.compile(r"^type (\w+) \[\]\S+")
GO_STRUCT = re.compile(r"^type (\w+) struct \{")


def proto_files(root):
    for directory, _, files in os.walk(root):
        if "testdata" in directory or "testapigroup" in directory or "/test" in directory:
            continue
        if "generated.proto" in files:
            yield directory, os.path.join(directory, "generated.proto")


def parse_proto(path):
    package = None
    messages = {}
    current = None
    depth = 0
    for line in open(path, encoding="utf-8"):
        stripped = line.strip()
        if stripped.startswith("//"):
            continue
        if stripped.startswith("package "):
            package = stripped[len("package "):].rstrip(";").strip()
            continue
        if stripped.startswith("message ") and stripped.endswith("{"):
            if current is not None:
                raise SystemExit(f"{path}: nested message {stripped}")
            current = stripped.split()[1]
            messages[current] = []
            depth = 1
            continue
        if current is None:
            continue
        if stripped == "}":
            depth -= 1
            if depth == 0:
                current = None
            continue
        match = MAP_FIELD.match(line)
        if match:
            key, value, name, number = match.groups()
            messages[current].append(("map", value, name, int(number), key))
            continue
        match = FIELD.match(line)
        if match:
            label, kind, name, number = match.groups()
            messages[current].append((label, kind, name, int(number), None))
            continue
        if stripped and not stripped.startswith("option") and not stripped.startswith("reserved"):
            raise SystemExit(f"{path}: unread line in {current}: {stripped}")
    return package, messages


def parse_go(directory):
    """(structs: name -> {number: (json name, omitempty, pointer)}, slice types, group name)."""
    structs = {}
    slices = set()
    group = None
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".go") or name.endswith("_test.go") or name.endswith(".pb.go"):
            continue
        current = None
        for line in open(os.path.join(directory, name), encoding="utf-8"):
            match = re.match(r'^const GroupName = "([^"]*)"', line)
            if match:
                group = match.group(1)
            match = GO_SLICE_TYPE.match(line)
            if match:
                slices.add(match.group(1))
            match = GO_STRUCT.match(line)
            if match:
                current = match.group(1)
                structs.setdefault(current, {})
                continue
            if current is None:
                continue
            if line.startswith("}"):
                current = None
                continue
            match = GO_FIELD.match(line)
            if match:
                _, go_type, tag = match.groups()
            else:
                match = GO_EMBEDDED.match(line)
                if not match:
                    continue
                go_type, tag = match.groups()
            protobuf = re.search(r'protobuf:"([^"]*)"', tag)
            if not protobuf:
                continue
            parts = protobuf.group(1).split(",")
            if len(parts) < 2:
                continue
            number = int(parts[1])
            json_tag = re.search(r'json:"([^"]*)"', tag)
            json_parts = json_tag.group(1).split(",") if json_tag else [""]
            inline = "inline" in json_parts[1:]
            structs[current][number] = (
                "" if inline else (json_parts[0] or "-"),
                "omitempty" in json_parts[1:],
                go_type.startswith("*"),
            )
    return structs, slices, group


def scalar_name(scalar):
    """`String` is spelt out so the generated file does not shadow the type."""
    return "Scalar::String" if scalar == "String" else scalar


def stable(package):
    """Only the GA versions the simulator serves (and apimachinery's packages)."""
    version = package.rsplit(".", 1)[-1]
    return not re.search(r"v\d+(alpha|beta)\d+$", version)


def scalar_or_message(kind, package):
    if kind in SCALARS:
        return ("scalar", SCALARS[kind])
    name = kind[1:] if kind.startswith(".") else f"{package}.{kind}"
    return ("message", name)


def main():
    api, machinery = sys.argv[1], sys.argv[2]
    messages = {}
    shapes = {}
    packages = []
    for root in (api, machinery):
        for directory, path in sorted(proto_files(root)):
            package, parsed = parse_proto(path)
            if not stable(package):
                continue
            structs, slices, group = parse_go(directory)
            version = os.path.basename(directory)
            if root == api and group is not None:
                packages.append((group, version, package))
            for message, fields in parsed.items():
                full = f"{package}.{message}"
                go_fields = structs.get(message, {})
                entries = []
                for label, kind, name, number, key in fields:
                    json_name, omitempty, pointer = go_fields.get(number, (name, True, False))
                    if json_name == "-":
                        json_name = name
                    # An empty name is a Go field embedded with `json:",inline"`: its fields are the parent's.
                    entries.append(
                        {
                            "number": number,
                            "name": json_name,
                            "repeated": label == "repeated",
                            "map_key": SCALARS[key] if label == "map" else None,
                            "type": scalar_or_message(kind, package),
                            "emit": "Present" if pointer else ("OmitZero" if omitempty else "Always"),
                        }
                    )
                messages[full] = entries
                shapes[full] = "List" if message in slices else "Struct"
    names = sorted(messages)
    index = {name: position for position, name in enumerate(names)}
    out = []
    out.append("//! The protobuf messages of Kubernetes 1.34's built-in kinds: generated by `crates/k8s/gen/proto_table.py` from")
    out.append("//! the `generated.proto` files and Go types of kubernetes/api and kubernetes/apimachinery v0.34.9. Do not edit.")
    out.append("")
    out.append("#![allow(clippy::large_const_arrays)]")
    out.append("")
    out.append("use super::message::Cardinality::{Map, One, Repeated};")
    out.append("use super::message::Emit::{Always, OmitZero, Present};")
    out.append("use super::message::FieldType::{Message as M, Scalar as S};")
    used = sorted(
        {
            field["type"][1]
            for fields in messages.values()
            for field in fields
            if field["type"][0] == "scalar" and field["type"][1] != "String"
        }
        | {field["map_key"] for fields in messages.values() for field in fields if field["map_key"] not in (None, "String")}
    )
    out.append(f"use super::message::Scalar::{{{', '.join(used)}}};")
    out.append("use super::message::{Field as F, Message, Scalar, Shape};")
    out.append("")
    out.append("/// Every message, sorted by its full name.")
    out.append("pub static MESSAGES: &[Message] = &[")
    for name in names:
        out.append(f'    Message {{ name: "{name}", shape: Shape::{shapes[name]}, fields: &[')
        for field in sorted(messages[name], key=lambda f: f["number"]):
            kind, target = field["type"]
            if kind == "scalar":
                ty = f"S({scalar_name(target)})"
            else:
                if target not in index:
                    raise SystemExit(f"{name}.{field['name']}: unknown message {target}")
                ty = f"M({index[target]})"
            if field["map_key"]:
                cardinality = f"Map({scalar_name(field['map_key'])})"
            elif field["repeated"]:
                cardinality = "Repeated"
            else:
                cardinality = "One"
            out.append(f'        F({field["number"]}, "{field["name"]}", {ty}, {cardinality}, {field["emit"]}),')
        out.append("    ] },")
    out.append("];")
    out.append("")
    out.append("/// The API group and version each package of built-in kinds serves.")
    out.append("pub static PACKAGES: &[(&str, &str, &str)] = &[")
    for group, version, package in sorted(packages):
        out.append(f'    ("{group}", "{version}", "{package}"),')
    out.append("];")
    text = "\n".join(out) + "\n"
    # The checked-in table is rustfmt's layout of this text, so `cargo fmt` leaves it alone.
    formatted = subprocess.run(
        ["rustfmt", "--edition", "2024", "--emit", "stdout"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    sys.stdout.write(formatted)


if __name__ == "__main__":
    main()
