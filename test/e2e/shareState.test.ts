// The share-partition fold the share view draws from, against a hand-worked trace (no browser).
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../sim/core/trace';
import { deadLetterFields, memberName, shareStateAt, ShareReplay, type ShareState } from '../../ui/src/model/shareState';
import { planGrid } from '../../ui/src/model/shareGrid';
import { shareLimitsOf } from '../../ui/src/model/shareModel';
import { describeEvent } from '../../ui/src/model/labels';
import { lessonView } from '../../ui/src/app/curriculum';
import { LIBRARY } from '../../ui/src/app/library';

const base = { group: 'jobs', topic: 'q', partition: 0 };
let seq = 0;
const ev = (t: number, kind: string, node: string, fields: Record<string, unknown>): TraceEvent => ({ t, seq: seq++, kind, node, ...fields }) as unknown as TraceEvent;
const acquire = (t: number, memberId: string, offsets: number[], deliveryCounts: number[], spso: number, speo: number, node = 'broker-1') =>
  ev(t, 'share.acquire', node, { ...base, memberId, offsets, deliveryCounts, spso, speo });
const transition = (t: number, memberId: string, cause: string, to: string, offsets: number[], deliveryCounts: number[], spso: number, speo: number, node = 'broker-1') =>
  ev(t, 'share.transition', node, { ...base, memberId, cause, to, offsets, deliveryCounts, spso, speo });

/**
 * Two workers on one share-partition, lock 30 s, delivery-count limit 2 (worked by hand):
 *  0  worker-1 is m1, worker-2 is m2
 *  2  the partition is created at share.auto.offset.reset: SPSO 0, SPEO -1
 *  3  m1 acquires 0, 1, 2 at 2 s (locks until 32 s)          4  m2 acquires 3, 4 at 2.5 s
 *  5  m1 accepts 0, 1: SPSO 2                                6  m1's lock on 2 expires at 32 s: AVAILABLE, delivered once
 *  7  m2 acquires 2 again (delivery 2)                       8  m2 releases 3: AVAILABLE
 *  9  m2 renews 4 at 33.1 s: its lock runs to 63.1 s        10  m1 acquires 3 (delivery 2)
 * 11  m1 releases 3 at the limit: ARCHIVING (KIP-1191)       12  3 is written to dlq.jobs
 * 13  3 is ARCHIVED                                          14  a new leader (broker-2, epoch 1) restores the window:
 *     2 and 4 were acquired by m2, now AVAILABLE with their delivery counts
 * 15  m1 acquires 2 (delivery 3) and 4 (delivery 2)          16  m1 accepts both: SPSO 5 past everything
 */
const TRACE: TraceEvent[] = [
  ev(1_000_000, 'share.assignment', 'worker-1', { group: 'jobs', memberId: 'm1', memberEpoch: 1, owned: ['q-0'] }),
  ev(1_000_000, 'share.assignment', 'worker-2', { group: 'jobs', memberId: 'm2', memberEpoch: 1, owned: ['q-0'] }),
  ev(1_500_000, 'share.partition.init', 'broker-1', { ...base, leaderEpoch: 0, spso: 0, speo: -1, source: 'auto.offset.reset' }),
  acquire(2_000_000, 'm1', [0, 1, 2], [1, 1, 1], 0, 2),
  acquire(2_500_000, 'm2', [3, 4], [1, 1], 0, 4),
  transition(3_000_000, 'm1', 'accept', 'ACKNOWLEDGED', [0, 1], [1, 1], 2, 4),
  transition(32_000_000, 'm1', 'lock-expired', 'AVAILABLE', [2], [1], 2, 4),
  acquire(32_100_000, 'm2', [2], [2], 2, 4),
  transition(33_000_000, 'm2', 'release', 'AVAILABLE', [3], [1], 2, 4),
  transition(33_100_000, 'm2', 'renew', 'ACQUIRED', [4], [1], 2, 4),
  acquire(34_000_000, 'm1', [3], [2], 2, 4),
  transition(34_500_000, 'm1', 'release', 'ARCHIVING', [3], [2], 2, 4),
  ev(34_600_000, 'share.dead-letter', 'broker-1', { ...base, offset: 3, dlqTopic: 'dlq.jobs', reason: 'delivery count limit', deliveryCount: 2 }),
  transition(34_700_000, '', 'dead-letter', 'ARCHIVED', [3], [2], 2, 4),
  ev(40_000_000, 'share.partition.init', 'broker-2', { ...base, leaderEpoch: 1, spso: 2, speo: 4, source: 'persisted' }),
  acquire(41_000_000, 'm1', [2, 4], [3, 2], 2, 4, 'broker-2'),
  transition(41_500_000, 'm1', 'accept', 'ACKNOWLEDGED', [2, 4], [3, 2], 5, 4, 'broker-2'),
];

