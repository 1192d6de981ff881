// Running checks natively in node, without Wasm: single objects, objects with children, and whole Argo CD
// `health_test.yaml` suites, with the same semantics and the same failure lines as the Rust SDK's
// `weft_sdk::testing` and `weft plugin test`.
//
// Reading YAML needs the `yaml` package (`npm install --save-dev yaml`); nothing else here has dependencies.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { Context, Health, PluginError, WeftObject, runCheck } from './index.js';

let yamlModule;

/** The `yaml` package, from this package's location or the current directory; a clear error when missing. */
export function loadYaml() {
  if (yamlModule) return yamlModule;
  const attempts = [import.meta.url, join(process.cwd(), 'package.json')];
  for (const from of attempts) {
    try {
      yamlModule = createRequire(from)('yaml');
      return yamlModule;
    } catch (e) {
      if (e && e.code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  throw new Error(
    'weft-sdk/testing reads YAML with the `yaml` package, which is not installed: run `npm install --save-dev yaml`',
  );
}

/** Why a suite or a case file could not be read; its message is `FILE: reason`, as the Rust SDK's. */
export class SuiteError extends Error {
  constructor(path, reason) {
    super(`${path}: ${reason}`);
    this.name = 'SuiteError';
    this.path = path;
    this.reason = reason;
  }
}

// Characters Rust's `{:?}` escapes as `\u{..}`: not printable (control, format, surrogate, private use,
// unassigned, line/paragraph separators, spaces other than ' ') or grapheme-extending (combining marks).
const RUST_ESCAPED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Grapheme_Extend}]/u;

/** A string quoted as Rust's `{:?}` formats a `str` (the quoting of every suite runner's failure lines). */
export function debugString(s) {
  let out = '"';
  for (const ch of String(s)) {
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\0':
        out += '\\0';
        break;
      default:
        out += ch !== ' ' && RUST_ESCAPED.test(ch) ? `\\u{${ch.codePointAt(0).toString(16)}}` : ch;
    }
  }
  return `${out}"`;
}

/** A verdict as every suite runner prints it: `degraded "message"`, or `no health` when the check has no opinion. */
export function verdictText(verdict) {
  return verdict === undefined || verdict === null
    ? 'no health'
    : `${verdict.status} ${debugString(verdict.message)}`;
}

/** A failed case as every suite runner prints it: `FILE: expected degraded "...", got progressing "..."`. */
export function caseFailure(input, expected, got) {
  return `${input}: expected ${verdictText(expected)}, got ${got}`;
}

// Rust's `Path::parent` (for `/`-separated paths), with the `"."` fallback `read_health_suite` uses.
function pathParent(path) {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return '.';
  const slash = trimmed.lastIndexOf('/');
  if (slash < 0) return '';
  const parent = trimmed.slice(0, slash).replace(/\/+$/, '');
  return parent === '' ? '/' : parent;
}

// Rust's `Path::join`: an absolute path replaces the base; no normalisation.
function pathJoin(base, path) {
  if (path.startsWith('/') || base === '') return path;
  return base.endsWith('/') ? base + path : `${base}/${path}`;
}

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new SuiteError(path, e.code === 'ENOENT' ? 'No such file or directory' : e.message);
  }
}

function yamlError(error) {
  return String(error && error.message ? error.message : error).split('\n')[0];
}

/** Every non-empty document of a YAML stream (`---`-separated), in order, as plain values. */
export function yamlDocuments(text) {
  const YAML = loadYaml();
  const documents = [];
  for (const doc of YAML.parseAllDocuments(text)) {
    if (doc.errors && doc.errors.length > 0) throw new Error(yamlError(doc.errors[0]));
    const value = doc.toJS({ maxAliasCount: 1000 });
    if (value !== null && value !== undefined) documents.push(value);
  }
  return documents;
}

/** Every YAML document of a case file as a WeftObject: the first is assessed, the rest are its possible children. */
export function readObjects(path) {
  let documents;
  try {
    documents = yamlDocuments(readText(path));
  } catch (e) {
    if (e instanceof SuiteError) throw e;
    throw new SuiteError(path, yamlError(e));
  }
  const objects = documents.map((document) => {
    try {
      return new WeftObject(document);
    } catch (e) {
      throw new SuiteError(path, e.message);
    }
  });
  if (objects.length === 0) throw new SuiteError(path, 'no YAML document in the file');
  return objects;
}

