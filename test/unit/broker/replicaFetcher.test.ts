import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReplicaFetcher, type FetcherHost } from '../../../sim/kafka/broker/replicaFetcher';
import type { Partition } from '../../../sim/kafka/broker/partition';
import type { Outcome } from '../../../sim/kafka/net/networkClient';
import type { FetchPartitionResponse, FetchRequest, FetchResponse } from '../../../sim/kafka/protocol';
import type { RecordBatch } from '../../../sim/kafka/records';

/** A follower log with just what the fetcher reads and writes. */
class FakeLog {
  logStartOffset = 0;
  logEndOffset = 0;
  highWatermark = 0;
  epochs: { epoch: number; start: number }[] = [];
  latestEpoch(): number {
    return this.epochs.length === 0 ? -1 : this.epochs[this.epochs.length - 1]!.epoch;
  }
  appendAsFollower(batches: readonly RecordBatch[]) {
    for (const b of batches) {
      if (this.latestEpoch() !== b.partitionLeaderEpoch) this.epochs.push({ epoch: b.partitionLeaderEpoch, start: b.baseOffset });
      this.logEndOffset = b.baseOffset + b.lastOffsetDelta + 1;
    }
    return { error: null, flushCompletesAt: null };
  }
  updateHighWatermark(hw: number): void {
    this.highWatermark = Math.max(this.logStartOffset, Math.min(hw, this.logEndOffset));
  }
  maybeIncrementLogStartOffset(o: number): void {
    if (o > this.logStartOffset && o <= this.highWatermark) this.logStartOffset = o;
  }
  truncateTo(o: number): void {
    if (o >= this.logEndOffset) return;
    this.logEndOffset = o;
    this.epochs = this.epochs.filter((e) => e.start < o);
    this.highWatermark = Math.min(this.highWatermark, o);
  }
  truncateFullyAndStartAt(o: number): void {
    this.logStartOffset = this.logEndOffset = this.highWatermark = o;
    this.epochs = [];
  }
  endOffsetForEpoch(epoch: number) {
    const later = this.epochs.find((e) => e.epoch > epoch);
    return { leaderEpoch: epoch, endOffset: later ? later.start : this.logEndOffset };
  }
}

interface Sent {
  req: Omit<FetchRequest, 'correlationId'>;
  done: (o: Outcome<FetchResponse>) => void;
}

/** A fetcher on a tiny clock. `walkAll` makes the host claim a follower throttle (that never throttles), so the fetcher walks every partition each round. */
function rig(walkAll: boolean) {
  let now = 0;
  let seq = 0;
  const timers: { at: number; seq: number; fn: () => void }[] = [];
  const sent: Sent[] = [];
  const host: FetcherHost = {
    brokerId: 1,
    nodeId: 'broker-1',
    brokerEpoch: 7,
    config: {
      'replica.fetch.wait.max.ms': 500,
      'replica.fetch.min.bytes': 1,
      'replica.fetch.max.bytes': 1_048_576,
      'replica.fetch.response.max.bytes': 10_485_760,
      'replica.fetch.backoff.ms': 1000,
      'replica.socket.timeout.ms': 30_000,
    },
    legacyHighWatermarkTruncation: false,
    sendFetch: (_leader, req, _bytes, _timeout, done) => sent.push({ req, done }),
    setTimer: (d, fn) => timers.push({ at: now + d, seq: seq++, fn }),
    emitTruncate: () => {},
    emitFollowerAppend: () => {},
    emitFollowerHighWatermark: () => {},
    shouldFollowerThrottle: () => false,
    recordFollowerThrottled: () => {},
    followerThrottleConfigured: () => walkAll,
  };
  const fetcher = new ReplicaFetcher(2, host, () => now);
  const parts = new Map<number, Partition & { log: FakeLog; leaderEpoch: number }>();
  const partition = (n: number, leaderEpoch: number) => {
    const p = { key: `t-${n}`, topic: 't', partition: n, log: parts.get(n)?.log ?? new FakeLog(), leaderEpoch } as unknown as Partition & { log: FakeLog; leaderEpoch: number };
    parts.set(n, p);
    return p;
  };
  const advance = (us: number) => {
    const until = now + us;
    for (;;) {
      timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const t = timers[0];
      if (!t || t.at > until) break;
      timers.shift();
      now = Math.max(now, t.at);
      t.fn();
    }
    now = until;
  };
  return { fetcher, sent, parts, partition, advance };
}

