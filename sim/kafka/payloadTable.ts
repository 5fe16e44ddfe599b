/**
 * The bytes behind records' keys and values, by number. A batch stores ids (four int32 per record in a shared
 * slab, see records.ts); this table turns them back into what a reader, the trace or a wire codec needs. One
 * table per owner of the bytes: a producer incarnation, a group coordinator, a decoded client connection. A
 * batch points to its table, so every log, disk chunk and consumer holding the batch can read it, as every
 * holder of a real batch holds its bytes.
 *
 * Keys are interned: one id per distinct key (key spaces are bounded: workload keys, coordinator keys).
 * Values are either counted (a workload's generated values `<prefix>:<n>`, never stored: value id n is its
 * text) or stored (strings or a real client's bytes, kept for the table's lifetime). Id -1 is null: no key, or
 * a tombstone.
 */

export const NULL_ID = -1;

/** Records' int32 fields in a slab, per record [key id, value id, timestamp delta (ms), value size (bytes)]. */
export const SLAB_STRIDE = 4;
export const SLAB_KEY = 0;
export const SLAB_VALUE = 1;
export const SLAB_TIMESTAMP_DELTA = 2;
export const SLAB_VALUE_SIZE = 3;

/** A slab is filled by the batches built from one table; a new one starts when the current one is full. */
const FIRST_SLAB_INTS = 256;
const MAX_SLAB_INTS = 1 << 16;

export type Payload = string | Uint8Array;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** How bytes that are not UTF-8 text (or start with NUL) show as text: marked base64. */
export const BYTES_TEXT_MARK = '\u0000b64:';

/**
 * The text of a payload: itself for text; bytes as their UTF-8 text, or marked base64 when they are not UTF-8
 * (so distinct bytes always have distinct text: the trace and the checkers tell a client's values apart).
 */
export function payloadText(p: Payload): string {
  if (typeof p === 'string') return p;
  if (p.length === 0 || p[0] !== 0) {
    try {
      return strictUtf8.decode(p);
    } catch {
      // not UTF-8: fall through
    }
  }
  return BYTES_TEXT_MARK + base64(p);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64(b: Uint8Array): string {
  let out = '';
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (i + 1 < b.length ? B64[(n >> 6) & 63]! : '=') + (i + 2 < b.length ? B64[n & 63]! : '=');
  }
  return out;
}

/** The number a text ends in, written as `String(n)` writes it (at most 9 digits, no leading zero), or -1. */
function trailingNumber(text: string): number {
  let i = text.length;
  while (i > 0 && text.length - i < 9) {
    const c = text.charCodeAt(i - 1);
    if (c < 48 || c > 57) break;
    i--;
  }
  if (i === text.length || (i > 0 && text.charCodeAt(i - 1) >= 48 && text.charCodeAt(i - 1) <= 57)) return -1;
  if (text.length - i > 1 && text.charCodeAt(i) === 48) return -1;
  return Number(text.slice(i));
}

export class PayloadTable {
  private readonly keyIds = new Map<string, number>();
  private readonly keys: Payload[] = [];
  private readonly keySizes: number[] = [];
  /** Per key: a text key that is `<prefix><n>` (a workload's `k<n>`) as that prefix and n, for the trace's readers; else null and -1. */
  private readonly keyPrefixes: (string | null)[] = [];
  private readonly keyNumbers: number[] = [];
  private readonly stored: (Payload | null)[] = [];
  private counted = 0;
  private slabInts: Int32Array = new Int32Array(FIRST_SLAB_INTS);
  private slabUsed = 0;
  /**
   * The last SlabSource handed out for the current slab (its producer fields with it), reused while they stay the
   * same: not enumerable, so a table serialises as it always has (it points back here).
   */
  private declare slabSource: SlabSource | null;

  /**
   * @param valuePrefix counted values `<valuePrefix>:<n>` (a workload producer); null: values are stored.
   */
  constructor(readonly valuePrefix: string | null = null) {
    Object.defineProperty(this, 'slabSource', { value: null, writable: true, enumerable: false });
    this.countedPrefix = valuePrefix === null ? null : `${valuePrefix}:`;
  }

  /** The text before a counted value's number (`<valuePrefix>:`), null when values are stored. */
  readonly countedPrefix: string | null;

  // ---- keys ----

  /** The id of a key (the same id for equal keys); NULL_ID for no key. Byte keys are interned by their bytes. */
  internKey(key: Payload | null): number {
    if (key === null) return NULL_ID;
    const k = typeof key === 'string' ? key : bytesKey(key);
    let id = this.keyIds.get(k);
    if (id === undefined) {
      id = this.keys.length;
      this.keyIds.set(k, id);
      this.keys.push(key);
      this.keySizes.push(typeof key === 'string' ? utf8Length(key) : key.length);
      const n = typeof key === 'string' ? trailingNumber(key) : -1;
      this.keyPrefixes.push(n < 0 ? null : k.slice(0, k.length - String(n).length));
      this.keyNumbers.push(n);
    }
    return id;
  }

