/**
 * Texts that are a prefix and a number (`producer-1:42`: a workload's counted values) are made from numbers, and
 * a reader that keys by number parses each one back. An emitter may hand its numbers along: a list of texts
 * carries them as a hidden property (`numberedList`), a single text beside its event (`Trace.emit`'s `numbered`).
 * They are not part of the trace: JSON, the hash and a structured clone leave them out, and a loaded trace has
 * none, so a reader uses them only as a shortcut to what parsing the text gives (and parses when they are absent).
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
}

const NUMBERS = Symbol('numbers');

const NUMBER = Symbol('number');

/** Attaches the number of its one numbered text to an event (hidden, as a list's numbers are). */
export function numberedEvent<E extends object>(e: E, number: NumberedText): E {
  Object.defineProperty(e, NUMBER, { value: number });
  return e;
}

/** The number an emitter attached to an event, if any. */
export function numberOf(e: object): NumberedText | undefined {
  return (e as { [NUMBER]?: NumberedText })[NUMBER];
}

/** Attaches `numbers` to `list` (a property that is not enumerable: no copy, comparison or JSON sees it). */
export function numberedList<L extends readonly unknown[]>(list: L, numbers: NumberedTexts): L {
  Object.defineProperty(list, NUMBERS, { value: numbers });
  return list;
}

/** The numbers an emitter attached to `list`, if any. */
export function numbersOf(list: readonly unknown[]): NumberedTexts | undefined {
  return (list as { [NUMBERS]?: NumberedTexts })[NUMBERS];
}

/** The number of text `i` of a list with `numbers`, -1 when it has none (read the text). */
export function numberAt(numbers: NumberedTexts | undefined, i: number): number {
  return numbers === undefined ? -1 : numbers.n[i]!;
}

/** The prefix of text `i` (call only when `numberAt` is >= 0). */
export function prefixAt(numbers: NumberedTexts, i: number): string {
  return numbers.prefixes[numbers.prefixOf === null ? 0 : numbers.prefixOf[i]!]!;
}

/** Collects the numbers of a list of texts as it is built, one `add` per text, then attaches them. */
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

  /** Attaches the numbers to `list` (the texts added, in order), unless none of them has one. */
  attach<L extends readonly unknown[]>(list: L): L {
    if (this.prefixes.length === 0) return list;
    return numberedList(list, { prefixes: this.prefixes, prefixOf: this.prefixOf === null ? null : Uint8Array.from(this.prefixOf), n: Int32Array.from(this.n) });
  }
}
