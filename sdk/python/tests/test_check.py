import unittest
from datetime import datetime, timedelta, timezone

import _support
import weft
from weft import Context, ErrorKind, Health, Level, Object, PluginError, Status


class VerdictTest(unittest.TestCase):
    def test_status_names(self):
        self.assertEqual([s.value for s in Status], ["healthy", "progressing", "degraded", "suspended", "missing", "unknown"])
        for s in Status:
            self.assertIs(Status.parse(s.value.upper()), s)
            self.assertIs(Status.parse(s.value.capitalize()), s)
        self.assertIsNone(Status.parse("fine"))
        self.assertEqual(str(Status.DEGRADED), "degraded")
        self.assertEqual(f"{Status.DEGRADED}", "degraded")
        self.assertEqual(Status.HEALTHY, "healthy")

    def test_health_constructors(self):
        self.assertEqual(Health.healthy(), Health(Status.HEALTHY, ""))
        self.assertEqual(Health.progressing("p"), Health(Status.PROGRESSING, "p"))
        self.assertEqual(Health.degraded("d").status, Status.DEGRADED)
        self.assertEqual(Health.suspended().status, Status.SUSPENDED)
        self.assertEqual(Health.missing().status, Status.MISSING)
        self.assertEqual(Health.unknown("u"), Health("Unknown", "u"))
        with self.assertRaises(ValueError):
            Health("fine")

    def test_plugin_errors(self):
        self.assertEqual(PluginError.invalid_input("x").kind, ErrorKind.INVALID_INPUT)
        self.assertEqual(PluginError.unsupported("x").kind, ErrorKind.UNSUPPORTED)
        self.assertEqual(PluginError.failed("x"), PluginError("failed", "x"))
        self.assertEqual(str(PluginError.invalid_input("bad")), "invalid input: bad")
        self.assertIsInstance(PluginError.failed("x"), Exception)


def parent(uid="p1"):
    metadata = {"name": "p"}
    if uid is not None:
        metadata["uid"] = uid
    return Object({"kind": "Parent", "metadata": metadata})


def child(name, *owners):
    return {"kind": "Child", "metadata": {"name": name, "ownerReferences": [{"uid": o} for o in owners]}}


class ContextTest(unittest.TestCase):
    def test_children_follow_owner_uids(self):
        cx = Context([child("a", "p1"), child("b", "other"), Object(child("c", "x", "p1"))])
        self.assertEqual([c.name for c in cx.children(parent())], ["a", "c"])
        self.assertEqual(cx.children(parent("nobody")), [])
        self.assertEqual(Context().children(parent()), [])

    def test_an_object_without_uid_has_no_children(self):
        asked = []
        cx = Context([child("a", "p1")], related=lambda uid: asked.append(uid) or [])
        self.assertEqual(cx.children(parent(uid=None)), [])
        self.assertEqual(asked, [])

    def test_related_function_answers_children(self):
        cx = Context(related=lambda uid: [child("from-" + uid, uid)])
        self.assertEqual([c.name for c in cx.children(parent())], ["from-p1"])

    def test_settings(self):
        self.assertEqual(Context().settings, {})
        self.assertEqual(Context().settings_text, "")
        self.assertEqual(Context(settings="  ").settings, {})
        self.assertEqual(Context(settings=None).settings, {})
        cx = Context(settings='{"limit": 3}')
        self.assertEqual(cx.settings, {"limit": 3})
        self.assertEqual(cx.settings_text, '{"limit": 3}')
        given = Context(settings={"a": [1]})
        self.assertEqual(given.settings, {"a": [1]})
        self.assertEqual(given.settings_text, '{"a": [1]}')
        bad = Context(settings="{nope")
        for _ in range(2):
            with self.assertRaises(PluginError) as raised:
                bad.settings
            self.assertEqual(raised.exception.kind, ErrorKind.INVALID_INPUT)
            self.assertTrue(raised.exception.message.startswith("settings are not valid JSON"))

    def test_settings_are_read_once_and_only_when_asked(self):
        calls = []

        def source():
            calls.append(1)
            return '{"x": 1}'

        cx = Context(settings=source)
        self.assertEqual(calls, [])
        self.assertEqual(cx.settings["x"], 1)
        self.assertEqual(cx.settings_text, '{"x": 1}')
        self.assertEqual(cx.settings["x"], 1)
        self.assertEqual(calls, [1])

    def test_now(self):
        fixed = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
        self.assertEqual(Context(now=fixed).now, fixed)
        calls = []
        cx = Context(now=lambda: calls.append(1) or fixed)
        self.assertEqual((cx.now, cx.now), (fixed, fixed))
        self.assertEqual(calls, [1])
        native = Context()
        first = native.now
        self.assertEqual(first.utcoffset(), timedelta(0))
        self.assertLess(abs(datetime.now(timezone.utc) - first), timedelta(seconds=60))
        self.assertEqual(native.now, first)

    def test_log(self):
        lines = _support.LogCollector()
        cx = Context(log=lines)
        cx.log("INFO", "one")
        cx.log(Level.WARN, "two")
        cx.trace("t")
        cx.debug("d")
        cx.info("i")
        cx.warn("w")
        cx.error("e")
        self.assertEqual(
            lines.lines,
            [(Level.INFO, "one"), (Level.WARN, "two"), (Level.TRACE, "t"), (Level.DEBUG, "d"),
             (Level.INFO, "i"), (Level.WARN, "w"), (Level.ERROR, "e")],
        )
        with self.assertRaises(ValueError):
            cx.log("loud", "x")