  /** The text before a key's number when the key is `<prefix><n>` (null: no number, or no key): its number, for the trace. */
  keyPrefix(id: number): string | null {
    return id === NULL_ID ? null : this.keyPrefixes[id]!;
  }

  /** The n of a key `<prefix><n>`, -1 when it has none (see keyPrefix). */
  keyNumber(id: number): number {
    return id === NULL_ID ? -1 : this.keyNumbers[id]!;
  }

  key(id: number): Payload | null {
    return id === NULL_ID ? null : this.keys[id]!;
  }

  /** The key as text (see payloadText), or null. */
  keyText(id: number): string | null {
    return id === NULL_ID ? null : payloadText(this.keys[id]!);
  }

  /** Bytes of the key, -1 for no key (the record's keyLength). */
  keySize(id: number): number {
    return id === NULL_ID ? -1 : this.keySizes[id]!;
  }

  // ---- values ----

  /** The next counted value's id (its text is `<prefix>:<id>`). */
  nextCountedValue(): number {
    if (this.valuePrefix === null) throw new Error('this payload table stores its values; it has no counted ones');
    return this.counted++;
  }

  /** Stores a value and returns its id; NULL_ID for a tombstone. */
  addValue(value: Payload | null): number {
    if (value === null) return NULL_ID;
    if (this.valuePrefix !== null) throw new Error(`this payload table counts its values (${this.valuePrefix}:<n>); it stores none`);
    this.stored.push(value);
    return this.stored.length - 1;
  }

  value(id: number): Payload | null {
    if (id === NULL_ID) return null;
    return this.countedPrefix !== null ? this.countedPrefix + id : this.stored[id]!;
  }

  /** The value as text (see payloadText), or null for a tombstone: what the trace shows. */
  valueText(id: number): string | null {
    if (id === NULL_ID) return null;
    if (this.countedPrefix !== null) return this.countedPrefix + id;
    return payloadText(this.stored[id]!);
  }

  /** The bytes a value has on its own (a stored value's length; counted values declare theirs per record). */
  storedValueSize(id: number): number {
    if (id === NULL_ID) return -1;
    const v = this.stored[id];
    if (v === undefined || v === null) throw new Error(`no stored value ${id}`);
    return typeof v === 'string' ? utf8Length(v) : v.length;
  }

  // ---- slabs ----

  /** Room for `records` records in the current slab (a new slab when it is full); returns the first index. */
  allocate(records: number): number {
    const ints = records * SLAB_STRIDE;
    if (this.slabUsed + ints > this.slabInts.length) {
      const size = Math.max(ints, Math.min(MAX_SLAB_INTS, this.slabInts.length * 2));
      this.slabInts = new Int32Array(size);
      this.slabUsed = 0;
      this.slabSource = null;
    }
    const at = this.slabUsed;
    this.slabUsed += ints;
    return at;
  }

  /** The slab the last `allocate` returned an index into. */
  get slab(): Int32Array {
    return this.slabInts;
  }

  /**
   * This table and the current slab with a batch's producer id and `epochAndAttributes`, as the batches built into
   * it hold them: one object per slab and producer incarnation (a table's batches share those), not per batch.
   */
  sourceFor(producerId: number, epochAndAttributes: number): SlabSource {
    const s = this.slabSource;
    if (s !== null && s.slab === this.slabInts && s.producerId === producerId && s.epochAndAttributes === epochAndAttributes) return s;
    return (this.slabSource = { payloads: this, slab: this.slabInts, extras: null, producerId, epochAndAttributes, wide: null });
  }
}

/**
 * Where a batch's records are and who wrote them: its payload table and slab, the batch's extras (records.ts
 * `BatchExtras`), its producer id and its producer epoch and attributes (`epoch << 16 | attributes`). The batches
 * of one slab from one producer incarnation with no extras share one (millions of batches, one reference each
 * instead of five fields).
 */
export interface SlabSource {
  readonly payloads: PayloadTable;
  readonly slab: Int32Array;
  readonly extras: null;
  readonly producerId: number;
  readonly epochAndAttributes: number;
  readonly wide: null;
}

/** UTF-8 length of a string without allocating. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** A byte key's map key: its bytes as a latin1 string (one char per byte), apart from text keys. */
function bytesKey(bytes: Uint8Array): string {
  let s = '\u0000b';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}
