import { describe, expect, it } from 'vitest';
import { runCheckers } from '../../../sim/check/checkers';
import type { TraceEvent } from '../../../sim/core/trace';

// The checks of transactions on hand-written traces: G1a for read_committed readers, what nobody is owed,
// transactions.*, lso-stall-ms.
let seq = 0;
const ev = (t: number, kind: string, node: string, fields: Record<string, unknown>) => ({ t, seq: seq++, kind, node, ...fields }) as unknown as TraceEvent;
const pid = (node: string) => ev(0, 'producer.id', node, { producerId: 7, producerEpoch: 0, reason: 'InitProducerId', transactionalId: 'tx' });
const invoke = (t: number, node: string, value: string) => ev(t, 'send.invoke', node, { topic: 't', partition: 0, key: null, value });
const ok = (t: number, node: string, offset: number, values: string[]) => ev(t, 'send.ok', node, { topic: 't', partition: 0, offset, values, broker: 1, acks: 'all' });
const txn = (t: number, node: string, result: 'commit' | 'abort', values: string[], requests = 1) =>
  ev(t, 'producer.txn', node, { transactionalId: 'tx', result, producerId: 7, producerEpoch: 0, values, requests });
const poll = (t: number, node: string, offsets: number[], values: string[]) =>
  ev(t, 'consumer.poll', node, { group: null, memberId: '', generation: -1, count: offsets.length, records: [{ topic: 't', partition: 0, offsets, values }] });
const isolation = (node: string) => ev(0, 'consumer.isolation', node, { level: 'read_committed' });
const lso = (t: number, lso: number, fuo: number | null, broker = 1) => ev(t, 'replica.lso', `broker-${broker}`, { topic: 't', partition: 0, broker, lso, hw: lso + 5, firstUnstableOffset: fuo });

/** p writes p:0 (committed, offset 0), p:1, p:2 (aborted, 2-3), p:3, p:4 (committed, 5-6); markers at 1, 4, 7. */
function writes(): TraceEvent[] {
  return [
    pid('p'),
    invoke(1, 'p', 'p:0'),
    ok(2, 'p', 0, ['p:0']),
    txn(2, 'p', 'commit', ['p:0']),
    invoke(3, 'p', 'p:1'),
    invoke(3, 'p', 'p:2'),
    ok(4, 'p', 2, ['p:1', 'p:2']),
    txn(5, 'p', 'abort', ['p:1', 'p:2']),
    invoke(6, 'p', 'p:3'),
    invoke(6, 'p', 'p:4'),
    ok(7, 'p', 5, ['p:3', 'p:4']),
    txn(8, 'p', 'commit', ['p:3', 'p:4']),
  ];
}

