import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parseDuration } from '../../sim/core/time';
import { cutToDuration } from '../../sim/scenario/cutDuration';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { BROKER_CONFIGS, CONSUMER_CONFIGS, PRODUCER_CONFIGS, TOPIC_CONFIGS } from '../../sim/kafka/config/configs';

/**
 * Scenario documents a person might hand to `kafkasim run`: the library's scenarios, shortened so a case runs
 * in about a second, with one to three mutations each (a value replaced, a field dropped or added, a config
 * pushed to its bounds, a selector that matches nothing, a time after the end), and now and then bytes that are
 * not a JSON object at all. A case that should certainly be refused says so (`mustReject`), so a run that
 * accepts it counts as nonsense accepted silently.
 */
export interface DocumentCase {
  readonly kind: 'document';
  /** The library scenario it started from. */
  readonly base: string;
  /** The file's bytes. */
  readonly text: string;
  /** What the mutations did, for the report. */
  readonly label: string;
  /** Why a correct validator refuses this document, or null when it may be accepted. */
  readonly mustReject: string | null;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Doc = { [k: string]: Json };

const SCENARIO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../scenarios');

/** How long a fuzzed run lasts (scenario time), so a case costs about a second of wall time. */
export const SHORT_DURATION_MS = 6000;
export const SHORT_QUIET_MS = 3000;

function timeMs(v: Json | undefined): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const us = parseDuration(v);
    return us === null ? null : us / 1000;
  }
  return null;
}

/**
 * A library scenario cut to SHORT_DURATION_MS as `run --duration` cuts it (what happens later is left out),
 * with a short quiet period; a consumer that would start, or stop processing, after that is started at 0 or
 * left processing, so the document stays valid.
 */
export function shorten(spec: Doc): Doc {
  const cut = cutToDuration(spec as unknown as ScenarioSpec, `${SHORT_DURATION_MS}ms`).spec as unknown as Doc;
  const end = SHORT_DURATION_MS + SHORT_QUIET_MS;
  const out: Doc = { ...cut, quiet: `${SHORT_QUIET_MS}ms` };
  if (Array.isArray(out.consumers)) {
    out.consumers = out.consumers.map((c) => {
      const co = { ...(c as Doc) };
      if (co.start !== undefined && (timeMs(co.start) ?? Infinity) > end) delete co.start;
      if (isObject(co.processing) && co.processing.stop !== undefined && (timeMs(co.processing.stop) ?? Infinity) > end) {
        const { stop: _stop, ...rest } = co.processing;
        co.processing = rest;
      }
      return co;
    });
  }
  return out;
}

let library: { id: string; doc: Doc }[] | undefined;

/** The library's scenarios, shortened (read once). */
export function shortLibrary(): readonly { id: string; doc: Doc }[] {
  library ??= readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const doc = JSON.parse(readFileSync(join(SCENARIO_DIR, f), 'utf8')) as Doc;
      return { id: String(doc.id), doc: shorten(doc) };
    });
  return library;
}

// ---- values worth trying ----

const BUILTIN_NAMES = ['toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty', 'prototype', '__defineGetter__', 'isPrototypeOf'];
const SELECTORS_THAT_MATCH_NOTHING = ['zone:nowhere', 'rack:nowhere', 'broker:99', 'broker:0', 'leader:nosuch/0', 'follower:nosuch/0', 'leader:orders/99', 'tag:nothing', 'coordinator:nosuch-group'];

const interestingString = fc.constantFrom(
  '',
  ' ',
  'x',
  '0',
  '-1',
  '1e3',
  'NaN',
  'Infinity',
  'null',
  'true',
  '0s',
  '1ms',
  '3s',
  '25h',
  '-5s',
  '1.5s',
  '9999999h',
  'all',
  'compact',
  '*',
  '\u0000',
  '\n',
  'é',
  ...BUILTIN_NAMES,
  ...SELECTORS_THAT_MATCH_NOTHING,
);

