import contextlib
import io
import os
import shutil
import sys
import tempfile
import textwrap
import unittest

import _support
from weft import Context, Health, Object, PluginError

if _support.HAVE_YAML:
    from weft import testing


def child_count(obj, cx):
    """Healthy, counting the children it sees; degraded when `spec.fail`; an error when `spec.raise`."""
    if obj.bool("spec.raise"):
        raise PluginError.invalid_input("cannot read this")
    if obj.bool("spec.none"):
        return None
    n = len(cx.children(obj))
    if obj.bool("spec.fail"):
        return Health.degraded(f"{n} children")
    return Health.healthy(f"{n} children")


class SuiteDir:
    """A temporary suite: `files` maps relative paths to text."""

    def __init__(self, files):
        self.root = tempfile.mkdtemp(prefix="weft-py-suite-")
        for path, text in files.items():
            full = os.path.join(self.root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(textwrap.dedent(text))

    def path(self, relative):
        return os.path.join(self.root, relative)

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


PARENT_WITH_CHILDREN = """\
    ---
    kind: Parent
    metadata: {name: p, uid: p1}
    ---
    kind: Child
    metadata: {name: a, ownerReferences: [{uid: p1}]}
    ---
    kind: Child
    metadata: {name: b, ownerReferences: [{uid: other}]}
    ---
    """


@unittest.skipUnless(_support.HAVE_YAML, "needs PyYAML")
class FormattingTest(unittest.TestCase):
    def test_verdict_and_failure_lines_match_rust(self):
        self.assertEqual(testing.verdict_text(None), "no health")
        self.assertEqual(testing.verdict_text(Health.degraded("msg")), 'degraded "msg"')
        self.assertEqual(
            testing.verdict_text(Health.healthy('say "hi"\n\tback\\slash \x07 é ✓ \u200b')),
            'healthy "say \\"hi\\"\\n\\tback\\\\slash \\u{7} é ✓ \\u{200b}"',
        )
        self.assertEqual(
            testing.case_failure("testdata/x.yaml", Health.degraded("msg"), testing.verdict_text(Health.progressing("msg2"))),
            'testdata/x.yaml: expected degraded "msg", got progressing "msg2"',
        )


@unittest.skipUnless(_support.HAVE_YAML, "needs PyYAML")
class SuiteTest(unittest.TestCase):
    def setUp(self):
        self.suite = SuiteDir(
            {
                "health_test.yaml": """\
                    tests:
                    - healthStatus: {status: Healthy, message: 1 children}
                      inputPath: testdata/parent.yaml
                    - healthStatus: {status: Healthy, message: 0 children}
                      inputPath: testdata/alone.yaml
                    - healthStatus: {status: DEGRADED, message: "0 children"}
                      inputPath: testdata/failing.yaml
                    """,
                "failing_test.yaml": """\
                    tests:
                    - healthStatus: {status: Healthy, message: "2 children"}
                      inputPath: testdata/parent.yaml
                    - healthStatus: {status: Degraded}
                      inputPath: testdata/alone.yaml
                    - healthStatus: {status: Healthy}
                      inputPath: testdata/raising.yaml
                    - healthStatus: {status: Missing, message: gone}
                      inputPath: testdata/none.yaml
                    """,
                "testdata/parent.yaml": PARENT_WITH_CHILDREN,
                "testdata/alone.yaml": "kind: Parent\nmetadata: {name: alone}\n",
                "testdata/failing.yaml": "kind: Parent\nmetadata: {name: f}\nspec: {fail: true}\n",
                "testdata/raising.yaml": "kind: Parent\nspec: {raise: true}\n",
                "testdata/none.yaml": "kind: Parent\nspec: {none: true}\n",
            }
        )

    def tearDown(self):
        self.suite.close()

    def test_a_passing_suite_with_a_child_case(self):
        report = testing.run_suite(child_count, self.suite.path("health_test.yaml"))
        self.assertEqual((report.passed, report.failures), (3, []))

    def test_a_failing_suite_says_what_differs(self):
        report = testing.run_suite(child_count, self.suite.path("failing_test.yaml"))
        data = self.suite.path("testdata")
        self.assertEqual(report.passed, 0)
        self.assertEqual(
            report.failures,
            [
                f'{data}/parent.yaml: expected healthy "2 children", got healthy "1 children"',
                f'{data}/alone.yaml: expected degraded "", got healthy "0 children"',
                f'{data}/raising.yaml: expected healthy "", got plugin error: invalid input: cannot read this',
                f'{data}/none.yaml: expected missing "gone", got no health',
            ],
        )

    def test_relative_suite_paths_print_relative_inputs(self):
        cwd = os.getcwd()
        os.chdir(self.suite.root)
        try:
            report = testing.run_suite(child_count, "failing_test.yaml")
        finally:
            os.chdir(cwd)
        self.assertTrue(report.failures[0].startswith('testdata/parent.yaml: expected healthy "2 children"'))

    def test_read_health_suite(self):
        cases = testing.read_health_suite(self.suite.path("failing_test.yaml"))
        self.assertEqual(cases[1].expected, Health.degraded(""))
        self.assertEqual(cases[1].input, self.suite.path("testdata/alone.yaml"))

    def test_read_objects_and_assess_yaml(self):
        objects = testing.read_objects(self.suite.path("testdata/parent.yaml"))
        self.assertEqual([o.name for o in objects], ["p", "a", "b"])
        self.assertEqual(testing.assess_yaml(child_count, textwrap.dedent(PARENT_WITH_CHILDREN)), Health.healthy("1 children"))

    def test_suite_errors_name_the_file(self):
        bad = SuiteDir(
            {
                "status.yaml": "tests:\n- healthStatus: {status: Fine}\n  inputPath: x.yaml\n",
                "no-tests.yaml": "cases: []\n",
                "missing-input.yaml": "tests:\n- healthStatus: {status: Healthy}\n  inputPath: nowhere.yaml\n",
                "list-input.yaml": "tests:\n- healthStatus: {status: Healthy}\n  inputPath: list.yaml\n",
                "empty-input.yaml": "tests:\n- healthStatus: {status: Healthy}\n  inputPath: empty.yaml\n",
                "list.yaml": "- 1\n",
                "empty.yaml": "---\n---\n",
            }
        )
        try:
            expectations = {
                "status.yaml": (bad.path("status.yaml"), 'test 1: unknown health status "Fine"'),
                "no-tests.yaml": (bad.path("no-tests.yaml"), "missing field `tests`"),
                "missing-input.yaml": (bad.path("nowhere.yaml"), "No such file or directory (os error 2)"),
                "list-input.yaml": (bad.path("list.yaml"), "a Kubernetes object must be a JSON object"),
                "empty-input.yaml": (bad.path("empty.yaml"), "no YAML document in the file"),
            }
            for suite, (path, reason) in expectations.items():
                with self.subTest(suite=suite):
                    with self.assertRaises(testing.SuiteError) as raised:
                        testing.run_suite(child_count, bad.path(suite))
                    self.assertEqual((raised.exception.path, raised.exception.reason), (path, reason))
                    self.assertEqual(str(raised.exception), f"{path}: {reason}")
        finally:
            bad.close()


@unittest.skipUnless(_support.HAVE_YAML, "needs PyYAML")
class YamlRulesTest(unittest.TestCase):
    def test_reads_yaml_as_the_rust_sdk_does(self):
        [doc] = testing.yaml_documents(
            textwrap.dedent(
                """\
                a: yes
                b: on
                c: 0123
                d: 0o17
                e: 2024-01-01T00:00:00Z
                f: 1.5
                g: .inf
                h: ~
                i:
                j: "true"
                k: TRUE
                1: one
                true: key
                l: -0x10
                m: 1e3
                """
            )
        )
        self.assertEqual(
            doc,
            {
                "a": "yes", "b": "on", "c": "0123", "d": 15, "e": "2024-01-01T00:00:00Z", "f": 1.5, "g": None,
                "h": None, "i": None, "j": "true", "k": True, "1": "one", "true": "key", "l": -16, "m": 1000.0,
            },
        )
        self.assertEqual(testing.yaml_documents("---\n---\nkind: A\n---\n"), [{"kind": "A"}])


@unittest.skipUnless(_support.HAVE_YAML, "needs PyYAML")
class CommandLineTest(unittest.TestCase):
    def run_main(self, *argv):
        """Runs the command line as a fresh process would: the plugin module imported anew, and the import path,
        the modules and the registration restored afterwards."""
        out, err = io.StringIO(), io.StringIO()
        path, modules = list(sys.path), set(sys.modules)
        sys.modules.pop("check", None)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _support.registration_saved():
                code = testing.main(list(argv))
        finally:
            sys.path[:] = path
            for name in set(sys.modules) - modules:
                del sys.modules[name]
        return code, out.getvalue(), err.getvalue()

    def test_the_example_passes(self):
        code, out, _ = self.run_main(os.path.join(_support.EXAMPLE, "health_test.yaml"))
        self.assertEqual((code, out), (0, "6 passed, 0 failed\n"))

    def test_failures_are_printed_and_exit_1(self):
        suite = SuiteDir(
            {
                "plugin/weft_cli_probe_check.py": (
                    "import weft\n\n@weft.health_check\ndef check(obj, cx):\n"
                    "    return weft.Health.progressing(obj.name)\n"
                ),
                "health_test.yaml": "tests:\n- healthStatus: {status: Healthy, message: a}\n  inputPath: a.yaml\n",
                "a.yaml": "kind: X\nmetadata: {name: a}\n",
            }
        )
        try:
            code, out, _ = self.run_main(
                "--module", "weft_cli_probe_check", "--path", suite.path("plugin"), suite.path("health_test.yaml")
            )
        finally:
            suite.close()
        self.assertEqual(code, 1)
        self.assertEqual(
            out, f'{suite.path("a.yaml")}: expected healthy "a", got progressing "a"\n0 passed, 1 failed\n'
        )

    def test_a_missing_module_is_an_error(self):
        code, _, err = self.run_main("--module", "weft_no_such_module", os.path.join(_support.EXAMPLE, "health_test.yaml"))
        self.assertEqual(code, 1)
        self.assertIn("cannot import weft_no_such_module", err)


class ExampleTest(unittest.TestCase):
    """The Python port of examples/health-widget, as its Rust tests check it."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, _support.EXAMPLE)
        sys.modules.pop("check", None)
        try:
            with _support.registration_saved():
                import check
        finally:
            sys.path.remove(_support.EXAMPLE)
            sys.modules.pop("check", None)
        cls.check = staticmethod(check.widget_health)

    @unittest.skipUnless(_support.HAVE_YAML, "needs PyYAML")
    def test_passes_its_argocd_style_suite_natively(self):
        report = testing.run_suite(self.check, os.path.join(_support.EXAMPLE, "health_test.yaml"))
        self.assertEqual(report.failures, [])
        self.assertGreaterEqual(report.passed, 4)

    def test_waits_for_an_owned_deployment(self):
        widget = Object(
            {
                "apiVersion": "example.weft.dev/v1",
                "kind": "Widget",
                "metadata": {"name": "w", "uid": "w-1"},
                "status": {"conditions": [{"type": "Ready", "status": "True", "message": "ok"}]},
            }
        )
        deployment = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "w-web", "ownerReferences": [{"uid": "w-1"}]},
            "spec": {"replicas": 3},
            "status": {"availableReplicas": 1},
        }
        self.assertEqual(
            self.check(widget, Context([deployment])),
            Health.progressing("Waiting for deployment w-web: 1 of 3 replicas available"),
        )
        # Without the child, the Ready condition decides.
        self.assertEqual(self.check(widget, Context()), Health.healthy("ok"))


if __name__ == "__main__":
    unittest.main()
