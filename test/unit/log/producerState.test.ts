import { describe, expect, it } from 'vitest';
import { checkProducerAppend, inSequence, updateProducerEntry, type ProducerStateEntry } from '../../../sim/kafka/log/producerAppendInfo';
import { assignOffsets, buildBatch, type RecordBatch } from '../../../sim/kafka/records';
import { ms } from '../../../sim/core/time';
import { directEnv, openLog, processEnv } from './logTestKit';

const PID = 1000;

/** A batch of `n` records from producer PID with the given epoch and base sequence. */
function pbatch(epoch: number, seq: number, n = 1, ts = 0): RecordBatch {
  return buildBatch(
    Array.from({ length: n }, (_, i) => ({ key: `k${seq + i}`, value: `v${seq + i}`, timestamp: ts })),
    { producerId: PID, producerEpoch: epoch, baseSequence: seq },
  );
}

/** The entry after appending these batches at consecutive offsets from 0. */
function entryAfter(batches: RecordBatch[]): ProducerStateEntry | undefined {
  let entry: ProducerStateEntry | undefined;
  let offset = 0;
  for (const b of batches) {
    const stamped = assignOffsets(b, offset, 0);
    entry = updateProducerEntry(entry, stamped);
    offset += b.recordCount;
  }
  return entry;
}

describe('the idempotence rules (reference 6.3)', () => {
  it('accepts any sequence from an unknown producer', () => {
    expect(checkProducerAppend(undefined, pbatch(0, 42), 'CLIENT')).toEqual({ kind: 'ok' });
  });

  it('accepts the next sequence and rejects a gap as OUT_OF_ORDER_SEQUENCE_NUMBER', () => {
    const entry = entryAfter([pbatch(0, 0, 3)]); // sequences 0..2
    expect(checkProducerAppend(entry, pbatch(0, 3), 'CLIENT').kind).toBe('ok');
    const gap = checkProducerAppend(entry, pbatch(0, 5), 'CLIENT');
    expect(gap.kind === 'error' && gap.error).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
  });

  it('finds a duplicate among the last five batches, with its original offsets', () => {
    const batches = [0, 1, 2, 3, 4, 5].map((i) => pbatch(0, i * 2, 2)); // six batches of 2: offsets 0..11
    const entry = entryAfter(batches)!;
    expect(entry.batchMetadata).toHaveLength(5);
    const dup = checkProducerAppend(entry, pbatch(0, 2, 2), 'CLIENT'); // the second batch: offsets 2..3
    expect(dup).toEqual({ kind: 'duplicate', batch: { firstSeq: 2, lastSeq: 3, firstOffset: 2, lastOffset: 3, timestamp: 0 } });
    // The first batch fell out of the window: it is no longer recognised, and is out of order.
    const old = checkProducerAppend(entry, pbatch(0, 0, 2), 'CLIENT');
    expect(old.kind === 'error' && old.error).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
  });

  it('rejects an older epoch with INVALID_PRODUCER_EPOCH', () => {
    const entry = entryAfter([pbatch(3, 0)]);
    const r = checkProducerAppend(entry, pbatch(2, 1), 'CLIENT');
    expect(r.kind === 'error' && r.error).toBe('INVALID_PRODUCER_EPOCH');
    // The coordinator's appends get the epoch check too, but no sequence check.
    const c = checkProducerAppend(entry, pbatch(2, 1), 'COORDINATOR');
    expect(c.kind === 'error' && c.error).toBe('INVALID_PRODUCER_EPOCH');
  });

  it('requires sequence 0 after an epoch bump', () => {
    const entry = entryAfter([pbatch(0, 0, 5)]);
    expect(checkProducerAppend(entry, pbatch(1, 0), 'CLIENT').kind).toBe('ok');
    const r = checkProducerAppend(entry, pbatch(1, 5), 'CLIENT');
    expect(r.kind === 'error' && r.error).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
  });

  it('wraps sequences from Integer.MAX_VALUE to 0', () => {
    expect(inSequence(0x7fffffff, 0)).toBe(true);
    expect(inSequence(0x7fffffff, 1)).toBe(false);
    expect(inSequence(4, 5)).toBe(true);
  });

  it('skips every check for replication', () => {
    const entry = entryAfter([pbatch(3, 0)]);
    expect(checkProducerAppend(entry, pbatch(1, 77), 'REPLICATION')).toEqual({ kind: 'ok' });
  });
});

