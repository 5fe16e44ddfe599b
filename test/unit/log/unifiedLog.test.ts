import { describe, expect, it } from 'vitest';
import { assignOffsets, buildBatch, lastOffset, nextOffset, type RecordBatch } from '../../../sim/kafka/records';
import { ms } from '../../../sim/core/time';
import { UnexpectedAppendOffsetError } from '../../../sim/kafka/log/unifiedLog';
import { allRecords, directEnv, eventsOf, kv, openLog, values } from './logTestKit';

/** A one-record batch of exactly 1000 bytes: 61 header + 939 record (value of 930 bytes; hand-computed from DefaultRecord's layout). */
function kilobyte(ts = 0): RecordBatch {
  return buildBatch([{ key: null, value: 'x', valueSize: 930, timestamp: ts }]);
}

describe('appending', () => {
  it('assigns dense, increasing offsets from 0 and stamps the leader epoch', () => {
    const { env } = directEnv();
    const log = openLog(env, { 'segment.bytes': 500 });
    let expected = 0;
    for (let i = 0; i < 40; i++) {
      const n = 1 + (i % 4);
      const r = log.appendAsLeader(values(n), 7, 0);
      if (r.kind !== 'appended') throw new Error(r.kind);
      expect(r.firstOffset).toBe(expected);
      expect(r.lastOffset).toBe(expected + n - 1);
      expect(r.batch.partitionLeaderEpoch).toBe(7);
      expected += n;
    }
    expect(log.logEndOffset).toBe(expected);
    expect(log.numberOfSegments).toBeGreaterThan(3);
    expect(allRecords(log).map((r) => r.offset)).toEqual(Array.from({ length: expected }, (_, i) => i));
    expect(log.leaderEpochCache.epochEntries()).toEqual([{ epoch: 7, startOffset: 0 }]);
  });

  it('records a new epoch in the cache at the offset it starts', () => {
    const { env } = directEnv();
    const log = openLog(env);
    log.appendAsLeader(values(3), 1, 0);
    log.appendAsLeader(values(2), 4, 0);
    expect(log.leaderEpochCache.epochEntries()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 4, startOffset: 3 },
    ]);
    expect(log.endOffsetForEpoch(1)).toEqual({ epoch: 1, endOffset: 3 });
    expect(log.endOffsetForEpoch(4)).toEqual({ epoch: 4, endOffset: 5 });
  });

  it('stamps LogAppendTime when the topic asks for it', () => {
    const { env } = directEnv();
    const log = openLog(env, { 'message.timestamp.type': 'LogAppendTime' });
    const r = log.appendAsLeader(values(2, 5), 0, 1234);
    expect(r).toMatchObject({ kind: 'appended', logAppendTimeMs: 1234 });
    expect(r.kind === 'appended' && r.batch.maxTimestamp).toBe(1234);
    expect(r.kind === 'appended' && r.batch.timestampType).toBe('LogAppendTime');
  });

  it('rejects batches larger than max.message.bytes or segment.bytes', () => {
    const { env } = directEnv();
    expect(openLog(env, { 'max.message.bytes': 999 }).appendAsLeader(kilobyte(), 0, 0)).toMatchObject({ kind: 'error', error: 'MESSAGE_TOO_LARGE' });
    const { env: env2 } = directEnv();
    const small = openLog(env2, { 'segment.bytes': 999 });
    expect(small.appendAsLeader(kilobyte(), 0, 0)).toMatchObject({ kind: 'error', error: 'RECORD_LIST_TOO_LARGE' });
    expect(small.logEndOffset).toBe(0);
  });

  it('copies follower batches verbatim, allows a gap above the LEO, and refuses to go below it', () => {
    const { env } = directEnv();
    const log = openLog(env);
    const b0 = assignOffsets(values(3), 0, 2);
    const b1 = assignOffsets(values(2), 10, 3); // a compacted leader can have a gap
    expect(log.appendAsFollower([b0, b1])).toMatchObject({ kind: 'appended', firstOffset: 0, lastOffset: 11, batches: 2 });
    expect(log.logEndOffset).toBe(12);
    expect(log.read(0, 1 << 20).error === null && log.read(0, 1 << 20)).toMatchObject({ batches: [b0, b1] });
    expect(log.leaderEpochCache.epochEntries()).toEqual([
      { epoch: 2, startOffset: 0 },
      { epoch: 3, startOffset: 10 },
    ]);
    expect(() => log.appendAsFollower([assignOffsets(values(1), 11, 3)])).toThrow(UnexpectedAppendOffsetError);
  });
});

