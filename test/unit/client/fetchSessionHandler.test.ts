import { describe, expect, it } from 'vitest';
import { FetchSessionHandler } from '../../../sim/kafka/client/fetchSessionHandler';
import type { FetchResponse } from '../../../sim/kafka/protocol';

const response = (sessionId: number, partitions: number[], error: FetchResponse['error'] = 'NONE'): FetchResponse => ({
  type: 'FetchResponse',
  correlationId: 1,
  error,
  sessionId,
  partitions: partitions.map((partition) => ({ topic: 't', partition, error: 'NONE', highWatermark: 0, logStartOffset: 0, logEndOffset: 0, divergingEpoch: null, batches: [], currentLeader: null })),
});

function round(h: FetchSessionHandler, offsets: Record<number, number>) {
  h.begin();
  for (const [p, offset] of Object.entries(offsets)) h.add(`t-${p}`, 't', Number(p), offset, -1, 0, -1, 1000);
  return h.build();
}

describe('FetchSessionHandler', () => {
  it('sends every partition until the broker opens a session, then only what changed and what to forget', () => {
    const h = new FetchSessionHandler();
    const first = round(h, { 0: 5, 1: 7, 2: 9 });
    expect([first.sessionId, first.sessionEpoch, first.partitions.length, first.forgottenTopicsData]).toEqual([0, 0, 3, []]);
    expect(h.handleResponse(response(42, [0, 1, 2]))).toBe(true);
    const second = round(h, { 0: 5, 1: 8 }); // 1 moved on, 2 is no longer wanted (its data is buffered, say)
    expect([second.sessionId, second.sessionEpoch]).toEqual([42, 1]);
    expect(second.partitions.map((p) => [p.partition, p.fetchOffset])).toEqual([[1, 8]]);
    expect(second.forgottenTopicsData).toEqual([{ topic: 't', partition: 2 }]);
    expect(h.handleResponse(response(42, [1]))).toBe(true);
    const third = round(h, { 0: 5, 1: 8, 2: 9 });
    expect([third.sessionEpoch, third.partitions.map((p) => p.partition), third.forgottenTopicsData]).toEqual([2, [2], []]);
    expect(h.sessionPartition('t-0')?.fetchOffset).toBe(5);
  });

  it('after FETCH_SESSION_ID_NOT_FOUND starts over; after another session error or a failed request, closes the session with a full fetch', () => {
    const h = new FetchSessionHandler();
    round(h, { 0: 1 });
    h.handleResponse(response(42, [0]));
    round(h, { 0: 1 });
    expect(h.handleResponse(response(0, [], 'FETCH_SESSION_ID_NOT_FOUND'))).toBe(false);
    expect(round(h, { 0: 1 })).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    h.handleResponse(response(43, [0]));
    round(h, { 0: 1 });
    expect(h.handleResponse(response(43, [], 'INVALID_FETCH_SESSION_EPOCH'))).toBe(false);
    const closing = round(h, { 0: 1 });
    expect([closing.sessionId, closing.sessionEpoch, closing.partitions.length]).toEqual([43, 0, 1]);
    h.handleResponse(response(44, [0]));
    round(h, { 0: 1 });
    h.handleError();
    expect(round(h, { 0: 1 })).toMatchObject({ sessionId: 44, sessionEpoch: 0 });
  });

  it('refuses a full answer that leaves a partition out, and goes sessionless when the broker has no room', () => {
    const h = new FetchSessionHandler();
    round(h, { 0: 1, 1: 1 });
    expect(h.handleResponse(response(42, [0]))).toBe(false);
    expect(round(h, { 0: 1, 1: 1 })).toMatchObject({ sessionId: 0, sessionEpoch: 0 });
    expect(h.handleResponse(response(0, [0, 1]))).toBe(true); // no session: the next fetch is full again
    expect(round(h, { 0: 1, 1: 1 }).partitions).toHaveLength(2);
  });

  it('a round naming only the changes (beginChanges) sends what a round naming every wanted partition sends, forgotten ones in session order', () => {
    // Two handlers in step: `all` is told every wanted partition, `changes` only what moved, joined or left.
    const all = new FetchSessionHandler();
    const changes = new FetchSessionHandler();
    expect(() => changes.beginChanges()).toThrow(/full fetch/);
    const wanted = new Map<number, number>([[0, 5], [1, 7], [2, 9], [3, 4]]);
    const everyRound = () => {
      all.begin();
      for (const [p, offset] of wanted) all.add(`t-${p}`, 't', p, offset, -1, 0, -1, 1000);
      return all.build();
    };
    const sameSessions = (sessionId: number, answered: number[]) => {
      expect(all.handleResponse(response(sessionId, answered))).toBe(true);
      expect(changes.handleResponse(response(sessionId, answered))).toBe(true);
    };
    const full = everyRound();
    changes.begin();
    for (const [p, offset] of wanted) changes.add(`t-${p}`, 't', p, offset, -1, 0, -1, 1000);
    expect(changes.build()).toEqual(full);
    sameSessions(42, [0, 1, 2, 3]);
    // 1 moves on; 3 and 0 leave (named in that order: the request lists them as the session holds them).
    wanted.set(1, 8);
    wanted.delete(3);
    wanted.delete(0);
    const expected = everyRound();
    changes.beginChanges();
    changes.forget('t-3');
    changes.add('t-1', 't', 1, 8, -1, 0, -1, 1000);
    changes.forget('t-0');
    changes.forget('t-9'); // never in the session: nothing to forget
    expect(changes.buildChanges()).toEqual(expected);
    expect(expected.partitions.map((p) => [p.partition, p.fetchOffset])).toEqual([[1, 8]]);
    expect(expected.forgottenTopicsData.map((p) => p.partition)).toEqual([0, 3]);
    expect(changes.size).toBe(2);
    sameSessions(42, [1]);
    // Nothing changed: an empty incremental request that still holds 1 and 2.
    changes.beginChanges();
    changes.add('t-2', 't', 2, 9, -1, 0, -1, 1000);
    expect(changes.buildChanges()).toEqual(everyRound());
    expect(changes.size).toBe(2);
  });
});
