"""The Weft plugin SDK for Python: write a health check in a few lines, test it natively, ship it as a component.

A health check is a function decorated with :func:`health_check`::

    import weft

    @weft.health_check
    def widget(obj: weft.Object, cx: weft.Context) -> weft.Health | None:
        if not obj.generation_observed:
            return weft.Health.progressing("Waiting for the controller to observe the spec")
        ready = obj.condition("Ready")
        if ready and ready.is_true:
            return weft.Health.healthy(ready.message)
        return weft.Health.progressing("Waiting for the Ready condition")

Returning ``None`` means "no opinion" (Argo CD's nil health: the host asks the next plugin); raising
:class:`PluginError` reports that error; any other exception becomes a ``failed`` error carrying its text.

This module is pure Python and imports nothing outside the standard library, so the same check runs natively
(``python3 -m weft.testing health_test.yaml``) and inside the component (``weft.component`` is the bridge).
"""

from __future__ import annotations

import json
import sys
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from typing import Any, Callable, Iterable, Mapping, Optional, Union

__all__ = [
    "Condition",
    "Context",
    "ErrorKind",
    "Health",
    "Level",
    "Object",
    "PluginError",
    "Replicas",
    "Status",
    "assess",
    "health_check",
    "registered_check",
]

__version__ = "0.1.0"


# --- Verdicts and errors ------------------------------------------------------------------------------------------


class Status(str, Enum):
    """The health of one object, in Argo CD's vocabulary (the lowercase wire names)."""

    HEALTHY = "healthy"
    """The object does what it was asked to do."""
    PROGRESSING = "progressing"
    """The object is moving towards the asked state and has not failed yet."""
    DEGRADED = "degraded"
    """The object failed, or cannot reach the asked state without a change."""
    SUSPENDED = "suspended"
    """The object was paused or suspended on purpose."""
    MISSING = "missing"
    """The object that should exist does not."""
    UNKNOWN = "unknown"
    """The check looked and could not tell."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @classmethod
    def parse(cls, name: str) -> Optional["Status"]:
        """A status name in any case (``Healthy``, ``healthy``, ``HEALTHY``), as Argo CD's test files write them;
        ``None`` when it names no status."""
        if not isinstance(name, str):
            return None
        lowered = name.lower()
        for status in cls:
            if status.value == lowered and name.isascii():
                return status
        return None


@dataclass(frozen=True)
class Health:
    """An assessment: a status and the reason a person reads next to it (compared exactly by test suites; an empty
    message is a valid message)."""

    status: Status
    message: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.status, Status):
            status = Status.parse(self.status) if isinstance(self.status, str) else None
            if status is None:
                raise ValueError(f"not a health status: {self.status!r}")
            object.__setattr__(self, "status", status)
        if not isinstance(self.message, str):
            raise TypeError(f"a health message is a str, not {type(self.message).__name__}")

    @classmethod
    def healthy(cls, message: str = "") -> "Health":
        """``healthy`` with a message."""
        return cls(Status.HEALTHY, message)

    @classmethod
    def progressing(cls, message: str = "") -> "Health":
        """``progressing`` with a message."""
        return cls(Status.PROGRESSING, message)

    @classmethod
    def degraded(cls, message: str = "") -> "Health":
        """``degraded`` with a message."""
        return cls(Status.DEGRADED, message)

    @classmethod
    def suspended(cls, message: str = "") -> "Health":
        """``suspended`` with a message."""
        return cls(Status.SUSPENDED, message)

    @classmethod
    def missing(cls, message: str = "") -> "Health":
        """``missing`` with a message."""
        return cls(Status.MISSING, message)

    @classmethod
    def unknown(cls, message: str = "") -> "Health":
        """``unknown`` with a message."""
        return cls(Status.UNKNOWN, message)


class ErrorKind(str, Enum):
    """Why a plugin could not do its job at all (the WIT ``error-kind``)."""

    INVALID_INPUT = "invalid-input"
    """The input was not what the plugin understands."""
    UNSUPPORTED = "unsupported"
    """The plugin does not handle this input."""
    FAILED = "failed"
    """The plugin failed while doing its work."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


_KIND_WORDS = {
    ErrorKind.INVALID_INPUT: "invalid input",
    ErrorKind.UNSUPPORTED: "unsupported",
    ErrorKind.FAILED: "failed",
}


