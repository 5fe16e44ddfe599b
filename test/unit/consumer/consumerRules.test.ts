import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { ms } from '../../../sim/core/time';
import { ValidationError } from '../../../sim/core/validate';
import { afterSync, beforeJoin } from '../../../sim/kafka/client/consumer/assignmentChange';
import { CompletedFetch, FetchBuffer } from '../../../sim/kafka/client/consumer/fetchBuffer';
import { HeartbeatTimers } from '../../../sim/kafka/client/consumer/heartbeat';
import { listOffsetsTimestamp, outOfRangeApplies, resetTargetFor } from '../../../sim/kafka/client/consumer/offsetReset';
import { drawProcessingMs, poisonPillFor, resolveProcessingModel } from '../../../sim/kafka/client/consumer/processingModel';
import { SubscriptionState } from '../../../sim/kafka/client/consumer/subscriptionState';
import { retryBackoff } from '../../../sim/kafka/client/backoff';
import { BatchBuilder, NO_DELETE_HORIZON, PayloadTable, assignOffsets, type RecordBatch } from '../../../sim/kafka/records';

const tp = (topic: string, partition: number) => ({ topic, partition });

function batch(base: number, n: number, opts: { control?: boolean; gapAfter?: number } = {}): RecordBatch {
  const table = new PayloadTable();
  const builder = new BatchBuilder(table);
  for (let i = 0; i < n; i++) builder.append(table.internKey(null), table.addValue(`v${base + i}`), 4, 1000 + base + i);
  const b = assignOffsets(builder.build({ isControl: opts.control === true }), base, 3);
  // A compacted batch: its last offset is further than its records (lastOffsetDelta kept, records removed).
  if (opts.gapAfter !== undefined) return b.retaining(Array.from({ length: opts.gapAfter }, (_, i) => i), NO_DELETE_HORIZON);
  return b;
}

describe('assignment changes around a rebalance', () => {
  const owned = [tp('a', 0), tp('a', 1), tp('b', 0)];
  it('eager members revoke everything before joining', () => {
    expect(beforeJoin('EAGER', owned, ['a', 'b'], true)).toEqual({ revoked: owned, lost: [], kept: [] });
  });
  it('cooperative members keep what they still subscribe to', () => {
    expect(beforeJoin('COOPERATIVE', owned, ['a'], true)).toEqual({ revoked: [tp('b', 0)], lost: [], kept: [tp('a', 0), tp('a', 1)] });
  });
  it('a member whose generation was reset has lost everything, whatever the protocol', () => {
    for (const p of ['EAGER', 'COOPERATIVE'] as const) expect(beforeJoin(p, owned, ['a', 'b'], false)).toEqual({ revoked: [], lost: owned, kept: [] });
  });
  it('after sync, cooperative members revoke what moved and must rejoin; eager ones just take the new set', () => {
    expect(afterSync('COOPERATIVE', owned, [tp('a', 0), tp('c', 0)])).toEqual({ added: [tp('c', 0)], revoked: [tp('a', 1), tp('b', 0)], rejoin: true });
    expect(afterSync('COOPERATIVE', owned, owned)).toEqual({ added: [], revoked: [], rejoin: false });
    expect(afterSync('EAGER', [], [tp('a', 0)])).toEqual({ added: [tp('a', 0)], revoked: [], rejoin: false });
  });
});

describe('auto.offset.reset', () => {
  it('maps the strategy to a ListOffsets lookup (-2 earliest, -1 latest), none to no lookup', () => {
    expect(resetTargetFor('earliest')).toEqual({ kind: 'earliest' });
    expect(resetTargetFor('none')).toBeNull();
    expect(listOffsetsTimestamp({ kind: 'earliest' })).toBe(-2);
    expect(listOffsetsTimestamp({ kind: 'latest' })).toBe(-1);
    expect(listOffsetsTimestamp({ kind: 'timestamp', timestampMs: 1234 })).toBe(1234);
  });
  it('OFFSET_OUT_OF_RANGE only counts while the partition is still at the fetched offset', () => {
    expect(outOfRangeApplies(10, 10)).toBe(true);
    expect(outOfRangeApplies(10, 42)).toBe(false);
    expect(outOfRangeApplies(10, null)).toBe(false);
  });
});

