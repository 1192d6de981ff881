"""Shared test helpers: puts the SDK on the path and saves/restores the registered check."""

import contextlib
import os
import sys

SDK = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(SDK, "examples", "health-widget")
if SDK not in sys.path:
    sys.path.insert(0, SDK)

import weft  # noqa: E402

try:
    import yaml  # noqa: F401

    HAVE_YAML = True
except ImportError:
    HAVE_YAML = False


@contextlib.contextmanager
def registration_saved():
    """Restores whatever check was registered before the block."""
    saved = weft._registered
    try:
        yield
    finally:
        weft._registered = saved


class LogCollector:
    """A `log` for a Context that keeps the lines."""

    def __init__(self):
        self.lines = []

    def __call__(self, level, message):
        self.lines.append((level, message))