describe('producer state in the log', () => {
  it('answers a retried batch with its original offsets and does not append it again', () => {
    const { env } = directEnv();
    const log = openLog(env);
    const a = log.appendAsLeader(pbatch(0, 0, 2), 5, 0);
    const b = log.appendAsLeader(pbatch(0, 2, 3), 5, 0);
    expect(a.kind === 'appended' && [a.firstOffset, a.lastOffset]).toEqual([0, 1]);
    expect(b.kind === 'appended' && [b.firstOffset, b.lastOffset]).toEqual([2, 4]);
    const retry = log.appendAsLeader(pbatch(0, 0, 2), 5, 0);
    expect(retry).toMatchObject({ kind: 'duplicate', firstOffset: 0, lastOffset: 1 });
    expect(log.logEndOffset).toBe(5);
    const gap = log.appendAsLeader(pbatch(0, 9, 1), 5, 0);
    expect(gap).toMatchObject({ kind: 'error', error: 'OUT_OF_ORDER_SEQUENCE_NUMBER' });
    expect(log.logEndOffset).toBe(5);
    expect(log.appendAsLeader(pbatch(0, 5, 1), 5, 0)).toMatchObject({ kind: 'appended', firstOffset: 5 });
  });

  it('lets followers append whatever the leader wrote', () => {
    const { env } = directEnv();
    const log = openLog(env);
    const r = log.appendAsFollower([assignOffsets(pbatch(2, 50), 0, 1), assignOffsets(pbatch(1, 3), 1, 1)]);
    expect(r).toMatchObject({ kind: 'appended', firstOffset: 0, lastOffset: 1 });
    expect(log.producerStateManager.lastEntry(PID)?.producerEpoch).toBe(1);
  });

  it('still recognises duplicates after a restart (state rebuilt from the log)', () => {
    const { w, envOf, crashCycle } = processEnv();
    const log = openLog(envOf(), { 'segment.bytes': 300 });
    for (let i = 0; i < 12; i++) expect(log.appendAsLeader(pbatch(0, i, 1), 1, 0).kind).toBe('appended');
    expect(log.numberOfSegments).toBeGreaterThan(2);
    w.runUntil(w.now + ms(10));
    crashCycle(); // the page cache survives a process crash
    const reopened = openLog(envOf(), { 'segment.bytes': 300 });
    expect(reopened.logEndOffset).toBe(12);
    expect(reopened.appendAsLeader(pbatch(0, 11, 1), 1, 0)).toMatchObject({ kind: 'duplicate', firstOffset: 11, lastOffset: 11 });
    expect(reopened.appendAsLeader(pbatch(0, 12, 1), 1, 0)).toMatchObject({ kind: 'appended', firstOffset: 12 });
  });

  it('forgets truncated batches, so the producer can write them again', () => {
    const { env } = directEnv();
    const log = openLog(env, { 'segment.bytes': 300 });
    for (let i = 0; i < 8; i++) log.appendAsLeader(pbatch(0, i, 1), 1, 0);
    log.truncateTo(5);
    expect(log.producerStateManager.lastEntry(PID)?.batchMetadata.at(-1)?.lastSeq).toBe(4);
    expect(log.appendAsLeader(pbatch(0, 5, 1), 2, 0)).toMatchObject({ kind: 'appended', firstOffset: 5 });
  });

  it('expires producers after producer.id.expiration.ms', () => {
    const { env } = directEnv();
    const log = openLog(env, {}, { producerIdExpirationMs: 1000 });
    log.appendAsLeader(pbatch(0, 0, 1, 100), 1, 100);
    expect(log.producerStateManager.removeExpiredProducers(1099)).toBe(0);
    expect(log.producerStateManager.removeExpiredProducers(1100)).toBe(1);
    // Unknown again: any sequence is accepted.
    expect(log.appendAsLeader(pbatch(0, 40, 1, 1200), 1, 1200).kind).toBe('appended');
  });
});
