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
});