const interestingNumber = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, -0.5, 2, 3, 7, 100, 1000, 1e6, 2 ** 31 - 1, 2 ** 31, 2 ** 53, 1e21, -1e21, 1.7976931348623157e308, 5e-324),
  fc.integer({ min: -10, max: 10_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
);

/** A long string, rarely a very long one (an unknown key of 100 kB must not give a 100 kB error). */
const longString = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 61, max: 400 }).map((n) => 'k'.repeat(n)) },
  { weight: 1, arbitrary: fc.constant('v'.repeat(100_000)) },
);

const interestingValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: interestingNumber },
  { weight: 3, arbitrary: interestingString },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [[]], [null], { a: 1 }, [1, 2, 3], ['x']) },
  { weight: 1, arbitrary: longString },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
);

const SCOPES = {
  broker: Object.keys(BROKER_CONFIGS),
  topic: Object.keys(TOPIC_CONFIGS),
  producer: Object.keys(PRODUCER_CONFIGS),
  consumer: Object.keys(CONSUMER_CONFIGS),
} as const;
type Scope = keyof typeof SCOPES;

/** Values at a config's edges: zero, one, negative, huge, and a few that are not numbers at all. */
export const configValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Json>(0, 1, -1, 2, 10, 100, 1000, 2 ** 31 - 1, 2 ** 31, 2 ** 63, 9.2e18, 0.5) },
  { weight: 2, arbitrary: fc.constantFrom<Json>('0', '1', '-1', 'true', 'false', 'all', '1', 'none', 'compact', 'delete,compact', 'earliest', 'null', '', 'x') },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, ['range'], [1]) },
);

/** Every field name the scenario language knows, anywhere (an unknown name is one of none of these). */
const KNOWN_FIELD_NAMES = new Set([
  'id', 'title', 'summary', 'lesson', 'tags', 'seed', 'duration', 'quiet', 'cluster', 'topics', 'producers', 'consumers', 'faults', 'actions', 'captions', 'expect', 'trace',
  'controllers', 'brokers', 'racks', 'zones', 'broker', 'eligibleLeaderReplicas', 'legacyHighWatermarkTruncation', 'network', 'disk',
  'name', 'partitions', 'replicationFactor', 'config', 'assignment', 'workload', 'zone', 'topic', 'rate', 'at', 'start', 'stop', 'maxRecords', 'keys',
  'valueBytes', 'partition', 'group', 'processing', 'check', 'op', 'value', 'description', 'text', 'fault', 'targets', 'groups', 'from', 'to', 'factor',
  'addMs', 'jitterMs', 'action', 'count', 'kind', 'key', 's', 'share', 'salts', 'tombstones', 'during',
]);

const unknownKey = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...BUILTIN_NAMES) },
  { weight: 3, arbitrary: fc.constantFrom('colour', 'durations', 'Duration', 'topic_name', 'extra', '', ' ', 'acks', 'min.insync.replicas') },
  { weight: 1, arbitrary: longString },
);

// ---- mutations ----

type Path = (string | number)[];

/** Every path in a document, parents before children, in a stable order. */
function paths(v: Json, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) paths(v[k]!, [...at, k], out);
  return out;
}

function get(doc: Json, p: Path): Json | undefined {
  let cur: Json | undefined = doc;
  for (const k of p) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, Json>)[k];
  }
  return cur;
}

function clone<T extends Json>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Sets (or with `undefined`, deletes) the value at `p`; the root is never replaced. */
function set(doc: Doc, p: Path, v: Json | undefined): void {
  if (p.length === 0) return;
  const parent = get(doc, p.slice(0, -1));
  if (parent === null || typeof parent !== 'object') return;
  const k = p[p.length - 1]!;
  if (Array.isArray(parent)) {
    if (typeof k !== 'number') return;
    if (v === undefined) parent.splice(k, 1);
    else parent[k] = v;
  } else if (v === undefined) delete parent[k as string];
  else Object.defineProperty(parent, k as string, { value: v, enumerable: true, writable: true, configurable: true });
}

function isObject(v: Json | undefined): v is { [k: string]: Json } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

