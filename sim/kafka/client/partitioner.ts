/**
 * Which partition a produced record goes to: an explicit partition, else the murmur2 hash of its key,
 * else "unknown" (the per-topic BuiltInPartitioner picks the sticky partition when the record is appended).
 */
import { murmur2, murmur2Prefix, toPositive } from './murmur2';

/** RecordMetadata.UNKNOWN_PARTITION: the accumulator's built-in (sticky) partitioner chooses. */
export const UNKNOWN_PARTITION = -1;

/**
 * The partition for a record [clients/.../producer/KafkaProducer.java `partition`]:
 * 1. `ProducerRecord.partition` when set (validated against the partition count by the producer's metadata wait);
 * 2. the key's murmur2 hash over *all* partitions, unless there is no key or `partitioner.ignore.keys=true`;
 * 3. UNKNOWN_PARTITION: keyless records go to the sticky partition (builtInPartitioner.ts).
 * A custom `partitioner.class` is not modelled. `key` is a string (serialized as StringSerializer does) or
 * already-serialized bytes; null means no key. An empty string is a key (zero bytes), not "no key".
 */
export function choosePartition(
  explicitPartition: number | null | undefined,
  key: string | Uint8Array | null | undefined,
  numPartitions: number,
  partitionerIgnoreKeys: boolean,
): number {
  if (explicitPartition !== null && explicitPartition !== undefined) return explicitPartition;
  if (key !== null && key !== undefined && !partitionerIgnoreKeys) return partitionForKey(key, numPartitions);
  return UNKNOWN_PARTITION;
}

/**
 * `toPositive(murmur2(keyBytes)) % numPartitions` [clients/.../producer/internals/BuiltInPartitioner.java `partitionForKey`].
 * A string key is hashed over its UTF-8 bytes exactly as Java's StringSerializer produces them.
 */
export function partitionForKey(key: string | Uint8Array, numPartitions: number): number {
  if (!(Number.isInteger(numPartitions) && numPartitions >= 1)) {
    throw new RangeError(`partitionForKey: numPartitions must be an integer >= 1, got ${numPartitions}`);
  }
  const hash = typeof key === 'string' ? murmur2Prefix(scratch, encodeJavaUtf8(key)) : murmur2(key);
  return toPositive(hash) % numPartitions;
}

/** The bytes StringSerializer (`String.getBytes(UTF_8)`) gives for `key`: a fresh copy, for callers that keep them. */
export function serializeStringKey(key: string): Uint8Array {
  return scratch.slice(0, encodeJavaUtf8(key));
}

// Reused for every string key so hashing allocates nothing per record; it only ever grows.
let scratch = new Uint8Array(256);

/**
 * Encodes `s` as UTF-8 into `scratch` and returns the byte count. Like Java's String.getBytes(UTF_8) (not
 * TextEncoder), an unpaired surrogate becomes '?' (0x3F), the UTF-8 encoder's replacement byte, not U+FFFD.
 * [java.lang.String `getBytes(Charset)`: malformed input is replaced with the charset's default replacement]
 */
function encodeJavaUtf8(s: string): number {
  const n = s.length;
  // At most 3 bytes per UTF-16 unit (a surrogate pair is 4 bytes for 2 units).
  if (scratch.length < 3 * n) scratch = new Uint8Array(Math.max(3 * n, scratch.length * 2));
  const out = scratch;
  let j = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      out[j++] = c;
    } else if (c < 0x800) {
      out[j++] = 0xc0 | (c >>> 6);
      out[j++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      out[j++] = 0xe0 | (c >>> 12);
      out[j++] = 0x80 | ((c >>> 6) & 0x3f);
      out[j++] = 0x80 | (c & 0x3f);
    } else {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        out[j++] = 0xf0 | (cp >>> 18);
        out[j++] = 0x80 | ((cp >>> 12) & 0x3f);
        out[j++] = 0x80 | ((cp >>> 6) & 0x3f);
        out[j++] = 0x80 | (cp & 0x3f);
        i++;
      } else {
        out[j++] = 0x3f;
      }
    }
  }
  return j;
}
