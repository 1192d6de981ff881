// The Weft plugin SDK for JavaScript: write a health check in a few lines, test it natively with node, ship it as a
// WebAssembly component built with componentize-js.
//
// A check is a function `assess(obj, cx)` that returns a `Health` (a verdict), `null`/`undefined` (no opinion: the
// host asks the next plugin that serves the kind), or throws a `PluginError` when it cannot work at all. Any other
// exception becomes a `failed` error carrying the exception's message.
//
//     import { Health } from 'weft-sdk';
//
//     export function assess(obj, cx) {
//       if (!obj.generationObserved()) return Health.progressing('Waiting for the controller');
//       const ready = obj.condition('Ready');
//       if (ready?.isTrue()) return Health.healthy(ready.message);
//       if (ready?.isFalse()) return Health.degraded(ready.message);
//       return Health.progressing('Waiting for the Ready condition');
//     }
//
// This module is plain JavaScript with no imports, so it runs the same in node (unit tests, `weft-sdk-test`) and
// inside the component. The component's glue to the host (`weft:plugin/*`) is `weft-sdk/component`.

// Brands let two copies of this module (a plugin that bundled its own) recognise each other's values.
const OBJECT_BRAND = Symbol.for('weft-sdk.object');
const ERROR_BRAND = Symbol.for('weft-sdk.plugin-error');

/** The health statuses, in the WIT's declaration order (not a severity order). */
export const STATUSES = Object.freeze([
  'healthy',
  'progressing',
  'degraded',
  'suspended',
  'missing',
  'unknown',
]);

/** The error kinds of the WIT's `error-kind`. */
export const ERROR_KINDS = Object.freeze(['invalid-input', 'unsupported', 'failed']);

/** The log levels of the WIT's `log.level`. */
export const LOG_LEVELS = Object.freeze(['trace', 'debug', 'info', 'warn', 'error']);

function text(message) {
  return message === undefined || message === null ? '' : String(message);
}

/**
 * Verdicts. Each is a plain object `{status, message}`, exactly the WIT's `health` record, so a check may also
 * return such an object literal.
 */
export class Health {
  /** All statuses, in declaration order. */
  static STATUSES = STATUSES;

  /** A verdict; `status` is parsed in any case (`Healthy`, `healthy`), a status not in the vocabulary throws. */
  static of(status, message = '') {
    const parsed = Health.parseStatus(status);
    if (parsed === undefined) {
      throw new TypeError(`unknown health status ${JSON.stringify(String(status))}`);
    }
    return { status: parsed, message: text(message) };
  }

  /** The lowercase status for a name in any case (as Argo CD's test files write them), or `undefined`. */
  static parseStatus(name) {
    if (typeof name !== 'string') return undefined;
    const lower = name.toLowerCase();
    return STATUSES.includes(lower) ? lower : undefined;
  }

  /** Whether two verdicts (or two absences of one) are the same. */
  static equals(a, b) {
    if (a === undefined || a === null || b === undefined || b === null) {
      return (a === undefined || a === null) && (b === undefined || b === null);
    }
    return a.status === b.status && a.message === b.message;
  }

  /** The object does what it was asked to do. */
  static healthy(message = '') {
    return { status: 'healthy', message: text(message) };
  }

  /** The object is moving towards the asked state and has not failed yet. */
  static progressing(message = '') {
    return { status: 'progressing', message: text(message) };
  }

  /** The object failed, or cannot reach the asked state without a change. */
  static degraded(message = '') {
    return { status: 'degraded', message: text(message) };
  }

  /** The object was paused or suspended on purpose. */
  static suspended(message = '') {
    return { status: 'suspended', message: text(message) };
  }

  /** The object that should exist does not. */
  static missing(message = '') {
    return { status: 'missing', message: text(message) };
  }

  /** The check looked and could not tell. */
  static unknown(message = '') {
    return { status: 'unknown', message: text(message) };
  }
}

/**
 * A plugin's own error: the check cannot work at all on this object (as opposed to a bad verdict, which is a
 * `Health`). Throw it from `assess`.
 */
export class PluginError extends Error {
  constructor(kind, message) {
    super(text(message));
    if (!ERROR_KINDS.includes(kind)) {
      throw new TypeError(`unknown plugin error kind ${JSON.stringify(String(kind))}`);
    }
    this.name = 'PluginError';
    this.kind = kind;
  }

  get [ERROR_BRAND]() {
    return true;
  }

  /** The input was not what the plugin understands (malformed JSON, a required field missing). */
  static invalidInput(message) {
    return new PluginError('invalid-input', message);
  }

