"""The bridge between componentize-py's generated bindings (``wit_world``) and the SDK: the ``health`` export.

Only imported inside a component build. The build's entry module is::

    import check  # noqa                       (the plugin's module: registers its check when imported)
    from weft.component import Health  # noqa  (the export class componentize-py looks for)

componentize-py runs the entry module at build time and snapshots the result, so everything ``assess`` needs is
imported here, at the top: a component has no file system to import from later.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import List

from componentize_py_types import Err, Ok
from wit_world import exports
from wit_world.imports import clock, related, settings, types
from wit_world.imports import log as host_log

import weft

_STATUS = {
    weft.Status.HEALTHY: types.HealthStatus.HEALTHY,
    weft.Status.PROGRESSING: types.HealthStatus.PROGRESSING,
    weft.Status.DEGRADED: types.HealthStatus.DEGRADED,
    weft.Status.SUSPENDED: types.HealthStatus.SUSPENDED,
    weft.Status.MISSING: types.HealthStatus.MISSING,
    weft.Status.UNKNOWN: types.HealthStatus.UNKNOWN,
}

_KIND = {
    weft.ErrorKind.INVALID_INPUT: types.ErrorKind.INVALID_INPUT,
    weft.ErrorKind.UNSUPPORTED: types.ErrorKind.UNSUPPORTED,
    weft.ErrorKind.FAILED: types.ErrorKind.FAILED,
}

_LEVEL = {
    weft.Level.TRACE: host_log.Level.TRACE,
    weft.Level.DEBUG: host_log.Level.DEBUG,
    weft.Level.INFO: host_log.Level.INFO,
    weft.Level.WARN: host_log.Level.WARN,
    weft.Level.ERROR: host_log.Level.ERROR,
}

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _children(uid: str) -> List[weft.Object]:
    """The host's children of `uid`; one that does not parse is skipped (as the Rust SDK does)."""
    found = []
    for text in related.children(uid):
        try:
            found.append(weft.Object.from_json(text))
        except weft.PluginError:
            pass
    return found


def _call_started() -> datetime:
    instant = clock.call_started()
    return _EPOCH + timedelta(seconds=instant.seconds, microseconds=instant.nanoseconds // 1000)


def _log(level: weft.Level, message: str) -> None:
    host_log.log(_LEVEL[level], message)


def _error(error: weft.PluginError) -> Err:
    return Err(types.PluginError(_KIND[error.kind], error.message))


class Health(exports.Health):
    """The ``health`` export: assesses a batch with the check registered by ``@weft.health_check``."""

    def assess(self, objects: List[str]) -> list:
        try:
            check = weft.registered_check()
        except LookupError as e:
            return [_error(weft.PluginError.failed(str(e)))] * len(objects)
        # One context per call: the settings are read (and parsed) at most once, and only if the check asks; the
        # clock likewise.
        cx = weft.Context(related=_children, settings=settings.get, now=_call_started, log=_log)
        run = weft._run_check
        results = []
        for text in objects:
            try:
                verdict = run(check, weft.Object.from_json(text), cx)
            except weft.PluginError as error:
                results.append(_error(error))
                continue
            if verdict is None:
                results.append(Ok(None))
            else:
                results.append(Ok(types.Health(_STATUS[verdict.status], verdict.message)))
        return results
