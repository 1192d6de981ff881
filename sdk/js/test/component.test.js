// makeHealthExport is what `weft-sdk/component` exports as `health`; here it runs over fake host imports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { Health, PluginError, makeHealthExport } from '../index.js';

function fakeHost({ children = {}, settings = '' } = {}) {
  const host = {
    logs: [],
    settingsReads: 0,
    clockReads: 0,
    childrenAsked: [],
    log: (level, message) => host.logs.push([level, message]),
    children: (uid) => {
      host.childrenAsked.push(uid);
      return (children[uid] ?? []).map((o) => JSON.stringify(o));
    },
    settings: () => {
      host.settingsReads += 1;
      return settings;
    },
    callStarted: () => {
      host.clockReads += 1;
      return { seconds: 1700000000n, nanoseconds: 5000000 };
    },
    elapsed: () => 7n,
  };
  return host;
}

const json = (o) => JSON.stringify(o);

test('verdicts, no opinion, and the result shape of the WIT', () => {
  const host = fakeHost();
  const health = makeHealthExport((obj) => {
    switch (obj.kind) {
      case 'Good':
        return Health.healthy('fine');
      case 'Literal':
        return { status: 'degraded', message: 'as a literal' };
      case 'Capital':
        return { status: 'Suspended' };
      case 'Null':
        return null;
      default:
        return undefined;
    }
  }, host);
  const results = health.assess([
    json({ kind: 'Good' }),
    json({ kind: 'Literal' }),
    json({ kind: 'Capital' }),
    json({ kind: 'Null' }),
    json({ kind: 'Other' }),
  ]);
  assert.deepEqual(results, [
    { tag: 'ok', val: { status: 'healthy', message: 'fine' } },
    { tag: 'ok', val: { status: 'degraded', message: 'as a literal' } },
    { tag: 'ok', val: { status: 'suspended', message: '' } },
    { tag: 'ok', val: undefined },
    { tag: 'ok', val: undefined },
  ]);
  assert.deepEqual(health.assess([]), []);
});

test('errors map to the WIT error kinds, one object at a time', () => {
  const host = fakeHost();
  const health = makeHealthExport((obj) => {
    switch (obj.kind) {
      case 'Unsupported':
        throw PluginError.unsupported('not mine');
      case 'Invalid':
        throw PluginError.invalidInput('no spec');
      case 'Failed':
        throw PluginError.failed('gave up');
      case 'TypeError':
        return obj.get('spec').replicas; // spec is absent
      case 'String':
        throw 'a bare string';
      case 'Async':
        return Promise.resolve(Health.healthy());
      case 'Bad':
        return { status: 'fine', message: 'x' };
      default:
        return Health.healthy();
    }
  }, host);
  const results = health.assess([
    '{',
    '[1, 2]',
    json({ kind: 'Unsupported' }),
    json({ kind: 'Invalid' }),
    json({ kind: 'Failed' }),
    json({ kind: 'TypeError' }),
    json({ kind: 'String' }),
    json({ kind: 'Async' }),
    json({ kind: 'Bad' }),
    json({ kind: 'Fine' }),
  ]);
  const kinds = results.map((r) => (r.tag === 'ok' ? 'ok' : r.val.kind));
  assert.deepEqual(kinds, [
    'invalid-input',
    'invalid-input',
    'unsupported',
    'invalid-input',
    'failed',
    'failed',
    'failed',
    'failed',
    'failed',
    'ok',
  ]);
  assert.match(results[0].val.message, /^object is not valid JSON: /);
  assert.equal(results[1].val.message, 'a Kubernetes object must be a JSON object');
  assert.equal(results[2].val.message, 'not mine');
  assert.match(results[5].val.message, /replicas/);
  assert.equal(results[6].val.message, 'a bare string');
  assert.match(results[7].val.message, /Promise/);
  assert.match(results[8].val.message, /"fine"/);
  // Unexpected exceptions are logged with their stack; PluginErrors are not.
  assert.deepEqual(host.logs.map(([level]) => level), ['error', 'error']);
  assert.match(host.logs[0][1], /^assess threw: TypeError: /);
});

test('a PluginError made by another copy of the SDK is still recognised', async () => {
  const copy = await import(`../index.js?copy=${Date.now()}`);
  assert.notEqual(copy.PluginError, PluginError);
  const health = makeHealthExport(() => {
    throw copy.PluginError.unsupported('from a copy');
  }, fakeHost());
  assert.deepEqual(health.assess([json({})]), [{ tag: 'err', val: { kind: 'unsupported', message: 'from a copy' } }]);
});

test('a context per call: settings and clock read at most once per call, children from the host', () => {
  const host = fakeHost({
    settings: '{"want": 2}',
    children: { w1: [{ kind: 'Deployment', metadata: { name: 'd', ownerReferences: [{ uid: 'w1' }] } }] },
  });
  const contexts = new Set();
  const health = makeHealthExport((obj, cx) => {
    contexts.add(cx);
    const kids = cx.children(obj).map((c) => `${c.kind}/${c.name}`);
    cx.debug(`${obj.name}: ${kids.length}`);
    return Health.healthy(`${cx.settings.want} ${kids.join(',')} ${cx.now.toISOString()} ${cx.elapsed()}`);
  }, host);
  const results = health.assess([
    json({ kind: 'Widget', metadata: { name: 'a', uid: 'w1' } }),
    json({ kind: 'Widget', metadata: { name: 'b' } }),
  ]);
  assert.deepEqual(results, [
    { tag: 'ok', val: { status: 'healthy', message: '2 Deployment/d 2023-11-14T22:13:20.005Z 7' } },
    { tag: 'ok', val: { status: 'healthy', message: '2  2023-11-14T22:13:20.005Z 7' } },
  ]);
  assert.equal(contexts.size, 1);
  assert.equal(host.settingsReads, 1);
  assert.equal(host.clockReads, 1);
  assert.deepEqual(host.childrenAsked, ['w1']); // no uid: the host is not asked
  assert.deepEqual(host.logs, [
    ['debug', 'a: 1'],
    ['debug', 'b: 0'],
  ]);
  health.assess([json({ kind: 'Widget' })]);
  assert.equal(contexts.size, 2);
  assert.equal(host.settingsReads, 2);
});

test('a check that never reads settings or the clock costs no host call', () => {
  const host = fakeHost();
  makeHealthExport(() => Health.healthy(), host).assess([json({}), json({})]);
  assert.equal(host.settingsReads, 0);
  assert.equal(host.clockReads, 0);
});

test('invalid settings fail the objects that read them', () => {
  const health = makeHealthExport((obj, cx) => (obj.kind === 'Reads' ? Health.healthy(cx.settings.x) : Health.healthy()), fakeHost({ settings: 'nope' }));
  const [reads, ignores] = health.assess([json({ kind: 'Reads' }), json({ kind: 'Ignores' })]);
  assert.equal(reads.tag, 'err');
  assert.equal(reads.val.kind, 'invalid-input');
  assert.deepEqual(ignores, { tag: 'ok', val: { status: 'healthy', message: '' } });
});

test('a module without assess fails at build time', () => {
  assert.throws(() => makeHealthExport(undefined, fakeHost()), /export `assess`/);
});

test('component.js imports exactly the four host interfaces and wires them to makeHealthExport', () => {
  const source = readFileSync(new URL('../component.js', import.meta.url), 'utf8');
  const specifiers = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
  assert.deepEqual(specifiers, [
    'weft:plugin/log@0.1.0',
    'weft:plugin/related@0.1.0',
    'weft:plugin/settings@0.1.0',
    'weft:plugin/clock@0.1.0',
    './index.js',
  ]);
});
