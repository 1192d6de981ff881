"""Running checks natively, without Wasm: single objects, objects with children, and whole Argo CD
``health_test.yaml`` suites, with the same rules and failure lines as the Rust SDK's ``weft_sdk::testing``.

Reading YAML needs PyYAML (``pip install PyYAML``, or ``pip install 'weft-sdk[test]'``).

From the command line::

    python3 -m weft.testing [--module check] [--path DIR] health_test.yaml

imports the plugin module (from DIR, by default the suite's directory), runs its registered check over the suite,
prints each failure and ``N passed, M failed``, and exits 0 when every case passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable, List, Optional, Sequence, Union

from weft import Check, Context, Health, Object, PluginError, Status, _run_check, registered_check

__all__ = [
    "HealthTestCase",
    "SuiteError",
    "SuiteReport",
    "assess_yaml",
    "case_failure",
    "main",
    "read_health_suite",
    "read_objects",
    "run_suite",
    "verdict_text",
    "yaml_documents",
]


def _yaml():
    try:
        from weft import _yaml
    except ImportError as e:
        raise ImportError(
            "weft.testing reads YAML with PyYAML, which is not installed: pip install PyYAML "
            "(or pip install 'weft-sdk[test]')"
        ) from e
    return _yaml


class SuiteError(Exception):
    """A suite or case file that cannot be read: the file at fault and what is wrong with it."""

    def __init__(self, path: Union[str, os.PathLike], reason: str) -> None:
        super().__init__(path, reason)
        self.path = os.fspath(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass
class SuiteReport:
    """The outcome of running a suite natively."""

    passed: int = 0
    """Cases whose verdict matched."""
    failures: List[str] = field(default_factory=list)
    """One line per case that did not, saying what was expected and what came back."""


@dataclass(frozen=True)
class HealthTestCase:
    """One case of an Argo CD ``health_test.yaml`` suite."""

    expected: Health
    """The expected verdict."""
    input: str
    """The object's file, resolved against the suite file's directory."""


# --- Formatting, exactly as the Rust SDK prints -------------------------------------------------------------------

_ESCAPED_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"))
_SIMPLE_ESCAPES = {"\0": "\\0", "\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"'}


def _debug_str(text: str) -> str:
    """`text` quoted as Rust's `{:?}` prints a `str`."""
    out = ['"']
    for c in text:
        simple = _SIMPLE_ESCAPES.get(c)
        if simple is not None:
            out.append(simple)
        elif " " <= c <= "~":
            out.append(c)
        elif unicodedata.category(c) in _ESCAPED_CATEGORIES or unicodedata.category(c) in ("Mn", "Me"):
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def verdict_text(verdict: Optional[Health]) -> str:
    """A verdict as every suite runner prints it: ``degraded "message"``, or ``no health`` when the check has no
    opinion."""
    if verdict is None:
        return "no health"
    return f"{verdict.status.value} {_debug_str(verdict.message)}"


def case_failure(input_path: Union[str, os.PathLike], expected: Health, got: str) -> str:
    """A failed case as every suite runner prints it: ``FILE: expected degraded "...", got progressing "..."``."""
    return f"{os.fspath(input_path)}: expected {verdict_text(expected)}, got {got}"


# --- Reading ------------------------------------------------------------------------------------------------------


def _read_text(path: Union[str, os.PathLike]) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        reason = f"{e.strerror} (os error {e.errno})" if e.errno is not None else str(e)
        raise SuiteError(path, reason) from None
    except UnicodeDecodeError as e:
        raise SuiteError(path, f"stream did not contain valid UTF-8: {e}") from None


def yaml_documents(text: str) -> list:
    """Every non-empty document of a YAML stream (``---``-separated), in order, as JSON-like values."""
    return _yaml().documents(text)


def read_objects(path: Union[str, os.PathLike]) -> List[Object]:
    """Every YAML document of a case file as an object: the first is the object assessed, the rest are what the
    check may find as its children (as ``weft plugin test`` and the server's cache give them)."""
    y = _yaml()
    text = _read_text(path)
    try:
        documents = y.documents(text)
    except y.error_types() as e:
        raise SuiteError(path, str(e)) from None
    objects = []
    for document in documents:
        try:
            objects.append(Object(document))
        except PluginError as e:
            raise SuiteError(path, e.message) from None
    if not objects:
        raise SuiteError(path, "no YAML document in the file")
    return objects