  /** The plugin does not handle this input (another kind, an unsupported feature). */
  static unsupported(message) {
    return new PluginError('unsupported', message);
  }

  /** The plugin understood the input and failed while doing its work. */
  static failed(message) {
    return new PluginError('failed', message);
  }

  /** Whether `value` is a PluginError (also one made by another copy of this module). */
  static is(value) {
    return (
      value instanceof PluginError ||
      (value !== null && typeof value === 'object' && value[ERROR_BRAND] === true && ERROR_KINDS.includes(value.kind))
    );
  }

  /** As the Rust SDK displays it: `invalid input: ...`. */
  toString() {
    const kind = this.kind === 'invalid-input' ? 'invalid input' : this.kind;
    return `${kind}: ${this.message}`;
  }
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Reads an integer, also from an integral float or a decimal string (some controllers write counts as strings), as
 * the Rust SDK does; `undefined` otherwise.
 */
export function asInt(value) {
  if (typeof value === 'number') {
    return Number.isInteger(value) ? value : undefined;
  }
  if (typeof value === 'bigint') {
    return Number(value);
  }
  if (typeof value === 'string' && /^[+-]?[0-9]+$/.test(value)) {
    const big = BigInt(value);
    if (big < -(2n ** 63n) || big >= 2n ** 63n) return undefined; // i64's range, as Rust's parse
    return Number(big);
  }
  return undefined;
}

function lookup(value, segments) {
  for (const segment of segments) {
    if (Array.isArray(value)) {
      // Rust's `usize` parse: digits with an optional `+`.
      if (!/^\+?[0-9]+$/.test(segment)) return undefined;
      const index = Number(segment.replace(/^\+/, ''));
      if (!Number.isSafeInteger(index) || index >= value.length) return undefined;
      value = value[index];
    } else if (isPlainObject(value)) {
      if (!Object.prototype.hasOwnProperty.call(value, segment)) return undefined;
      value = value[segment];
    } else {
      return undefined;
    }
  }
  return value;
}

/** One entry of `status.conditions`, read with the Kubernetes conventions. */
export class Condition {
  constructor(fields) {
    if (!isPlainObject(fields)) throw new TypeError('a condition must be an object');
    /** The condition as written. */
    this.value = fields;
  }

  #text(key) {
    const v = Object.prototype.hasOwnProperty.call(this.value, key) ? this.value[key] : undefined;
    return typeof v === 'string' ? v : undefined;
  }

  /** `type`, empty when absent. */
  get type() {
    return this.#text('type') ?? '';
  }

  /** `status` as written (`True`, `False`, `Unknown`), empty when absent. */
  get status() {
    return this.#text('status') ?? '';
  }

  /** `reason`, empty when absent. */
  get reason() {
    return this.#text('reason') ?? '';
  }

  /** `message`, empty when absent. */
  get message() {
    return this.#text('message') ?? '';
  }

  /** `observedGeneration` of the condition, when the controller sets it. */
  get observedGeneration() {
    return asInt(this.field('observedGeneration'));
  }

  /** Whether `status` is `True`. */
  isTrue() {
    return this.status === 'True';
  }

  /** Whether `status` is `False`. */
  isFalse() {
    return this.status === 'False';
  }

  /** Any other field. */
  field(key) {
    return Object.prototype.hasOwnProperty.call(this.value, key) ? this.value[key] : undefined;
  }

  toJSON() {
    return this.value;
  }
}

/**
 * One Kubernetes object, with typed and forgiving access: every accessor returns `undefined` (or a neutral default)
 * instead of throwing, so a check reads like the rule it implements.
 */
export class WeftObject {
  /** Wraps a parsed object; it must be a JSON object (not an array, not null). */
  constructor(value) {
    if (!isPlainObject(value)) {
      throw PluginError.invalidInput('a Kubernetes object must be a JSON object');
    }
    /** The whole object, as parsed. */
    this.value = value;
  }

  get [OBJECT_BRAND]() {
    return true;
  }

  /** Parses JSON text; malformed text is an `invalid-input` PluginError. */
  static fromJSON(json) {
    let value;
    try {
      value = JSON.parse(json);
    } catch (e) {
      throw PluginError.invalidInput(`object is not valid JSON: ${e && e.message ? e.message : e}`);
    }
    return new WeftObject(value);
  }

