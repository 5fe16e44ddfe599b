import type { CompressionType } from '../../records';
import { gunzip, gzip } from './gzip';
import { InflateError } from './inflate';

/**
 * The compression codecs of a batch's attributes [CompressionType.java: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd].
 * We read and write none and gzip; a batch compressed otherwise is refused with UNSUPPORTED_COMPRESSION_TYPE
 * (the error Kafka gives for a codec a version cannot carry).
 */
export const COMPRESSION_IDS: readonly CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

export { InflateError };

/** Whether records compressed with `c` can be read and written here. */
export function canCompress(c: CompressionType): boolean {
  return c === 'none' || c === 'gzip';
}

export function compress(c: CompressionType, data: Uint8Array): Uint8Array {
  if (c === 'none') return data;
  if (c === 'gzip') return gzip(data);
  throw new RangeError(`compression ${c} is not implemented`);
}

/** Decompresses a records section; `maxOutput` bounds what a hostile batch can inflate to. */
export function decompress(c: CompressionType, data: Uint8Array, maxOutput: number): Uint8Array {
  if (c === 'none') return data;
  if (c === 'gzip') return gunzip(data, maxOutput);
  throw new RangeError(`compression ${c} is not implemented`);
}
