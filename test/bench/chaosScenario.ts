import { Random } from '../../sim/core/random';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { randomSchedule, type RandomNemesisOptions } from '../../sim/world/nemesis';

/**
 * The chaos benchmark's scenario: the steady cluster (3 controllers, 3 brokers, a 12-partition topic with
 * replication factor 3 and min.insync.replicas=2, one producer) for 30 simulated seconds under the random
 * nemesis (one broker impaired at a time), recording the minimal trace as exploration does. Run k's schedule
 * is drawn from its own seed. Every kind the random nemesis has is in (lossy links too, since late responses
 * nobody waits for are dropped instead of answered).
 */
export const CHAOS_NEMESIS: Omit<RandomNemesisOptions, 'targets'> = {
  kinds: [
    { kind: 'crash', weight: 1 },
    { kind: 'power-loss', weight: 1 },
    { kind: 'pause', weight: 1 },
    { kind: 'isolate', weight: 1 },
    { kind: 'slow-disk', weight: 1 },
    { kind: 'lossy', weight: 1 },
  ],
  startMs: 2_000,
  endMs: 28_000,
  meanIntervalMs: 4_000,
  minDurationMs: 1_000,
  maxDurationMs: 6_000,
  maxImpaired: 1,
  settleMs: 3_000,
  correlatedPowerLoss: false,
};

export function chaosScenario(k: number): ScenarioSpec {
  const faults = randomSchedule(Random.root(`chaos-${k}`).fork('nemesis'), { ...CHAOS_NEMESIS, targets: ['broker-1', 'broker-2', 'broker-3'] });
  return {
    id: 'chaos',
    seed: k,
    duration: '30s',
    quiet: '0s',
    // What a sweep records: the checkers' inputs without each follower's copies (runCase does the same).
    trace: 'minimal',
    cluster: { controllers: 3, brokers: 3 },
    topics: [{ name: 'events', partitions: 12, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
    producers: [{ id: 'producer-1', workload: { topic: 'events', rate: 200, keys: { kind: 'uniform', count: 100 } } }],
    faults,
  };
}
