import { describe, expect, it } from 'vitest';
import { SharePartition, type SharePartitionLimits } from '../../../sim/kafka/share/sharePartition';

// The two-phase DLQ flow of KIP-1191 on one share-partition, against hand-worked cases.
const DLQ: SharePartitionLimits = { deliveryCountLimit: 3, recordLockDurationMs: 30_000, maxInFlightRecords: 2000, dlqEnabled: true };
const log = (hw: number) => (from: number, max: number): number[] => Array.from({ length: Math.max(0, Math.min(max, hw - from)) }, (_, i) => from + i);

describe('SharePartition with the DLQ flow (ARCHIVING)', () => {
  it('a REJECT goes to ARCHIVING, not ARCHIVED, and holds SPSO until its DLQ write is done', () => {
    const sp = new SharePartition(0, DLQ);
    sp.acquire('m1', 3, 0, log(3));
    const r = sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'REJECT' }, { firstOffset: 1, lastOffset: 2, type: 'ACCEPT' }], 10);
    expect(r.transitions.map((t) => [t.offset, t.to, t.cause])).toEqual([
      [0, 'ARCHIVING', 'reject'],
      [1, 'ACKNOWLEDGED', 'accept'],
      [2, 'ACKNOWLEDGED', 'accept'],
    ]);
    // ARCHIVING is not terminal: offsets 1 and 2 are done, yet SPSO stays at 0.
    expect(sp.startOffset).toBe(0);
    expect(sp.archiving()).toEqual([{ offset: 0, deliveryCount: 1 }]);
    const done = sp.completeArchiving(0, true);
    expect(done.map((t) => [t.offset, t.from, t.to, t.cause])).toEqual([[0, 'ARCHIVING', 'ARCHIVED', 'dead-letter']]);
    expect(sp.startOffset).toBe(3);
    expect(sp.archiving()).toEqual([]);
  });

  it('a release at the delivery-count limit goes to ARCHIVING; a failed DLQ write archives it all the same', () => {
    const sp = new SharePartition(0, DLQ);
    for (let d = 1; d <= 3; d++) {
      sp.acquire('m1', 1, d * 100, log(1));
      const r = sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'RELEASE' }], d * 100 + 1);
      expect(r.transitions[0]?.to).toBe(d < 3 ? 'AVAILABLE' : 'ARCHIVING');
    }
    expect(sp.record(0)).toMatchObject({ state: 'ARCHIVING', deliveryCount: 3, memberId: '' });
    // Not acquirable while ARCHIVING: the next fetch takes nothing (the log holds nothing else).
    expect(sp.acquire('m2', 5, 500, log(1)).acquired).toEqual([]);
    expect(sp.completeArchiving(0, false).map((t) => [t.to, t.cause])).toEqual([['ARCHIVED', 'dead-letter-failed']]);
    expect(sp.startOffset).toBe(1);
  });

  it('a lock that expires on the last delivery attempt also goes to ARCHIVING', () => {
    const sp = new SharePartition(0, { ...DLQ, deliveryCountLimit: 2 });
    sp.acquire('m1', 1, 0, log(1));
    sp.expireLocks(30_000);
    sp.acquire('m1', 1, 30_000, log(1));
    const t = sp.expireLocks(60_000);
    expect(t.map((x) => [x.offset, x.to, x.cause, x.deliveryCount])).toEqual([[0, 'ARCHIVING', 'lock-expired', 2]]);
  });

  it('without the DLQ flow the same REJECT archives at once (the Kafka 4.2 behaviour)', () => {
    const sp = new SharePartition(0, { ...DLQ, dlqEnabled: false });
    sp.acquire('m1', 1, 0, log(1));
    expect(sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'REJECT' }], 1).transitions[0]?.to).toBe('ARCHIVED');
    expect(sp.startOffset).toBe(1);
  });

  it('a record persisted ARCHIVING comes back ARCHIVING on a new leader (its DLQ write will run again)', () => {
    const sp = new SharePartition(0, DLQ);
    sp.acquire('m1', 2, 0, log(2));
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'REJECT' }], 1);
    const again = SharePartition.restore(sp.snapshot(), DLQ);
    expect(again.record(0)).toMatchObject({ state: 'ARCHIVING', deliveryCount: 1 });
    expect(again.record(1)).toMatchObject({ state: 'AVAILABLE', deliveryCount: 1 });
    expect(again.archiving()).toEqual([{ offset: 0, deliveryCount: 1 }]);
  });

  it('an ARCHIVING record the log start passes is archived; its late DLQ completion changes nothing', () => {
    const sp = new SharePartition(0, DLQ);
    sp.acquire('m1', 2, 0, log(2));
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'REJECT' }], 1);
    expect(sp.archiveBelowLogStart(1).map((t) => [t.offset, t.from, t.to, t.cause])).toEqual([[0, 'ARCHIVING', 'ARCHIVED', 'log-start']]);
    expect(sp.completeArchiving(0, true)).toEqual([]);
    expect(sp.startOffset).toBe(1);
  });
});
