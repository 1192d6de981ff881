// Builds the health-widget example into a WebAssembly component with componentize-js, laid out as `weft plugin
// build` lays it out, and runs its suite through the component (transpiled by jco) with fake host imports.
//
// Opt-in, as it needs componentize-js and takes a few seconds:
//   WEFT_COMPONENTIZE_JS=/path/to/node_modules/.bin/componentize-js node --test test/build.test.js
// jco is taken from the same .bin directory unless WEFT_JCO names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { Context, Health } from '../index.js';
import { readHealthSuite, readObjects, verdictText } from '../testing.js';

const componentizeJs = process.env.WEFT_COMPONENTIZE_JS;
const jco = process.env.WEFT_JCO ?? (componentizeJs ? join(dirname(componentizeJs), 'jco') : undefined);
const sdk = fileURLToPath(new URL('..', import.meta.url));
const example = join(sdk, 'examples', 'health-widget');
const wit = join(sdk, '..', '..', 'wit');

test('the example builds into a component that imports no WASI and passes its suite', { skip: !componentizeJs && 'set WEFT_COMPONENTIZE_JS to run' }, async () => {
  const build = mkdtempSync(join(tmpdir(), 'weft-js-build-'));
  try {
    // The layout: the SDK's runtime files in ./weft-sdk/, the plugin's files in ./plugin/, a file named `weft-sdk`
    // (no extension) beside the plugin's modules that re-exports the SDK, and the entry module.
    mkdirSync(join(build, 'weft-sdk'));
    for (const file of ['index.js', 'component.js']) copyFileSync(join(sdk, file), join(build, 'weft-sdk', file));
    cpSync(example, join(build, 'plugin'), { recursive: true, filter: (src) => !src.includes('testdata') });
    writeFileSync(join(build, 'plugin', 'weft-sdk'), "export * from '../weft-sdk/index.js';\n");
    writeFileSync(
      join(build, 'entry.js'),
      "import { assess } from './plugin/check.js';\nimport { component } from './weft-sdk/component.js';\nexport const health = component(assess);\n",
    );
    const out = join(build, 'health-widget-js.wasm');
    const built = spawnSync(
      componentizeJs,
      ['entry.js', '--wit', wit, '-n', 'health-check', '-d', 'stdio', 'random', 'clocks', 'http', 'fetch-event', '-o', out],
      { cwd: build, encoding: 'utf8' },
    );
    assert.equal(built.status, 0, built.stderr + built.stdout);
    assert.ok(statSync(out).size > 0);

    const witText = spawnSync(jco, ['wit', out], { encoding: 'utf8' });
    assert.equal(witText.status, 0, witText.stderr);
    const imports = [...witText.stdout.matchAll(/^\s*import ([^;]+);/gm)].map((m) => m[1]).sort();
    assert.deepEqual(imports, [
      'weft:plugin/clock@0.1.0',
      'weft:plugin/log@0.1.0',
      'weft:plugin/related@0.1.0',
      'weft:plugin/settings@0.1.0',
      'weft:plugin/types@0.1.0',
    ]);
    assert.match(witText.stdout, /export weft:plugin\/health@0\.1\.0;/);

    const transpiled = spawnSync(jco, ['transpile', out, '--instantiation', 'async', '-o', join(build, 'js')], { encoding: 'utf8' });
    assert.equal(transpiled.status, 0, transpiled.stderr);
    const { instantiate } = await import(pathToFileURL(join(build, 'js', 'health-widget-js.js')).href);

    let fixture = new Context();
    const logs = [];
    const instance = await instantiate(
      async (name) => WebAssembly.compile(readFileSync(join(build, 'js', name))),
      {
        'weft:plugin/log': { log: (level, message) => logs.push([level, message]) },
        'weft:plugin/related': { children: (uid) => fixture.children({ metadata: { uid } }).map((o) => JSON.stringify(o)) },
        'weft:plugin/settings': { get: () => '' },
        'weft:plugin/clock': { callStarted: () => ({ seconds: 1700000000n, nanoseconds: 0 }), elapsed: () => 1n },
        'weft:plugin/types': {},
      },
    );
    let passed = 0;
    for (const c of readHealthSuite(join(example, 'health_test.yaml'))) {
      const [obj, ...others] = readObjects(c.input);
      fixture = new Context({ related: others });
      const [result] = instance.health.assess([JSON.stringify(obj)]);
      assert.equal(result.tag, 'ok', `${c.input}: ${JSON.stringify(result)}`);
      assert.ok(Health.equals(result.val, c.expected), `${c.input}: got ${verdictText(result.val)}`);
      passed += 1;
    }
    assert.equal(passed, 6);
    const [bad, notObject] = instance.health.assess(['{', '[]']);
    assert.equal(bad.tag, 'err');
    assert.equal(bad.val.kind, 'invalid-input');
    assert.deepEqual(notObject, { tag: 'err', val: { kind: 'invalid-input', message: 'a Kubernetes object must be a JSON object' } });
    assert.deepEqual(logs, []);
  } finally {
    if (existsSync(build)) rmSync(build, { recursive: true });
  }
});
