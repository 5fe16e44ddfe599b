import { describe, expect, it } from 'vitest';
import { SharePartition, type SharePartitionLimits } from '../../../sim/kafka/share/sharePartition';

const LIMITS: SharePartitionLimits = { deliveryCountLimit: 5, recordLockDurationMs: 30_000, maxInFlightRecords: 2000 };

/** A log holding offsets [from, hw) with no gaps, except those in `missing`. */
function log(hw: number, missing: readonly number[] = []) {
  return (from: number, max: number): number[] => {
    const out: number[] = [];
    for (let o = from; o < hw && out.length < max; o++) if (!missing.includes(o)) out.push(o);
    return out;
  };
}

describe('SharePartition: acquisition', () => {
  it('acquires new records from SPSO, counts the delivery and locks them for the record lock duration', () => {
    const sp = new SharePartition(10, LIMITS);
    const { acquired } = sp.acquire('m1', 3, 1000, log(20));
    expect(acquired).toEqual([
      { offset: 10, deliveryCount: 1 },
      { offset: 11, deliveryCount: 1 },
      { offset: 12, deliveryCount: 1 },
    ]);
    expect([sp.startOffset, sp.endOffset]).toEqual([10, 12]);
    expect(sp.record(11)).toMatchObject({ state: 'ACQUIRED', memberId: 'm1', lockExpiresAtMs: 31_000 });
    expect(sp.nextLockExpiryMs()).toBe(31_000);
  });

  it('gives a second member the next records, never the ones the first holds (several members share a partition)', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 2, 0, log(10));
    const { acquired } = sp.acquire('m2', 2, 0, log(10));
    expect(acquired.map((a) => a.offset)).toEqual([2, 3]);
    expect(sp.record(0)?.memberId).toBe('m1');
    expect(sp.record(2)?.memberId).toBe('m2');
  });

  it('re-acquires AVAILABLE records of the window before new ones, with the delivery count raised', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 4, 0, log(10));
    sp.acknowledge('m1', [{ firstOffset: 1, lastOffset: 2, type: 'RELEASE' }], 5);
    expect(sp.nextFetchOffset()).toBe(1);
    const { acquired } = sp.acquire('m2', 3, 10, log(10));
    expect(acquired).toEqual([
      { offset: 1, deliveryCount: 2 },
      { offset: 2, deliveryCount: 2 },
      { offset: 4, deliveryCount: 1 },
    ]);
  });

  it('archives the offsets the log skips (gaps) and never delivers them', () => {
    const sp = new SharePartition(0, LIMITS);
    const r = sp.acquire('m1', 5, 0, log(6, [2, 3]));
    expect(r.acquired.map((a) => a.offset)).toEqual([0, 1, 4, 5]);
    expect(r.transitions.filter((t) => t.cause === 'gap').map((t) => t.offset)).toEqual([2, 3]);
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 1, type: 'ACCEPT' }], 1);
    // 2 and 3 are finished already: SPSO passes them up to the acquired record 4.
    expect(sp.startOffset).toBe(4);
  });

  it('stops acquiring new records once SPEO - SPSO + 1 reaches the cap, but still re-acquires released ones', () => {
    const sp = new SharePartition(0, { ...LIMITS, maxInFlightRecords: 100 });
    expect(sp.acquire('m1', 100, 0, log(1000)).acquired).toHaveLength(100);
    expect(sp.inFlightCount()).toBe(100);
    expect(sp.canAcquireRecords()).toBe(false);
    expect(sp.acquire('m2', 10, 0, log(1000)).acquired).toHaveLength(0);
    sp.acknowledge('m1', [{ firstOffset: 50, lastOffset: 50, type: 'RELEASE' }], 1);
    expect(sp.acquire('m2', 10, 1, log(1000)).acquired.map((a) => a.offset)).toEqual([50]);
  });

  it('frees the cap as SPSO advances past acknowledged records', () => {
    const sp = new SharePartition(0, { ...LIMITS, maxInFlightRecords: 100 });
    sp.acquire('m1', 100, 0, log(1000));
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 9, type: 'ACCEPT' }], 1);
    expect(sp.startOffset).toBe(10);
    expect(sp.inFlightCount()).toBe(90);
    expect(sp.acquire('m2', 500, 2, log(1000)).acquired.map((a) => a.offset)).toHaveLength(500);
  });

  it('acquires nothing beyond the high watermark', () => {
    const sp = new SharePartition(5, LIMITS);
    expect(sp.acquire('m1', 10, 0, log(5)).acquired).toEqual([]);
    expect(sp.endOffset).toBe(4);
  });
});