interface Mutation {
  readonly name: string;
  /** Applies to `doc` in place; returns why the result must be refused, or null. */
  apply(doc: Doc, pick: number): string | null;
}

function pickPath(doc: Doc, pick: number, filter: (p: Path, v: Json) => boolean = () => true): Path | null {
  const ps = paths(doc).filter((p) => p.length > 0 && filter(p, get(doc, p)!));
  return ps.length === 0 ? null : ps[pick % ps.length]!;
}

const replaceValue = interestingValue.map(
  (value): Mutation => ({
    name: 'replace',
    apply(doc, pick) {
      const p = pickPath(doc, pick);
      if (p) set(doc, p, clone(value));
      return null;
    },
  }),
);

const deleteField: fc.Arbitrary<Mutation> = fc.constant({
  name: 'delete',
  apply(doc, pick) {
    const p = pickPath(doc, pick);
    if (p) set(doc, p, undefined);
    return null;
  },
});

const addUnknownKey = fc.tuple(unknownKey, interestingValue).map(
  ([key, value]): Mutation => ({
    name: 'add-key',
    apply(doc, pick) {
      const p = pickPath(doc, pick, (_, v) => isObject(v)) ?? [];
      const target = p.length === 0 ? doc : (get(doc, p) as { [k: string]: Json });
      Object.defineProperty(target, key, { value: clone(value), enumerable: true, writable: true, configurable: true });
      // Every object of a scenario is closed: a name the language does not know, in any of them, is refused
      // (in a config map it is an unknown config name).
      return KNOWN_FIELD_NAMES.has(key) || Object.values(SCOPES).some((names) => (names as readonly string[]).includes(key)) ? null : `unknown key ${JSON.stringify(key.slice(0, 20))}`;
    },
  }),
);

const configHolders: Record<Scope, (doc: Doc) => { [k: string]: Json }[]> = {
  broker: (doc) => {
    const cluster = isObject(doc.cluster) ? doc.cluster : (doc.cluster = {});
    return [isObject(cluster.broker) ? cluster.broker : (cluster.broker = {})];
  },
  topic: (doc) => holders(doc.topics),
  producer: (doc) => holders(doc.producers),
  consumer: (doc) => holders(doc.consumers),
};

function holders(list: Json | undefined): { [k: string]: Json }[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((o) => (isObject(o.config) ? o.config : (o.config = {})));
}

const setConfig = fc
  .constantFrom(...(Object.keys(SCOPES) as Scope[]))
  .chain((scope) => fc.tuple(fc.constant(scope), fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...SCOPES[scope]) }, { weight: 1, arbitrary: fc.constantFrom(...BUILTIN_NAMES) }), configValue))
  .map(
    ([scope, name, value]): Mutation => ({
      name: `config ${scope}.${name}=${JSON.stringify(value)}`,
      apply(doc, pick) {
        const hs = configHolders[scope](doc);
        // defineProperty, not assignment: `o.__proto__ = v` would set the prototype, not a key a file can have.
        if (hs.length > 0) Object.defineProperty(hs[pick % hs.length]!, name, { value: clone(value), enumerable: true, writable: true, configurable: true });
        return BUILTIN_NAMES.includes(name) && hs.length > 0 ? `config named ${name}` : null;
      },
    }),
  );

const selectorThatMatchesNothing = fc.constantFrom(...SELECTORS_THAT_MATCH_NOTHING).map(
  (sel): Mutation => ({
    name: `selector ${sel}`,
    apply(doc, pick) {
      const p = pickPath(doc, pick, (q, v) => typeof v === 'string' && q[0] === 'faults' && ['targets', 'from', 'to', 'groups'].some((k) => q.includes(k)));
      if (!p) return null;
      set(doc, p, sel);
      // "leader:orders/99" matches nothing only where orders has fewer partitions; the others never match.
      return sel === 'leader:orders/99' ? null : `a selector that matches nothing (${sel})`;
    },
  }),
);

