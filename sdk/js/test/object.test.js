import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Condition, Health, K8sObject, PluginError, WeftObject, asInt } from '../index.js';

function deployment() {
  return new WeftObject({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'shop',
      generation: 3,
      uid: 'u1',
      labels: { app: 'web' },
      annotations: { 'weft.dev/app': 'shop' },
      ownerReferences: [{ uid: 'o1' }, { name: 'no-uid' }, 'garbage'],
    },
    spec: { replicas: 3, paused: false },
    status: {
      observedGeneration: 2.0,
      readyReplicas: '2',
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok', observedGeneration: 3 },
        7,
        { type: 'Progressing', status: 'False' },
      ],
    },
  });
}

test('reads identity', () => {
  const d = deployment();
  assert.deepEqual([d.apiVersion, d.group, d.version, d.kind], ['apps/v1', 'apps', 'v1', 'Deployment']);
  assert.deepEqual([d.name, d.namespace, d.uid], ['web', 'shop', 'u1']);
  assert.equal(d.label('app'), 'web');
  assert.equal(d.label('missing'), undefined);
  assert.equal(d.annotation('weft.dev/app'), 'shop');
  assert.equal(d.isDeleting, false);
  assert.equal(K8sObject, WeftObject);
});

test('the core group is empty; absent identity reads as empty or undefined', () => {
  const pod = new WeftObject({ apiVersion: 'v1', kind: 'Pod' });
  assert.deepEqual([pod.group, pod.version], ['', 'v1']);
  const bare = new WeftObject({});
  assert.deepEqual([bare.apiVersion, bare.kind, bare.name, bare.group, bare.version], ['', '', '', '', '']);
  assert.equal(bare.namespace, undefined);
  assert.equal(bare.uid, undefined);
  assert.equal(bare.generation, undefined);
});

test('dotted paths index objects and arrays as the Rust SDK does', () => {
  const d = deployment();
  assert.equal(d.str('status.conditions.0.type'), 'Available');
  assert.equal(d.get('status.conditions.9'), undefined);
  assert.equal(d.get('status.conditions.-1'), undefined);
  assert.equal(d.get('status.conditions.x'), undefined);
  assert.equal(d.str('status.conditions.+0.type'), 'Available'); // Rust's usize parse takes a leading +
  assert.equal(d.get('metadata.name.length'), undefined); // strings have no fields
  assert.equal(d.get('constructor'), undefined); // only own keys
  assert.equal(d.get('spec.paused'), false);
  assert.equal(d.str('spec.replicas'), undefined); // a number is not a string
  assert.equal(d.int('spec.replicas'), 3);
  assert.equal(d.bool('spec.paused'), false);
  assert.equal(d.bool('spec.replicas'), undefined);
  assert.deepEqual(d.array('spec.replicas'), []);
  assert.equal(d.array('status.conditions').length, 3);
  assert.equal(d.has('spec.paused'), true);
  assert.equal(d.has('spec.nothing'), false);
  // Keys with dots need `at`.
  assert.equal(d.get('metadata.annotations.weft.dev/app'), undefined);
  assert.equal(d.at(['metadata', 'annotations', 'weft.dev/app']), 'shop');
  // A null that is there is there.
  const o = new WeftObject({ a: { b: null }, '': { x: 1 } });
  assert.equal(o.get('a.b'), null);
  assert.equal(o.has('a.b'), true);
  assert.equal(o.get('.x'), 1); // an empty segment is the key ""
  assert.deepEqual(o.get('a'), { b: null });
});

test('integers come from numbers, integral floats and decimal strings', () => {
  assert.equal(asInt(5), 5);
  assert.equal(asInt(2.0), 2);
  assert.equal(asInt(2.5), undefined);
  assert.equal(asInt('42'), 42);
  assert.equal(asInt('-7'), -7);
  assert.equal(asInt('+7'), 7);
  assert.equal(asInt(' 7'), undefined);
  assert.equal(asInt('7.0'), undefined);
  assert.equal(asInt('99999999999999999999'), undefined); // past i64
  assert.equal(asInt(true), undefined);
  assert.equal(asInt(null), undefined);
});

test('generation lag', () => {
  const d = deployment();
  assert.equal(d.generation, 3);
  assert.equal(d.observedGeneration, 2);
  assert.equal(d.generationObserved(), false);
  assert.equal(new WeftObject({ kind: 'X' }).generationObserved(), true);
  assert.equal(new WeftObject({ metadata: { generation: 2 } }).generationObserved(), true);
  assert.equal(new WeftObject({ status: { observedGeneration: 2 } }).generationObserved(), true);
  assert.equal(
    new WeftObject({ metadata: { generation: '4' }, status: { observedGeneration: 5 } }).generationObserved(),
    true,
  );
});