describe('SharePartition: acknowledgement', () => {
  it('ACCEPT finishes records; SPSO moves over the contiguous finished run only', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 5, 0, log(10));
    sp.acknowledge('m1', [{ firstOffset: 2, lastOffset: 3, type: 'ACCEPT' }], 1);
    expect(sp.startOffset).toBe(0);
    expect(sp.record(2)?.state).toBe('ACKNOWLEDGED');
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 1, type: 'ACCEPT' }], 1);
    expect(sp.startOffset).toBe(4);
    expect(sp.record(2)).toBeUndefined();
  });

  it('REJECT archives at once, whatever the delivery count', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 1, 0, log(10));
    const r = sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'REJECT' }], 1);
    expect(r.transitions).toEqual([{ offset: 0, from: 'ACQUIRED', to: 'ARCHIVED', deliveryCount: 1, memberId: 'm1', cause: 'reject' }]);
    expect(sp.startOffset).toBe(1);
  });

  it('refuses an acknowledgement of a record the member does not hold with INVALID_RECORD_STATE, changing nothing', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 2, 0, log(10));
    sp.acquire('m2', 2, 0, log(10));
    const r = sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 2, type: 'ACCEPT' }], 1);
    expect(r.error).toBe('INVALID_RECORD_STATE');
    expect(sp.record(0)?.state).toBe('ACQUIRED');
    expect(sp.acknowledge('m1', [{ firstOffset: 5, lastOffset: 5, type: 'ACCEPT' }], 1).error).toBe('INVALID_RECORD_STATE');
  });

  it('RENEW keeps the acquisition, restarts the lock and leaves the delivery count alone', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 1, 0, log(10));
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'RENEW' }], 20_000);
    expect(sp.record(0)).toMatchObject({ state: 'ACQUIRED', deliveryCount: 1, lockExpiresAtMs: 50_000 });
    expect(sp.expireLocks(30_000)).toEqual([]);
  });
});