/**
 * Reads an Argo CD `health_test.yaml` suite: `tests:` entries of `{healthStatus: {status, message}, inputPath}`,
 * as `[{expected: {status, message}, input}]`, each input resolved against the suite file's directory. Argo CD
 * compares messages exactly, and an absent message means an empty one; so do we.
 */
export function readHealthSuite(path) {
  const text = readText(path);
  let suite;
  try {
    suite = loadYaml().parse(text);
  } catch (e) {
    if (e instanceof Error && /`yaml` package/.test(e.message)) throw e;
    throw new SuiteError(path, yamlError(e));
  }
  if (suite === null || typeof suite !== 'object' || Array.isArray(suite)) {
    throw new SuiteError(path, 'expected a mapping with a `tests` list');
  }
  if (!Array.isArray(suite.tests)) {
    throw new SuiteError(path, suite.tests === undefined ? 'missing field `tests`' : '`tests` must be a list');
  }
  const base = pathParent(path);
  return suite.tests.map((entry, i) => {
    const fail = (reason) => new SuiteError(path, `test ${i + 1}: ${reason}`);
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw fail('expected a mapping');
    const healthStatus = entry.healthStatus;
    if (healthStatus === null || typeof healthStatus !== 'object') throw fail('missing field `healthStatus`');
    if (typeof healthStatus.status !== 'string') throw fail('missing field `status`');
    if (healthStatus.message !== undefined && typeof healthStatus.message !== 'string') {
      throw fail('`message` must be a string');
    }
    if (typeof entry.inputPath !== 'string') throw fail('missing field `inputPath`');
    const status = Health.parseStatus(healthStatus.status);
    if (status === undefined) throw fail(`unknown health status ${debugString(healthStatus.status)}`);
    return {
      expected: { status, message: healthStatus.message ?? '' },
      input: pathJoin(base, entry.inputPath),
    };
  });
}

function unwrap(result) {
  if (result.tag === 'ok') return result.val;
  throw new PluginError(result.val.kind, result.val.message);
}

/**
 * Assesses one object natively and returns the verdict (a Health, or `undefined` for no opinion); a plugin error
 * is thrown as a PluginError. `options` are Context's: `related` (an array of possible children, or a function),
 * `settings`, `now`, `log`.
 */
export function assessObject(assess, obj, options = {}) {
  return unwrap(runCheck(assess, WeftObject.wrap(obj), new Context(options)));
}

/**
 * Assesses the first document of a YAML text; the other documents are its possible children (added to
 * `options.related` when that is an array).
 */
export function assessYaml(assess, text, options = {}) {
  const [first, ...rest] = yamlDocuments(text);
  if (first === undefined) throw PluginError.invalidInput('no YAML document in the text');
  const related = Array.isArray(options.related) ? [...options.related, ...rest] : options.related ?? rest;
  return assessObject(assess, first, { ...options, related });
}

/**
 * Runs an Argo CD suite against a check natively, each case file's other documents as the object's possible
 * children. Returns `{passed, failures, cases}`: `failures` has one line per case that did not match (the lines
 * `weft plugin test` prints), `cases` every case as `{input, expected, got, ok}`. A suite or case file that cannot
 * be read throws a SuiteError. `options` go to each case's Context (`settings`, `now`, `log`).
 */
export function runSuite(assess, suitePath, options = {}) {
  const report = { passed: 0, failures: [], cases: [] };
  for (const testCase of readHealthSuite(String(suitePath))) {
    const [obj, ...others] = readObjects(testCase.input);
    const result = runCheck(assess, obj, new Context({ ...options, related: others }));
    let ok;
    let got;
    if (result.tag === 'ok') {
      ok = result.val !== undefined && Health.equals(result.val, testCase.expected);
      got = verdictText(result.val);
    } else {
      ok = false;
      const kind = result.val.kind === 'invalid-input' ? 'invalid input' : result.val.kind;
      got = `plugin error: ${kind}: ${result.val.message}`;
    }
    report.cases.push({ input: testCase.input, expected: testCase.expected, got, ok });
    if (ok) {
      report.passed += 1;
    } else {
      report.failures.push(caseFailure(testCase.input, testCase.expected, got));
    }
  }
  return report;
}
