import type { Chunk } from '../../world/disk';
import { lastOffset, nextOffset, type RecordBatch } from '../records';

/**
 * Which chunks of a segment file recovery keeps: every batch up to the first one that fails its checksum
 * (a write torn by a power loss) or whose offsets cannot belong there. That batch and everything after it in
 * the log are dropped. [src: storage/.../log/LogSegment.java `recover`; LogLoader.java `recoverLog`]
 */

export const RECOVERY_STOPS = ['corrupt-batch', 'invalid-offset'] as const;
export type RecoveryStop = (typeof RECOVERY_STOPS)[number];

export interface SegmentRecoveryResult {
  /** Chunks that are whole, valid batches, in order. */
  readonly validChunks: number;
  /** Why recovery stopped before the end of the file, or null when every chunk was valid. */
  readonly stop: RecoveryStop | null;
}

const INT_MAX = 0x7fffffff;

/** Scans a segment's chunks from its base offset; `minOffset` is where the previous segment ended. */
export function validSegmentPrefix(chunks: readonly Chunk<RecordBatch>[], baseOffset: number, minOffset: number): SegmentRecoveryResult {
  let expectAtLeast = Math.max(baseOffset, minOffset);
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    // A torn chunk is a batch whose CRC no longer matches: Kafka's CorruptRecordException.
    if (c.torn === true || c.bytes !== c.data.sizeInBytes) return { validChunks: i, stop: 'corrupt-batch' };
    const b = c.data;
    if (b.baseOffset < expectAtLeast || lastOffset(b) - baseOffset > INT_MAX) return { validChunks: i, stop: 'invalid-offset' };
    expectAtLeast = nextOffset(b);
  }
  return { validChunks: chunks.length, stop: null };
}