const TIMED = ['at', 'start', 'stop'];
const timeAfterTheEnd = fc.constantFrom(SHORT_DURATION_MS + SHORT_QUIET_MS + 1000, `${(SHORT_DURATION_MS + SHORT_QUIET_MS) / 1000 + 5}s`, '2h').map(
  (t): Mutation => ({
    name: `time after the end (${t})`,
    apply(doc, pick) {
      const p = pickPath(doc, pick, (q) => {
        const last = q[q.length - 1];
        // `at` entries of a workload are array items under "at".
        return (typeof last === 'string' && TIMED.includes(last)) || (typeof last === 'number' && q[q.length - 2] === 'at');
      });
      if (!p) return null;
      // A seek by timestamp names a moment of the records, not of the run.
      if (p.includes('seeks') && p.includes('to')) return null;
      set(doc, p, t);
      return `a time after the end of the run at ${p.join('.')}`;
    },
  }),
);

const emptyList = fc.constantFrom('workload', 'topics', 'targets', 'producers').map(
  (field): Mutation => ({
    name: `empty ${field}`,
    apply(doc, pick) {
      const p = pickPath(doc, pick, (q) => q[q.length - 1] === field);
      if (!p) return null;
      set(doc, p, []);
      return field === 'workload' || field === 'targets' ? `an empty ${field}` : null;
    },
  }),
);

const BAD_TOPIC_NAMES = ['t'.repeat(250), '.', '..', 'has space', 'ümlaut', 'a/b', 'a:b'];

/** Renames a topic everywhere it is named (workloads, consumers, selectors, actions), so only the name is wrong. */
const renameTopic = fc.constantFrom(...BAD_TOPIC_NAMES, 'renamed', 'a.b_c-d').map(
  (to): Mutation => ({
    name: `rename a topic to ${JSON.stringify(to.slice(0, 12))}`,
    apply(doc, pick) {
      const topics = Array.isArray(doc.topics) ? doc.topics.filter(isObject) : [];
      if (topics.length === 0) return null;
      const t = topics[pick % topics.length]!;
      const from = t.name;
      if (typeof from !== 'string') return null;
      const rename = (v: Json): Json => {
        if (typeof v === 'string') {
          if (v === from) return to;
          const m = /^(leader|follower):(.*)\/(\d+.*)$/.exec(v);
          return m && m[2] === from ? `${m[1]}:${to}/${m[3]}` : v;
        }
        if (Array.isArray(v)) return v.map(rename);
        if (isObject(v)) {
          const o: { [k: string]: Json } = {};
          for (const [k, x] of Object.entries(v)) o[k] = k === 'text' || k === 'description' ? x : rename(x);
          return o;
        }
        return v;
      };
      for (const k of Object.keys(doc)) if (k !== 'id' && k !== 'title' && k !== 'summary' && k !== 'lesson') doc[k] = rename(doc[k]!);
      return BAD_TOPIC_NAMES.includes(to) ? `a topic name Kafka refuses (${JSON.stringify(to.slice(0, 12))})` : null;
    },
  }),
);

const duplicateItem: fc.Arbitrary<Mutation> = fc.constant({
  name: 'duplicate an item',
  apply(doc, pick) {
    const p = pickPath(doc, pick, (_, v) => Array.isArray(v) && v.length > 0);
    if (!p) return null;
    const arr = get(doc, p) as Json[];
    arr.push(clone(arr[pick % arr.length]!));
    return null;
  },
});

/**
 * The language for precise failure cases: a per-partition figure (of a partition that exists, or one that does
 * not), a window on a check that takes one (or on one that does not), tombstones on a workload (with keys, or
 * without, which deletes nothing).
 */
