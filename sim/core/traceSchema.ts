/**
 * The trace's schema language: each layer declares its event kinds as plain data (field name -> field type),
 * and the TypeScript types of those events are derived from that data. One declaration gives both the check a
 * loaded file goes through (`parseTrace`) and the types every emitter and reader compiles against, so renaming a
 * field is a compile error in each reader, not a silently different report.
 *
 *   export const HOST_KINDS = defineKinds({ 'host.crash': { processes: list(str) } });
 *   declare module '../core/trace' { interface TraceKinds extends KindsOf<typeof HOST_KINDS> {} }
 *
 * Core knows the language, never the kinds: the layer that assembles a whole simulator's schema passes it in.
 */
import { describeValue } from './validate';

/** A field's type: a check of a parsed JSON value, and (in the type system only) the value's TypeScript type. */
export interface FieldType<T> {
  /** Plain words for the values it allows ("a number", "a list of strings"), for error messages. */
  readonly expects: string;
  /** null when `v` fits; otherwise where below the field it does not (path '' for the value itself) and what was expected there. */
  readonly check: (v: unknown) => Misfit | null;
  /** The field may be absent (optional fields). */
  readonly optional?: true;
  /** Never set: carries T for the type system. */
  readonly __type?: T;
}

/** Where a value departs from its type: the path below the field, and what is allowed there. */
export interface Misfit {
  readonly path: string;
  readonly expects: string;
  /** What is wrong, when more than "not what it expects" (a missing or undeclared field of a nested object). */
  readonly problem?: string;
}

/** The fields of one kind. */
export type KindFields = { readonly [field: string]: FieldType<unknown> };
/** Kinds by name. */
export type KindSchemas = { readonly [kind: string]: KindFields };

/** The TypeScript type a field type stands for. */
export type TypeOf<F> = F extends FieldType<infer T> ? T : never;

type OptionalKeys<F extends KindFields> = { [K in keyof F]: F[K] extends { readonly optional: true } ? K : never }[keyof F];
type RequiredKeys<F extends KindFields> = Exclude<keyof F, OptionalKeys<F>>;
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The object type of a kind's fields (optional fields may be absent); a kind without fields takes `{}` and nothing else. */
export type FieldsOf<F extends KindFields> = [keyof F] extends [never]
  ? Record<string, never>
  : Flat<{ [K in RequiredKeys<F>]: TypeOf<F[K]> } & { [K in OptionalKeys<F>]?: TypeOf<F[K]> }>;

/** The TraceKinds entries a block of kind schemas declares (`interface TraceKinds extends KindsOf<typeof X> {}`). */
export type KindsOf<S extends KindSchemas> = { [K in keyof S]: FieldsOf<S[K]> };

/** Declares a block of kinds (an identity that keeps the literal types the derived types need). */
export function defineKinds<const S extends KindSchemas>(kinds: S): S {
  return kinds;
}

function scalar<T>(expects: string, ok: (v: unknown) => boolean): FieldType<T> {
  const misfit: Misfit = { path: '', expects };
  return { expects, check: (v) => (ok(v) ? null : misfit) };
}

function within(step: string, m: Misfit): Misfit {
  return m.problem === undefined ? { path: step + m.path, expects: m.expects } : { path: step + m.path, expects: m.expects, problem: m.problem };
}

export const str: FieldType<string> = scalar('a string', (v) => typeof v === 'string');
export const num: FieldType<number> = scalar('a number', (v) => typeof v === 'number');
export const bool: FieldType<boolean> = scalar('true or false', (v) => typeof v === 'boolean');
/** Any JSON value (a message body the trace records as it was sent). */
export const json: FieldType<unknown> = scalar('any value', (v) => v !== undefined);

/** One of the listed strings. */
export function oneOf<const V extends readonly string[]>(...values: V): FieldType<V[number]> {
  const allowed = new Set<unknown>(values);
  return scalar(`one of ${values.map((v) => JSON.stringify(v)).join(', ')}`, (v) => allowed.has(v));
}

export function nullable<T>(f: FieldType<T>): FieldType<T | null> {
  const expects = `${f.expects} or null`;
  const self: Misfit = { path: '', expects };
  return {
    expects,
    check: (v) => {
      if (v === null) return null;
      const bad = f.check(v);
      return bad === null ? null : bad.path === '' ? self : bad;
    },
  };
}

