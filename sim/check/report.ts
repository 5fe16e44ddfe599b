/** One check's result: how many, and a few examples in words. */
export interface CheckResult {
  readonly count: number;
  readonly examples: readonly string[];
  /** For lost writes: each one's story, in order. */
  readonly stories?: readonly (readonly string[])[];
  /** Values involved (for the UI to highlight). */
  readonly values?: readonly string[];
}

/** Every result by name. */
export type CheckReport = Record<string, CheckResult>;

/** Examples a result carries at most. */
export const MAX_EXAMPLES = 5;

export function result(count: number, examples: readonly string[] = [], extra: Partial<CheckResult> = {}): CheckResult {
  return { count, examples: examples.slice(0, MAX_EXAMPLES), ...extra };
}

/** A check by name, 0 when absent (errors.X that never happened). */
export function checkValue(report: CheckReport, name: string): number {
  return Object.hasOwn(report, name) ? report[name]!.count : 0;
}

/** Microseconds as milliseconds with two decimals (10 us steps). */
export const ms2 = (us: number): number => Math.round(us / 10) / 100;

/** The index of the p-th percentile (nearest rank) among n sorted values (n > 0). */
export function rank(n: number, p: number): number {
  return Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
}

/**
 * The p-th percentile (nearest rank) of `values`, 0 when empty. Selects in place (Hoare's quickselect), so a
 * figure over a run's records costs one pass over a typed array, not a sort; the select leaves every value
 * below the rank before it and every one above after it, so a higher percentile of the same values may start
 * at the rank of a lower one already selected (`from`).
 */
export function percentile(values: Float64Array | Int32Array, p: number, from = 0): number {
  const n = values.length;
  if (n === 0) return 0;
  const k = rank(n, p);
  let lo = from;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const x = values[i]!;
        values[i] = values[j]!;
        values[j] = x;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k]!;
  }
  return values[k]!;
}
