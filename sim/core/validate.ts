/**
 * Reading plain data that a person wrote (a scenario file, a fault schedule, a --set flag) into typed
 * values, with errors that name the field's path, show the bad value and say what is allowed.
 */
export class ValidationError extends Error {
  constructor(
    readonly path: string,
    readonly value: unknown,
    readonly allowed: string,
    readonly hint?: string,
  ) {
    super(oneLine(`${path || '(root)'}: ${describeValue(value)} is not allowed; expected ${allowed}${hint ? ` (${hint})` : ''}`));
    this.name = 'ValidationError';
  }
}

/** Longest error message a person is shown: past it, the middle is elided. */
export const MAX_MESSAGE_CHARS = 500;

/** A text for one line of an error: control characters (newlines included) escaped, the middle of a long one elided. */
export function oneLine(text: string, max = MAX_MESSAGE_CHARS): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]/g, (c) => (c === '\n' ? '\\n' : c === '\t' ? ' ' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  if (flat.length <= max) return flat;
  const keep = Math.floor((max - 30) / 2);
  return `${flat.slice(0, keep)}...(${flat.length - 2 * keep} characters elided)...${flat.slice(-keep)}`;
}

/** A name a person wrote, for a message: quoted, and elided past 60 characters (a 10 MB key gives a short error). */
export function quoteName(name: string): string {
  return JSON.stringify(name.length > 60 ? `${name.slice(0, 40)}...(${name.length} characters)` : name);
}

export function describeValue(v: unknown): string {
  if (v === undefined) return 'a missing value';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? v.slice(0, 57) + '...' : v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

/** Edit distance, for "did you mean". */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The closest option to `word`, if it is close enough to be a typo. */
export function didYouMean(word: string, options: readonly string[]): string | undefined {
  // No typo makes a name hundreds of characters long; and the edit distance of a huge word would take for ever.
  if (word.length > 200) return undefined;
  let best: string | undefined;
  let bestD = Infinity;
  for (const o of options) {
    if (Math.abs(o.length - word.length) > Math.max(2, Math.floor(word.length / 3))) continue;
    const d = editDistance(word.toLowerCase(), o.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = o;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

export function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  const k = key.length > 60 ? `${key.slice(0, 40)}...(${key.length} characters)` : key;
  return path ? `${path}.${k}` : k;
}

/**
 * The one way to look a name up in a table of names (configs, commands, options, scopes): own properties only,
 * so "toString", "constructor" or "__proto__" is an unknown name, never something of Object.prototype's.
 */
export function lookup<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Requires a plain object and rejects any key not in `allowed`, suggesting the nearest one. */
export function expectObject(v: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isRecord(v)) throw new ValidationError(path, v, 'an object');
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k)) {
      const near = didYouMean(k, allowed);
      throw new ValidationError(
        join(path, k),
        v[k],
        `one of the known fields: ${allowed.join(', ')}`,
        near ? `unknown field ${quoteName(k)}; did you mean "${near}"?` : `unknown field ${quoteName(k)}`,
      );
    }
  }
  return v;
}

export function expectString(v: unknown, path: string): string {
  if (typeof v !== 'string' || v.length === 0) throw new ValidationError(path, v, 'a non-empty string');
  return v;
}

export function expectNumber(v: unknown, path: string, opts: { min?: number; max?: number; integer?: boolean } = {}): number {
  const what = `${opts.integer ? 'an integer' : 'a number'}${rangeText(opts.min, opts.max)}`;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ValidationError(path, v, what);
  if (opts.integer && !Number.isInteger(v)) throw new ValidationError(path, v, what);
  if (opts.min !== undefined && v < opts.min) throw new ValidationError(path, v, what);
  if (opts.max !== undefined && v > opts.max) throw new ValidationError(path, v, what);
  return v;
}

function rangeText(min?: number, max?: number): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` >= ${min}`;
  if (max !== undefined) return ` <= ${max}`;
  return '';
}

export function expectBoolean(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw new ValidationError(path, v, 'true or false');
  return v;
}

export function expectOneOf<T extends string>(v: unknown, path: string, options: readonly T[]): T {
  if (typeof v !== 'string' || !options.includes(v as T)) {
    const near = typeof v === 'string' ? didYouMean(v, options) : undefined;
    throw new ValidationError(path, v, `one of ${options.map((o) => JSON.stringify(o)).join(', ')}`, near ? `did you mean "${near}"?` : undefined);
  }
  return v as T;
}

export function expectArray(v: unknown, path: string, opts: { minLength?: number } = {}): unknown[] {
  if (!Array.isArray(v)) throw new ValidationError(path, v, 'an array');
  if (opts.minLength !== undefined && v.length < opts.minLength) {
    throw new ValidationError(path, v, `an array of at least ${opts.minLength} item${opts.minLength === 1 ? '' : 's'}`);
  }
  return v;
}
