import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Health, PluginError } from '../index.js';
import {
  SuiteError,
  assessObject,
  assessYaml,
  caseFailure,
  debugString,
  readHealthSuite,
  readObjects,
  runSuite,
  verdictText,
  yamlDocuments,
} from '../testing.js';
import { assess as widget } from '../examples/health-widget/check.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const sdk = join(here, '..');
const example = join(sdk, 'examples', 'health-widget');
const cli = join(sdk, 'bin', 'weft-sdk-test.js');

function tempSuite(files) {
  const dir = mkdtempSync(join(tmpdir(), 'weft-sdk-js-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

const childCount = (obj, cx) => Health.healthy(`${cx.children(obj).length} children`);

test('the health-widget example passes its Argo CD suite natively', () => {
  const report = runSuite(widget, join(example, 'health_test.yaml'));
  assert.deepEqual(report.failures, []);
  assert.equal(report.passed, 6);
  assert.equal(report.cases.length, 6);
});

test('the example waits for an owned deployment, and without it the Ready condition decides', () => {
  const widgetYaml =
    "apiVersion: example.weft.dev/v1\nkind: Widget\nmetadata: {name: w, uid: w-1}\n" +
    "status: {conditions: [{type: Ready, status: 'True', message: ok}]}\n";
  const deploymentYaml =
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w-web, ownerReferences: [{uid: w-1}]}\n' +
    'spec: {replicas: 3}\nstatus: {availableReplicas: 1}\n';
  assert.deepEqual(
    assessYaml(widget, `${widgetYaml}---\n${deploymentYaml}`),
    Health.progressing('Waiting for deployment w-web: 1 of 3 replicas available'),
  );
  assert.deepEqual(assessYaml(widget, widgetYaml), Health.healthy('ok'));
  const [deployment] = yamlDocuments(deploymentYaml);
  assert.deepEqual(
    assessObject(widget, yamlDocuments(widgetYaml)[0], { related: [deployment] }),
    Health.progressing('Waiting for deployment w-web: 1 of 3 replicas available'),
  );
});

test('assessObject returns no opinion as undefined and throws plugin errors', () => {
  assert.equal(assessObject(() => null, { kind: 'X' }), undefined);
  assert.throws(
    () => assessObject(() => { throw PluginError.unsupported('no'); }, { kind: 'X' }),
    (e) => e instanceof PluginError && e.kind === 'unsupported' && e.message === 'no',
  );
  assert.throws(
    () => assessObject(() => { throw new RangeError('oops'); }, { kind: 'X' }, { log: () => {} }),
    (e) => e instanceof PluginError && e.kind === 'failed' && e.message === 'oops',
  );
});

test('failure lines are the Rust SDK’s, paths as given', () => {
  const dir = tempSuite({
    'health_test.yaml':
      'tests:\n- healthStatus: {status: Healthy, message: fine}\n  inputPath: testdata/a.yaml\n' +
      '- healthStatus: {status: Degraded}\n  inputPath: testdata/a.yaml\n',
    'testdata/a.yaml': '---\nkind: X\nmetadata: {name: a}\n',
  });
  try {
    const rel = relative(process.cwd(), dir);
    const cases = readHealthSuite(join(rel, 'health_test.yaml'));
    assert.deepEqual(cases[1].expected, Health.degraded(''));
    assert.equal(cases[0].input, `${rel}/testdata/a.yaml`);
    const report = runSuite(childCount, join(rel, 'health_test.yaml'));
    assert.equal(report.passed, 0);
    assert.deepEqual(report.failures, [
      `${rel}/testdata/a.yaml: expected healthy "fine", got healthy "0 children"`,
      `${rel}/testdata/a.yaml: expected degraded "", got healthy "0 children"`,
    ]);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('no health and plugin errors in failure lines; children from the other documents', () => {
  const dir = tempSuite({
    'health_test.yaml':
      'tests:\n' +
      '- {healthStatus: {status: healthy, message: "2 children"}, inputPath: family.yaml}\n' +
      '- {healthStatus: {status: Missing, message: "x"}, inputPath: none.yaml}\n' +
      '- {healthStatus: {status: Unknown, message: "x"}, inputPath: error.yaml}\n',
    'family.yaml':
      '# a comment\n---\nkind: Parent\nmetadata: {name: p, uid: p1}\n---\n---\n' +
      'kind: Child\nmetadata: {name: a, ownerReferences: [{uid: p1}]}\n---\n' +
      'kind: Child\nmetadata: {name: b, ownerReferences: [{uid: other}]}\n---\n' +
      'kind: Child\nmetadata: {name: c, ownerReferences: [{uid: p1}]}\n',
    'none.yaml': 'kind: None\n',
    'error.yaml': 'kind: Error\n',
  });
  try {
    const check = (obj, cx) => {
      if (obj.kind === 'None') return undefined;
      if (obj.kind === 'Error') throw PluginError.invalidInput('cannot read "spec"');
      return childCount(obj, cx);
    };
    const report = runSuite(check, `${dir}/health_test.yaml`);
    assert.equal(report.passed, 1);
    assert.deepEqual(report.failures, [
      `${dir}/none.yaml: expected missing "x", got no health`,
      `${dir}/error.yaml: expected unknown "x", got plugin error: invalid input: cannot read "spec"`,
    ]);
    assert.equal(readObjects(`${dir}/family.yaml`).length, 4);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('a suite runs relative to its own directory when given as a bare file name', () => {
  const dir = tempSuite({
    'health_test.yaml': 'tests:\n- {healthStatus: {status: Progressing, message: m}, inputPath: testdata/x.yaml}\n',
    'testdata/x.yaml': 'kind: X\n',
  });
  try {
    const result = spawnSync(process.execPath, [cli, '--module', join(here, 'fixtures', 'degraded.js'), 'health_test.yaml'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(result.stdout, 'FAIL testdata/x.yaml: expected progressing "m", got degraded "msg2"\n0 passed, 1 failed\n');
    assert.equal(result.status, 1);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('unreadable suites and case files name the file', () => {
  const dir = tempSuite({
    'bad-status.yaml': 'tests:\n- healthStatus: {status: Fine}\n  inputPath: x.yaml\n',
    'no-tests.yaml': 'cases: []\n',
    'missing-input.yaml': 'tests:\n- {healthStatus: {status: Healthy}, inputPath: nowhere.yaml}\n',
    'list.yaml': 'tests:\n- {healthStatus: {status: Healthy}, inputPath: list-doc.yaml}\n',
    'list-doc.yaml': '- 1\n- 2\n',
    'empty.yaml': 'tests:\n- {healthStatus: {status: Healthy}, inputPath: empty-doc.yaml}\n',
    'empty-doc.yaml': '# nothing\n---\n',
    'broken.yaml': 'tests: [\n',
  });
  const fails = (file, pattern) =>
    assert.throws(
      () => runSuite(childCount, `${dir}/${file}`),
      (e) => e instanceof SuiteError && pattern.test(e.message),
    );
  try {
    fails('bad-status.yaml', /bad-status\.yaml: test 1: unknown health status "Fine"$/);
    fails('no-tests.yaml', /no-tests\.yaml: missing field `tests`$/);
    fails('missing-input.yaml', /nowhere\.yaml: No such file or directory$/);
    fails('list.yaml', /list-doc\.yaml: a Kubernetes object must be a JSON object$/);
    fails('empty.yaml', /empty-doc\.yaml: no YAML document in the file$/);
    fails('broken.yaml', /broken\.yaml: /);
    fails('nothing-here.yaml', /nothing-here\.yaml: No such file or directory$/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('messages are quoted as Rust quotes them', () => {
  assert.equal(debugString('plain'), '"plain"');
  assert.equal(debugString('say "hi"\\'), '"say \\"hi\\"\\\\"');
  assert.equal(debugString("it's\n\t\r\0"), '"it\'s\\n\\t\\r\\0"');
  assert.equal(debugString('a\u00a0b\u200bc\u0007'), '"a\\u{a0}b\\u{200b}c\\u{7}"');
  assert.equal(debugString('e\u0301 é ü 日本 🙂'), '"e\\u{301} é ü 日本 🙂"');
  assert.equal(verdictText(undefined), 'no health');
  assert.equal(verdictText(Health.degraded('x "y"')), 'degraded "x \\"y\\""');
  assert.equal(
    caseFailure('testdata/x.yaml', Health.degraded('msg'), verdictText(Health.progressing('msg2'))),
    'testdata/x.yaml: expected degraded "msg", got progressing "msg2"',
  );
});

test('the CLI finds the check from weft-plugin.toml and reports like weft plugin test', () => {
  const result = spawnSync(process.execPath, [cli, join(example, 'health_test.yaml')], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 7);
  assert.ok(lines.slice(0, 6).every((l) => l.startsWith('ok   ')), result.stdout);
  assert.equal(lines[6], '6 passed, 0 failed');
});

test('the CLI exits 1 on failures and on errors, and passes settings', () => {
  const failing = spawnSync(
    process.execPath,
    [cli, '--module', join(here, 'fixtures', 'degraded.js'), join(example, 'health_test.yaml')],
    { encoding: 'utf8' },
  );
  assert.equal(failing.status, 1);
  assert.match(failing.stdout, /^FAIL .*testdata\/healthy\.yaml: expected healthy "Widget is serving", got degraded "msg2"$/m);
  assert.match(failing.stdout, /^0 passed, 6 failed$/m);

  const settings = spawnSync(
    process.execPath,
    [cli, '--module', join(here, 'fixtures', 'degraded.js'), '--settings', '{"message": "Widget is paused"}', join(example, 'health_test.yaml')],
    { encoding: 'utf8' },
  );
  assert.match(settings.stdout, /^FAIL .*paused\.yaml: expected suspended "Widget is paused", got degraded "Widget is paused"$/m);

  const missing = spawnSync(process.execPath, [cli, join(here, 'nowhere', 'health_test.yaml')], { encoding: 'utf8' });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^weft-sdk-test: /);

  const usage = spawnSync(process.execPath, [cli], { encoding: 'utf8' });
  assert.equal(usage.status, 1);
  assert.match(usage.stderr, /usage: weft-sdk-test/);
});