  /** `value` itself when it is already a WeftObject (of any copy of this module), else a new wrapper. */
  static wrap(value) {
    if (value instanceof WeftObject) return value;
    if (value !== null && typeof value === 'object' && value[OBJECT_BRAND] === true) return value;
    if (typeof value === 'string') return WeftObject.fromJSON(value);
    return new WeftObject(value);
  }

  /**
   * The value at a dotted path such as `status.conditions.0.type`; numeric segments index arrays. `undefined` when
   * absent (a JSON `null` that is there is `null`). Use `at([...])` when a key itself contains a dot.
   */
  get(path) {
    return lookup(this.value, String(path).split('.'));
  }

  /** The value at a path given as segments, for keys that contain dots (`['metadata', 'annotations', 'a.b/c']`). */
  at(segments) {
    return lookup(this.value, Array.from(segments, String));
  }

  /** A string at a dotted path, or `undefined`. */
  str(path) {
    const v = this.get(path);
    return typeof v === 'string' ? v : undefined;
  }

  /** An integer at a dotted path (also from integral floats and decimal strings), or `undefined`. */
  int(path) {
    return asInt(this.get(path));
  }

  /** A boolean at a dotted path, or `undefined`. */
  bool(path) {
    const v = this.get(path);
    return typeof v === 'boolean' ? v : undefined;
  }

  /** An array at a dotted path (empty when absent or not an array). */
  array(path) {
    const v = this.get(path);
    return Array.isArray(v) ? v : [];
  }

  /** Whether anything (even `null`) is at a dotted path. */
  has(path) {
    return this.get(path) !== undefined;
  }

  /** `apiVersion`, e.g. `apps/v1` (empty when absent). */
  get apiVersion() {
    return this.str('apiVersion') ?? '';
  }

  /** The API group (`apps` for `apps/v1`, empty for the core group `v1`). */
  get group() {
    const apiVersion = this.apiVersion;
    const slash = apiVersion.indexOf('/');
    return slash < 0 ? '' : apiVersion.slice(0, slash);
  }

  /** The API version without the group (`v1` for `apps/v1`). */
  get version() {
    const apiVersion = this.apiVersion;
    const slash = apiVersion.indexOf('/');
    return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  }

  /** `kind` (empty when absent). */
  get kind() {
    return this.str('kind') ?? '';
  }

  /** `metadata.name` (empty when absent). */
  get name() {
    return this.str('metadata.name') ?? '';
  }

  /** `metadata.namespace`, or `undefined`. */
  get namespace() {
    return this.str('metadata.namespace');
  }

  /** `metadata.uid`, or `undefined`. */
  get uid() {
    return this.str('metadata.uid');
  }

  /** A label, or `undefined`. */
  label(key) {
    const v = this.at(['metadata', 'labels', key]);
    return typeof v === 'string' ? v : undefined;
  }

  /** An annotation, or `undefined`. */
  annotation(key) {
    const v = this.at(['metadata', 'annotations', key]);
    return typeof v === 'string' ? v : undefined;
  }

  /** Whether the object is being deleted (`metadata.deletionTimestamp` is set and not null). */
  get isDeleting() {
    const v = this.get('metadata.deletionTimestamp');
    return v !== undefined && v !== null;
  }

  /** `metadata.generation`, or `undefined`. */
  get generation() {
    return this.int('metadata.generation');
  }

  /** `status.observedGeneration`, or `undefined`. */
  get observedGeneration() {
    return this.int('status.observedGeneration');
  }

  /**
   * Whether the controller has seen the current spec: true when `status.observedGeneration` is at least
   * `metadata.generation`, or when either is absent (a controller that does not report it cannot lag).
   */
  generationObserved() {
    const generation = this.generation;
    const observed = this.observedGeneration;
    if (generation === undefined || observed === undefined) return true;
    return observed >= generation;
  }

  /** `status.conditions`, each wrapped for typed reading; entries that are not objects are skipped. */
  conditions() {
    return this.array('status.conditions')
      .filter(isPlainObject)
      .map((c) => new Condition(c));
  }

  /** The first condition of a type, or `undefined`. */
  condition(type) {
    return this.conditions().find((c) => c.type === type);
  }

  /**
   * Replica counts of a workload: `desired` is `spec.replicas` (1 when absent, as the API server defaults it);
   * `current`, `updated`, `ready` and `available` are `status.replicas`, `status.updatedReplicas`,
   * `status.readyReplicas` and `status.availableReplicas` (0 when absent).
   */
  replicas() {
    return {
      desired: this.int('spec.replicas') ?? 1,
      current: this.int('status.replicas') ?? 0,
      updated: this.int('status.updatedReplicas') ?? 0,
      ready: this.int('status.readyReplicas') ?? 0,
      available: this.int('status.availableReplicas') ?? 0,
    };
  }

