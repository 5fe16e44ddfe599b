/**
 * Texts that are a prefix and a number (`producer-1:42`: a workload's counted values) are made from numbers, and
 * a reader that keys by number parses each one back. An emitter may hand its numbers along beside the event
 * (`Trace.emit`'s last argument, passed to every sink with the event): the number of its one numbered text, the
 * numbers of its list of texts, or of each of its lists. They are not part of the event: the trace's lines,
 * its hash and a kept or loaded event have none, so a reader uses them only as a shortcut to what parsing the
 * text gives, and parses when they are absent.
 */

/** The numbers of a list of texts: text i is `prefixes[prefixOf?.[i] ?? 0] + n[i]` wherever n[i] >= 0; n[i] < 0: read the text. */
export interface NumberedTexts {
  readonly prefixes: readonly string[];
  /** Per text, its prefix's index; null: every numbered text has prefixes[0]. */
  readonly prefixOf: Uint8Array | null;
  readonly n: Int32Array;
}

/** The number of one text: it is `prefix + n`. */
export interface NumberedText {
  readonly prefix: string;
  readonly n: number;
  /** A record's key beside its value (send.invoke): the key is `keyPrefix + keyN` when keyN >= 0; otherwise read the key's text. */
  readonly keyPrefix?: string;
  readonly keyN?: number;
}

/** What an emitter hands along with an event: for its one text, its one list, or each of its lists (by index). */
export type TraceNumbers = NumberedText | NumberedTexts | readonly (NumberedTexts | undefined)[];

/** The number of an event's one text, if its emitter handed it. */
export function numberOfText(x: TraceNumbers | undefined): NumberedText | undefined {
  return x !== undefined && 'prefix' in x ? x : undefined;
}

/** The numbers of an event's one list, if its emitter handed them. */
export function numbersOfList(x: TraceNumbers | undefined): NumberedTexts | undefined {
  return x !== undefined && 'prefixes' in x ? x : undefined;
}

/** The numbers of an event's list i (of several), if its emitter handed them. */
export function numbersOfLists(x: TraceNumbers | undefined, i: number): NumberedTexts | undefined {
  return Array.isArray(x) ? (x as readonly (NumberedTexts | undefined)[])[i] : undefined;
}

/** The number of text `i` of a list with `numbers`, -1 when it has none (read the text). */
export function numberAt(numbers: NumberedTexts | undefined, i: number): number {
  return numbers === undefined ? -1 : numbers.n[i]!;
}

/** The prefix of text `i` (call only when `numberAt` is >= 0). */
export function prefixAt(numbers: NumberedTexts, i: number): string {
  return numbers.prefixes[numbers.prefixOf === null ? 0 : numbers.prefixOf[i]!]!;
}

/**
 * Collects the numbers of a list of texts as it is built, one `add` per text. Made with the list's length when it
 * is known, it writes straight into the arrays it hands over (no copy at `finish`).
 */
export class NumberedListBuilder {
  private readonly prefixes: string[] = [];
  private prefixOf: Uint8Array | null = null;
  private n: Int32Array;
  private count = 0;
  private last = -1;

  constructor(capacity = 8) {
    this.n = new Int32Array(capacity);
  }

  /** The next text is `prefix + n`; a null prefix or n < 0: it has no number. */
  add(prefix: string | null, n: number): void {
    if (this.count === this.n.length) this.grow();
    const i = this.count++;
    if (prefix === null || n < 0) {
      this.n[i] = -1;
      return;
    }
    let k = this.last >= 0 && this.prefixes[this.last] === prefix ? this.last : this.prefixes.indexOf(prefix);
    if (k < 0) {
      k = this.prefixes.push(prefix) - 1;
      // Until a second prefix appears every text has prefixes[0]: the zeros a new Uint8Array starts with.
      if (k === 1) this.prefixOf = new Uint8Array(this.n.length);
    }
    this.last = k;
    this.n[i] = k > 0xff ? -1 : n;
    if (this.prefixOf !== null) this.prefixOf[i] = k > 0xff ? 0 : k;
  }

  private grow(): void {
    const n = new Int32Array(Math.max(8, this.n.length * 2));
    n.set(this.n);
    this.n = n;
    if (this.prefixOf !== null) {
      const p = new Uint8Array(n.length);
      p.set(this.prefixOf);
      this.prefixOf = p;
    }
  }

  /** The numbers of the texts added, in order; undefined when none has one. */
  finish(): NumberedTexts | undefined {
    if (this.prefixes.length === 0) return undefined;
    const c = this.count;
    const n = c === this.n.length ? this.n : this.n.subarray(0, c);
    const prefixOf = this.prefixOf === null ? null : c === this.prefixOf.length ? this.prefixOf : this.prefixOf.subarray(0, c);
    return { prefixes: this.prefixes, prefixOf, n };
  }
}
