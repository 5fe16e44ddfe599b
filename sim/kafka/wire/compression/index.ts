import type { CompressionType } from '../../records';
import { gunzip, gzip } from './gzip';
import { InflateError } from './inflate';
import { lz4FrameDecompress } from './lz4';
import { snappyDecompress } from './snappy';

/**
 * The compression codecs of a batch's attributes [CompressionType.java: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd].
 * We read none, gzip, snappy and lz4, and write none and gzip (a batch a client compressed keeps its bytes, so
 * only the simulator's own batches are ever compressed here). A zstd batch is refused with
 * UNSUPPORTED_COMPRESSION_TYPE (the error Kafka gives for a codec a version cannot carry).
 */
export const COMPRESSION_IDS: readonly CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

export { InflateError };

/** Whether records can be compressed with `c` here. */
export function canCompress(c: CompressionType): boolean {
  return c === 'none' || c === 'gzip';
}

/** Whether records compressed with `c` can be read here. */
export function canDecompress(c: CompressionType): boolean {
  return c !== 'zstd';
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
  if (c === 'snappy') return snappyDecompress(data, maxOutput);
  if (c === 'lz4') return lz4FrameDecompress(data, maxOutput);
  throw new RangeError(`compression ${c} is not implemented`);
}