  /** The `metadata.ownerReferences` UIDs. */
  ownerUids() {
    return this.array('metadata.ownerReferences')
      .filter((r) => isPlainObject(r) && typeof r.uid === 'string')
      .map((r) => r.uid);
  }

  toJSON() {
    return this.value;
  }
}

/** The Rust SDK's name for the same thing. */
export { WeftObject as K8sObject };

function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

function instantToDate(instant) {
  if (instant instanceof Date) return instant;
  if (typeof instant === 'number') return new Date(instant);
  // The WIT's clock.instant: {seconds: bigint, nanoseconds: number}.
  const seconds = Number(instant.seconds);
  return new Date(seconds * 1000 + Math.floor(Number(instant.nanoseconds) / 1e6));
}

function nativeLog(level, message) {
  console.error(`[${level}] ${message}`);
}

/**
 * What a check can ask the host while it assesses an object: its children, the plugin instance's settings, the
 * time the call started, and the log.
 *
 * Inside the component, `weft-sdk/component` builds one per call from the host's imports. Natively (tests), build
 * one with any of these options:
 * - `related`: an array of objects (a fixture: children are those whose ownerReferences name the uid) or a function
 *   `uid => objects` (WeftObjects, plain objects or JSON texts);
 * - `settings`: JSON text, an already-parsed value, or a function returning either (called at most once);
 * - `now`: a Date, milliseconds since the epoch, a WIT instant `{seconds, nanoseconds}`, or a function returning one
 *   (called at most once); default: the time of the first reading;
 * - `elapsed`: a function returning the nanoseconds the call has run, as a bigint;
 * - `log`: a function `(level, message)`; default: print to stderr.
 */
export class Context {
  #related;
  #settingsSource;
  #settingsText;
  #settings;
  #settingsError;
  #settingsParsed = false;
  #nowSource;
  #now;
  #elapsed;
  #log;

  constructor(options = {}) {
    const { related, settings, now, elapsed, log } = options;
    if (related === undefined || related === null) {
      this.#related = () => [];
    } else if (typeof related === 'function') {
      this.#related = related;
    } else {
      const fixture = Array.from(related, (o) => WeftObject.wrap(o));
      this.#related = (uid) => fixture.filter((o) => o.ownerUids().includes(uid));
    }
    this.#settingsSource = settings;
    this.#nowSource = now;
    if (typeof elapsed === 'function') {
      this.#elapsed = elapsed;
    } else {
      const start = Date.now();
      this.#elapsed = () => BigInt(Date.now() - start) * 1000000n;
    }
    this.#log = typeof log === 'function' ? log : nativeLog;
  }

  /** A context with no related objects, no settings. */
  static empty() {
    return new Context();
  }

  /** The objects owned by `obj` (through their ownerReferences), as WeftObjects; none when `obj` has no uid. */
  children(obj) {
    const uid = WeftObject.wrap(obj).uid;
    if (uid === undefined) return [];
    const found = [];
    for (const child of this.#related(uid) ?? []) {
      try {
        found.push(WeftObject.wrap(child));
      } catch {
        // A child that is not an object is skipped, as the Rust SDK does.
      }
    }
    return found;
  }

