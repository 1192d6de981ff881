#!/usr/bin/env node
// weft-sdk-test [--module check.js] [--settings JSON] health_test.yaml
//
// Runs an Argo CD health_test.yaml suite against a JavaScript check natively (no Wasm) and prints what
// `weft plugin test` prints: `ok   FILE` or `FAIL FILE: expected ..., got ...` per case, then `N passed, M failed`.
// Exits 0 when every case passed, 1 otherwise.
//
// Without --module, the check is the `entry` of the `[build]` table of the weft-plugin.toml beside the suite, or
// `check.js` beside the suite; it must export `assess` (or a default function).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { caseFailure, runSuite } from '../testing.js';

const USAGE = 'usage: weft-sdk-test [--module check.js] [--settings JSON] health_test.yaml';

function fail(message) {
  console.error(`weft-sdk-test: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = { module: undefined, settings: undefined, suite: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${arg} needs a value\n${USAGE}`);
      return argv[++i];
    };
    if (arg === '-h' || arg === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else if (arg === '--module' || arg === '-m') {
      args.module = value();
    } else if (arg.startsWith('--module=')) {
      args.module = arg.slice('--module='.length);
    } else if (arg === '--settings') {
      args.settings = value();
    } else if (arg.startsWith('--settings=')) {
      args.settings = arg.slice('--settings='.length);
    } else if (arg.startsWith('-') && arg !== '-') {
      fail(`unknown option ${arg}\n${USAGE}`);
    } else if (args.suite === undefined) {
      args.suite = arg;
    } else {
      fail(`one suite at a time\n${USAGE}`);
    }
  }
  if (args.suite === undefined) fail(`no suite given\n${USAGE}`);
  return args;
}

// The `entry = "..."` of a weft-plugin.toml's `[build]` table (a small reader: no TOML parser needed).
function manifestEntry(manifestPath) {
  if (!existsSync(manifestPath)) return undefined;
  let table = '';
  for (const raw of readFileSync(manifestPath, 'utf8').split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const header = line.match(/^\[([^\]]+)\]$/);
    if (header) {
      table = header[1].trim();
      continue;
    }
    const entry = line.match(/^entry\s*=\s*"([^"]*)"$/);
    if (table === 'build' && entry) return entry[1];
  }
  return undefined;
}

const args = parseArgs(process.argv.slice(2));
const suiteDir = dirname(args.suite);
const modulePath = args.module
  ? resolve(args.module)
  : resolve(suiteDir, manifestEntry(join(suiteDir, 'weft-plugin.toml')) ?? 'check.js');

let checkModule;
try {
  checkModule = await import(pathToFileURL(modulePath).href);
} catch (e) {
  fail(`loading ${modulePath}: ${e && e.message ? e.message : e}`);
}
const assess =
  typeof checkModule.assess === 'function'
    ? checkModule.assess
    : typeof checkModule.default === 'function'
      ? checkModule.default
      : undefined;
if (!assess) fail(`${modulePath} exports no function \`assess\``);

let report;
try {
  report = runSuite(assess, args.suite, args.settings === undefined ? {} : { settings: args.settings });
} catch (e) {
  fail(e && e.message ? e.message : String(e));
}
for (const c of report.cases) {
  console.log(c.ok ? `ok   ${c.input}` : `FAIL ${caseFailure(c.input, c.expected, c.got)}`);
}
console.log(`${report.passed} passed, ${report.failures.length} failed`);
process.exit(report.failures.length === 0 ? 0 : 1);
