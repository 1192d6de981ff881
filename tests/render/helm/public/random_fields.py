#!/usr/bin/env python3
"""Finds the fields each public case fills with random values, and lists them in its case file.

Usage: random_fields.py CASE.yaml [CASE.yaml ...]

Helm's own library renders each case twice (a second apart when the chart calls `now`); a field that differs between the two renders is random (a password,
a key, a certificate, or a value derived from one, such as a checksum annotation over a generated Secret). Each is
written to the case's `random:` list as the object (`Kind/name`, with `*` for a random part of the name), a JSON pointer and the alphabet both renders'
values fit (after base64 decoding under `/data/`): `alnum`, `alpha`, `digits`, `hex`, `base64`, `pem`, `ascii` or
`bytes`. helm_public compares those fields by shape (length and alphabet; PEM block types) and all others exactly.
Fields a case file already lists stay listed (a field seen random once stays random). Needs helm-python-sdk, as
render_with_helm.py.
"""

import base64
import os
import re
import string
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import render_with_helm  # noqa: E402


def pointer_escape(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def leaves(value, pointer=""):
    if isinstance(value, dict):
        for key, child in value.items():
            yield from leaves(child, f"{pointer}/{pointer_escape(key)}")
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from leaves(child, f"{pointer}/{index}")
    else:
        yield pointer, value


def decoded(pointer, value):
    text = value if isinstance(value, str) else str(value)
    if pointer.startswith("/data/"):
        try:
            return base64.b64decode(text, validate=True)
        except Exception:  # noqa: BLE001 - not base64: compared as it is
            pass
    return text.encode("utf-8", "surrogateescape")


ALPHABETS = [
    ("digits", set(string.digits.encode())),
    ("hex", set(b"0123456789abcdef")),
    ("alpha", set(string.ascii_letters.encode())),
    ("alnum", set((string.ascii_letters + string.digits).encode())),
    ("base64", set((string.ascii_letters + string.digits + "+/=").encode())),
    ("ascii", set(range(0x20, 0x7F))),
]


def pem_inside(sample):
    """Whether a value is PEM, or base64 of PEM (a webhook's `caBundle`)."""
    if b"-----BEGIN " in sample:
        return True
    try:
        return b"-----BEGIN " in base64.b64decode(sample, validate=True)
    except Exception:  # noqa: BLE001 - not base64
        return False


def alphabet(pointer, values):
    samples = [decoded(pointer, v) for v in values]
    if all(pem_inside(s) for s in samples):
        return "pem"
    if len({len(s) for s in samples}) != 1:
        return "bytes"
    chars = set().union(*samples)
    for name, allowed in ALPHABETS:
        # `digits`, `hex` and `alpha` only for long values, where both samples fitting by chance is unlikely.
        if name in ("digits", "hex", "alpha") and len(samples[0]) < 16:
            continue
        if chars <= allowed:
            return name
    return "bytes"


def key(obj):
    return f"{obj.get('kind', '')}/{(obj.get('metadata') or {}).get('name', '')}"


def pattern(a, b):
    """`Kind/name` of an object, with `*` for the part of a random name that differs between the two renders."""
    first, second = key(a), key(b)
    if first == second:
        return first
    prefix = os.path.commonprefix([first, second])
    suffix = os.path.commonprefix([first[len(prefix) :][::-1], second[len(prefix) :][::-1]])[::-1]
    # Whole name segments only: two random parts may begin or end alike by chance.
    prefix = prefix[: max(prefix.rfind("-"), prefix.rfind("/")) + 1]
    suffix = suffix[suffix.find("-") :] if "-" in suffix else ""
    return f"{prefix}*{suffix}"


def uses_clock(case_path):
    """Whether the case's chart (or a subchart) calls `now`: its renders must then be a second apart."""
    with open(case_path, encoding="utf-8") as handle:
        chart = re.search(r"(?m)^chart: (.*)$", handle.read()).group(1).strip()
    for root, _, files in os.walk(os.path.join(os.path.dirname(case_path), chart)):
        for name in files:
            if name.endswith((".yaml", ".tpl", ".txt")):
                with open(os.path.join(root, name), encoding="utf-8", errors="replace") as handle:
                    if re.search(r"\bnow\b", handle.read()):
                        return True
    return False


def random_fields(case_path):
    first = render_with_helm.render(case_path, include_crds=True)
    if uses_clock(case_path):
        time.sleep(1.1)
    second = render_with_helm.render(case_path, include_crds=True)
    fields = []
    for a, b in zip(first, second):
        a, b = a["object"], b["object"]
        if a == b:
            continue
        values_b = dict(leaves(b))
        for pointer, value in leaves(a):
            if pointer in values_b and values_b[pointer] != value:
                fields.append((pattern(a, b), pointer, alphabet(pointer, [value, values_b[pointer]])))
    return fields


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def listed(text):
    """The fields a case file lists already (kept: a field seen random once stays random)."""
    return re.findall(r'(?m)^  - \{object: "(.*)", pointer: "(.*)", alphabet: (\S+)\}$', text)


def write(case_path, fields):
    with open(case_path, encoding="utf-8") as handle:
        text = handle.read()
    for field in listed(text):
        field = tuple(part.replace('\\"', '"').replace("\\\\", "\\") for part in field)
        if not any(field[1] == known[1] and field[0] == known[0] for known in fields) and "*" not in field[0]:
            fields.append(field)
    text = re.sub(r"(?ms)^random:\n(?:  .*\n?)*", "", text).rstrip("\n") + "\n"
    if fields:
        text += "random:\n"
        for obj, pointer, alpha in fields:
            text += f"  - {{object: {quote(obj)}, pointer: {quote(pointer)}, alphabet: {alpha}}}\n"
    with open(case_path, "w", encoding="utf-8") as handle:
        handle.write(text)


def main(paths):
    for path in paths:
        try:
            fields = random_fields(path)
        except Exception as error:  # noqa: BLE001 - reported, the case left as it is
            print(f"{path}: {error}", file=sys.stderr)
            continue
        write(path, fields)
        if fields:
            print(f"{os.path.basename(path)}: {len(fields)} random fields")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
