import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { ms } from '../../../sim/core/time';
import { ValidationError } from '../../../sim/core/validate';
import type { RaftBatch } from '../../../sim/kafka/raft/messages';
import { MetadataLog } from '../../../sim/kafka/raft/metadataLog';
import { quorumConfig } from '../../../sim/kafka/raft/quorumConfig';
import { QuorumStateStore } from '../../../sim/kafka/raft/quorumStateStore';
import { InFlightRequests } from '../../../sim/kafka/raft/inFlightRequests';
import { RequestManager } from '../../../sim/kafka/raft/requestManager';
import { World } from '../../../sim/world/world';

function diskWorld(opts: { torn?: number } = {}) {
  // No OS writeback: only fsync makes data durable, so power-loss outcomes are exact.
  const world = new World({ seed: 1, disk: { writebackDelayMs: null, tornWriteProbability: opts.torn ?? 0 } });
  const host = world.addHost({ id: 'h' });
  return { world, disk: host.disk };
}

function batch(baseOffset: number, epoch: number, records: string[]): RaftBatch<string> {
  return { baseOffset, epoch, records, control: null, bytes: 61 + 10 * records.length, appendTime: 0 };
}

describe('MetadataLog', () => {
  it('appends batches, tracks the epoch cache and reads ranges', () => {
    const { disk } = diskWorld();
    const log = new MetadataLog<string>(disk, 'n');
    expect(log.endOffsetAndEpoch).toEqual({ offset: 0, epoch: 0 });
    log.append(batch(0, 1, ['a', 'b']));
    log.append(batch(2, 1, ['c']));
    log.append(batch(3, 2, ['d', 'e', 'f']));
    expect(log.endOffset).toBe(6);
    expect(log.epochCache).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
    ]);
    expect(log.endOffsetForEpoch(1)).toEqual({ offset: 3, epoch: 1 });
    // From the middle of the first batch to the middle of the last: cut at both ends.
    const r = log.read(1, 5);
    expect(r.map((b) => [b.baseOffset, b.records])).toEqual([
      [1, ['b']],
      [2, ['c']],
      [3, ['d', 'e']],
    ]);
    expect(() => log.append(batch(9, 2, ['x']))).toThrow(/does not follow/);
  });

  it('a fetch size limit still returns at least one batch', () => {
    const { disk } = diskWorld();
    const log = new MetadataLog<string>(disk, 'n');
    log.append(batch(0, 1, ['a', 'b']));
    log.append(batch(2, 1, ['c']));
    expect(log.read(0, 3, 1).length).toBe(1);
    expect(log.read(0, 3).length).toBe(2);
  });

  it('truncates inside a batch, keeping its head, and rewinds the epoch cache', () => {
    const { disk } = diskWorld();
    const log = new MetadataLog<string>(disk, 'n');
    log.append(batch(0, 1, ['a', 'b']));
    log.append(batch(2, 2, ['c', 'd', 'e']));
    expect(log.truncateTo(3)).toBe(2);
    expect(log.endOffset).toBe(3);
    expect(log.allBatches().map((b) => [b.baseOffset, b.epoch, b.records])).toEqual([
      [0, 1, ['a', 'b']],
      [2, 2, ['c']],
    ]);
    expect(disk.read('n/__cluster_metadata-0/00000000000000000000.log').length).toBe(2);
    log.truncateTo(2);
    expect(log.epochCache).toEqual([{ epoch: 1, startOffset: 0 }]);
    expect(log.lastFetchedEpoch).toBe(1);
  });

  it('counts as flushed only what a completed fsync covered, and a truncation lowers it', () => {
    const { world, disk } = diskWorld();
    const log = new MetadataLog<string>(disk, 'n');
    log.append(batch(0, 1, ['a', 'b']));
    const f1 = log.startFlush();
    log.append(batch(2, 1, ['c']));
    expect(log.flushedEnd).toBe(0);
    world.runUntil(f1.doneAt);
    log.completeFlush(f1.token);
    expect(log.flushedEnd).toBe(2);
    const f2 = log.startFlush();
    log.truncateTo(1);
    log.append(batch(1, 2, ['z']));
    world.runUntil(f2.doneAt);
    log.completeFlush(f2.token);
    // The cut inside the first batch rewrote its head as a new write: the fsync started before the cut
    // covers none of what is there now.
    expect(log.flushedEnd).toBe(0);
    const f3 = log.startFlush();
    world.runUntil(f3.doneAt);
    log.completeFlush(f3.token);
    expect(log.flushedEnd).toBe(2);
  });

  it('recovers what was durable after a power loss', () => {
    const { world, disk } = diskWorld();
    const log = new MetadataLog<string>(disk, 'n');
    log.append(batch(0, 1, ['a']));
    const f = log.startFlush();
    world.runUntil(f.doneAt);
    log.append(batch(1, 1, ['b']));
    disk.powerLoss();
    const again = new MetadataLog<string>(disk, 'n');
    expect(again.endOffset).toBe(1);
    expect(again.recovery).toEqual({ endOffset: 1, lastEpoch: 1, droppedBatches: 0 });
  });

  it('drops a torn last batch on recovery', () => {
    const { disk } = diskWorld({ torn: 1 });
    const log = new MetadataLog<string>(disk, 'n');
    log.append(batch(0, 1, ['a']));
    disk.powerLoss();
    // The unsynced batch survived torn (probability 1): recovery must not trust it.
    expect(disk.read(log.file).length).toBe(1);
    const again = new MetadataLog<string>(disk, 'n');
    expect(again.endOffset).toBe(0);
    expect(again.recovery.droppedBatches).toBe(1);
    expect(disk.read(log.file).length).toBe(0);
  });
});

