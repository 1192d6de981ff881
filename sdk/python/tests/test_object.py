import unittest

import _support  # noqa: F401
from weft import Condition, Object, PluginError, Replicas


def deployment():
    return Object(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "web",
                "namespace": "shop",
                "generation": 3,
                "uid": "u1",
                "labels": {"app": "web"},
                "annotations": {"weft.dev/app": "shop"},
                "ownerReferences": [{"uid": "o1"}, {"name": "no-uid"}, "junk"],
            },
            "spec": {"replicas": 3, "paused": False, "nothing": None},
            "status": {
                "observedGeneration": 2.0,
                "readyReplicas": "2",
                "conditions": [
                    {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
                    7,
                    {"type": "Progressing", "status": "False", "message": "stuck", "observedGeneration": "3"},
                    {"type": "Available", "status": "False"},
                ],
            },
        }
    )


class PathTest(unittest.TestCase):
    def test_dotted_paths_index_objects_and_arrays(self):
        d = deployment()
        self.assertEqual(d.str("status.conditions.0.type"), "Available")
        self.assertEqual(d.get("status.conditions.2.message"), "stuck")
        self.assertEqual(d.get("status.conditions.+0.type"), "Available")  # as Rust's usize parse
        self.assertIsNone(d.get("status.conditions.9"))
        self.assertIsNone(d.get("status.conditions.-1"))
        self.assertIsNone(d.get("status.conditions.x"))
        self.assertIsNone(d.get("status.conditions. 0"))
        self.assertIsNone(d.get("metadata.name.more"))
        self.assertEqual(d.get("missing", "default"), "default")
        self.assertEqual(d.get("status.conditions.0"), d.value["status"]["conditions"][0])
        self.assertIs(d.get(""), None)

    def test_has_sees_null_but_get_does_not_tell(self):
        d = deployment()
        self.assertTrue(d.has("spec.nothing"))
        self.assertIsNone(d.get("spec.nothing"))
        self.assertEqual(d.get("spec.nothing", "default"), None)
        self.assertFalse(d.has("spec.absent"))

    def test_typed_readers(self):
        d = deployment()
        self.assertEqual(d.str("metadata.name"), "web")
        self.assertIsNone(d.str("metadata.generation"))
        self.assertEqual(d.int("metadata.generation"), 3)
        self.assertEqual(d.int("status.observedGeneration"), 2)  # integral float
        self.assertEqual(d.int("status.readyReplicas"), 2)  # decimal string
        self.assertIsNone(d.int("spec.paused"))  # a bool is not an int
        self.assertIs(d.bool("spec.paused"), False)
        self.assertIsNone(d.bool("spec.replicas"))
        self.assertEqual(len(d.array("status.conditions")), 4)
        self.assertEqual(d.array("metadata.name"), [])
        self.assertEqual(d.array("absent"), [])

    def test_int_rules(self):
        o = Object({"a": 1.5, "b": "-7", "c": "+7", "d": "7x", "e": " 7", "f": "1_0", "g": float("inf"), "h": 2**70})
        self.assertIsNone(o.int("a"))
        self.assertEqual(o.int("b"), -7)
        self.assertEqual(o.int("c"), 7)
        self.assertIsNone(o.int("d"))
        self.assertIsNone(o.int("e"))
        self.assertIsNone(o.int("f"))
        self.assertIsNone(o.int("g"))
        self.assertEqual(o.int("h"), 2**63 - 1)  # saturates like Rust's cast

    def test_at_reads_keys_with_dots(self):
        d = deployment()
        self.assertEqual(d.at("metadata", "annotations", "weft.dev/app"), "shop")
        self.assertIsNone(d.get("metadata.annotations.weft.dev/app"))
        self.assertEqual(d.annotation("weft.dev/app"), "shop")
        self.assertEqual(d.label("app"), "web")
        self.assertIsNone(d.label("missing"))


class IdentityTest(unittest.TestCase):
    def test_reads_identity(self):
        d = deployment()
        self.assertEqual((d.api_version, d.group, d.version, d.kind), ("apps/v1", "apps", "v1", "Deployment"))
        self.assertEqual((d.name, d.namespace, d.uid), ("web", "shop", "u1"))
        self.assertEqual(d.owner_uids(), ["o1"])
        self.assertFalse(d.is_deleting)

    def test_core_group_is_empty_and_absent_fields_are_neutral(self):
        pod = Object({"apiVersion": "v1", "kind": "Pod"})
        self.assertEqual((pod.group, pod.version), ("", "v1"))
        bare = Object({})
        self.assertEqual((bare.api_version, bare.group, bare.version, bare.kind, bare.name), ("", "", "", "", ""))
        self.assertIsNone(bare.namespace)
        self.assertIsNone(bare.uid)
        self.assertEqual(bare.owner_uids(), [])

    def test_is_deleting(self):
        self.assertTrue(Object({"metadata": {"deletionTimestamp": "2024-01-01T00:00:00Z"}}).is_deleting)
        self.assertFalse(Object({"metadata": {"deletionTimestamp": None}}).is_deleting)


