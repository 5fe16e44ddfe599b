// The UI's trace model, without a browser: the fold the views draw from, checked against the
// simulator's own ground truth (final.partition) and against a plain linear fold.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent, TraceHeader } from '../../sim/core/trace';
import { runScenario, type RunResult } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { runCheckers } from '../../sim/check/checkers';
import { TraceModel } from '../../ui/src/model/traceModel';
import { Replay } from '../../ui/src/model/replay';
import { applyEvent, initialState, type ClusterState } from '../../ui/src/model/clusterState';
import { appendBatch, chainToArray, durableEnd, truncateChain } from '../../ui/src/model/replicaLog';
import { buildGroups } from '../../ui/src/model/groupsModel';
import { applyScenarioFields, valueOf, withValue } from '../../ui/src/app/settings';
import { defaultState, readUrl, writeUrl } from '../../ui/src/app/urlState';
import { ROOT } from './support';

function spec(id: string): ScenarioSpec {
  return JSON.parse(readFileSync(join(ROOT, 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec;
}

function header(r: RunResult): TraceHeader {
  return r.cluster.world.trace.header;
}

/** What a state says, in plain data, for comparing two states. */
function digest(s: ClusterState): unknown {
  return {
    i: s.i,
    hosts: [...s.hosts],
    faults: s.faults.map((f) => f.index),
    active: s.activeController,
    fenced: [...s.fenced],
    caption: s.caption?.text ?? null,
    partitions: [...s.partitions.values()].map((p) => ({
      key: p.key,
      leader: p.leader,
      epoch: p.leaderEpoch,
      isr: [...p.isr],
      hw: p.hw,
      replicas: [...p.replicas.values()].map((r) => ({
        b: r.broker,
        role: r.role,
        leo: r.leo,
        start: r.logStart,
        flushed: r.flushedUpTo,
        pending: r.pending.length,
        chain: chainToArray(r.tip).map((b) => [b.base, b.last, b.epoch]),
        removed: r.removed ? [r.removed.from, r.removed.to] : null,
      })),
    })),
  };
}

describe('the replica log chain', () => {
  it('truncates inside a batch, keeping the part below the offset and returning what it removed', () => {
    let tip = appendBatch(null, 0, 4, 0, 10);
    tip = appendBatch(tip, 5, 9, 0, 20);
    tip = appendBatch(tip, 10, 12, 1, 30);
    const { tip: cut, removed } = truncateChain(tip, 7);
    expect(chainToArray(cut).map((b) => [b.base, b.last, b.epoch])).toEqual([
      [0, 4, 0],
      [5, 6, 0],
    ]);
    expect(removed).toEqual([
      { base: 7, last: 9, epoch: 0 },
      { base: 10, last: 12, epoch: 1 },
    ]);
    // The old chain is untouched (keyframes share it).
    expect(chainToArray(tip).length).toBe(3);
  });

  it('counts a prefix durable once fsynced or older than the writeback delay', () => {
    const batches = chainToArray(appendBatch(appendBatch(appendBatch(null, 0, 4, 0, 1_000), 5, 9, 0, 2_000), 10, 12, 0, 3_000));
    // Written back: the batches appended at or before now - delay.
    expect(durableEnd(batches, 13, 0, 2_500, 1_000)).toBe(5);
    expect(durableEnd(batches, 13, 0, 3_000, 1_000)).toBe(10);
    expect(durableEnd(batches, 13, 0, 1_500, 1_000)).toBe(0);
    // An fsync up to 12 counts even when nothing was written back; never more than the log end.
    expect(durableEnd(batches, 13, 12, 1_500, 1_000)).toBe(12);
    expect(durableEnd(batches, 13, 20, 1_500, null)).toBe(13);
    expect(durableEnd(batches, 13, 0, 1e9, null)).toBe(0);
  });
});

describe('the trace model of acks1-leader-crash', () => {
  let r: RunResult;
  let model: TraceModel;
  let replay: Replay;
  beforeAll(() => {
    r = runScenario(validateScenario(spec('acks1-leader-crash')), { seed: 1 });
    model = new TraceModel(header(r), r.trace as TraceEvent[], r.checks);
    replay = new Replay(model, 500);
  });

  it('ends with every replica holding what the simulator says the committed log holds', () => {
    const end = replay.at(model.n - 1);
    const finals = r.trace.filter((e) => e.kind === 'final.partition');
    expect(finals.length).toBeGreaterThan(0);
    for (const f of finals) {
      const p = end.partitions.get(`${f['topic'] as string}-${f['partition'] as number}`)!;
      expect(p.leader).toBe(f['leader']);
      expect(p.hw).toBe(f['highWatermark']);
      const offsets = f['offsets'] as number[];
      const values = f['values'] as (string | null)[];
      for (const b of f['isr'] as number[]) {
        const rep = p.replicas.get(b)!;
        expect(rep.leo).toBe(f['logEndOffset']);
        // Every committed record, read back through the chain and the leaders' appends.
        const chain = chainToArray(rep.tip);
        let k = 0;
        for (const batch of chain) {
          for (let o = batch.base; o <= batch.last; o++, k++) {
            expect(o).toBe(offsets[k]);
            expect(model.valueAt(p.key, batch.epoch, o)).toBe(values[k]);
          }
        }
        expect(k).toBe(offsets.length);
      }
    }
  });

  it('shows the lost writes on the old leader before the truncation and in its removed strip after it', () => {
    const lost = r.checks['lost-write']!.values!;
    expect(lost.length).toBeGreaterThan(0);
    const info = model.values.get(lost[0]!)!;
    const atAck = replay.at(info.ackI);
    const leader = atAck.partitions.get(`${info.topic}-${info.partition}`)!.replicas.get(info.broker)!;
    expect(info.offset).toBeLessThan(leader.leo);
    const end = replay.at(model.n - 1);
    const old = end.partitions.get(`${info.topic}-${info.partition}`)!.replicas.get(info.broker)!;
    let found = false;
    for (let rm = old.removed; rm; rm = rm.prev) if (rm.batches.some((b) => b.base <= info.offset && info.offset <= b.last && b.epoch === info.epoch)) found = true;
    expect(found).toBe(true);
    // The lost offsets are indexed per partition for the overview.
    expect(model.lostByPartition.get(`${info.topic}-${info.partition}`)!.length).toBe(lost.length);
  });

  it('marks the notable moments: the faults, the election, the truncation, the first lost acknowledgement, the captions', () => {
    const kinds = new Set(model.markers.map((m) => m.kind));
    for (const k of ['fault', 'election', 'truncate', 'lost-ack', 'caption', 'host'] as const) expect(kinds.has(k), k).toBe(true);
    // Stepping through notable events visits them in order.
    let i = -1;
    const visited: number[] = [];
    for (;;) {
      const j = model.nextNotable(i, 1);
      if (j < 0) break;
      expect(j).toBeGreaterThan(i);
      visited.push(j);
      i = j;
    }
    expect(visited.length).toBe(model.notable.length);
    expect(model.nextNotable(visited[2]!, -1)).toBe(visited[1]);
  });

  it('gives the same state from keyframes as from a plain fold, at any moment', () => {
    const plain = initialState(model);
    const picks = [0, 1, 499, 500, 501, 2_000, 7_777, Math.floor(model.n / 2), model.n - 2, model.n - 1, 3, 12_345 % model.n];
    const wanted = new Map<number, unknown>();
    const sorted = [...new Set(picks)].sort((a, b) => a - b);
    let k = 0;
    for (let j = 0; j < model.n && k < sorted.length; j++) {
      applyEvent(plain, model, model.events[j]!, j);
      if (j === sorted[k]) {
        wanted.set(j, digest(plain));
        k++;
      }
    }
    // Visit in a jumbled order: backwards, forwards, far and near.
    for (const j of [...picks].reverse()) expect(digest(replay.at(j))).toEqual(wanted.get(j));
  });

  it('indexes in one pass: each event is read about once, and twice the events build twice the index', () => {
    // The run, and the run followed by a replay of itself (the same work per event, twice the events).
    // How fast indexing is, is the bench's ui-model row (test/bench/uiModel.ts); here: how much it reads.
    const once = r.trace as TraceEvent[];
    const span = once[once.length - 1]!.t - once[0]!.t + 1_000_000;
    const twice = [...once, ...once.map((e) => ({ ...e, t: e.t + span, seq: e.seq + once.length }) as TraceEvent)];
    const index = (evs: TraceEvent[]) => {
      let reads = 0;
      // Count every element read (indexing, for-of and array methods all go through `get` with a numeric key).
      const counted = new Proxy(evs, {
        get(target, key, receiver) {
          if (typeof key === 'string' && key.length > 0 && key.charCodeAt(0) >= 48 && key.charCodeAt(0) <= 57) reads++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      const m = new TraceModel(header(r), counted, r.checks);
      const modelReads = reads;
      new Replay(m);
      return { m, modelReads, replayReads: reads - modelReads };
    };
    const a = index(once);
    const b = index(twice);
    for (const x of [a, b]) {
      // The model's fold reads each event once (plus a few look-backs); the replay's keyframe pass exactly once.
      expect(x.modelReads).toBeGreaterThanOrEqual(x.m.n);
      expect(x.modelReads).toBeLessThan(x.m.n * 1.05 + 100);
      expect(x.replayReads).toBe(x.m.n);
    }
    expect(b.m.n).toBe(2 * a.m.n);
    expect(b.m.laneEvents.map((l) => l.length)).toEqual(a.m.laneEvents.map((l) => 2 * l.length));
    expect(b.m.notable.length).toBe(2 * a.m.notable.length);
  });
});

describe('consumer groups from consumer.* and group.* events', () => {
  it('builds ownership bars, rebalances and lag', () => {
    const ev = (t: number, seq: number, kind: string, node: string, fields: Record<string, unknown>) => ({ t, seq, kind, node, ...fields }) as TraceEvent;
    const events: TraceEvent[] = [
      ev(0, 0, 'scenario.start', 'cluster', { bootMs: 0 }),
      ev(10, 1, 'group.rebalance', 'broker-1', { group: 'g', generation: 1, protocol: 'range', leader: 'm1', members: ['m1'], reason: 'join' }),
      ev(11, 2, 'consumer.assignment', 'consumer-1', { group: 'g', memberId: 'm1', generation: 1, protocol: 'range', assigned: ['t-0', 't-1'], revoked: [], lost: [], owned: ['t-0', 't-1'] }),
      ev(20, 3, 'replica.hw', 'broker-1', { topic: 't', partition: 0, broker: 1, hw: 10, leo: 10 }),
      ev(30, 4, 'consumer.commit', 'consumer-1', { group: 'g', memberId: 'm1', generation: 1, source: 'auto', offsets: [{ topic: 't', partition: 0, offset: 4 }], ok: true, error: 'NONE', sentAt: 25 }),
      ev(40, 5, 'group.rebalance', 'broker-1', { group: 'g', generation: 2, protocol: 'range', leader: 'm1', members: ['m1', 'm2'], reason: 'join' }),
      ev(41, 6, 'consumer.assignment', 'consumer-1', { group: 'g', memberId: 'm1', generation: 2, protocol: 'range', assigned: [], revoked: ['t-1'], lost: [], owned: ['t-0'] }),
      ev(42, 7, 'consumer.assignment', 'consumer-2', { group: 'g', memberId: 'm2', generation: 2, protocol: 'range', assigned: ['t-1'], revoked: [], lost: [], owned: ['t-1'] }),
      ev(50, 8, 'host.crash', 'consumer-2', { processes: ['consumer-2'] }),
      ev(60, 9, 'scenario.end', 'scenario', { durationMs: 0, quietMs: 0 }),
    ];
    const hdr = { format: 'kafkasim-trace', version: 1, scenario: 'synthetic', seed: 1, config: null } as TraceHeader;
    const model = new TraceModel(hdr, events, runCheckers(events));
    expect(model.hasGroups).toBe(true);
    const g = buildGroups(model);
    expect(g.groups).toEqual(['g']);
    expect(g.rows.map((r) => r.tp)).toEqual(['t-0', 't-1']);
    const bars = g.bars.map((b) => [b.consumer, b.tp, b.start, b.end]).sort();
    expect(bars).toEqual([
      ['consumer-1', 't-0', 11, 60],
      ['consumer-1', 't-1', 11, 41],
      ['consumer-2', 't-1', 42, 50],
    ]);
    expect(g.rebalances.map((x) => x.generation)).toEqual([1, 2]);
    // Lag at the commit: high watermark 10 minus committed 4.
    expect(g.lag[0]!.points[0]).toEqual({ t: 30, lag: 6 });
    const s = new Replay(model).at(8);
    expect(s.committed.get('g\u0000t-0')).toBe(4);
    expect(s.members.get('consumer-1')!.owned).toEqual(['t-0']);
  });
});

describe('the UI settings and its URL', () => {
  it('turns the replication factor and the trace level into scenario fields, the rest into overrides', () => {
    const base = spec('acks1-leader-crash');
    const { spec: out, rest } = applyScenarioFields(base, ['producer.acks=all', 'topic.replicationFactor=2', 'trace=full']);
    expect(rest).toEqual(['producer.acks=all']);
    expect(out.topics!.every((t) => t.replicationFactor === 2)).toBe(true);
    expect(out.trace).toBe('full');
    expect(() => applyScenarioFields(base, ['topic.replicationFactor=0'])).toThrow();
    expect(valueOf(withValue(['producer.acks=1'], 'producer.acks', 'all'), 'producer.acks')).toBe('all');
    expect(withValue(['producer.acks=1', 'topic.flush.messages=1'], 'producer.acks', '')).toEqual(['topic.flush.messages=1']);
  });

  it('reads back what it writes', () => {
    const s = { ...defaultState(), scenario: 'x', seed: '7', sets: ['producer.acks=1', 'topic.min.insync.replicas=2'], compare: true, setsB: ['producer.acks=all'], t: 12.5, e: 345, view: 'groups' as const, side: 'learn' as const, value: 'producer-1:9 & <b>', partition: 'orders-0' };
    expect(readUrl(writeUrl(s))).toEqual(s);
    expect(readUrl('')).toEqual(defaultState());
  });
});
