import { describe, expect, it } from 'vitest';
import { buildEndTxnMarker } from '../../../sim/kafka/log/endTxnMarker';
import { planCleaning, type CleanerSegment, type CleaningParams } from '../../../sim/kafka/log/logCleaning';
import type { AbortedTxn } from '../../../sim/kafka/log/transactionIndex';
import { assignOffsets, buildBatch, type RecordBatch } from '../../../sim/kafka/records';
import { kv } from './logTestKit';

// The cleaner and transactions, worked by hand: aborted data goes, a marker stays while its transaction has
// batches, then gets a delete horizon (delete.retention.ms), and goes on a cleaning after it.
const A = 7; // an aborted producer
const C = 8; // a committed producer

const txn = (base: number, pairs: [string, string][], pid: number): RecordBatch =>
  assignOffsets(buildBatch(pairs.map(([key, value]) => ({ key, value, timestamp: 0 })), { producerId: pid, producerEpoch: 0, baseSequence: 0, isTransactional: true }), base, 0);
const marker = (base: number, type: 'COMMIT' | 'ABORT', pid: number): RecordBatch => assignOffsets(buildEndTxnMarker(type, pid, 0, 0, 0), base, 0);
const plain = (base: number, pairs: [string, string][]): RecordBatch => assignOffsets(kv(pairs), base, 0);
const seg = (baseOffset: number, batches: RecordBatch[]): CleanerSegment => ({ baseOffset, batches, size: batches.reduce((n, b) => n + b.sizeInBytes, 0), offsetIndexBytes: 0, timeIndexBytes: 0, lastModifiedMs: 0 });

function params(nowMs: number, aborted: AbortedTxn[]): CleaningParams {
  return { nowMs, deleteRetentionMs: 1000, segmentBytes: 1 << 30, maxIndexBytes: 1 << 20, maxOffsetMapEntries: 1000, lastDataOffsets: new Map(), abortedTransactions: aborted };
}

/** Cleans the whole log (one segment, then a later empty segment bounding it) and returns the surviving batches. */
function clean(batches: RecordBatch[], nowMs: number, aborted: AbortedTxn[], end: number): RecordBatch[] {
  const plan = planCleaning([seg(0, batches), seg(end, [])], 0, end, params(nowMs, aborted));
  return plan.groups.flatMap((g) => g.batches);
}

describe('the cleaner and transactions', () => {
  it('drops an aborted transaction\'s records, keeps its marker this time, then stamps a horizon, then removes it', () => {
    // 0-1: aborted data (k1, k2); 2: ABORT; 3: k1 plain.
    const log = [txn(0, [['k1', 'aborted-1'], ['k2', 'aborted-2']], A), marker(2, 'ABORT', A), plain(3, [['k1', 'v1']])];
    expect(log[0]!.isTransactional).toBe(true);
    const aborted: AbortedTxn[] = [{ producerId: A, firstOffset: 0, lastOffset: 2, lastStableOffset: 3 }];
    const first = clean(log, 10_000, aborted, 4);
    // k2's only value was aborted: gone too (the aborted value never counted as k2's latest).
    expect(first.filter((b) => !b.isControl).flatMap((b) => b.recordList().map((r) => r.value))).toEqual(['v1']);
    const m1 = first.find((b) => b.isControl)!;
    expect([m1.baseOffset, m1.hasDeleteHorizon]).toEqual([2, false]);
    // Next cleaning: no batch of the transaction is left, so the marker gets a delete horizon.
    const second = clean(first, 20_000, aborted, 4);
    const m2 = second.find((b) => b.isControl)!;
    expect([m2.hasDeleteHorizon, m2.deleteHorizonMs]).toEqual([true, 21_000]);
    // Before the horizon it stays; after it, it goes.
    expect(clean(second, 20_500, aborted, 4).some((b) => b.isControl)).toBe(true);
    expect(clean(second, 21_000, aborted, 4).some((b) => b.isControl)).toBe(false);
  });

  it('keeps a COMMIT marker while its transaction has a batch, and lets it go once compaction removed them', () => {
    // 0: committed k1; 1: COMMIT; 2: plain k1 (supersedes 0).
    const log = [txn(0, [['k1', 'c1']], C), marker(1, 'COMMIT', C), plain(2, [['k1', 'v2']])];
    const first = clean(log, 10_000, [], 3);
    // The committed record is superseded: its batch goes, but the walk saw it, so the marker stays as it was.
    expect(first.map((b) => [b.baseOffset, b.isControl, b.hasDeleteHorizon])).toEqual([
      [1, true, false],
      [2, false, false],
    ]);
    const second = clean(first, 10_000, [], 3);
    expect(second.find((b) => b.isControl)!.deleteHorizonMs).toBe(11_000);
    expect(clean(second, 11_000, [], 3).map((b) => b.baseOffset)).toEqual([2]);
  });

  it('keeps a marker whose committed data is still the latest for its key', () => {
    const log = [txn(0, [['k1', 'c1']], C), marker(1, 'COMMIT', C), plain(2, [['k2', 'v2']])];
    for (const now of [10_000, 100_000]) {
      const out = clean(log, now, [], 3);
      expect(out.map((b) => [b.baseOffset, b.hasDeleteHorizon])).toEqual([
        [0, false],
        [1, false],
        [2, false],
      ]);
    }
  });
});