class PluginError(Exception):
    """A plugin's own error: raise it from a check when the check cannot work at all (a degraded object is a
    :class:`Health`, not an error)."""

    def __init__(self, kind: Union[ErrorKind, str], message: str = "") -> None:
        kind = ErrorKind(kind)
        super().__init__(kind, message)
        self.kind: ErrorKind = kind
        self.message: str = str(message)

    @classmethod
    def invalid_input(cls, message: str) -> "PluginError":
        """An ``invalid-input`` error."""
        return cls(ErrorKind.INVALID_INPUT, message)

    @classmethod
    def unsupported(cls, message: str) -> "PluginError":
        """An ``unsupported`` error."""
        return cls(ErrorKind.UNSUPPORTED, message)

    @classmethod
    def failed(cls, message: str) -> "PluginError":
        """A ``failed`` error."""
        return cls(ErrorKind.FAILED, message)

    def __str__(self) -> str:
        return f"{_KIND_WORDS[self.kind]}: {self.message}"

    def __repr__(self) -> str:
        return f"PluginError({self.kind.value!r}, {self.message!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PluginError):
            return NotImplemented
        return (self.kind, self.message) == (other.kind, other.message)

    def __hash__(self) -> int:
        return hash((self.kind, self.message))


# --- Objects ------------------------------------------------------------------------------------------------------

_ABSENT = object()
_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1


def _lookup(value: Any, segments: Iterable[str]) -> Any:
    """The value at `segments`, or ``_ABSENT``: keys index objects, non-negative integers index arrays."""
    for segment in segments:
        if isinstance(value, dict):
            value = value.get(segment, _ABSENT)
            if value is _ABSENT:
                return _ABSENT
        elif isinstance(value, list):
            # As Rust's `usize` parse: ASCII digits with an optional `+`.
            digits = segment[1:] if segment[:1] == "+" else segment
            if not (digits and digits.isascii() and digits.isdigit()):
                return _ABSENT
            index = int(digits)
            if index >= len(value):
                return _ABSENT
            value = value[index]
        else:
            return _ABSENT
    return value


def _as_int(value: Any) -> Optional[int]:
    """An integer, also from an integral float or a decimal string (some controllers write counts as strings)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return min(max(value, _I64_MIN), _I64_MAX)
    if isinstance(value, float):
        if value.is_integer():
            return min(max(int(value), _I64_MIN), _I64_MAX)
        return None
    if isinstance(value, str):
        digits = value[1:] if value[:1] in ("+", "-") else value
        if digits and digits.isascii() and digits.isdigit():
            number = int(value)
            if _I64_MIN <= number <= _I64_MAX:
                return number
    return None


_JSON = json.JSONDecoder(parse_constant=lambda name: _reject_constant(name))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


@dataclass(frozen=True)
class Replicas:
    """Replica counts of a workload: ``spec.replicas`` and the usual ``status`` counters, each absent one read as 0
    except ``desired``, which defaults to 1 as the API server does."""

    desired: int = 1
    """``spec.replicas`` (1 when absent)."""
    current: int = 0
    """``status.replicas``."""
    updated: int = 0
    """``status.updatedReplicas``."""
    ready: int = 0
    """``status.readyReplicas``."""
    available: int = 0
    """``status.availableReplicas``."""


class Condition:
    """One entry of ``status.conditions``, read with the Kubernetes conventions."""

    __slots__ = ("_fields",)

    def __init__(self, fields: dict) -> None:
        self._fields = fields

    def _text(self, key: str) -> str:
        value = self._fields.get(key)
        return value if isinstance(value, str) else ""

    @property
    def value(self) -> dict:
        """The condition's fields."""
        return self._fields

    @property
    def type(self) -> str:
        """``type``, empty when absent."""
        return self._text("type")

    @property
    def status(self) -> str:
        """``status`` as written (``True``, ``False``, ``Unknown``), empty when absent."""
        return self._text("status")

    @property
    def is_true(self) -> bool:
        """Whether ``status`` is ``True``."""
        return self._fields.get("status") == "True"

    @property
    def is_false(self) -> bool:
        """Whether ``status`` is ``False``."""
        return self._fields.get("status") == "False"

    @property
    def reason(self) -> str:
        """``reason``, empty when absent."""
        return self._text("reason")

    @property
    def message(self) -> str:
        """``message``, empty when absent."""
        return self._text("message")

    @property
    def observed_generation(self) -> Optional[int]:
        """``observedGeneration`` of the condition, when the controller sets it."""
        return _as_int(self._fields.get("observedGeneration"))

    def field(self, key: str) -> Any:
        """Any other field (``None`` when absent)."""
        return self._fields.get(key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Condition):
            return NotImplemented
        return self._fields == other._fields

    def __repr__(self) -> str:
        return f"Condition({self._fields!r})"