describe('the fetch buffer', () => {
  function setup(position: number): { subs: SubscriptionState; buffer: FetchBuffer } {
    const subs = new SubscriptionState();
    subs.assign([tp('t', 0), tp('t', 1)]);
    for (const s of subs.assignedPartitions()) subs.seek(s, position);
    return { subs, buffer: new FetchBuffer() };
  }

  it('returns records from the position on, skips what the batch holds before it, and advances the position', () => {
    const { subs, buffer } = setup(12);
    // The broker returns the whole batch holding offset 12: offsets 10..14, then 15..19.
    buffer.add(new CompletedFetch('t-0', 't', 0, 12, [batch(10, 5), batch(15, 5)]));
    const got = buffer.collect(4, (k) => subs.get(k));
    expect(got.map((r) => r.offset)).toEqual([12, 13, 14, 15]);
    expect(got[0]).toMatchObject({ topic: 't', partition: 0, value: 'v12', timestamp: 1012, leaderEpoch: 3 });
    expect(subs.get('t-0')!.position).toBe(16);
    expect(subs.get('t-0')!.positionEpoch).toBe(3);
    expect(buffer.has('t-0')).toBe(true);
    expect(buffer.collect(100, (k) => subs.get(k)).map((r) => r.offset)).toEqual([16, 17, 18, 19]);
    expect(buffer.has('t-0')).toBe(false);
  });

  it('moves past control batches and compaction gaps to the end of each batch', () => {
    const { subs, buffer } = setup(0);
    buffer.add(new CompletedFetch('t-0', 't', 0, 0, [batch(0, 5, { gapAfter: 2 }), batch(5, 1, { control: true }), batch(6, 2)]));
    expect(buffer.collect(100, (k) => subs.get(k)).map((r) => r.offset)).toEqual([0, 1, 6, 7]);
    expect(subs.get('t-0')!.position).toBe(8);
  });

  it('drops data whose partition moved (seek) or left; keeps a paused partition\'s data for later', () => {
    const { subs, buffer } = setup(0);
    buffer.add(new CompletedFetch('t-0', 't', 0, 0, [batch(0, 3)]));
    buffer.add(new CompletedFetch('t-1', 't', 1, 0, [batch(0, 3)]));
    subs.get('t-1')!.paused = true;
    subs.seek(subs.get('t-0')!, 100);
    expect(buffer.collect(100, (k) => subs.get(k))).toEqual([]);
    expect(buffer.has('t-0')).toBe(false);
    expect(buffer.has('t-1')).toBe(true);
    subs.get('t-1')!.paused = false;
    expect(buffer.collect(100, (k) => subs.get(k)).map((r) => `${r.partition}:${r.offset}`)).toEqual(['1:0', '1:1', '1:2']);
  });

  it('serves responses in arrival order across partitions', () => {
    const { subs, buffer } = setup(0);
    buffer.add(new CompletedFetch('t-1', 't', 1, 0, [batch(0, 2)]));
    buffer.add(new CompletedFetch('t-0', 't', 0, 0, [batch(0, 2)]));
    expect(buffer.collect(3, (k) => subs.get(k)).map((r) => `${r.partition}:${r.offset}`)).toEqual(['1:0', '1:1', '0:0']);
  });
});

describe('the member\'s clocks', () => {
  it('heartbeat due every interval; session and poll deadlines move with responses and polls', () => {
    const h = new HeartbeatTimers(3000, 10_000, 300_000, retryBackoff(100, 1000, Random.root(1)), 0);
    expect(h.shouldHeartbeat(ms(2999))).toBe(false);
    expect(h.shouldHeartbeat(ms(3000))).toBe(true);
    h.sentHeartbeat(ms(3000));
    expect(h.nextCheckUs()).toBe(ms(6000));
    h.receiveHeartbeat(ms(3001));
    expect(h.sessionTimeoutExpired(ms(13_000))).toBe(false);
    expect(h.sessionTimeoutExpired(ms(13_001))).toBe(true);
    expect(h.pollTimeoutExpired(ms(300_000))).toBe(true);
    h.poll(ms(100_000));
    expect(h.pollTimeoutExpired(ms(399_999))).toBe(false);
    // A failed heartbeat is retried after the backoff (100 ms +- 20 % jitter), not the interval.
    h.receiveHeartbeat(ms(19_000));
    h.failHeartbeat(ms(20_000));
    expect(h.nextCheckUs()).toBeGreaterThanOrEqual(ms(20_080));
    expect(h.nextCheckUs()).toBeLessThanOrEqual(ms(20_120));
  });
});

describe('the processing model', () => {
  it('fills defaults', () => {
    const m = resolveProcessingModel(undefined);
    expect(m).toMatchObject({ startMs: 0, stopMs: Infinity, pollTimeoutMs: 100, commit: 'auto', handoff: null, recordTime: { kind: 'fixed', ms: 0 } });
  });
  it('names the bad field', () => {
    expect(() => resolveProcessingModel({ recordTime: { kind: 'fixed', ms: -1 } })).toThrow(ValidationError);
    expect(() => resolveProcessingModel({ recordTime: { kind: 'fixed', ms: -1 } })).toThrow(/processing\.recordTime\.ms/);
    expect(() => resolveProcessingModel({ commit: 'sometimes' as never })).toThrow(/processing\.commit/);
    expect(() => resolveProcessingModel({ poisonPills: [{ policy: { kind: 'skip' } }] })).toThrow(/poisonPills\[0\]/);
    expect(() => resolveProcessingModel({ poisonPills: [{ keyPrefix: 'x', policy: { kind: 'dead-letter', topic: 'dlt', attempts: 0 } }] })).toThrow(/attempts/);
  });
  it('matches poison pills by key or value prefix', () => {
    const pills = [{ keyPrefix: 'bad-', policy: { kind: 'skip' as const } }, { valuePrefix: 'POISON', policy: { kind: 'retry-forever' as const } }];
    expect(poisonPillFor(pills, 'bad-1', 'ok')).toBe(pills[0]);
    expect(poisonPillFor(pills, 'good', 'POISON!')).toBe(pills[1]);
    expect(poisonPillFor(pills, null, null)).toBeUndefined();
    expect(poisonPillFor(pills, 'good', 'fine')).toBeUndefined();
  });
  it('draws processing times: fixed as given, distributions from the stream, never negative', () => {
    const r = Random.root(7);
    expect(drawProcessingMs({ kind: 'fixed', ms: 12 }, r)).toBe(12);
    let sum = 0;
    for (let i = 0; i < 2000; i++) {
      const x = drawProcessingMs({ kind: 'normal', meanMs: 1, stddevMs: 5 }, r);
      expect(x).toBeGreaterThanOrEqual(0);
      sum += drawProcessingMs({ kind: 'exponential', meanMs: 10 }, r);
    }
    // The exponential's sample mean of 2,000 draws is within 10 % of 10 (its standard error is 10/sqrt(2000) = 0.22).
    expect(sum / 2000).toBeGreaterThan(9);
    expect(sum / 2000).toBeLessThan(11);
  });
});