def read_health_suite(path: Union[str, os.PathLike]) -> List[HealthTestCase]:
    """Reads an Argo CD ``health_test.yaml`` suite: ``tests:`` entries of ``{healthStatus: {status, message},
    inputPath}``. Argo CD compares messages exactly, and an absent message means an empty one; so do we."""
    y = _yaml()
    text = _read_text(path)
    try:
        suite = y.load(text)
    except y.error_types() as e:
        raise SuiteError(path, str(e)) from None
    if not isinstance(suite, dict) or "tests" not in suite:
        raise SuiteError(path, "missing field `tests`")
    tests = suite["tests"]
    if not isinstance(tests, list):
        raise SuiteError(path, "tests: expected a sequence")
    base = os.path.dirname(os.fspath(path))
    cases = []
    for i, entry in enumerate(tests, start=1):
        if not isinstance(entry, dict):
            raise SuiteError(path, f"test {i}: expected a mapping")
        health_status = entry.get("healthStatus")
        input_path = entry.get("inputPath")
        if not isinstance(health_status, dict):
            raise SuiteError(path, f"test {i}: missing field `healthStatus`")
        if not isinstance(input_path, str):
            raise SuiteError(path, f"test {i}: missing field `inputPath`")
        name = health_status.get("status")
        message = health_status.get("message")
        if not isinstance(name, str):
            raise SuiteError(path, f"test {i}: missing field `status`")
        if message is None:
            message = ""
        if not isinstance(message, str):
            raise SuiteError(path, f"test {i}: the message is not a string")
        status = Status.parse(name)
        if status is None:
            raise SuiteError(path, f"test {i}: unknown health status {_debug_str(name)}")
        cases.append(HealthTestCase(Health(status, message), os.path.join(base, input_path)))
    return cases


# --- Running ------------------------------------------------------------------------------------------------------


def assess_yaml(
    check: Check,
    text: str,
    *,
    settings: Any = "",
    log: Any = None,
) -> Optional[Health]:
    """Assesses the first document of a YAML stream with `check`; the other documents are its possible children.
    Raises :class:`PluginError` as the component would report it."""
    documents = yaml_documents(text)
    objects = [Object(d) for d in documents]
    if not objects:
        raise PluginError.invalid_input("no YAML document")
    return _run_check(check, objects[0], Context(objects[1:], settings=settings, log=log))


def run_suite(
    check: Check,
    suite_path: Union[str, os.PathLike],
    *,
    settings: Any = "",
    log: Any = None,
) -> SuiteReport:
    """Runs an Argo CD suite against `check` natively, each case file's other documents as the object's possible
    children. Raises :class:`SuiteError` when a file cannot be read."""
    report = SuiteReport()
    for case in read_health_suite(suite_path):
        objects = read_objects(case.input)
        obj = objects.pop(0)
        cx = Context(objects, settings=settings, log=log)
        try:
            got = _run_check(check, obj, cx)
        except PluginError as error:
            report.failures.append(case_failure(case.input, case.expected, f"plugin error: {error}"))
            continue
        if got == case.expected:
            report.passed += 1
        else:
            report.failures.append(case_failure(case.input, case.expected, verdict_text(got)))
    return report


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python3 -m weft.testing``: runs a suite against a plugin module's registered check."""
    parser = argparse.ArgumentParser(
        prog="python3 -m weft.testing",
        description="Run an Argo CD health_test.yaml suite against a Python Weft health check, natively.",
    )
    parser.add_argument("suite", help="the health_test.yaml file")
    parser.add_argument("--module", default="check", help="the plugin's module (default: check)")
    parser.add_argument(
        "--path", help="the directory to import the module from (default: the suite's directory)"
    )
    parser.add_argument("--settings", default="", help="the plugin instance's settings, as JSON text")
    args = parser.parse_args(argv)

    directory = os.path.abspath(args.path or os.path.dirname(args.suite) or ".")
    if directory not in sys.path:
        sys.path.insert(0, directory)
    try:
        importlib.import_module(args.module)
        check = registered_check()
    except LookupError:
        print(f"error: module {args.module} registered no check (decorate a function with @weft.health_check)",
              file=sys.stderr)
        return 1
    except ImportError as e:
        print(f"error: cannot import {args.module} from {directory}: {e}", file=sys.stderr)
        return 1
    try:
        report = run_suite(check, args.suite, settings=args.settings)
    except (SuiteError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for failure in report.failures:
        print(failure)
    print(f"{report.passed} passed, {len(report.failures)} failed")
    return 0 if not report.failures else 1


if __name__ == "__main__":
    sys.exit(main())
