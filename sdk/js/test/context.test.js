import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Context, PluginError, WeftObject } from '../index.js';

const parent = new WeftObject({ kind: 'Parent', metadata: { name: 'p', uid: 'p1' } });
const childA = { kind: 'Child', metadata: { name: 'a', ownerReferences: [{ uid: 'p1' }] } };
const childB = { kind: 'Child', metadata: { name: 'b', ownerReferences: [{ uid: 'other' }] } };
const childC = { kind: 'Child', metadata: { name: 'c', ownerReferences: [{ uid: 'x' }, { uid: 'p1' }] } };

test('children from a fixture are the objects whose ownerReferences name the uid', () => {
  const cx = new Context({ related: [childA, childB, childC] });
  const names = cx.children(parent).map((c) => c.name);
  assert.deepEqual(names, ['a', 'c']);
  assert.ok(cx.children(parent).every((c) => c instanceof WeftObject));
  // A plain object works as the parent too.
  assert.deepEqual(cx.children(parent.value).map((c) => c.name), ['a', 'c']);
});

test('an object without a uid has no children, and the host is not asked', () => {
  let asked = 0;
  const cx = new Context({
    related: () => {
      asked += 1;
      return [childA];
    },
  });
  assert.deepEqual(cx.children(new WeftObject({ kind: 'X', metadata: { name: 'n' } })), []);
  assert.equal(asked, 0);
  assert.deepEqual(Context.empty().children(parent), []);
});

test('children from a function: JSON texts, plain objects; non-objects are skipped', () => {
  const seen = [];
  const cx = new Context({
    related: (uid) => {
      seen.push(uid);
      return [JSON.stringify(childA), childC, '[1]', 'not json', new WeftObject(childB)];
    },
  });
  assert.deepEqual(cx.children(parent).map((c) => c.name), ['a', 'c', 'b']);
  assert.deepEqual(seen, ['p1']);
});

test('settings: parsed once, frozen, {} when empty', () => {
  let reads = 0;
  const cx = new Context({
    settings: () => {
      reads += 1;
      return '{"threshold": 3, "kinds": ["a"]}';
    },
  });
  assert.equal(reads, 0); // lazy
  assert.deepEqual(cx.settings, { threshold: 3, kinds: ['a'] });
  assert.equal(cx.settingsText, '{"threshold": 3, "kinds": ["a"]}');
  assert.equal(cx.settings, cx.settings);
  assert.equal(reads, 1);
  assert.ok(Object.isFrozen(cx.settings) && Object.isFrozen(cx.settings.kinds));

  for (const empty of [undefined, '', '  \n']) {
    const c = new Context({ settings: empty });
    assert.deepEqual(c.settings, {});
    assert.equal(c.settingsText, empty === undefined ? '' : empty);
  }
  // An already-parsed value is taken as is.
  const parsed = new Context({ settings: { a: 1 } });
  assert.deepEqual(parsed.settings, { a: 1 });
  assert.equal(parsed.settingsText, '{"a":1}');
});

test('invalid settings are an invalid-input error when read', () => {
  const cx = new Context({ settings: '{oops' });
  assert.equal(cx.settingsText, '{oops');
  assert.throws(
    () => cx.settings,
    (e) => PluginError.is(e) && e.kind === 'invalid-input' && /settings are not valid JSON/.test(e.message),
  );
});

test('now: one Date for the whole call, from a WIT instant, a Date or milliseconds', () => {
  let reads = 0;
  const cx = new Context({
    now: () => {
      reads += 1;
      return { seconds: 1700000000n, nanoseconds: 123456789 };
    },
  });
  assert.equal(cx.now.toISOString(), '2023-11-14T22:13:20.123Z');
  cx.now.setFullYear(1999); // a copy: the call's time does not change
  assert.equal(cx.now.toISOString(), '2023-11-14T22:13:20.123Z');
  assert.equal(reads, 1);
  assert.equal(new Context({ now: new Date(0) }).now.getTime(), 0);
  assert.equal(new Context({ now: 5000 }).now.getTime(), 5000);
  const before = Date.now();
  const native = new Context().now.getTime();
  assert.ok(native >= before && native <= Date.now());
});

test('elapsed is nanoseconds as a bigint', () => {
  assert.equal(new Context({ elapsed: () => 42n }).elapsed(), 42n);
  assert.equal(typeof Context.empty().elapsed(), 'bigint');
});

test('log and its helpers', () => {
  const lines = [];
  const cx = new Context({ log: (level, message) => lines.push([level, message]) });
  cx.log('info', 'one');
  cx.trace('t');
  cx.debug('d');
  cx.info('i');
  cx.warn('w');
  cx.error('e');
  cx.info(42);
  assert.deepEqual(lines, [
    ['info', 'one'],
    ['trace', 't'],
    ['debug', 'd'],
    ['info', 'i'],
    ['warn', 'w'],
    ['error', 'e'],
    ['info', '42'],
  ]);
  assert.throws(() => cx.log('loud', 'x'), TypeError);
});