describe('rolling', () => {
  it('rolls when the next batch would overflow segment.bytes, naming the new segment by its base offset', () => {
    const { w, env } = directEnv();
    const log = openLog(env, { 'segment.bytes': 2500 });
    for (let i = 0; i < 5; i++) log.appendAsLeader(kilobyte(), 0, 0);
    // 1000 + 1000 fit in 2500, a third would not.
    expect(log.logSegments().map((s) => s.baseOffset)).toEqual([0, 2, 4]);
    expect(log.logSegments().map((s) => s.file)).toEqual([
      '/tmp/kafka-logs/orders-0/00000000000000000000.log',
      '/tmp/kafka-logs/orders-0/00000000000000000002.log',
      '/tmp/kafka-logs/orders-0/00000000000000000004.log',
    ]);
    const rolls = eventsOf(w, 'log.roll');
    expect(rolls.map((e) => [e['baseOffset'], e['reason']])).toEqual([
      [2, 'segment.bytes'],
      [4, 'segment.bytes'],
    ]);
  });

  it('rolls by age: the incoming batch is more than segment.ms newer than the first batch of the segment', () => {
    const { env } = directEnv();
    const log = openLog(env, { 'segment.ms': 1000 });
    log.appendAsLeader(values(1, 0), 0, 0);
    log.appendAsLeader(values(1, 1000), 0, 1000); // waited 1000, not more than 1000
    expect(log.numberOfSegments).toBe(1);
    log.appendAsLeader(values(1, 1001), 0, 1001);
    expect(log.logSegments().map((s) => s.baseOffset)).toEqual([0, 2]);
  });

  it('rolls a compacted topic by max.compaction.lag.ms when that is shorter than segment.ms', () => {
    const { env } = directEnv();
    const log = openLog(env, { 'cleanup.policy': 'compact', 'max.compaction.lag.ms': 100 });
    log.appendAsLeader(kv([['a', '1']], 0), 0, 0);
    log.appendAsLeader(kv([['a', '2']], 101), 0, 101);
    expect(log.numberOfSegments).toBe(2);
  });

  it('rolls when the offset index is full', () => {
    const { w, env } = directEnv();
    // Three 8-byte offset entries fit in 24 bytes (the time index gets one 12-byte entry: timestamps never
    // grow here). index.interval.bytes 0 indexes every batch after the first, so batches 1..3 fill it and
    // the fifth append rolls.
    const log = openLog(env, { 'segment.index.bytes': 24, 'index.interval.bytes': 0 });
    for (let i = 0; i < 5; i++) log.appendAsLeader(values(1), 0, 0);
    expect(log.logSegments().map((s) => s.baseOffset)).toEqual([0, 4]);
    expect(eventsOf(w, 'log.roll')[0]?.['reason']).toBe('index-full');
  });

  it('keeps a sparse offset index: one entry per index.interval.bytes', () => {
    const { env } = directEnv();
    const log = openLog(env);
    for (let i = 0; i < 100; i++) log.appendAsLeader(kilobyte(), 0, 0);
    // Worked by hand: an entry is added when more than 4096 bytes came since the last one, i.e. at every
    // fifth 1000-byte batch after the first five (batches 5, 10, ..., 95).
    expect(log.activeSegment.offsetIndex.entries).toBe(19);
    expect(log.activeSegment.offsetIndex.lookup(57)).toBe(55);
    expect(log.activeSegment.translateOffset(57)).toBe(57);
  });
});