const LOCK_MS = () => 30_000;

/** One share-partition's cells as [offset, state, delivery count, holder (client name), lock deadline]. */
function cells(s: ShareState): [number, string, number, string, number][] {
  const p = s.partitions.get('jobs\u0000q-0');
  if (!p) return [];
  return [...p.cells.values()].sort((a, b) => a.offset - b.offset).map((c) => [c.offset, c.state, c.deliveryCount, c.holder === '' ? '' : memberName(s, c.holder), c.lockDeadline]);
}

describe('the share-partition fold', () => {
  it('follows acquisition, acknowledgement, lock expiry, renew, ARCHIVING, the dead-letter write and a leader change', () => {
    const at = (i: number) => shareStateAt(TRACE, i, LOCK_MS);
    expect(at(1).partitions.size).toBe(0);
    let s = at(4);
    expect(cells(s)).toEqual([
      [0, 'ACQUIRED', 1, 'worker-1', 32_000_000],
      [1, 'ACQUIRED', 1, 'worker-1', 32_000_000],
      [2, 'ACQUIRED', 1, 'worker-1', 32_000_000],
      [3, 'ACQUIRED', 1, 'worker-2', 32_500_000],
      [4, 'ACQUIRED', 1, 'worker-2', 32_500_000],
    ]);
    expect([s.partitions.get('jobs\u0000q-0')!.spso, s.partitions.get('jobs\u0000q-0')!.speo]).toEqual([0, 4]);

    s = at(6);
    const p6 = s.partitions.get('jobs\u0000q-0')!;
    expect(cells(s).slice(0, 3)).toEqual([
      [0, 'ACKNOWLEDGED', 1, '', -1],
      [1, 'ACKNOWLEDGED', 1, '', -1],
      [2, 'AVAILABLE', 1, '', -1],
    ]);
    expect([p6.spso, p6.lockExpiries, p6.cells.get(2)!.lastHolder, p6.cells.get(2)!.cause]).toEqual([2, 1, 'm1', 'lock-expired']);

    s = at(9);
    expect(cells(s).slice(2)).toEqual([
      [2, 'ACQUIRED', 2, 'worker-2', 62_100_000],
      [3, 'AVAILABLE', 1, '', -1],
      [4, 'ACQUIRED', 1, 'worker-2', 63_100_000],
    ]);

    s = at(12);
    const c3 = s.partitions.get('jobs\u0000q-0')!.cells.get(3)!;
    expect([c3.state, c3.deliveryCount, c3.deadLetter, c3.lastHolder]).toEqual(['ARCHIVING', 2, { dlqTopic: 'dlq.jobs', reason: 'delivery count limit' }, 'm1']);
    expect(s.partitions.get('jobs\u0000q-0')!.deadLettered).toBe(1);
    s = at(13);
    expect(s.partitions.get('jobs\u0000q-0')!.cells.get(3)!.state).toBe('ARCHIVED');
    expect(s.partitions.get('jobs\u0000q-0')!.archived).toBe(1);

    s = at(14);
    const p14 = s.partitions.get('jobs\u0000q-0')!;
    expect([p14.leader, p14.leaderEpoch, p14.spso, p14.speo]).toEqual(['broker-2', 1, 2, 4]);
    expect(cells(s)).toEqual([
      [0, 'ACKNOWLEDGED', 1, '', -1],
      [1, 'ACKNOWLEDGED', 1, '', -1],
      [2, 'AVAILABLE', 2, '', -1],
      [3, 'ARCHIVED', 2, '', -1],
      [4, 'AVAILABLE', 1, '', -1],
    ]);

    // Each record names the event that last changed it (a click goes there).
    expect([0, 2, 3, 4].map((o) => p14.cells.get(o)!.lastIndex)).toEqual([5, 14, 13, 14]);

    s = at(TRACE.length - 1);
    const end = s.partitions.get('jobs\u0000q-0')!;
    expect([end.spso, end.speo]).toEqual([5, 4]);
    expect(cells(s).map(([o, st, dc]) => [o, st, dc])).toEqual([
      [0, 'ACKNOWLEDGED', 1],
      [1, 'ACKNOWLEDGED', 1],
      [2, 'ACKNOWLEDGED', 3],
      [3, 'ARCHIVED', 2],
      [4, 'ACKNOWLEDGED', 2],
    ]);
  });

  it('reads a dead-letter event by its fields and refuses one without them', () => {
    expect(deadLetterFields(TRACE[12]!)).toEqual({ ...base, offset: 3, dlqTopic: 'dlq.jobs', reason: 'delivery count limit', deliveryCount: 2 });
    expect(deadLetterFields(ev(0, 'share.dead-letter', 'broker-1', { group: 'jobs', topic: 'q' }))).toBeNull();
    expect(deadLetterFields(TRACE[3]!)).toBeNull();
  });

  it('replays to any step, forward and back, as a fold from the start does', () => {
    const replay = new ShareReplay(TRACE, LOCK_MS);
    expect(replay.count).toBe(TRACE.length);
    for (const i of [16, 6, 9, 9, 1, 14, 0, 16, 12]) expect(cells(replay.at(i)), `step ${i}`).toEqual(cells(shareStateAt(TRACE, i, LOCK_MS)));
  });

  it('leaves the lock deadline unknown when the lock duration is', () => {
    expect(cells(shareStateAt(TRACE, 3, () => null))[0]).toEqual([0, 'ACQUIRED', 1, 'worker-1', -1]);
  });

  it('takes a group\'s lock duration from its share.record.lock.duration.ms, else the broker default', () => {
    const spec = {
      id: 'x',
      duration: '10s',
      topics: [{ name: 'q', partitions: 1, replicationFactor: 1 }],
      shareConsumers: [{ id: 'w', group: 'jobs', topics: ['q'] }, { id: 'v', group: 'other', topics: ['q'] }],
      groups: [{ id: 'jobs', config: { 'share.record.lock.duration.ms': 15000 } }],
    };
    const limits = shareLimitsOf(spec as never);
    expect(limits('jobs')?.recordLockDurationMs).toBe(15_000);
    expect(limits('other')?.recordLockDurationMs).toBe(30_000);
    expect(limits('other')?.deliveryCountLimit).toBe(5);
    expect(shareLimitsOf(null)('jobs')).toBeNull();
  });
});