/** A field that may be absent. */
export function optional<T>(f: FieldType<T>): FieldType<T> & { readonly optional: true } {
  return { expects: f.expects, check: f.check, optional: true };
}

export function list<T>(f: FieldType<T>): FieldType<T[]> {
  const check = f.check;
  const expects = `a list of ${plural(f.expects)}`;
  const self: Misfit = { path: '', expects };
  return {
    expects,
    check: (v) => {
      if (!Array.isArray(v)) return self;
      for (let i = 0; i < v.length; i++) {
        const bad = check(v[i]);
        if (bad !== null) return within(`[${i}]`, bad);
      }
      return null;
    },
  };
}

/** A string-keyed map of values of one type (`{"member-1": ["t-0"]}`). */
export function record<T>(f: FieldType<T>): FieldType<Record<string, T>> {
  const expects = `an object of ${plural(f.expects)}`;
  const self: Misfit = { path: '', expects };
  return {
    expects,
    check: (v) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return self;
      for (const k of Object.keys(v)) {
        const bad = f.check((v as Record<string, unknown>)[k]);
        if (bad !== null) return within(`.${k}`, bad);
      }
      return null;
    },
  };
}

/** An object with exactly these fields (optional ones may be absent; no others). */
export function obj<const F extends KindFields>(fields: F): FieldType<FieldsOf<F>> {
  const expects = `an object {${Object.keys(fields).join(', ')}}`;
  return {
    expects,
    check: (v) => {
      const p = checkFields(fields, v);
      if (p === null) return null;
      return p.path === '' ? { path: '', expects } : { path: `.${p.path}`, expects: p.expects, problem: p.problem };
    },
  };
}

/** "a number" -> "numbers", "a list of strings" -> "lists of strings", "one of ..." stays. */
function plural(expects: string): string {
  const bare = expects.replace(/^an? /, '');
  if (bare === expects) return expects;
  const [head, ...rest] = bare.split(' ');
  return [head!.endsWith('s') ? head : `${head}s`, ...rest].join(' ');
}

/** Where a value departs from `fields`, or null when it fits. */
export interface FieldProblem {
  /** The field's path from the object (`records[2].offsets[0]`), '' for the object itself. */
  readonly path: string;
  /** What is allowed there. */
  readonly expects: string;
  /** What is wrong, in words ("is missing", "must be a number, got \"x\""). */
  readonly problem: string;
}

/**
 * Checks an object's own fields against `fields`, skipping the names in `skip` (the event's base fields):
 * every required field present and of its type, no field the schema does not name.
 */
export function checkFields(fields: KindFields, v: unknown, skip?: ReadonlySet<string>): FieldProblem | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { path: '', expects: 'an object', problem: `must be an object, got ${describeValue(v)}` };
  const o = v as Record<string, unknown>;
  for (const name in fields) {
    const f = fields[name]!;
    if (!Object.prototype.hasOwnProperty.call(o, name)) {
      if (f.optional) continue;
      return { path: name, expects: f.expects, problem: `is missing (${f.expects})` };
    }
    const bad = f.check(o[name]);
    if (bad !== null) return { path: name + bad.path, expects: bad.expects, problem: bad.problem ?? `must be ${bad.expects}, got ${describeValue(valueAt(o[name], bad.path))}` };
  }
  for (const name of Object.keys(o)) {
    if (skip?.has(name)) continue;
    if (!Object.prototype.hasOwnProperty.call(fields, name)) {
      const known = Object.keys(fields);
      return { path: name, expects: 'no such field', problem: `is not a field of this kind (its fields: ${known.length > 0 ? known.join(', ') : 'none'})` };
    }
  }
  return null;
}

/** The value at a path like `[2].offsets[0]` below `v` (for the "got ..." of an error). */
function valueAt(v: unknown, path: string): unknown {
  const steps = path.match(/\[(\d+)\]|\.([^.[]+)/g) ?? [];
  let cur = v;
  for (const s of steps) {
    if (cur === null || typeof cur !== 'object') return cur;
    cur = s.startsWith('[') ? (cur as unknown[])[Number(s.slice(1, -1))] : (cur as Record<string, unknown>)[s.slice(1)];
  }
  return cur;
}
