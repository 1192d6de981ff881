"""YAML reading for native tests, with the Rust SDK's rules (serde_norway, serde_yaml 0.9's fork, read into JSON values).

PyYAML implements YAML 1.1, where ``yes``/``on`` are booleans, ``0777`` is octal and timestamps become ``datetime``
objects. The Rust SDK (and so ``weft plugin test``) reads YAML 1.2's core schema into JSON values: only
``true``/``false`` are booleans, a leading-zero number such as ``0123`` is a string, timestamps stay strings, mapping
keys are the key's text, ``<<`` is an ordinary key and non-finite floats become ``null``. This loader does the same,
so a check sees the same values natively as in ``weft plugin test``.

Imported only when YAML is read (PyYAML is a test dependency, not a runtime one).
"""

from __future__ import annotations

import math
from typing import Any

try:
    import yaml
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "reading YAML needs PyYAML: pip install PyYAML (or pip install 'weft-sdk[test]')"
    ) from e

_PLAIN = "tag:weft.dev,2025:plain"

_U128_MAX = 2**128 - 1
_I128_MIN = -(2**127)


_DIGITS = {2: frozenset("01"), 8: frozenset("01234567"), 10: frozenset("0123456789"),
           16: frozenset("0123456789abcdefABCDEF")}


def _digits(text: str, base: int) -> bool:
    """Whether `text` is one or more digits of `base` (no sign, no underscores)."""
    allowed = _DIGITS[base]
    return bool(text) and all(c in allowed for c in text)


def _digits_but_not_number(scalar: str) -> bool:
    # Leading zero(s) followed by digits is a string in YAML 1.2.
    body = scalar[1:] if scalar[:1] in ("-", "+") else scalar
    return len(body) > 1 and body[0] == "0" and body[1:].isascii() and body[1:].isdigit()


_PREFIXES = (("0x", 16), ("0o", 8), ("0b", 2))


def _parse_int(scalar: str) -> Any:
    """serde_norway's `visit_int`: an int, or None."""
    unpositive = scalar[1:] if scalar[:1] == "+" else scalar
    # Unsigned: `+` allowed once, radix prefixes.
    for prefix, base in _PREFIXES:
        if unpositive.startswith(prefix) and _digits(unpositive[2:], base):
            return int(unpositive[2:], base)
    if unpositive[:1] not in ("+", "-") and not _digits_but_not_number(scalar) and _digits(unpositive, 10):
        return int(unpositive)
    # Negative: `-0x..`, `-0o..`, `-0b..`, or a decimal.
    for prefix, base in _PREFIXES:
        if scalar.startswith("-" + prefix) and _digits(scalar[3:], base):
            return -int(scalar[3:], base)
    if scalar[:1] == "-" and not _digits_but_not_number(scalar) and _digits(scalar[1:], 10):
        return int(scalar)
    return None


def _is_rust_float(text: str) -> bool:
    """Rust's `f64::from_str` grammar, finite numbers only: digits, an optional fraction, an optional exponent."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii():
        return False
    mantissa, _, exponent = body.lower().partition("e")
    if "e" in body.lower():
        exp = exponent[1:] if exponent[:1] in ("+", "-") else exponent
        if not exp.isdigit():
            return False
    whole, dot, fraction = mantissa.partition(".")
    if not (whole or fraction):
        return False
    return (not whole or whole.isdigit()) and (not fraction or fraction.isdigit())


def _parse_float(scalar: str) -> Any:
    """serde_norway's `parse_f64`, then serde_json's rule that a non-finite float is `null`: (found, value)."""
    unpositive = scalar
    if scalar[:1] == "+":
        unpositive = scalar[1:]
        if unpositive[:1] in ("+", "-"):
            return False, None
    if unpositive in (".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF") or scalar in (".nan", ".NaN", ".NAN"):
        return True, None
    if _is_rust_float(unpositive):
        value = float(unpositive)
        if math.isfinite(value):
            return True, value
    return False, None


def plain_scalar(scalar: str) -> Any:
    """The JSON value of an untagged plain scalar, as serde_norway reads it into a `serde_json::Value`."""
    if scalar in ("", "~", "null", "Null", "NULL"):
        return None
    if scalar in ("true", "True", "TRUE"):
        return True
    if scalar in ("false", "False", "FALSE"):
        return False
    number = _parse_int(scalar)
    if number is not None and _I128_MIN <= number <= _U128_MAX:
        return number
    if not _digits_but_not_number(scalar):
        found, value = _parse_float(scalar)
        if found:
            return value
    return scalar


_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Loader(_BASE):  # type: ignore[misc, valid-type]
    """A safe loader with the Rust SDK's scalar rules."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            return _PLAIN
        return super().resolve(kind, value, implicit)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict:
        if not isinstance(node, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a mapping node, but found {node.id}", node.start_mark
            )
        mapping: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "found a non-scalar key", key_node.start_mark
                )
            # serde_json reads every key as a string: the key's text, whatever it looks like.
            mapping[key_node.value] = self.construct_object(value_node, deep=deep)
        return mapping


def _construct_plain(loader: Loader, node: Any) -> Any:
    return plain_scalar(loader.construct_scalar(node))


def _construct_float(loader: Loader, node: Any) -> Any:
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    return value if math.isfinite(value) else None


def _construct_map(loader: Loader, node: Any) -> Any:
    data: dict = {}
    yield data
    data.update(loader.construct_mapping(node))


def _construct_text(loader: Loader, node: Any) -> Any:
    # Timestamps and the like, when tagged explicitly, stay text as in JSON.
    return loader.construct_scalar(node)


Loader.add_constructor(_PLAIN, _construct_plain)
Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_text)


def documents(text: str) -> list:
    """Every non-empty document of a YAML stream (``---``-separated), in order."""
    return [d for d in yaml.load_all(text, Loader=Loader) if d is not None]


def load(text: str) -> Any:
    """One YAML document (``None`` when empty)."""
    return yaml.load(text, Loader=Loader)


def error_types() -> tuple:
    """The exceptions reading YAML raises."""
    return (yaml.YAMLError,)
