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

/** Collects the numbers of a list of texts as it is built, one `add` per text. */
export class NumberedListBuilder {
  private readonly prefixes: string[] = [];
  private prefixOf: number[] | null = null;
  private readonly n: number[] = [];
  private last = -1;

  /** The next text is `prefix + n`; a null prefix or n < 0: it has no number. */
  add(prefix: string | null, n: number): void {
    if (prefix === null || n < 0) {
      this.n.push(-1);
      this.prefixOf?.push(0);
      return;
    }
    let k = this.last >= 0 && this.prefixes[this.last] === prefix ? this.last : this.prefixes.indexOf(prefix);
    if (k < 0) {
      k = this.prefixes.push(prefix) - 1;
      if (k === 1) this.prefixOf = new Array<number>(this.n.length).fill(0);
    }
    this.last = k;
    this.n.push(k > 0xff ? -1 : n);
    this.prefixOf?.push(k > 0xff ? 0 : k);
  }

  /** The numbers of the texts added, in order; undefined when none has one. */
  finish(): NumberedTexts | undefined {
    if (this.prefixes.length === 0) return undefined;
    return { prefixes: this.prefixes, prefixOf: this.prefixOf === null ? null : Uint8Array.from(this.prefixOf), n: Int32Array.from(this.n) };
  }
}
