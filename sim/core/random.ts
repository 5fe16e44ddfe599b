import seedrandom from 'seedrandom';

/** The state of a stream: enough to continue its exact sequence later (snapshots, UI rewind). */
export interface RandomState {
  readonly path: string;
  readonly alea: object;
}

type Alea = ReturnType<typeof seedrandom.alea>;

/**
 * A seeded random stream (seedrandom's alea: fast, 32-bit fractions, with saveable state).
 *
 * `fork(name)` gives a child stream whose numbers depend only on (root seed, path of names), never on
 * how many numbers any other stream drew: adding a component never shifts another's draws.
 */
export class Random {
  readonly path: string;
  private readonly prng: Alea;

  private constructor(path: string, state?: object) {
    this.path = path;
    this.prng = state
      ? seedrandom.alea('', { state: state as seedrandom.State.Alea })
      : seedrandom.alea(path, { state: true });
  }

  /** The root stream of a run. Numbers and strings are both accepted; 7 and "7" are the same seed. */
  static root(seed: number | string): Random {
    return new Random(`kafkasim:${String(seed)}`);
  }

  /** Continues a saved stream exactly where it was. */
  static restore(state: RandomState): Random {
    return new Random(state.path, state.alea);
  }

  /** A child stream named `name`; the same name always gives the same stream. */
  fork(name: string): Random {
    return new Random(`${this.path}/${name}`);
  }

  save(): RandomState {
    return { path: this.path, alea: (this.prng as unknown as { state(): object }).state() };
  }

  /** Uniform in [0, 1), 32 bits of randomness. */
  next(): number {
    return this.prng();
  }

  /** Uniform in [0, 1) with 53 bits, for tiny probabilities. */
  nextDouble(): number {
    return this.prng.double();
  }

  /** Uniform float in [min, max). */
  float(min: number, max: number): number {
    return min + (max - min) * this.prng();
  }

  /** Uniform integer in [min, maxExclusive). */
  int(min: number, maxExclusive: number): number {
    if (!(maxExclusive > min)) throw new RangeError(`Random.int: empty range [${min}, ${maxExclusive})`);
    const span = maxExclusive - min;
    // 32-bit draws are unbiased enough below 2^20; above, use 53 bits.
    const u = span <= 1 << 20 ? this.prng() : this.prng.double();
    return min + Math.floor(u * span);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return p > 0 && (p >= 1 || this.prng.double() < p);
  }

  /** Exponential with the given mean (inter-arrival times of a Poisson process). */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.prng.double());
  }

  /** Normal (Gaussian) by Box-Muller; one pair of uniforms per draw keeps the state simple. */
  normal(mean: number, stddev: number): number {
    const u1 = 1 - this.prng.double(); // (0, 1]
    const u2 = this.prng();
    return mean + stddev * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /** One element, uniformly. */
  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Random.choice: no items to choose from');
    return items[this.int(0, items.length)]!;
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i + 1);
      const tmp = out[i]!;
      out[i] = out[j]!;
      out[j] = tmp;
    }
    return out;
  }

  /** One element with probability proportional to its weight (weights >= 0, not all 0). */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    if (items.length === 0 || items.length !== weights.length) {
      throw new RangeError(`Random.weighted: ${items.length} items but ${weights.length} weights`);
    }
    let total = 0;
    for (const w of weights) {
      if (!(w >= 0)) throw new RangeError(`Random.weighted: weight ${w} is not a number >= 0`);
      total += w;
    }
    if (total <= 0) throw new RangeError('Random.weighted: all weights are 0');
    let x = this.prng.double() * total;
    for (let i = 0; i < items.length; i++) {
      x -= weights[i]!;
      if (x < 0) return items[i]!;
    }
    // Rounding left a sliver: the last item with a positive weight takes it.
    for (let i = items.length - 1; i >= 0; i--) if (weights[i]! > 0) return items[i]!;
    return items[items.length - 1]!;
  }

  /** Zipf over ranks 0..n-1 with exponent s (rank 0 is the most frequent). */
  zipf(n: number, s = 1): number {
    const cdf = zipfTable(n, s);
    const u = this.prng.double();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

const zipfTables = new Map<string, Float64Array>();

/** Cumulative distribution of Zipf(n, s), computed once per (n, s). A pure cache: no state leaks. */
function zipfTable(n: number, s: number): Float64Array {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`Random.zipf: n must be an integer >= 1, got ${n}`);
  if (!(s > 0)) throw new RangeError(`Random.zipf: s must be > 0, got ${s}`);
  const key = `${n}:${s}`;
  let t = zipfTables.get(key);
  if (!t) {
    t = new Float64Array(n);
    let sum = 0;
    for (let k = 1; k <= n; k++) sum += 1 / k ** s;
    let acc = 0;
    for (let k = 1; k <= n; k++) {
      acc += 1 / k ** s / sum;
      t[k - 1] = acc;
    }
    t[n - 1] = 1;
    zipfTables.set(key, t);
  }
  return t;
}