class Object:
    """One Kubernetes object (a parsed JSON object), with forgiving accessors: every one returns ``None`` or a
    neutral default instead of failing, so a check reads like the rule it implements.

    Paths are dotted (``status.conditions.0.type``): keys index objects, numeric segments index arrays. Use
    :meth:`at` when a key itself contains a dot.
    """

    __slots__ = ("_value",)

    def __init__(self, value: Union[dict, "Object"]) -> None:
        if isinstance(value, Object):
            value = value._value
        if not isinstance(value, dict):
            raise PluginError.invalid_input("a Kubernetes object must be a JSON object")
        self._value = value

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "Object":
        """Parses JSON text; a :class:`PluginError` (``invalid-input``) when it is not a JSON object."""
        try:
            if isinstance(text, (bytes, bytearray)):
                text = text.decode("utf-8")
            value = _JSON.decode(text)
        except ValueError as e:
            raise PluginError.invalid_input(f"object is not valid JSON: {e}") from None
        return cls(value)

    @classmethod
    def from_yaml(cls, text: str) -> "Object":
        """Parses YAML text (the first document; needs PyYAML, so for tests rather than plugins)."""
        from weft import _yaml

        try:
            documents = _yaml.documents(text)
        except _yaml.error_types() as e:
            raise PluginError.invalid_input(f"object is not valid YAML: {e}") from None
        return cls(documents[0] if documents else None)

    @property
    def value(self) -> dict:
        """The whole object."""
        return self._value

    def to_json(self) -> str:
        """The object as compact JSON text."""
        return json.dumps(self._value, separators=(",", ":"), ensure_ascii=False)

    # Paths.

    def get(self, path: str, default: Any = None) -> Any:
        """The value at a dotted path; `default` when nothing is there (a JSON ``null`` is returned as ``None``)."""
        found = _lookup(self._value, path.split("."))
        return default if found is _ABSENT else found

    def at(self, *segments: str) -> Any:
        """The value at a path given as segments, for keys that contain dots:
        ``obj.at("metadata", "annotations", "a.b/c")``; ``None`` when absent."""
        found = _lookup(self._value, segments)
        return None if found is _ABSENT else found

    def str(self, path: str) -> Optional[str]:
        """A string at a dotted path."""
        found = _lookup(self._value, path.split("."))
        return found if isinstance(found, str) else None

    def int(self, path: str) -> Optional[int]:
        """An integer at a dotted path (also from an integral float or a decimal string)."""
        return _as_int(_lookup(self._value, path.split(".")))

    def bool(self, path: str) -> Optional[bool]:
        """A boolean at a dotted path."""
        found = _lookup(self._value, path.split("."))
        return found if isinstance(found, bool) else None

    def array(self, path: str) -> list:
        """An array at a dotted path (empty when absent or not an array)."""
        found = _lookup(self._value, path.split("."))
        return found if isinstance(found, list) else []

    def has(self, path: str) -> bool:
        """Whether anything (even ``null``) is at a dotted path."""
        return _lookup(self._value, path.split(".")) is not _ABSENT

    # Identity.

    @property
    def api_version(self) -> str:
        """``apiVersion``, e.g. ``apps/v1`` (empty when absent)."""
        value = self._value.get("apiVersion")
        return value if isinstance(value, str) else ""

    @property
    def group(self) -> str:
        """The API group (``apps`` for ``apps/v1``, empty for the core group ``v1``)."""
        group, slash, _ = self.api_version.partition("/")
        return group if slash else ""

    @property
    def version(self) -> str:
        """The API version without the group (``v1`` for ``apps/v1``)."""
        api_version = self.api_version
        _, slash, version = api_version.partition("/")
        return version if slash else api_version

    @property
    def kind(self) -> str:
        """``kind`` (empty when absent)."""
        value = self._value.get("kind")
        return value if isinstance(value, str) else ""

    @property
    def name(self) -> str:
        """``metadata.name`` (empty when absent)."""
        return self.str("metadata.name") or ""

    @property
    def namespace(self) -> Optional[str]:
        """``metadata.namespace``, when set."""
        return self.str("metadata.namespace")

    @property
    def uid(self) -> Optional[str]:
        """``metadata.uid``, when set."""
        return self.str("metadata.uid")

    def label(self, key: str) -> Optional[str]:
        """A label."""
        value = _lookup(self._value, ("metadata", "labels", key))
        return value if isinstance(value, str) else None

    def annotation(self, key: str) -> Optional[str]:
        """An annotation."""
        value = _lookup(self._value, ("metadata", "annotations", key))
        return value if isinstance(value, str) else None

    @property
    def is_deleting(self) -> bool:
        """Whether the object is being deleted (``metadata.deletionTimestamp`` is set)."""
        return self.get("metadata.deletionTimestamp") is not None

    @property
    def generation(self) -> Optional[int]:
        """``metadata.generation``."""
        return self.int("metadata.generation")

    @property
    def observed_generation(self) -> Optional[int]:
        """``status.observedGeneration``."""
        return self.int("status.observedGeneration")

    @property
    def generation_observed(self) -> bool:
        """Whether the controller has seen the current spec: true when ``status.observedGeneration`` is at least
        ``metadata.generation``, or when either is absent (a controller that does not report it cannot lag)."""
        generation, observed = self.generation, self.observed_generation
        if generation is None or observed is None:
            return True
        return observed >= generation

    # Status.

    def conditions(self) -> list[Condition]:
        """``status.conditions``, each wrapped for typed reading; entries that are not objects are skipped."""
        return [Condition(c) for c in self.array("status.conditions") if isinstance(c, dict)]

    def condition(self, condition_type: str) -> Optional[Condition]:
        """The first condition of a type."""
        for c in self.array("status.conditions"):
            if isinstance(c, dict) and c.get("type") == condition_type:
                return Condition(c)
        return None

    def replicas(self) -> Replicas:
        """Replica counts of a workload."""
        spec = self.int("spec.replicas")
        return Replicas(
            desired=1 if spec is None else spec,
            current=self.int("status.replicas") or 0,
            updated=self.int("status.updatedReplicas") or 0,
            ready=self.int("status.readyReplicas") or 0,
            available=self.int("status.availableReplicas") or 0,
        )

    def owner_uids(self) -> list[str]:
        """The ``metadata.ownerReferences`` UIDs."""
        return [
            r["uid"]
            for r in self.array("metadata.ownerReferences")
            if isinstance(r, dict) and isinstance(r.get("uid"), str)
        ]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Object):
            return NotImplemented
        return self._value == other._value

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dict it wraps

    def __repr__(self) -> str:
        kind, name = self.kind or "?", self.name
        return f"<Object {kind} {name!r}>" if name else f"<Object {kind}>"