describe('QuorumStateStore', () => {
  const s1 = { leaderEpoch: 1, leaderId: null, votedId: 'a', currentVoters: ['a', 'b', 'c'] };
  const s2 = { leaderEpoch: 2, leaderId: 'b', votedId: null, currentVoters: ['a', 'b', 'c'] };

  it('a committed write is read back', () => {
    const { world, disk } = diskWorld();
    const store = new QuorumStateStore(disk, 'n');
    expect(store.read()).toBeNull();
    world.runUntil(store.write(s1));
    store.commit();
    expect(new QuorumStateStore(disk, 'n').read()).toEqual(s1);
  });

  it('a power loss before the fsync completes keeps the old state whole', () => {
    const { world, disk } = diskWorld();
    const store = new QuorumStateStore(disk, 'n');
    world.runUntil(store.write(s1));
    store.commit();
    store.write(s2);
    disk.powerLoss();
    expect(new QuorumStateStore(disk, 'n').read()).toEqual(s1);
  });

  it('a crash before the rename leaves the old state and the temporary file is cleared', () => {
    const { world, disk } = diskWorld();
    const store = new QuorumStateStore(disk, 'n');
    world.runUntil(store.write(s1));
    store.commit();
    world.runUntil(store.write(s2));
    const reader = new QuorumStateStore(disk, 'n');
    expect(reader.read()).toEqual(s1);
    expect(disk.exists('n/__cluster_metadata-0/quorum-state.tmp')).toBe(false);
  });
});

describe('RequestManager', () => {
  const mk = () => new RequestManager(['a', 'b', 'c'], ms(20), ms(2000), Random.root(3));

  it('one request in flight per node; success makes it ready, failure backs off', () => {
    const rm = mk();
    expect(rm.isReady('a', 0)).toBe(true);
    rm.onRequestSent('a', 7, 0);
    expect(rm.isReady('a', 0)).toBe(false);
    expect(rm.isResponseExpected('a', 7)).toBe(true);
    expect(rm.isResponseExpected('a', 8)).toBe(false);
    rm.onResponseResult('a', 7, true, ms(1));
    expect(rm.isReady('a', ms(1))).toBe(true);
    rm.onRequestSent('a', 8, ms(2));
    rm.onResponseResult('a', 8, false, ms(3));
    expect(rm.isBackingOff('a', ms(3))).toBe(true);
    expect(rm.remainingBackoff('a', ms(3))).toBe(ms(20));
    expect(rm.isReady('a', ms(23))).toBe(true);
  });

  it('a request times out after the request timeout and the node backs off', () => {
    const rm = mk();
    rm.onRequestSent('b', 1, 0);
    expect(rm.nextTimeout()).toBe(ms(2000));
    expect(rm.expireTimedOut(ms(1999))).toEqual([]);
    expect(rm.expireTimedOut(ms(2000))).toEqual(['b']);
    expect(rm.isBackingOff('b', ms(2000))).toBe(true);
    expect(rm.isResponseExpected('b', 1)).toBe(false);
  });

  it('no bootstrap server while anything is in flight; a disconnect fails the request', () => {
    const rm = mk();
    rm.onRequestSent('c', 1, 0);
    expect(rm.findReadyBootstrapServer(0)).toBeNull();
    expect(rm.backoffBeforeAvailableBootstrapServer(ms(500))).toBe(ms(1500));
    expect(rm.onDisconnect('c', ms(600))).toBe(true);
    const found = rm.findReadyBootstrapServer(ms(600));
    expect(found === 'a' || found === 'b').toBe(true);
  });
});

describe('InFlightRequests (the network client\'s request timeout)', () => {
  it('a connection whose oldest request is unanswered for the timeout expires, whatever came after', () => {
    const f = new InFlightRequests(ms(2000));
    f.sent('a', 1, 0);
    f.sent('a', 2, ms(1500));
    f.sent('b', 3, ms(100));
    f.completed('b', 3);
    expect(f.nextTimeout()).toBe(ms(2000));
    expect(f.expire(ms(1999))).toEqual([]);
    expect(f.expire(ms(2000))).toEqual(['a']);
    // Expired connections are forgotten: nothing left to time out.
    expect(f.nextTimeout()).toBe(Number.POSITIVE_INFINITY);
  });
  it('an answer or a disconnect clears a request', () => {
    const f = new InFlightRequests(ms(2000));
    f.sent('a', 1, 0);
    f.completed('a', 1);
    f.sent('b', 2, 0);
    f.clear('b');
    expect(f.expire(ms(5000))).toEqual([]);
  });
});

describe('quorumConfig', () => {
  it('has Kafka\'s defaults', () => {
    expect(quorumConfig(['a', 'b', 'c'])).toEqual({
      'controller.quorum.voters': ['a', 'b', 'c'],
      'controller.quorum.election.timeout.ms': 1000,
      'controller.quorum.fetch.timeout.ms': 2000,
      'controller.quorum.election.backoff.max.ms': 1000,
      'controller.quorum.request.timeout.ms': 2000,
      'controller.quorum.retry.backoff.ms': 20,
      'controller.quorum.append.linger.ms': 25,
    });
  });
  it('takes overrides as numbers or strings and names what is wrong', () => {
    expect(quorumConfig(['a'], { 'controller.quorum.fetch.timeout.ms': '3000' })['controller.quorum.fetch.timeout.ms']).toBe(3000);
    expect(() => quorumConfig(['a'], { 'controller.quorum.fetch.timeout.ms': -1 })).toThrow(ValidationError);
    expect(() => quorumConfig([])).toThrow(/non-empty list/);
    expect(() => quorumConfig(['a', 'a'])).toThrow(/only once/);
    expect(() => quorumConfig(['a'], { 'controller.quorum.nope': 1 } as never)).toThrow(ValidationError);
  });
});