class DecoratorTest(unittest.TestCase):
    def test_registers_and_returns_the_function(self):
        with _support.registration_saved():
            def check(obj, cx):
                return Health.healthy(obj.name)

            self.assertIs(weft.health_check(check), check)
            self.assertIs(weft.registered_check(), check)
            self.assertEqual(weft.assess({"metadata": {"name": "n"}}), Health.healthy("n"))

    def test_nothing_registered(self):
        with _support.registration_saved():
            weft._registered = None
            with self.assertRaises(LookupError):
                weft.registered_check()

    def test_error_mapping(self):
        def check(obj, cx):
            mode = obj.str("mode")
            if mode == "none":
                return None
            if mode == "plugin-error":
                raise PluginError.unsupported("not mine")
            if mode == "key-error":
                return obj.value["absent"]
            if mode == "bare":
                raise RuntimeError()
            if mode == "wrong-type":
                return "healthy"
            return Health.healthy("ok")

        lines = _support.LogCollector()
        cx = Context(log=lines)

        def run(mode):
            return weft.assess({"mode": mode}, cx, check)

        self.assertEqual(run("ok"), Health.healthy("ok"))
        self.assertIsNone(run("none"))
        with self.assertRaises(PluginError) as raised:
            run("plugin-error")
        self.assertEqual(raised.exception, PluginError.unsupported("not mine"))
        self.assertEqual(lines.lines, [])
        with self.assertRaises(PluginError) as raised:
            run("key-error")
        self.assertEqual(raised.exception, PluginError.failed("KeyError: 'absent'"))
        self.assertEqual(lines.lines[-1][0], Level.ERROR)
        self.assertIn("Traceback", lines.lines[-1][1])
        with self.assertRaises(PluginError) as raised:
            run("bare")
        self.assertEqual(raised.exception, PluginError.failed("RuntimeError"))
        with self.assertRaises(PluginError) as raised:
            run("wrong-type")
        self.assertEqual(raised.exception, PluginError.failed("the check returned str, not Health or None"))


class PurityTest(unittest.TestCase):
    def test_weft_imports_without_yaml_or_bindings(self):
        import subprocess
        import sys

        code = (
            "import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('yaml', 'wit_world', 'componentize_py_types', 'componentize_py_runtime'):\n"
            "            raise ImportError('blocked ' + name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import weft\n"
            "assert weft.Health.healthy('x').message == 'x'\n"
            "assert 'yaml' not in sys.modules\n"
        )
        result = subprocess.run([sys.executable, "-c", code], cwd=_support.SDK, capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)


if __name__ == "__main__":
    unittest.main()
