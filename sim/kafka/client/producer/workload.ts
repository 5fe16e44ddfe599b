import type { Random } from '../../../core/random';

/** How a producer's records are keyed. */
export type KeySpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'fixed'; readonly key: string }
  | { readonly kind: 'uniform'; readonly count: number }
  | { readonly kind: 'zipf'; readonly count: number; readonly s?: number }
  /** One key takes `share` of the records, the rest spread uniformly over `count` others. */
  | { readonly kind: 'hot'; readonly count: number; readonly share: number }
  /** The hot key split over `salts` sub-keys (key#0..key#salts-1): the usual cure for a hot partition. */
  | { readonly kind: 'salted'; readonly count: number; readonly share: number; readonly salts: number };

/**
 * What a producer sends: plain data in a scenario. Values are generated unique per run (the producer id
 * and a counter), so the checkers can tell every record apart.
 */
export interface ProducerWorkload {
  readonly topic: string;
  /** Records per second (Poisson arrivals). */
  readonly rate?: number;
  /** Explicit send times in ms (instead of a rate). */
  readonly at?: readonly number[];
  readonly startMs?: number;
  readonly stopMs?: number;
  /** Stop after this many records. */
  readonly maxRecords?: number;
  readonly keys?: KeySpec;
  /** Declared value size in bytes. */
  readonly valueBytes?: number;
  /** Send every record to this partition. */
  readonly partition?: number;
  /**
   * A transactional producer (transactional.id) writes this many records per transaction, then commits (or
   * aborts, with `abortProbability`). Default 100.
   */
  readonly transactionSize?: number;
  /** The share of transactions the application aborts instead of committing (0..1). Default 0. */
  readonly abortProbability?: number;
  /** The share of records sent as tombstones (null values): 1 every one, absent or 0 none. */
  readonly tombstones?: number;
}

export function hotKeyName(): string {
  return 'hot';
}

/** Keys `k<n>` already made, by n (for n below KEY_NAMES_MAX). */
const KEY_NAMES: string[] = [];
const KEY_NAMES_MAX = 1 << 17;

/**
 * `k<n>`: one string per n for the key spaces workloads draw from, so each record's key is not a new string to
 * build and hash again (the producer interns keys by their text, a map lookup per record).
 */
export function numberedKey(n: number): string {
  if (n >= KEY_NAMES_MAX) return `k${n}`;
  return (KEY_NAMES[n] ??= `k${n}`);
}

/** The n of the next record's key `k<n>`, for the key spaces made only of numbered keys (the same draws as drawKey). */
export function drawKeyNumber(spec: Extract<KeySpec, { kind: 'uniform' | 'zipf' }>, random: Random): number {
  return spec.kind === 'uniform' ? random.int(0, spec.count) : random.zipf(spec.count, spec.s ?? 1);
}

/** Draws the key of the next record. */
export function drawKey(spec: KeySpec, random: Random): string | null {
  switch (spec.kind) {
    case 'none':
      return null;
    case 'fixed':
      return spec.key;
    case 'uniform':
    case 'zipf':
      return numberedKey(drawKeyNumber(spec, random));
    case 'hot':
      return random.chance(spec.share) ? hotKeyName() : numberedKey(random.int(0, spec.count));
    case 'salted':
      return random.chance(spec.share) ? `${hotKeyName()}#${random.int(0, spec.salts)}` : numberedKey(random.int(0, spec.count));
  }
}