describe('reading', () => {
  function filled() {
    const { env } = directEnv();
    const log = openLog(env, { 'segment.bytes': 400 });
    const batches: RecordBatch[] = [];
    for (let i = 0; i < 30; i++) {
      const r = log.appendAsLeader(values(1 + (i % 3)), 0, 0);
      if (r.kind === 'appended') batches.push(r.batch);
    }
    return { log, batches };
  }

  it('returns the batch holding any offset first', () => {
    const { log, batches } = filled();
    for (const b of batches) {
      for (let o = b.baseOffset; o <= lastOffset(b); o++) {
        const r = log.read(o, 1, log.logEndOffset, true);
        expect(r.error === null && r.batches[0]).toBe(b);
      }
    }
  });

  it('returns whole batches within maxBytes, at least one with minOneMessage, and none without', () => {
    const { log, batches } = filled();
    const first = batches[0]!;
    const two = first.sizeInBytes + batches[1]!.sizeInBytes;
    expect(log.read(0, two).error === null && log.read(0, two)).toMatchObject({ batches: [first, batches[1]], sizeInBytes: two });
    expect(log.read(0, two - 1)).toMatchObject({ batches: [first] });
    expect(log.read(0, 1, log.logEndOffset, true)).toMatchObject({ batches: [first] });
    expect(log.read(0, 1, log.logEndOffset, false)).toMatchObject({ batches: [] });
  });

  it('reads from one segment per call', () => {
    const { log } = filled();
    const r = log.read(0, 1 << 20);
    if (r.error !== null) throw new Error(r.message);
    const seg0 = log.logSegments()[0]!;
    expect(r.batches).toEqual(seg0.batches);
  });

  it('stops before the batch that reaches maxOffsetExclusive (the high watermark for consumers)', () => {
    const { log, batches } = filled();
    const hw = nextOffset(batches[1]!) + 1; // inside batch 2
    const r = log.read(0, 1 << 20, hw);
    expect(r.error === null && r.batches).toEqual([batches[0], batches[1]]);
    expect(log.read(hw, 1 << 20, hw)).toEqual({ error: null, batches: [], sizeInBytes: 0 });
  });

  it('answers OFFSET_OUT_OF_RANGE below the log start and above the LEO, and nothing at the LEO', () => {
    const { log } = filled();
    expect(log.read(log.logEndOffset + 1, 100).error).toBe('OFFSET_OUT_OF_RANGE');
    expect(log.read(-1, 100).error).toBe('OFFSET_OUT_OF_RANGE');
    expect(log.read(log.logEndOffset, 100)).toEqual({ error: null, batches: [], sizeInBytes: 0 });
  });

  it('finds the first offset with a timestamp at or after a target', () => {
    const { env } = directEnv();
    const log = openLog(env, { 'segment.bytes': 300 });
    for (let t = 0; t < 10; t++) log.appendAsLeader(buildBatch([{ key: null, value: 'a', timestamp: t * 100 }, { key: null, value: 'b', timestamp: t * 100 + 50 }]), 3, t * 100);
    expect(log.fetchOffsetByTimestamp(420)).toEqual({ offset: 9, timestamp: 450, leaderEpoch: 3 });
    expect(log.fetchOffsetByTimestamp(0)).toEqual({ offset: 0, timestamp: 0, leaderEpoch: 3 });
    expect(log.fetchOffsetByTimestamp(951)).toBeNull();
  });
});

describe('high watermark', () => {
  it('clamps updateHighWatermark to [log start, LEO] and only moves maybeIncrementHighWatermark forward', () => {
    const { env } = directEnv();
    const log = openLog(env);
    log.appendAsLeader(values(5), 0, 0);
    expect(log.updateHighWatermark(99)).toBe(5);
    expect(log.updateHighWatermark(-3)).toBe(0);
    expect(log.maybeIncrementHighWatermark(3)).toBe(true);
    expect(log.maybeIncrementHighWatermark(2)).toBe(false);
    expect(log.highWatermark).toBe(3);
    expect(() => log.maybeIncrementHighWatermark(6)).toThrow(RangeError);
  });

  it('refuses to move the log start offset past the HW', () => {
    const { env } = directEnv();
    const log = openLog(env);
    log.appendAsLeader(values(5), 0, 0);
    log.updateHighWatermark(3);
    expect(log.maybeIncrementLogStartOffset(4, 'ClientRecordDeletion').error).toBe('OFFSET_OUT_OF_RANGE');
    expect(log.maybeIncrementLogStartOffset(2, 'ClientRecordDeletion')).toEqual({ error: null, updated: true });
    expect(log.read(1, 100).error).toBe('OFFSET_OUT_OF_RANGE');
    expect(log.read(2, 100).error).toBeNull();
  });
});

