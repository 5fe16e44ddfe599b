import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../sim/core/trace';
import { describeTxn, fenceOnCard, fenceText, transactionsOf } from '../../../ui/src/model/transactions';

// Which records belong to which transaction in the partition view, read from hand-written traces.
let seq = 0;
const ev = (t: number, kind: string, node: string, fields: Record<string, unknown>) => ({ t, seq: seq++, kind, node, ...fields }) as unknown as TraceEvent;
const pid = (t: number, node: string, producerId: number, producerEpoch: number, transactionalId?: string) =>
  ev(t, 'producer.id', node, { producerId, producerEpoch, reason: 'InitProducerId', ...(transactionalId && { transactionalId }) });
const ongoing = (t: number, producerId: number, producerEpoch: number, partitions: string[], from = 'Empty') =>
  ev(t, 'txn.state', 'broker-1', { transactionalId: 'tx', producerId, producerEpoch, from, to: 'Ongoing', partitions, reason: 'AddPartitionsToTxn' });
const ok = (t: number, node: string, offset: number, values: string[]) => ev(t, 'send.ok', node, { topic: 't', partition: 0, offset, values, broker: 1, acks: 'all' });
const append = (t: number, base: number, last: number) => ev(t, 'replica.append', 'broker-1', { topic: 't', partition: 0, broker: 1, base, last, epoch: 0, role: 'leader' });
const marker = (t: number, base: number, control: 'COMMIT' | 'ABORT', producerId: number, producerEpoch: number) =>
  ev(t, 'replica.append', 'broker-1', { topic: 't', partition: 0, broker: 1, base, last: base, epoch: 0, role: 'leader', control, producerId, producerEpoch });
const markers = (t: number, result: 'COMMIT' | 'ABORT', producerId: number, producerEpoch: number) =>
  ev(t, 'txn.markers', 'broker-1', { transactionalId: 'tx', producerId, producerEpoch, result, partitions: ['t-0'] });

/**
 * p (transactional.id tx, producer 7) commits p:0, p:1 at offsets 0-1 (COMMIT at 3, epoch 0 -> 1), an idempotent
 * q writes q:0 at offset 2 meanwhile (no transaction), p's next transaction p:2 at 4 is aborted (ABORT at 5,
 * epoch 1 -> 2). A new instance p2 then fences epoch 2 with InitProducerId (epoch 3).
 */
function trace(): TraceEvent[] {
  return [
    pid(0, 'p', 7, 0, 'tx'),
    pid(0, 'q', 8, 0),
    ongoing(1, 7, 0, ['t-0']),
    ok(2, 'p', 0, ['p:0', 'p:1']),
    append(2, 0, 1),
    ok(2, 'q', 2, ['q:0']),
    append(2, 2, 2),
    markers(3, 'COMMIT', 7, 1),
    marker(3, 3, 'COMMIT', 7, 1),
    ongoing(4, 7, 1, ['t-0'], 'CompleteCommit'),
    ok(4, 'p', 4, ['p:2']),
    append(4, 4, 4),
    markers(5, 'ABORT', 7, 2),
    marker(5, 5, 'ABORT', 7, 2),
    pid(6, 'p2', 7, 3, 'tx'),
    ev(7, 'producer.fenced', 'p', { transactionalId: 'tx', producerId: 7, producerEpoch: 2, error: 'PRODUCER_FENCED', request: 'EndTxn' }),
  ];
}

describe('ui model: transactions', () => {
  it('records belong to the transaction their producer acknowledged them in; another producer\'s do not; markers close them', () => {
    const idx = transactionsOf(trace());
    expect(idx.txns.map((t) => [t.epoch, t.outcome, t.markerEpoch, [...t.records.get('t-0')!], t.markers.get('t-0')])).toEqual([
      [0, 'COMMIT', 1, [0, 1], 3],
      [1, 'ABORT', 2, [4], 5],
    ]);
    const at = idx.at.get('t-0')!;
    expect([0, 1, 2, 3, 4, 5].map((o) => at.get(o)?.id ?? null)).toEqual([0, 0, null, 0, 1, 1]);
  });

  it('a data append with no acknowledgement belongs to the only transaction open on the partition, and to none when two are', () => {
    const one = transactionsOf([ongoing(1, 7, 0, ['t-0']), append(2, 0, 0)]);
    expect(one.at.get('t-0')?.get(0)?.id).toBe(0);
    const two = transactionsOf([ongoing(1, 7, 0, ['t-0']), ev(1, 'txn.state', 'broker-2', { transactionalId: 'ty', producerId: 9, producerEpoch: 0, from: 'Empty', to: 'Ongoing', partitions: ['t-0'], reason: 'AddPartitionsToTxn' }), append(2, 0, 0)]);
    expect(two.at.get('t-0')?.get(0)).toBeUndefined();
  });

  it('names a transaction, its marker epoch once decided, and the fencing of its epoch by the newer instance', () => {
    const idx = transactionsOf(trace());
    const [committed, aborted] = idx.txns;
    expect(describeTxn(committed!, idx, 2)).toBe('transaction of transactional.id tx · producer id 7 · epoch 0 · open · 2 records in t-0');
    expect(describeTxn(committed!, idx, 3)).toBe('transaction of transactional.id tx · producer id 7 · epoch 0 (markers carry 1) · committed · 2 records in t-0');
    expect(idx.fences).toHaveLength(1);
    expect(fenceText(idx.fences[0]!)).toBe('epoch 2 fenced by epoch 3 (PRODUCER_FENCED)');
    // The fenced epoch is 2, the one the abort bumped to: this transaction wrote with 1, so its line names no fence.
    expect(describeTxn(aborted!, idx, 8)).toBe('transaction of transactional.id tx · producer id 7 · epoch 1 (markers carry 2) · aborted · 1 record in t-0');
  });

  it('the fenced producer\'s card: short text from the moment it was fenced, on its own node only', () => {
    const idx = transactionsOf(trace());
    expect(fenceOnCard(idx, 'p', 6)).toBeUndefined();
    expect(fenceOnCard(idx, 'p', 7)).toEqual({ text: 'fenced: epoch 2 → 3', title: 'transactional.id tx: epoch 2 fenced by epoch 3 (PRODUCER_FENCED)' });
    expect(fenceOnCard(idx, 'p2', 9)).toBeUndefined();
  });
});