class GenerationTest(unittest.TestCase):
    def test_generation_observed(self):
        self.assertFalse(deployment().generation_observed)
        self.assertEqual(deployment().generation, 3)
        self.assertEqual(deployment().observed_generation, 2)
        cases = [
            ({"metadata": {"generation": 2}, "status": {"observedGeneration": 2}}, True),
            ({"metadata": {"generation": 2}, "status": {"observedGeneration": 3}}, True),
            ({"metadata": {"generation": 4}, "status": {"observedGeneration": 3}}, False),
            ({"metadata": {"generation": 4}}, True),
            ({"status": {"observedGeneration": 1}}, True),
            ({"metadata": {"generation": "4"}, "status": {"observedGeneration": "3"}}, False),
            ({}, True),
        ]
        for value, expected in cases:
            with self.subTest(value=value):
                self.assertIs(Object(value).generation_observed, expected)


class ConditionTest(unittest.TestCase):
    def test_conditions_skip_garbage_and_first_of_a_type_wins(self):
        d = deployment()
        self.assertEqual([c.type for c in d.conditions()], ["Available", "Progressing", "Available"])
        available = d.condition("Available")
        self.assertTrue(available.is_true)
        self.assertFalse(available.is_false)
        self.assertEqual(available.reason, "MinimumReplicasAvailable")
        self.assertEqual(available.message, "")
        progressing = d.condition("Progressing")
        self.assertTrue(progressing.is_false)
        self.assertEqual((progressing.status, progressing.message), ("False", "stuck"))
        self.assertEqual(progressing.observed_generation, 3)
        self.assertEqual(progressing.field("message"), "stuck")
        self.assertIsNone(progressing.field("absent"))
        self.assertIsNone(d.condition("Ready"))

    def test_condition_defaults(self):
        c = Condition({"status": "Unknown"})
        self.assertEqual((c.type, c.reason, c.message), ("", "", ""))
        self.assertFalse(c.is_true or c.is_false)
        self.assertEqual(Object({"status": {"conditions": "nope"}}).conditions(), [])


class ReplicasTest(unittest.TestCase):
    def test_replicas(self):
        r = deployment().replicas()
        self.assertEqual((r.desired, r.ready, r.updated, r.current, r.available), (3, 2, 0, 0, 0))
        self.assertEqual(Object({"kind": "X"}).replicas(), Replicas(desired=1))
        self.assertEqual(Object({"spec": {"replicas": 0}}).replicas().desired, 0)
        full = Object(
            {
                "spec": {"replicas": 5},
                "status": {"replicas": 6, "updatedReplicas": 4, "readyReplicas": 3, "availableReplicas": 2},
            }
        ).replicas()
        self.assertEqual(full, Replicas(desired=5, current=6, updated=4, ready=3, available=2))


class ParsingTest(unittest.TestCase):
    def test_rejects_non_objects(self):
        for text in ["[1]", "{", "", "NaN", '{"a": NaN}', "1"]:
            with self.subTest(text=text):
                with self.assertRaises(PluginError) as raised:
                    Object.from_json(text)
                self.assertEqual(raised.exception.kind, "invalid-input")
        with self.assertRaises(PluginError) as raised:
            Object([1])
        self.assertEqual(raised.exception.message, "a Kubernetes object must be a JSON object")
        self.assertTrue(Object.from_json('{"kind": "Pod"}').kind == "Pod")
        self.assertTrue(Object.from_json(b'{"kind": "Pod"}').kind == "Pod")

    @unittest.skipUnless(_support.HAVE_YAML, "needs PyYAML")
    def test_from_yaml(self):
        pod = Object.from_yaml("kind: Pod\nmetadata: {name: p}")
        self.assertEqual(pod.name, "p")
        with self.assertRaises(PluginError):
            Object.from_yaml("- 1")
        with self.assertRaises(PluginError):
            Object.from_yaml("a: [")

    def test_equality_and_wrapping(self):
        self.assertEqual(Object({"a": 1}), Object(Object({"a": 1})))
        self.assertNotEqual(Object({"a": 1}), Object({"a": 2}))
        self.assertIn("Deployment", repr(deployment()))
        self.assertEqual(Object.from_json(deployment().to_json()), deployment())


if __name__ == "__main__":
    unittest.main()