describe('truncation', () => {
  it('removes everything from the offset on, across segments, and says what went', () => {
    const { w, env } = directEnv();
    const log = openLog(env, { 'segment.bytes': 300 });
    for (let i = 0; i < 10; i++) log.appendAsLeader(values(2), i < 5 ? 1 : 2, 0);
    log.updateHighWatermark(20);
    expect(log.truncateTo(7)).toBe(true);
    // Offset 7 is inside the batch [6, 7]: that whole batch goes, and the LEO is the target.
    expect(log.logEndOffset).toBe(7);
    expect(allRecords(log).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(log.highWatermark).toBe(7);
    expect(log.leaderEpochCache.epochEntries()).toEqual([{ epoch: 1, startOffset: 0 }]);
    // By hand: batches of 2 are [0,1] .. [18,19]; truncating to 7 removes [6,7] .. [18,19]: 7 batches, 14 records.
    const ev = eventsOf(w, 'log.truncate')[0]!;
    expect(ev).toMatchObject({
      method: 'truncateTo',
      toOffset: 7,
      previousLogEndOffset: 20,
      logEndOffset: 7,
      removedBatches: 7,
      removedRecords: 14,
      removedFrom: 6,
      removedTo: 20,
      removedEpochs: [1, 2],
    });
    // The next append continues at the new LEO.
    expect(log.appendAsLeader(values(1), 3, 0)).toMatchObject({ kind: 'appended', firstOffset: 7 });
    expect(log.truncateTo(100)).toBe(false);
  });

  it('truncateFullyAndStartAt empties the log and starts at the offset', () => {
    const { w, env } = directEnv();
    const log = openLog(env, { 'segment.bytes': 300 });
    for (let i = 0; i < 6; i++) log.appendAsLeader(values(2), 1, 0);
    log.truncateFullyAndStartAt(50);
    expect([log.logStartOffset, log.logEndOffset, log.highWatermark, log.numberOfSegments]).toEqual([50, 50, 50, 1]);
    expect(log.leaderEpochCache.epochEntries()).toEqual([]);
    expect(log.read(10, 100).error).toBe('OFFSET_OUT_OF_RANGE');
    expect(log.appendAsLeader(values(1), 2, 0)).toMatchObject({ kind: 'appended', firstOffset: 50 });
    expect(eventsOf(w, 'log.truncate')[0]).toMatchObject({ method: 'truncateFullyAndStartAt', removedFrom: 0, removedTo: 12, removedRecords: 12 });
  });
});

describe('flushing', () => {
  it('never fsyncs by default, and fsyncs every flush.messages messages when set', () => {
    const { w, h, env } = directEnv(1, { writebackDelayMs: null });
    const quiet = openLog(env);
    expect(quiet.appendAsLeader(values(3), 0, 0)).toMatchObject({ flushCompletesAt: null });
    w.runUntil(ms(1000));
    expect(h.disk.durableChunks(quiet.activeSegment.file)).toBe(0);

    const { w: w2, h: h2, env: env2 } = directEnv(1, { writebackDelayMs: null });
    const log = openLog(env2, { 'flush.messages': 2 });
    expect(log.appendAsLeader(values(1), 0, 0)).toMatchObject({ flushCompletesAt: null });
    const r = log.appendAsLeader(values(1), 0, 0);
    if (r.kind !== 'appended' || r.flushCompletesAt === null) throw new Error('expected a flush');
    // fsyncs queue on the device (the epoch checkpoint went first), each taking the default 2 ms.
    expect(r.flushCompletesAt).toBeGreaterThanOrEqual(ms(2));
    w2.runUntil(r.flushCompletesAt - 1);
    expect(h2.disk.durableChunks(log.activeSegment.file)).toBe(0);
    expect(log.recoveryPoint).toBe(0);
    w2.runUntil(r.flushCompletesAt);
    expect(h2.disk.durableChunks(log.activeSegment.file)).toBe(2);
    expect(log.recoveryPoint).toBe(2);
  });

  it('flushes the old segment when it rolls', () => {
    const { w, h, env } = directEnv(1, { writebackDelayMs: null });
    const log = openLog(env, { 'segment.bytes': 2500 });
    for (let i = 0; i < 3; i++) log.appendAsLeader(kilobyte(), 0, 0);
    w.runUntil(ms(10));
    const [first, second] = log.logSegments();
    expect(h.disk.durableChunks(first!.file)).toBe(2);
    expect(h.disk.durableChunks(second!.file)).toBe(0);
    expect(log.recoveryPoint).toBe(2);
  });
});