test('replicas default as the API server does', () => {
  assert.deepEqual(deployment().replicas(), { desired: 3, current: 0, updated: 0, ready: 2, available: 0 });
  assert.deepEqual(new WeftObject({ kind: 'X' }).replicas(), {
    desired: 1,
    current: 0,
    updated: 0,
    ready: 0,
    available: 0,
  });
  assert.deepEqual(
    new WeftObject({
      spec: { replicas: 0 },
      status: { replicas: 4, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 1 },
    }).replicas(),
    { desired: 0, current: 4, updated: 3, ready: 2, available: 1 },
  );
});

test('conditions skip garbage and read with defaults', () => {
  const d = deployment();
  assert.equal(d.conditions().length, 2);
  assert.ok(d.conditions().every((c) => c instanceof Condition));
  const available = d.condition('Available');
  assert.ok(available.isTrue());
  assert.ok(!available.isFalse());
  assert.deepEqual([available.type, available.status, available.reason, available.message], [
    'Available',
    'True',
    'MinimumReplicasAvailable',
    'ok',
  ]);
  assert.equal(available.observedGeneration, 3);
  assert.equal(available.field('reason'), 'MinimumReplicasAvailable');
  const progressing = d.condition('Progressing');
  assert.ok(progressing.isFalse());
  assert.deepEqual([progressing.reason, progressing.message], ['', '']);
  assert.equal(d.condition('Ready'), undefined);
  assert.deepEqual(new WeftObject({ status: { conditions: 'nope' } }).conditions(), []);
  const untyped = new WeftObject({ status: { conditions: [{ status: 'True' }] } });
  assert.equal(untyped.condition('').status, 'True'); // an absent type reads as ''
});

test('owner uids', () => {
  assert.deepEqual(deployment().ownerUids(), ['o1']);
  assert.deepEqual(new WeftObject({}).ownerUids(), []);
});

test('deletion', () => {
  assert.equal(new WeftObject({ metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' } }).isDeleting, true);
  assert.equal(new WeftObject({ metadata: { deletionTimestamp: null } }).isDeleting, false);
});

test('only JSON objects are objects', () => {
  for (const text of ['[1]', '1', 'null', '"x"']) {
    assert.throws(() => WeftObject.fromJSON(text), (e) => PluginError.is(e) && e.kind === 'invalid-input');
  }
  assert.throws(
    () => WeftObject.fromJSON('{'),
    (e) => e instanceof PluginError && e.kind === 'invalid-input' && e.message.startsWith('object is not valid JSON: '),
  );
  const o = WeftObject.fromJSON('{"kind":"Pod"}');
  assert.equal(o.kind, 'Pod');
  assert.equal(JSON.stringify(o), '{"kind":"Pod"}');
  assert.equal(WeftObject.wrap(o), o);
  assert.equal(WeftObject.wrap({ kind: 'Pod' }).kind, 'Pod');
});

test('verdicts are plain records', () => {
  assert.deepEqual(Health.healthy(), { status: 'healthy', message: '' });
  assert.deepEqual(Health.degraded('x'), { status: 'degraded', message: 'x' });
  for (const s of Health.STATUSES) {
    assert.deepEqual(Health[s]('m'), { status: s, message: 'm' });
    assert.equal(Health.parseStatus(s.toUpperCase()), s);
  }
  assert.deepEqual(Health.of('Healthy', 'ok'), Health.healthy('ok'));
  assert.throws(() => Health.of('fine'), TypeError);
  assert.equal(Health.parseStatus('fine'), undefined);
  assert.ok(Health.equals(Health.missing('a'), { status: 'missing', message: 'a' }));
  assert.ok(!Health.equals(Health.missing('a'), Health.missing('b')));
  assert.ok(Health.equals(undefined, null));
  assert.ok(!Health.equals(undefined, Health.unknown()));
});

test('plugin errors', () => {
  const e = PluginError.invalidInput('bad');
  assert.ok(e instanceof Error);
  assert.deepEqual([e.name, e.kind, e.message], ['PluginError', 'invalid-input', 'bad']);
  assert.equal(String(e), 'invalid input: bad');
  assert.equal(PluginError.unsupported('u').kind, 'unsupported');
  assert.equal(PluginError.failed('f').kind, 'failed');
  assert.throws(() => new PluginError('oops', 'x'), TypeError);
  assert.ok(!PluginError.is(new Error('x')));
});