# --- The context a check runs in ----------------------------------------------------------------------------------


class Level(str, Enum):
    """Severity of a log line, as in the WIT ``log`` interface."""

    TRACE = "trace"
    DEBUG = "debug"
    INFO = "info"
    WARN = "warn"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


def _stderr_log(level: Level, message: str) -> None:
    print(f"[{level.value.capitalize()}] {message}", file=sys.stderr)


def _to_object(value: Union[Object, dict]) -> Object:
    return value if isinstance(value, Object) else Object(value)


_UNSET = object()


class Context:
    """What a check can ask the host while it assesses an object: the objects it owns, the plugin instance's
    settings, the time the call started, and a log.

    Inside the component, ``weft.component`` builds it from the host's imports. Natively (tests), build one
    directly: ``Context([child1, child2], settings={"limit": 3})``; every argument is optional.

    :param objects: possible children (``Object`` or dicts), found by their ``ownerReferences``, as the host's
        cache would hold them.
    :param settings: the settings as JSON text, as a parsed value (a dict), or a function returning the text
        (called once, when first needed).
    :param now: the call's start (a timezone-aware datetime) or a function returning it; defaults to the wall
        clock when first read.
    :param log: a function ``(Level, str)``; defaults to printing on stderr.
    :param related: a function ``uid -> list[Object]`` answering children instead of `objects`.
    """

    __slots__ = ("_objects", "_related", "_settings_source", "_settings_text", "_settings", "_now", "_log")

    def __init__(
        self,
        objects: Iterable[Union[Object, dict]] = (),
        *,
        settings: Any = "",
        now: Union[datetime, Callable[[], datetime], None] = None,
        log: Optional[Callable[[Level, str], None]] = None,
        related: Optional[Callable[[str], Iterable[Object]]] = None,
    ) -> None:
        self._objects = [_to_object(o) for o in objects]
        self._related = related
        self._settings_text: Any = _UNSET
        self._settings: Any = _UNSET
        if settings is None or isinstance(settings, str) or callable(settings):
            self._settings_source = settings
        else:
            self._settings_source = None
            self._settings = settings
            self._settings_text = json.dumps(settings)
        self._now = now
        self._log = log or _stderr_log

    # Related objects.

    def children(self, obj: Object) -> list[Object]:
        """The objects owned by `obj` (through ``ownerReferences``); empty when `obj` has no uid."""
        uid = obj.uid
        if uid is None:
            return []
        if self._related is not None:
            return [_to_object(o) for o in self._related(uid)]
        return [o for o in self._objects if uid in o.owner_uids()]

    # Settings.

    @property
    def settings_text(self) -> str:
        """The settings of the plugin instance as the host gave them (JSON text; empty when there are none)."""
        if self._settings_text is _UNSET:
            source = self._settings_source
            text = source() if callable(source) else source
            self._settings_text = text or ""
        return self._settings_text

    @property
    def settings(self) -> Any:
        """The settings, parsed (``{}`` when there are none); an ``invalid-input`` :class:`PluginError` when they are
        not JSON. Parsed once per context (once per call inside the component)."""
        if self._settings is _UNSET:
            text = self.settings_text
            if not text.strip():
                self._settings = {}
            else:
                try:
                    self._settings = _JSON.decode(text)
                except ValueError as e:
                    self._settings = PluginError.invalid_input(f"settings are not valid JSON: {e}")
        if isinstance(self._settings, PluginError):
            raise PluginError(self._settings.kind, self._settings.message)
        return self._settings

    # Time.

    @property
    def now(self) -> datetime:
        """When the call started, as a timezone-aware UTC datetime; the same for the whole call."""
        now = self._now
        if now is None:
            now = self._now = datetime.now(timezone.utc)
        elif callable(now):
            now = self._now = now()
        return now

    # Log.

    def log(self, level: Union[Level, str], message: str) -> None:
        """Logs one line (to the host inside the component, to stderr natively)."""
        self._log(Level(level.lower()) if isinstance(level, str) else level, str(message))

    def trace(self, message: str) -> None:
        """Logs at ``trace``."""
        self._log(Level.TRACE, str(message))

    def debug(self, message: str) -> None:
        """Logs at ``debug``."""
        self._log(Level.DEBUG, str(message))

    def info(self, message: str) -> None:
        """Logs at ``info``."""
        self._log(Level.INFO, str(message))

    def warn(self, message: str) -> None:
        """Logs at ``warn``."""
        self._log(Level.WARN, str(message))

    def error(self, message: str) -> None:
        """Logs at ``error``."""
        self._log(Level.ERROR, str(message))