describe('SharePartition: release, lock expiry and the delivery-count limit', () => {
  it('an expired lock makes the record available again, for anyone', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 2, 0, log(10));
    expect(sp.expireLocks(29_999)).toEqual([]);
    const t = sp.expireLocks(30_000);
    expect(t.map((x) => [x.offset, x.to, x.cause, x.memberId])).toEqual([
      [0, 'AVAILABLE', 'lock-expired', 'm1'],
      [1, 'AVAILABLE', 'lock-expired', 'm1'],
    ]);
    expect(sp.acquire('m2', 2, 30_000, log(10)).acquired).toEqual([
      { offset: 0, deliveryCount: 2 },
      { offset: 1, deliveryCount: 2 },
    ]);
  });

  it('a poison pill is delivered exactly delivery.count.limit times, then archived, and SPSO moves on', () => {
    const sp = new SharePartition(0, LIMITS);
    const deliveries: number[] = [];
    for (let i = 0; i < 10; i++) {
      const { acquired } = sp.acquire(`m${i % 2}`, 1, i, log(1));
      if (acquired.length === 0) break;
      deliveries.push(acquired[0]!.deliveryCount);
      sp.acknowledge(`m${i % 2}`, [{ firstOffset: 0, lastOffset: 0, type: 'RELEASE' }], i);
    }
    expect(deliveries).toEqual([1, 2, 3, 4, 5]);
    expect(sp.startOffset).toBe(1);
  });

  it('a lock expiring at the limit archives the record', () => {
    const sp = new SharePartition(0, { ...LIMITS, deliveryCountLimit: 2 });
    sp.acquire('m1', 1, 0, log(1));
    sp.expireLocks(30_000);
    sp.acquire('m1', 1, 30_000, log(1));
    expect(sp.expireLocks(60_000)).toEqual([{ offset: 0, from: 'ACQUIRED', to: 'ARCHIVED', deliveryCount: 2, memberId: 'm1', cause: 'lock-expired' }]);
  });

  it('a limit lowered while a record is in flight allows one final delivery past the new limit (KIP-1240)', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 1, 0, log(1));
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'RELEASE' }], 1);
    sp.acquire('m1', 1, 2, log(1));
    sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'RELEASE' }], 3);
    // Two deliveries, now AVAILABLE; the group lowers the limit to 2: the next fetch still delivers it once more.
    sp.limits = { ...LIMITS, deliveryCountLimit: 2 };
    expect(sp.acquire('m1', 1, 4, log(1)).acquired).toEqual([{ offset: 0, deliveryCount: 3 }]);
    expect(sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'RELEASE' }], 5).transitions[0]!.to).toBe('ARCHIVED');
  });

  it('a member leaving releases only what it held', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 2, 0, log(10));
    sp.acquire('m2', 2, 0, log(10));
    expect(sp.releaseMember('m1').map((t) => t.offset)).toEqual([0, 1]);
    expect(sp.record(2)?.memberId).toBe('m2');
    expect(sp.nextFetchOffset()).toBe(0);
  });
});

describe('SharePartition: the log start moving up', () => {
  it('archives what lies below the new log start, acquired or not, and moves SPSO to it', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 4, 0, log(10));
    sp.acknowledge('m1', [{ firstOffset: 1, lastOffset: 1, type: 'RELEASE' }], 1);
    const t = sp.archiveBelowLogStart(3);
    expect(t.map((x) => [x.offset, x.from, x.to])).toEqual([
      [0, 'ACQUIRED', 'ARCHIVED'],
      [1, 'AVAILABLE', 'ARCHIVED'],
      [2, 'ACQUIRED', 'ARCHIVED'],
    ]);
    expect([sp.startOffset, sp.endOffset]).toEqual([3, 3]);
    // A member acknowledging a record retention took gets INVALID_RECORD_STATE.
    expect(sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, type: 'ACCEPT' }], 2).error).toBe('INVALID_RECORD_STATE');
  });

  it('past the whole window, the window starts empty at the log start', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 2, 0, log(10));
    sp.archiveBelowLogStart(7);
    expect([sp.startOffset, sp.endOffset, sp.inFlightCount()]).toEqual([7, 6, 0]);
    expect(sp.acquire('m1', 1, 0, log(10)).acquired).toEqual([{ offset: 7, deliveryCount: 1 }]);
  });
});

describe('SharePartition: persisted state', () => {
  it('a new leader restores the window: acquired records come back AVAILABLE with their delivery counts', () => {
    const sp = new SharePartition(0, LIMITS);
    sp.acquire('m1', 3, 0, log(10));
    sp.acknowledge('m1', [{ firstOffset: 1, lastOffset: 1, type: 'ACCEPT' }], 1);
    const again = SharePartition.restore(sp.snapshot(), LIMITS);
    expect([again.startOffset, again.endOffset]).toEqual([0, 2]);
    expect(again.record(0)).toMatchObject({ state: 'AVAILABLE', deliveryCount: 1, memberId: '' });
    expect(again.record(1)?.state).toBe('ACKNOWLEDGED');
    expect(again.acquire('m2', 5, 5, log(10)).acquired).toEqual([
      { offset: 0, deliveryCount: 2 },
      { offset: 2, deliveryCount: 2 },
      { offset: 3, deliveryCount: 1 },
      { offset: 4, deliveryCount: 1 },
      { offset: 5, deliveryCount: 1 },
    ]);
  });
});
