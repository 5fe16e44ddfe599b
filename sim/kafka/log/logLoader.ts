import type { Disk } from '../../world/disk';
import type { RecordBatch } from '../records';
import { CLEANED_FILE_SUFFIX, DELETED_FILE_SUFFIX, LOG_FILE_SUFFIX, TMP_FILE_SUFFIX, logFile, offsetFromFileName } from './logFileNames';
import { validSegmentPrefix, type RecoveryStop } from './logRecovery';
import { LogSegment, type SegmentIndexLimits } from './logSegment';

export interface LoadedSegments {
  /** The segments that survived, oldest first (possibly none). */
  readonly segments: LogSegment[];
  /** Why recovery cut the log short, or null. */
  readonly stop: RecoveryStop | null;
  /** Batches recovery dropped: the corrupt one and everything after it. */
  readonly dropped: readonly RecordBatch[];
  /** Segment files deleted because they came after the corrupt batch. */
  readonly droppedSegments: readonly number[];
  /** Batches kept. */
  readonly batches: number;
}

/**
 * Reads a partition directory back into segments: removes the leftovers of interrupted work (`.deleted`,
 * `.cleaned`, `.tmp`), then scans every segment file in offset order, keeping whole valid batches up to the
 * first torn or invalid one; that file is truncated there and every later segment file deleted. Indexes
 * are rebuilt as the batches are read. [src: storage/.../log/LogLoader.java `load`, `removeTempFilesAndCollectSwapFiles`,
 * `loadSegmentFiles`, `recoverLog`]
 */
export function loadSegments(disk: Disk, dir: string, limits: SegmentIndexLimits, indexIntervalBytes: number, nowMs: number): LoadedSegments {
  for (const f of disk.list(`${dir}/`)) {
    if (f.endsWith(DELETED_FILE_SUFFIX) || f.endsWith(CLEANED_FILE_SUFFIX) || f.endsWith(TMP_FILE_SUFFIX)) disk.delete(f);
  }
  const bases: number[] = [];
  for (const f of disk.list(`${dir}/`)) {
    const o = offsetFromFileName(f, LOG_FILE_SUFFIX);
    if (o !== null) bases.push(o);
  }
  bases.sort((a, b) => a - b);

  const segments: LogSegment[] = [];
  const dropped: RecordBatch[] = [];
  const droppedSegments: number[] = [];
  let stop: RecoveryStop | null = null;
  let minOffset = 0;
  let batches = 0;
  for (const base of bases) {
    const file = logFile(dir, base);
    const chunks = disk.read<RecordBatch>(file);
    if (stop !== null) {
      for (const c of chunks) dropped.push(c.data);
      droppedSegments.push(base);
      disk.delete(file);
      continue;
    }
    const seg = new LogSegment(disk, file, base, limits, nowMs, 0);
    const res = validSegmentPrefix(chunks, base, minOffset);
    for (let i = 0; i < res.validChunks; i++) seg.track(i, indexIntervalBytes);
    if (res.stop !== null) {
      stop = res.stop;
      for (let i = res.validChunks; i < chunks.length; i++) dropped.push(chunks[i]!.data);
      disk.truncate(file, res.validChunks);
    }
    batches += res.validChunks;
    minOffset = seg.nextOffset;
    segments.push(seg);
  }
  return { segments, stop, dropped, droppedSegments, batches };
}
