/**
 * Record values (and keys) as numbers. A value is unique in a run (a producer numbers its records
 * "<producer>:<n>", keys are "k<n>"), so the checkers key everything about a record by its value. A string that
 * ends in a number maps onto blocks of 4,096 consecutive ids per prefix (id = block * 4096 + n % 4096) without a
 * table per value; any other string gets the next id of a shared block and is kept as text (hand-written
 * traces, tests).
 */

import { prefixAt, type NumberedTexts, type TraceNumbers } from '../../core/numberedText';

/**
 * The numbers the emitter handed along with the event being folded (core/numberedText.ts), set by the checkers
 * for each event of a run they watch; undefined for a kept or loaded trace, whose texts are parsed.
 */
export class CurrentNumbers {
  value: TraceNumbers | undefined = undefined;
}

const BITS = 12;
const BLOCK = 1 << BITS;
const MASK = BLOCK - 1;

export class ValueIds {
  private readonly prefixIds = new Map<string, number>();
  private readonly prefixNames: string[] = [];
  /** Per prefix: the block of each group of 4,096 n's (n >> 12), -1 when none yet. */
  private readonly blocksOf: Int32Array[] = [];
  /** Per prefix: blocks handed out, and calls made (to refuse very sparse numbering). */
  private readonly blockCount: number[] = [];
  private readonly calls: number[] = [];
  /** Per block: its prefix (-1: a block of other values) and its first n (or its first index in `otherText`). */
  private readonly blockPrefix: number[] = [];
  private readonly blockBase: number[] = [];
  private readonly others = new Map<string, number>();
  private readonly otherText: string[] = [];
  private otherBlock = -1;
  /**
   * Whether a text of the form `<prefix><n>` (what idOf is handed) was kept as text: then idOf asks the table of
   * texts first, as `id` does. Other texts kept aside (no number at the end, a leading zero) never have that form.
   */
  private numberedAside = false;
  private lastPrefix = '';
  private lastPrefixId = -1;
  /** The block of the last numbered id (prefix, n >> 12), and the calls for it not yet added to `calls`. */
  private cachedPrefix = -1;
  private cachedGroup = -1;
  private cachedBlock = -1;
  private cachedCalls = 0;

  /** One more than the highest id handed out so far is at most this (ids are dense within blocks). */
  get size(): number {
    return this.blockPrefix.length * BLOCK;
  }

  id(v: string): number {
    if (this.others.size > 0) {
      const o = this.others.get(v);
      if (o !== undefined) return o;
    }
    // The number at the end: at most 9 digits, no leading zero.
    let i = v.length;
    let n = 0;
    let scale = 1;
    while (i > 0) {
      const c = v.charCodeAt(i - 1) - 48;
      if (c < 0 || c > 9) break;
      if (scale > 1e8) return this.other(v);
      n += c * scale;
      scale *= 10;
      i--;
    }
    if (i === v.length || (v.length - i > 1 && v.charCodeAt(i) === 48)) return this.other(v);
    const lp = this.lastPrefix;
    if (i === lp.length && this.lastPrefixId >= 0 && (i === 0 || v.startsWith(lp))) return this.numbered(this.lastPrefixId, n, lp);
    return this.prefixed(v.slice(0, i), n);
  }

  /**
   * The id of the text `prefix + n` (n a whole number >= 0), as `id` gives it, without making or parsing the
   * text: for readers handed the numbers of a list (core/numberedText.ts).
   */
  idOf(prefix: string, n: number): number {
    // What `id` would read differently: a numbered text kept aside, a prefix ending in a digit, 10 digits or more.
    if (this.numberedAside || n >= 1e9) return this.id(prefix + n);
    if (prefix === this.lastPrefix && this.lastPrefixId >= 0) return this.numbered(this.lastPrefixId, n, prefix);
    const last = prefix.charCodeAt(prefix.length - 1) - 48;
    if (last >= 0 && last <= 9) return this.id(prefix + n);
    return this.prefixed(prefix, n);
  }

  /** The id of text i of a list whose numbers (if any) are `numbers`; `text` is that text (not null). */
  idIn(numbers: NumberedTexts | undefined, i: number, text: string): number {
    const n = numbers === undefined ? -1 : numbers.n[i]!;
    return n >= 0 ? this.idOf(prefixAt(numbers!, i), n) : this.id(text);
  }

  private prefixed(prefix: string, n: number): number {
    let p = this.prefixIds.get(prefix);
    if (p === undefined) {
      if (this.prefixNames.length >= 1 << 16) return this.numberedOther(prefix, n);
      p = this.prefixNames.length;
      this.prefixIds.set(prefix, p);
      this.prefixNames.push(prefix);
      this.blocksOf.push(new Int32Array(4).fill(-1));
      this.blockCount.push(0);
      this.calls.push(0);
    }
    this.lastPrefix = prefix;
    this.lastPrefixId = p;
    return this.numbered(p, n, prefix);
  }

  /** The id of `prefix + n` in prefix p's blocks (prefix is p's text, for the fallback to text). */
  private numbered(p: number, n: number, prefix: string): number {
    const b = n >>> BITS;
    // The usual case: the same group of 4,096 as the last value's (a producer numbers its values in order).
    if (b === this.cachedGroup && p === this.cachedPrefix) {
      this.cachedCalls++;
      return (this.cachedBlock << BITS) | (n & MASK);
    }
    if (this.cachedCalls > 0) {
      this.calls[this.cachedPrefix]! += this.cachedCalls;
      this.cachedCalls = 0;
    }
    this.calls[p]!++;
    let blocks = this.blocksOf[p]!;
    let block = b < blocks.length ? blocks[b]! : -1;
    if (block < 0) {
      // Numbering this sparse (a block per handful of values) would cost 4,096 slots a value: keep it as text.
      if (this.blockCount[p]! >= 8 && this.calls[p]! < this.blockCount[p]! * 256) return this.numberedOther(prefix, n);
      if (b >= blocks.length) {
        let cap = blocks.length * 2;
        while (cap <= b) cap *= 2;
        const next = new Int32Array(cap).fill(-1);
        next.set(blocks);
        this.blocksOf[p] = blocks = next;
      }
      block = this.blockPrefix.length;
      blocks[b] = block;
      this.blockCount[p]!++;
      this.blockPrefix.push(p);
      this.blockBase.push(b << BITS);
    }
    this.cachedPrefix = p;
    this.cachedGroup = b;
    this.cachedBlock = block;
    return (block << BITS) | (n & MASK);
  }

  /** A text that parses as `prefix + n`, kept as text all the same (too many prefixes, too sparse a numbering). */
  private numberedOther(prefix: string, n: number): number {
    this.numberedAside = true;
    return this.other(prefix + n);
  }

  private other(v: string): number {
    let id = this.others.get(v);
    if (id !== undefined) return id;
    const i = this.otherText.length;
    if ((i & MASK) === 0) {
      this.otherBlock = this.blockPrefix.length;
      this.blockPrefix.push(-1);
      this.blockBase.push(i);
    }
    id = (this.otherBlock << BITS) | (i & MASK);
    this.others.set(v, id);
    this.otherText.push(v);
    return id;
  }

  /** The value's text. */
  text(id: number): string {
    const block = id >>> BITS;
    const p = this.blockPrefix[block]!;
    const i = this.blockBase[block]! + (id & MASK);
    return p >= 0 ? `${this.prefixNames[p]}${i}` : this.otherText[i]!;
  }
}
