import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../../sim/core/trace';
import { historyOf } from '../../../../sim/check/history/history';
import { Status } from '../../../../sim/check/history/sends';

let seq = 0;
const ev = (t: number, kind: string, node: string, fields: Record<string, unknown>) => ({ t, seq: seq++, kind, node, ...fields }) as unknown as TraceEvent;
const invoke = (t: number, node: string, value: string, partition = 0) => ev(t, 'send.invoke', node, { topic: 't', partition, key: null, value });
const ok = (t: number, node: string, offset: number, values: string[], partition = 0) => ev(t, 'send.ok', node, { topic: 't', partition, offset, values, broker: 1, acks: 'all' });

describe('the history of sends', () => {
  it('keeps the order values were sent in, though two producers number them in interleaved blocks', () => {
    const events: TraceEvent[] = [];
    // Two producers' values get ids in separate blocks of 4,096; send order interleaves them.
    for (let i = 0; i < 5000; i++) events.push(invoke(i, i % 2 === 0 ? 'a' : 'b', `${i % 2 === 0 ? 'a' : 'b'}:${i >> 1}`));
    const h = historyOf(events);
    const order: string[] = [];
    h.sends.forEach((v) => order.push(h.value(v)));
    expect(order).toEqual(Array.from({ length: 5000 }, (_, i) => `${i % 2 === 0 ? 'a' : 'b'}:${i >> 1}`));
    expect(h.sends.byStatus[Status.Unknown]).toBe(5000);
  });

  it('records each outcome, offset and the partition a blocked send was finally given', () => {
    const h = historyOf([
      invoke(0, 'p', 'p:0', -1),
      invoke(1, 'p', 'p:1'),
      invoke(2, 'p', 'p:2'),
      ev(3, 'replica.append', 'broker-1', { topic: 't', partition: 3, broker: 1, base: 10, last: 10, epoch: 4, role: 'leader', values: ['p:0'] }),
      ok(4, 'p', 10, ['p:0'], 3),
      ev(5, 'send.fail', 'p', { topic: 't', partition: 0, error: 'TIMEOUT', values: ['p:1'], definite: true }),
    ]);
    const v0 = h.values.id('p:0');
    const s = h.sends;
    expect([s.status(v0), s.offset(v0), h.where(s.tp(v0)), s.acks(v0), s.broker(v0), s.doneUs(v0)]).toEqual([Status.Ok, 10, 't-3', 'all', 1, 4]);
    expect([h.appends.has(v0), h.where(h.appends.tp(v0)), h.appends.offset(v0), h.appends.epoch(v0), h.appends.broker(v0), h.appends.t(v0)]).toEqual([true, 't-3', 10, 4, 1, 3]);
    const v1 = h.values.id('p:1');
    expect([s.status(v1), s.definite(v1), s.error(v1)]).toEqual([Status.Fail, true, 'TIMEOUT']);
    expect(s.status(h.values.id('p:2'))).toBe(Status.Unknown);
    expect(s.byStatus.slice(1)).toEqual([1, 1, 1]);
  });
});
