import { ValidationError, didYouMean, join, lookup, quoteName } from '../../core/validate';

/**
 * A config definition: Kafka's name (the key it is registered under), its default, and how to read a
 * value a person wrote — a JSON value in a scenario file or a string from `--set name=value`.
 */
export interface ConfigDef<T> {
  readonly default: T;
  /** What is allowed, in words, for error messages. */
  readonly allowed: string;
  /** Reads a value; returns undefined when it is not allowed. */
  read(raw: unknown): T | undefined;
  readonly doc: string;
}

export type ConfigDefs = Readonly<Record<string, ConfigDef<unknown>>>;
export type ConfigOf<D extends ConfigDefs> = { readonly [K in keyof D]: D[K] extends ConfigDef<infer T> ? T : never };

function num(raw: unknown): number | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw.trim())) return Number(raw);
  return undefined;
}

/** An integer (Kafka's int or long). `max` defaults to Long.MAX_VALUE-as-a-double. */
export function int(def: number, doc: string, opts: { min?: number; max?: number } = {}): ConfigDef<number> {
  const min = opts.min ?? Number.MIN_SAFE_INTEGER;
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  const range = opts.min !== undefined && opts.max !== undefined ? ` from ${opts.min} to ${opts.max}` : opts.min !== undefined ? ` >= ${opts.min}` : '';
  return {
    default: def,
    doc,
    allowed: `an integer${range}`,
    read(raw) {
      const n = num(raw);
      return n !== undefined && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
    },
  };
}

export function double(def: number, doc: string, opts: { min?: number; max?: number } = {}): ConfigDef<number> {
  const min = opts.min ?? -Infinity;
  const max = opts.max ?? Infinity;
  return {
    default: def,
    doc,
    allowed: `a number${Number.isFinite(min) ? ` >= ${min}` : ''}${Number.isFinite(max) ? ` and <= ${max}` : ''}`,
    read(raw) {
      const n = num(raw);
      return n !== undefined && n >= min && n <= max ? n : undefined;
    },
  };
}

export function bool(def: boolean, doc: string): ConfigDef<boolean> {
  return {
    default: def,
    doc,
    allowed: 'true or false',
    read(raw) {
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      return undefined;
    },
  };
}

export function oneOf<T extends string>(values: readonly T[], def: T, doc: string, aliases: Readonly<Record<string, T>> = {}): ConfigDef<T> {
  return {
    default: def,
    doc,
    allowed: `one of ${values.join(', ')}`,
    read(raw) {
      const s = typeof raw === 'number' ? String(raw) : raw;
      if (typeof s !== 'string') return undefined;
      const v = s.trim();
      if ((values as readonly string[]).includes(v)) return v as T;
      return aliases[v];
    },
  };
}

/** A comma-separated list (or a JSON array) of allowed words. */
export function listOf<T extends string>(values: readonly T[], def: readonly T[], doc: string, opts: { minLength?: number } = {}): ConfigDef<readonly T[]> {
  return {
    default: def,
    doc,
    allowed: `a list of ${values.join(', ')}`,
    read(raw) {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0) : undefined;
      if (!items || items.length < (opts.minLength ?? 0)) return undefined;
      if (!items.every((x) => typeof x === 'string' && (values as readonly string[]).includes(x))) return undefined;
      return items as T[];
    },
  };
}

/** A string, or null (Kafka's "null" default, e.g. transactional.id, group.instance.id). */
export function optionalString(doc: string): ConfigDef<string | null> {
  return {
    default: null,
    doc,
    allowed: 'a non-empty string or null',
    read(raw) {
      if (raw === null || raw === 'null') return null;
      return typeof raw === 'string' && raw.length > 0 ? raw : undefined;
    },
  };
}

/** A string that may be empty (Kafka's STRING type with a default such as "dlq."). */
export function text(def: string, doc: string): ConfigDef<string> {
  return {
    default: def,
    doc,
    allowed: 'a string (may be empty)',
    read(raw) {
      return typeof raw === 'string' ? raw : undefined;
    },
  };
}

/**
 * A `*.replication.throttled.replicas` topic config: "*" or comma-separated `partition:broker` pairs, kept as a
 * string (default: none). [server-common/.../config/ThrottledReplicaListValidator.java]
 */
export function throttledReplicaList(doc: string): ConfigDef<string> {
  return {
    default: '',
    doc,
    allowed: '"*" or a comma-separated list of partition:broker pairs such as "0:1,0:2"',
    read(raw) {
      const v = Array.isArray(raw) ? raw.join(',') : raw;
      if (typeof v !== 'string') return undefined;
      const t = v.trim();
      return t === '' || t === '*' || t.split(',').every((e) => /^\s*\d+\s*:\s*\d+\s*$/.test(e)) ? t : undefined;
    },
  };
}

/** The definition of config `name` in `defs`, or undefined (own names only: "toString" is not a config). */
export function configDef(defs: ConfigDefs, name: string): ConfigDef<unknown> | undefined {
  return lookup(defs, name);
}

/** Reads one config value, with an error naming the path, the value and what is allowed. */
export function readConfig<D extends ConfigDefs>(defs: D, name: string, raw: unknown, path: string): unknown {
  const def = configDef(defs, name);
  if (!def) {
    const near = didYouMean(name, Object.keys(defs));
    throw new ValidationError(path, name, `a known config name`, near ? `unknown config ${quoteName(name)}; did you mean "${near}"?` : `unknown config ${quoteName(name)}`);
  }
  const v = def.read(raw);
  if (v === undefined) throw new ValidationError(path, raw, def.allowed);
  return v;
}

/** Defaults overlaid with validated overrides (keys are Kafka's config names). */
export function resolveConfig<D extends ConfigDefs>(defs: D, overrides: Readonly<Record<string, unknown>> | undefined, path: string): ConfigOf<D> {
  const out: Record<string, unknown> = {};
  for (const [k, d] of Object.entries(defs)) out[k] = d.default;
  for (const [k, raw] of Object.entries(overrides ?? {})) out[k] = readConfig(defs, k, raw, join(path, k));
  return out as ConfigOf<D>;
}

export function defaultsOf<D extends ConfigDefs>(defs: D): ConfigOf<D> {
  return resolveConfig(defs, {}, '');
}