describe('share events in words', () => {
  it('says what changed, for whom, and where SPSO and SPEO are', () => {
    expect(describeEvent(TRACE[3]!)).toBe('jobs q-0: offsets 0, 1, 2 acquired by m1 (delivery 1); SPSO 0, SPEO 2');
    expect(describeEvent(TRACE[6]!)).toBe('jobs q-0: offset 2 AVAILABLE (its acquisition lock expired, held by m1); SPSO 2, SPEO 4');
    expect(describeEvent(TRACE[14]!)).toBe('jobs q-0: share-partition restored from its persisted state in leader epoch 1: SPSO 2, SPEO 4');
    expect(describeEvent(TRACE[15]!)).toBe('jobs q-0: offsets 2, 4 acquired by m1 (deliveries 3, 2); SPSO 2, SPEO 4');
  });
});

describe('the share view\'s grid', () => {
  it('starts a little before SPSO at a multiple of 10 and cuts a long window at the rows it has', () => {
    expect(planGrid(78, 78, 40, 3)).toEqual({ first: 60, cols: 40, rows: 1, hidden: 0 });
    expect(planGrid(77, 212, 40, 2)).toEqual({ first: 60, cols: 40, rows: 2, hidden: 73 });
    expect(planGrid(0, -1, 40, 3)).toEqual({ first: 0, cols: 40, rows: 1, hidden: 0 });
    // Few columns: less history before SPSO.
    expect(planGrid(30, 35, 12, 4).first).toBe(20);
  });
});

describe('share lessons', () => {
  it('open on the share view: every library scenario with share consumers, and no other', () => {
    const share = LIBRARY.filter((s) => (s.shareConsumers?.length ?? 0) > 0);
    expect(share.map((s) => s.id)).toContain('share-group-poison-pill');
    expect(share.length).toBeGreaterThanOrEqual(6);
    for (const s of LIBRARY) expect(lessonView(s) === 'share', s.id).toBe(share.includes(s));
  });
});