const preciseCase = fc.constantFrom('figure', 'no-such-partition', 'window', 'window-on-a-verdict', 'tombstones').map(
  (what): Mutation => ({
    name: `precise: ${what}`,
    apply(doc, pick) {
      const topics = Array.isArray(doc.topics) ? doc.topics.filter(isObject) : [];
      const topic = topics[pick % Math.max(1, topics.length)]?.name;
      const expect = (e: Json) => {
        if (!Array.isArray(doc.expect)) doc.expect = [];
        (doc.expect as Json[]).push(e);
      };
      switch (what) {
        case 'figure':
          if (typeof topic !== 'string') return null;
          expect({ check: `unavailability.longest-ms.${topic}-0`, op: '>=', value: 0 });
          expect({ check: `leader.final.${topic}-0`, op: '>=', value: -1 });
          return null;
        case 'no-such-partition':
          if (typeof topic !== 'string') return null;
          expect({ check: `elections.${topic}-999999999`, op: '=', value: 0 });
          return 'a per-partition figure of a partition the topic does not have';
        case 'window':
          if (typeof topic !== 'string') return null;
          expect({ check: `acked.${topic}-0`, op: '>=', value: 0, during: ['0s', '1s'] });
          expect({ check: 'unavailability.longest-ms', op: '>=', value: 0, during: ['1s', '2s'] });
          return null;
        case 'window-on-a-verdict':
          expect({ check: 'lost-write', op: '=', value: 0, during: ['0s', '1s'] });
          return 'a window on a verdict of the whole run';
        case 'tombstones': {
          const p = pickPath(doc, pick, (q, v) => q[0] === 'producers' && isObject(v) && 'topic' in v && q.includes('workload'));
          if (!p) return null;
          const w = get(doc, p) as { [k: string]: Json };
          w.tombstones = 0.5;
          const keys = w.keys;
          return !isObject(keys) || keys.kind === 'none' ? 'tombstones on a workload without keys' : null;
        }
      }
      return null;
    },
  }),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 1, arbitrary: preciseCase },
  { weight: 6, arbitrary: replaceValue },
  { weight: 2, arbitrary: deleteField },
  { weight: 2, arbitrary: addUnknownKey },
  { weight: 5, arbitrary: setConfig },
  { weight: 1, arbitrary: selectorThatMatchesNothing },
  { weight: 1, arbitrary: timeAfterTheEnd },
  { weight: 1, arbitrary: emptyList },
  { weight: 1, arbitrary: renameTopic },
  { weight: 1, arbitrary: duplicateItem },
);

/** What the bytes of the file look like: mostly the document as JSON, sometimes not JSON at all. */
const encoding = fc.oneof(
  { weight: 30, arbitrary: fc.constant((json: string) => ({ text: json, why: null as string | null })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      (json: string) => ({ text: '\ufeff' + json, why: null }),
      (json: string) => ({ text: json.slice(0, Math.floor(json.length / 2)), why: 'truncated JSON' }),
      (json: string) => ({ text: json + '\n}', why: 'trailing garbage' }),
      () => ({ text: '', why: 'an empty file' }),
      () => ({ text: 'id: yaml\nduration: 5s\n', why: 'not JSON' }),
      () => ({ text: '[]', why: 'an array, not an object' }),
      () => ({ text: 'null', why: 'null, not an object' }),
      () => ({ text: '"a string"', why: 'a string, not an object' }),
      () => ({ text: '{"id": "x", "duration": "5s", "__proto__": {"duration": "1h"}}', why: 'a field named __proto__' }),
    ),
  },
);

/** One fuzzed scenario document. */
export const documentCase: fc.Arbitrary<DocumentCase> = fc
  .record({
    base: fc.nat(),
    mutations: fc.array(fc.tuple(mutation, fc.nat()), { minLength: 1, maxLength: 3 }),
    encoding,
  })
  .map(({ base, mutations, encoding: encode }) => {
    const lib = shortLibrary();
    const b = lib[base % lib.length]!;
    const doc = clone(b.doc);
    const reasons = mutations.map(([m, pick]) => m.apply(doc, pick));
    const { text, why } = encode(JSON.stringify(doc, null, 1));
    // With several mutations a later one may undo an earlier one's damage; only a single one is judged.
    const mustReject = why ?? (mutations.length === 1 ? reasons[0]! : null);
    return { kind: 'document', base: b.id, text, label: mutations.map(([m]) => m.name).join('; '), mustReject };
  });