# --- Registering and running the check ----------------------------------------------------------------------------

Check = Callable[[Object, Context], Optional[Health]]

_registered: Optional[Check] = None


def health_check(fn: Check) -> Check:
    """Registers `fn` as the plugin's health check and returns it unchanged. One plugin has one check: the last
    registration wins."""
    global _registered
    if not callable(fn):
        raise TypeError("@health_check decorates a function (obj, cx) -> Health | None")
    _registered = fn
    return fn


def registered_check() -> Check:
    """The function registered with :func:`health_check`."""
    if _registered is None:
        raise LookupError("no health check is registered: decorate a function with @weft.health_check")
    return _registered


def _run_check(check: Check, obj: Object, cx: Context) -> Optional[Health]:
    """Runs `check` with the SDK's rules: ``None`` is no opinion, a :class:`PluginError` is that error, any other
    exception is a ``failed`` error with its text (and its traceback logged at ``error``)."""
    try:
        verdict = check(obj, cx)
    except PluginError:
        raise
    except Exception as e:  # noqa: BLE001 - a check's bug is reported, not propagated
        text = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        try:
            cx.error("the check raised " + "".join(traceback.format_exception(type(e), e, e.__traceback__)))
        except Exception:  # noqa: BLE001 - logging must not hide the verdict
            pass
        raise PluginError.failed(text) from None
    if verdict is None or isinstance(verdict, Health):
        return verdict
    raise PluginError.failed(f"the check returned {type(verdict).__name__}, not Health or None")


def assess(
    obj: Union[Object, dict],
    cx: Optional[Context] = None,
    check: Optional[Check] = None,
) -> Optional[Health]:
    """Assesses one object with `check` (the registered one by default) as the component would: returns the
    verdict or ``None``, raises :class:`PluginError`."""
    return _run_check(check or registered_check(), _to_object(obj), cx if cx is not None else Context())
