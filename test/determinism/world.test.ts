import { describe, expect, it } from 'vitest';
import { Random } from '../../sim/core/random';
import { ms, seconds } from '../../sim/core/time';
import { randomSchedule, validateSchedule, type FaultEntry } from '../../sim/world/nemesis';
import { World } from '../../sim/world/world';
import { addTestProcess, type TestProcess } from '../unit/world/harness';

/*
 * A small workload on the world alone: five processes on four hosts in two zones. Each recovers its counter from
 * its disk, then sends numbered pings to random peers, appends what it receives to its log, fsyncs now and then,
 * and answers. The fault schedule exercises every fault kind. The run's identity is its trace hash.
 */
const SCHEDULE: FaultEntry[] = [
  { at: 2_000, fault: 'crash', targets: ['h1'], duration: 3_000 },
  { at: 4_000, fault: 'partition', groups: [['zone:z1'], ['zone:z2']], duration: 5_000 },
  { at: 6_000, fault: 'latency', from: ['h2'], to: ['*'], addMs: 20, jitterMs: 5, duration: 10_000 },
  { at: 8_000, fault: 'pause', targets: ['h3'], duration: 2_500 },
  { at: 11_000, fault: 'power-loss', targets: ['rack:r2'], duration: 4_000 },
  { at: 12_000, fault: 'lossy', from: ['h4'], to: ['h1', 'h2'], rate: 0.2, duration: 6_000 },
  { at: 14_000, fault: 'slow-disk', targets: ['tag:data'], factor: 8, duration: 5_000 },
  { at: 16_000, fault: 'disk-full', targets: ['h4'], duration: 3_000 },
  { at: 18_000, fault: 'one-way', from: ['h1'], to: ['h3'], duration: 4_000 },
  { at: 20_000, fault: 'isolate', targets: ['h2'] },
  { at: 24_000, fault: 'heal' },
  { at: 25_000, fault: 'crash', targets: ['h4'] },
  { at: 27_000, fault: 'restart', targets: ['h4'] },
  { at: 28_000, fault: 'power-loss', targets: ['h3'] },
  { at: 29_000, fault: 'power-on', targets: ['h3'] },
  { at: 30_000, fault: 'pause', targets: ['h1'] },
  { at: 31_000, fault: 'resume', targets: ['h1'] },
];

const PROCS: [string, string][] = [
  ['a', 'h1'],
  ['b', 'h2'],
  ['c', 'h3'],
  ['d', 'h4'],
  ['e', 'h4'],
];

function run(seed: number | string, opts: { traceMessages?: boolean; schedule?: FaultEntry[] } = {}) {
  const world = new World({
    seed,
    scenario: 'world-determinism',
    keepEvents: false,
    network: { traceMessages: opts.traceMessages ?? false, silentFailureDetectionMs: 5_000, connectTimeoutMs: 2_000 },
    disk: { writebackDelayMs: 3_000, writebackIntervalMs: 1_000, tornWriteProbability: 0.5 },
  });
  world.addHost({ id: 'h1', zone: 'z1', rack: 'r1', tags: ['data'] });
  world.addHost({ id: 'h2', zone: 'z1', rack: 'r2', tags: ['data'] });
  world.addHost({ id: 'h3', zone: 'z2', rack: 'r2' });
  world.addHost({ id: 'h4', zone: 'z2', rack: 'r3', startupDelayMs: 500 });
  for (const [id, host] of PROCS) {
    let counter = 0;
    const peers = PROCS.map(([p]) => p).filter((p) => p !== id);
    const tick = (p: TestProcess) => {
      p.send(p.random.choice(peers), { type: 'Ping', n: ++counter }, 100 + p.random.int(0, 1000));
      if (p.random.chance(0.1)) p.disconnect(p.random.choice(peers));
      p.setTimer(ms(5 + p.random.exponential(20)), () => tick(p));
    };
    addTestProcess(world, host, id, {
      start(p) {
        // Recover: count the intact records of the log (a torn one is dropped, as its checksum fails).
        const log = p.disk.read(`${id}.log`);
        const intact = log.findIndex((c) => c.torn === true);
        if (intact >= 0) p.disk.truncate(`${id}.log`, intact);
        counter = p.disk.read(`${id}.log`).length;
        p.setTimer(ms(p.random.int(1, 50)), () => tick(p));
      },
      message(p, from, msg) {
        const m = msg as { type: string; n: number };
        if (p.disk.append(`${id}.log`, { from, n: m.n }, 50 + (m.n % 200)) !== null) return;
        if (m.n % 7 === 0) p.disk.fsync(`${id}.log`);
        if (m.type === 'Ping') p.send(from, { type: 'Pong', n: m.n }, 64);
      },
    });
  }
  world.schedule(validateSchedule(opts.schedule ?? SCHEDULE, world.resolver));
  world.start();
  world.runUntil(seconds(40));
  return { hash: world.trace.hash(), events: world.trace.count, eventsRun: world.scheduler.eventsRun };
}

describe('world determinism', () => {
  it('one seed and one schedule give one trace hash across two runs', () => {
    const first = run(42);
    const second = run(42);
    expect(first.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(second).toEqual(first);
    // The run did something: faults, host events and disk events were traced, many events ran.
    expect(first.events).toBeGreaterThan(50);
    expect(first.eventsRun).toBeGreaterThan(5_000);
  });

  it('two seeds give two hashes', () => {
    expect(run(1).hash).not.toBe(run(2).hash);
  });

  it('with every message traced, too', () => {
    const first = run(42, { traceMessages: true });
    expect(run(42, { traceMessages: true })).toEqual(first);
    expect(first.events).toBeGreaterThan(run(42).events * 10);
    expect(run(43, { traceMessages: true }).hash).not.toBe(first.hash);
  });

  it('a schedule drawn by the random nemesis from the run’s seed replays identically', () => {
    const draw = (seed: number) =>
      randomSchedule(Random.root(seed).fork('nemesis'), {
        kinds: [
          { kind: 'crash', weight: 3 },
          { kind: 'power-loss', weight: 1 },
          { kind: 'pause', weight: 2 },
          { kind: 'isolate', weight: 2 },
          { kind: 'slow-disk', weight: 1 },
          { kind: 'lossy', weight: 1 },
        ],
        targets: ['h1', 'h2', 'h3', 'h4'],
        startMs: 1_000,
        endMs: 35_000,
        meanIntervalMs: 2_000,
        minDurationMs: 500,
        maxDurationMs: 6_000,
        maxImpaired: 1,
        settleMs: 1_000,
        correlatedPowerLoss: false,
      });
    const first = run(9, { schedule: draw(9) });
    expect(run(9, { schedule: draw(9) })).toEqual(first);
    expect(run(10, { schedule: draw(10) }).hash).not.toBe(first.hash);
  });
});