type Step =
  | { kind: 'answer'; sessionId: number; error: 'NONE' | 'FETCH_SESSION_ID_NOT_FOUND' | 'INVALID_FETCH_SESSION_EPOCH' | 'timeout'; pick: number[] }
  | { kind: 'add'; partition: number; leaderEpoch: number }
  | { kind: 'remove'; partition: number }
  | { kind: 'retention'; partition: number }
  | { kind: 'wait'; us: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('answer' as const), sessionId: fc.constantFrom(0, 9, 9, 9), error: fc.constantFrom('NONE', 'NONE', 'NONE', 'NONE', 'FETCH_SESSION_ID_NOT_FOUND', 'INVALID_FETCH_SESSION_EPOCH', 'timeout'), pick: fc.array(fc.integer({ min: 0, max: 99 }), { maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('add' as const), partition: fc.integer({ min: 0, max: 7 }), leaderEpoch: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), partition: fc.integer({ min: 0, max: 7 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retention' as const), partition: fc.integer({ min: 0, max: 7 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), us: fc.constantFrom(1, 500_000, 1_000_000, 2_000_000) }) },
);

/** The leader's answer for partition `r` of the request: `pick` chooses data, errors, divergence. */
function partitionAnswer(n: number, fetchOffset: number, pick: number, leaderEpoch: number): FetchPartitionResponse {
  const base = { topic: 't', partition: n, error: 'NONE' as const, highWatermark: fetchOffset, logStartOffset: 0, logEndOffset: fetchOffset + 3, divergingEpoch: null, batches: [] as RecordBatch[], currentLeader: null };
  const batch = (count: number) => ({ baseOffset: fetchOffset, lastOffsetDelta: count - 1, partitionLeaderEpoch: leaderEpoch, sizeInBytes: 100 * count }) as unknown as RecordBatch;
  switch (pick % 10) {
    case 0:
    case 1:
    case 2:
      return { ...base, batches: [batch(1 + (pick % 3))], highWatermark: fetchOffset + (pick % 2) };
    case 3:
      return { ...base, logStartOffset: Math.min(fetchOffset, 1 + (pick % 4)) };
    case 4:
      return { ...base, error: 'FENCED_LEADER_EPOCH' };
    case 5:
      return { ...base, error: 'UNKNOWN_SERVER_ERROR' };
    case 6:
      return { ...base, error: 'OFFSET_OUT_OF_RANGE', logEndOffset: Math.max(0, fetchOffset - 1) };
    case 7:
      return { ...base, divergingEpoch: { epoch: 0, endOffset: Math.max(0, fetchOffset - 2) } };
    default:
      return base;
  }
}

describe('ReplicaFetcher: the dirty list', () => {
  it('sends the very requests a fetcher walking every partition sends, whatever the leader answers', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        const a = rig(true);
        const b = rig(false);
        for (const r of [a, b]) for (const n of [0, 1, 2, 3]) r.fetcher.add(r.partition(n, 1));
        const both = (f: (r: ReturnType<typeof rig>) => void) => {
          f(a);
          f(b);
          expect(b.sent.map((s) => s.req)).toEqual(a.sent.map((s) => s.req));
        };
        both((r) => r.advance(1));
        const answered = new Set<number>();
        for (const s of steps) {
          if (s.kind === 'add') both((r) => r.fetcher.add(r.partition(s.partition, s.leaderEpoch)));
          else if (s.kind === 'remove') both((r) => r.parts.has(s.partition) && r.fetcher.remove(r.parts.get(s.partition)!));
          else if (s.kind === 'wait') both((r) => r.advance(s.us));
          else if (s.kind === 'retention') {
            both((r) => {
              const log = r.parts.get(s.partition)?.log;
              if (!log || log.highWatermark <= log.logStartOffset) return;
              log.logStartOffset++;
              r.fetcher.logStartOffsetMoved(`t-${s.partition}`);
            });
          } else {
            const i = a.sent.length - 1;
            if (i < 0 || answered.has(i)) continue;
            answered.add(i);
            both((r) => {
              const req = r.sent[i]!.req;
              if (s.error === 'timeout') return r.sent[i]!.done({ ok: false, error: 'REQUEST_TIMED_OUT' });
              const wanted = [...req.partitions];
              const partitions = s.error !== 'NONE' ? [] : s.pick.map((k) => wanted[k % Math.max(1, wanted.length)]).filter((p) => p !== undefined);
              const unique = [...new Map(partitions.map((p) => [p.partition, p])).values()];
              const answers = req.sessionEpoch === 0 && s.error === 'NONE' ? wanted : unique;
              r.sent[i]!.done({
                ok: true,
                response: {
                  type: 'FetchResponse',
                  correlationId: 0,
                  error: s.error,
                  sessionId: s.error === 'NONE' ? s.sessionId : 0,
                  partitions: answers.map((p, j) => partitionAnswer(p.partition, p.fetchOffset, s.pick[j] ?? 9, p.currentLeaderEpoch)),
                },
              });
            });
            both((r) => r.advance(1));
          }
        }
        expect(b.sent.length).toBe(a.sent.length);
      }),
      { numRuns: 150 },
    );
  });

  it('with a session open, a round names only the partitions that changed', () => {
    const r = rig(false);
    for (const n of [0, 1, 2]) r.fetcher.add(r.partition(n, 1));
    r.advance(1);
    const reply = (partitions: FetchPartitionResponse[]) => r.sent[r.sent.length - 1]!.done({ ok: true, response: { type: 'FetchResponse', correlationId: 0, error: 'NONE', sessionId: 9, partitions } });
    expect(r.sent[0]!.req.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    reply([0, 1, 2].map((n) => partitionAnswer(n, 0, 9, 1)));
    expect(r.sent[1]!.req).toMatchObject({ sessionId: 9, sessionEpoch: 1, partitions: [], forgottenTopicsData: [] });
    reply([partitionAnswer(1, 0, 1, 1)]); // two records for partition 1
    expect(r.sent[2]!.req.partitions.map((p) => [p.partition, p.fetchOffset])).toEqual([[1, 2]]);
    r.fetcher.remove(r.parts.get(0)!);
    reply([]);
    expect(r.sent[3]!.req).toMatchObject({ partitions: [], forgottenTopicsData: [{ topic: 't', partition: 0 }] });
  });
});