  #resolveSettings() {
    if (this.#settingsParsed) return;
    this.#settingsParsed = true;
    let source = this.#settingsSource;
    try {
      if (typeof source === 'function') source = source();
      if (source === undefined || source === null) source = '';
      if (typeof source === 'string') {
        this.#settingsText = source;
        this.#settings = source.trim() === '' ? {} : deepFreeze(JSON.parse(source));
      } else {
        this.#settingsText = JSON.stringify(source);
        this.#settings = deepFreeze(source);
      }
    } catch (e) {
      this.#settingsText ??= '';
      this.#settingsError = PluginError.invalidInput(
        `the plugin's settings are not valid JSON: ${e && e.message ? e.message : e}`,
      );
    }
  }

  /** The settings of this plugin instance, parsed (frozen); `{}` when there are none. Invalid JSON throws an
   * `invalid-input` PluginError. */
  get settings() {
    this.#resolveSettings();
    if (this.#settingsError) throw this.#settingsError;
    return this.#settings;
  }

  /** The settings as the host gave them (JSON text); empty when there are none. */
  get settingsText() {
    this.#resolveSettings();
    return this.#settingsText;
  }

  /** The host's wall clock when the call started (the same Date for the whole call). */
  get now() {
    if (this.#now === undefined) {
      let source = this.#nowSource;
      if (typeof source === 'function') source = source();
      this.#now = source === undefined || source === null ? new Date() : instantToDate(source);
    }
    return new Date(this.#now.getTime());
  }

  /** Nanoseconds the call has run so far (a bigint, from a monotonic clock inside the component). */
  elapsed() {
    return this.#elapsed();
  }

  /** Logs one line at `level` ('trace' | 'debug' | 'info' | 'warn' | 'error'). */
  log(level, message) {
    if (!LOG_LEVELS.includes(level)) {
      throw new TypeError(`unknown log level ${JSON.stringify(String(level))}; use one of ${LOG_LEVELS.join(', ')}`);
    }
    this.#log(level, text(message));
  }

  trace(message) {
    this.log('trace', message);
  }

  debug(message) {
    this.log('debug', message);
  }

  info(message) {
    this.log('info', message);
  }

  warn(message) {
    this.log('warn', message);
  }

  error(message) {
    this.log('error', message);
  }
}

function errorMessage(e) {
  if (e instanceof Error || (e !== null && typeof e === 'object' && typeof e.message === 'string')) {
    return e.message;
  }
  return String(e);
}

// `Name: message` and the stack (node's stacks start with that line, SpiderMonkey's do not).
function describeThrown(e) {
  if (!(e instanceof Error)) return String(e);
  const header = `${e.name}: ${e.message}`;
  const stack = typeof e.stack === 'string' ? e.stack.replace(/\n$/, '') : '';
  if (stack === '') return header;
  return stack.startsWith(header) ? stack : `${header}\n${stack}`;
}

/**
 * Runs a check on one object and returns the WIT's result: `{tag: 'ok', val: undefined | {status, message}}` or
 * `{tag: 'err', val: {kind, message}}`. A thrown PluginError is that error; any other exception is `failed` with
 * its message (and its stack goes to the log); a verdict that is not a health is `failed`.
 */
export function runCheck(assess, obj, cx) {
  let verdict;
  try {
    verdict = assess(WeftObject.wrap(obj), cx);
  } catch (e) {
    if (PluginError.is(e)) {
      return { tag: 'err', val: { kind: e.kind, message: text(e.message) } };
    }
    try {
      cx.log('error', `assess threw: ${describeThrown(e)}`);
    } catch {
      // Logging is best effort.
    }
    return { tag: 'err', val: { kind: 'failed', message: errorMessage(e) } };
  }
  if (verdict === undefined || verdict === null) {
    return { tag: 'ok', val: undefined };
  }
  if (typeof verdict.then === 'function') {
    return {
      tag: 'err',
      val: { kind: 'failed', message: 'assess returned a Promise: a check must be synchronous (not an async function)' },
    };
  }
  const status = Health.parseStatus(verdict.status);
  if (status === undefined) {
    return {
      tag: 'err',
      val: {
        kind: 'failed',
        message: `assess returned ${JSON.stringify(verdict.status ?? verdict)} where a Health was expected (status one of ${STATUSES.join(', ')})`,
      },
    };
  }
  return { tag: 'ok', val: { status, message: text(verdict.message) } };
}

/**
 * The `health` interface's export for a check, over the host's imports given as functions:
 * `{log(level, message), children(uid) -> string[], settings() -> string, callStarted() -> {seconds, nanoseconds},
 * elapsed() -> bigint}`. `weft-sdk/component` calls it with the real `weft:plugin/*` imports; tests call it with
 * fakes.
 *
 * Each `assess` call (a batch) gets one Context: the settings are read at most once per call, the clock likewise.
 * Text that is not a JSON object is an `invalid-input` error for that object alone.
 */
export function makeHealthExport(assess, imports) {
  if (typeof assess !== 'function') {
    throw new TypeError('the check must be a function assess(obj, cx); does your module export `assess`?');
  }
  return {
    assess(objects) {
      const cx = new Context({
        related: (uid) => imports.children(uid),
        settings: () => imports.settings(),
        now: () => imports.callStarted(),
        elapsed: () => imports.elapsed(),
        log: (level, message) => imports.log(level, message),
      });
      return objects.map((json) => {
        let obj;
        try {
          obj = WeftObject.fromJSON(json);
        } catch (e) {
          return { tag: 'err', val: { kind: e.kind ?? 'invalid-input', message: errorMessage(e) } };
        }
        return runCheck(assess, obj, cx);
      });
    },
  };
}