describe('the checks of transactions', () => {
  it('G1a: a read_committed consumer that reads an aborted write, but not a read_uncommitted one', () => {
    const r = runCheckers([isolation('rc'), ...writes(), poll(9, 'rc', [0, 2, 5], ['p:0', 'p:1', 'p:3']), poll(9, 'ru', [0, 2, 3, 5, 6], ['p:0', 'p:1', 'p:2', 'p:3', 'p:4'])]);
    expect(r.G1a!.count).toBe(1);
    expect(r.G1a!.examples[0]).toContain('rc (read_committed) read p:1');
    expect(r.G1a!.examples[0]).toContain('aborted');
  });

  it('an aborted write is owed to nobody: a read_committed consumer that skips it leaves nothing unseen or skipped', () => {
    const r = runCheckers([
      isolation('rc'),
      ...writes(),
      poll(9, 'rc', [0], ['p:0']),
      poll(10, 'rc', [5, 6], ['p:3', 'p:4']),
      ev(11, 'final.partition', 'runner', {
        topic: 't', partition: 0, leader: 1, leaderEpoch: 1, replicas: [1], highWatermark: 8, logStartOffset: 0, logEndOffset: 8, compacted: false, offline: false,
        isr: [1], elr: [], offsets: [0, 2, 3, 5, 6], keys: [null, null, null, null, null], values: ['p:0', 'p:1', 'p:2', 'p:3', 'p:4'],
      }),
    ]);
    expect([r.G1a!.count, r.unseen!.count, r['lost-write-jepsen']!.count, r['poll-skip']!.count]).toEqual([0, 0, 0, 0]);
    expect([r['transactions.committed']!.count, r['transactions.aborted']!.count]).toEqual([2, 1]);
  });

  it('a transaction that never ended is uncommitted too: reading it is G1a', () => {
    const events = [isolation('rc'), pid('p'), invoke(1, 'p', 'p:0'), ok(2, 'p', 0, ['p:0']), poll(3, 'rc', [0], ['p:0'])];
    expect(runCheckers(events).G1a!.examples[0]).toContain('never committed');
  });

  it('transactions.fenced counts fencing; other fatal errors only as errors.<NAME>', () => {
    const fenced = (t: number, node: string, error: string) => ev(t, 'producer.fenced', node, { transactionalId: 'tx', producerId: 7, producerEpoch: 0, error, request: 'EndTxn' });
    const r = runCheckers([pid('a'), fenced(1, 'a', 'PRODUCER_FENCED'), fenced(2, 'b', 'INVALID_TRANSACTION_TIMEOUT')]);
    expect(r['transactions.fenced']!.count).toBe(1);
    expect([r['errors.PRODUCER_FENCED']!.count, r['errors.INVALID_TRANSACTION_TIMEOUT']!.count]).toEqual([1, 1]);
  });

  it('lso-stall-ms: the longest the LSO stayed at one offset below the HW, ended by a move or a lost leadership', () => {
    const role = (t: number, role: string) => ev(t, 'replica.role', 'broker-1', { topic: 't', partition: 0, broker: 1, role, epoch: 1, leader: 2 });
    // Pinned at 10 for 3 s (t in µs), then moves; pinned at 20 for 5 s until broker 1 stops leading.
    const r = runCheckers([lso(1_000_000, 10, 10), lso(2_000_000, 10, 10), lso(4_000_000, 20, 20), role(9_000_000, 'follower'), ev(20_000_000, 'scenario.end', 'runner', {})]);
    expect(r['lso-stall-ms']!.count).toBe(5000);
    expect(r['lso-stall-ms']!.examples[0]).toContain('stayed at 20');
    expect(runCheckers([lso(1_000_000, 10, 10), lso(1_500_000, 15, null), ev(2_000_000, 'scenario.end', 'runner', {})])['lso-stall-ms']!.count).toBe(500);
  });

  it('the cost of transactions: batches of the transactional producers per transaction ended, and markers per partition decided', () => {
    const markers = (t: number, partitions: string[]) => ev(t, 'txn.markers', 'broker-1', { transactionalId: 'tx', producerId: 7, producerEpoch: 0, result: 'COMMIT', partitions });
    // p: 3 batches in 3 transactions (the aborted one too), markers for 1 + 1 + 2 partitions; q, idempotent, 2 batches that do not count.
    const r = runCheckers([
      ...writes(),
      markers(2, ['t-0']),
      markers(5, ['t-0']),
      markers(8, ['t-0', '__consumer_offsets-3']),
      invoke(9, 'q', 'q:0'),
      ok(9, 'q', 8, ['q:0']),
      invoke(9, 'q', 'q:1'),
      ok(9, 'q', 9, ['q:1']),
    ]);
    expect(r['transactions.batches-per-transaction']!.count).toBe(1);
    expect(r['transactions.batches-per-transaction']!.examples).toEqual(['3 batches (5 records) in 3 transactions']);
    expect(r['transactions.markers']!.count).toBe(4);
    expect(r['produce.batches']!.count).toBe(5);
    // Each transaction of writes() sent one request (a version 2 producer's EndTxn).
    expect(r['transactions.requests-per-transaction']!.count).toBe(1);
  });

  it('requests per transaction: a version 1 transaction\'s AddPartitionsToTxn, its CONCURRENT_TRANSACTIONS retry and EndTxn count', () => {
    const r = runCheckers([pid('p'), invoke(1, 'p', 'p:0'), ok(2, 'p', 0, ['p:0']), txn(2, 'p', 'commit', ['p:0'], 3), txn(4, 'p', 'commit', [], 1)]);
    expect(r['transactions.requests-per-transaction']!.count).toBe(2);
    expect(r['transactions.requests-per-transaction']!.examples).toEqual(['4 requests for 2 transactions']);
  });

  it('no transaction: both cost figures are 0', () => {
    const r = runCheckers([invoke(1, 'q', 'q:0'), ok(2, 'q', 0, ['q:0'])]);
    expect([r['transactions.batches-per-transaction']!.count, r['transactions.markers']!.count]).toEqual([0, 0]);
  });
});
