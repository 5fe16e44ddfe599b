import type { ScenarioSpec } from '../../sim/scenario/spec';

/**
 * The benchmark workloads of issue 12, as scenarios. Traces are "minimal" and unhashed so the figures
 * measure the simulation, not the recorder (the CLI's defaults record more).
 */
const cluster3 = { controllers: 3, brokers: 3 };
const topic12 = { name: 'events', partitions: 12, replicationFactor: 3, config: { 'min.insync.replicas': 2 } };
const consumers = (group: string, n: number, topic: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${group}-${i + 1}`, group, topics: [topic] }));

export const WORKLOADS: Record<string, ScenarioSpec> = {
  /** 3 controllers, 3 brokers, 12 partitions RF 3 min ISR 2; 5,000 records/s of 1 KiB over 10,000 keys, acks=all, linger 5 ms; a group of 3. */
  steady: {
    id: 'bench-steady',
    duration: '60s',
    quiet: '0s',
    trace: 'minimal',
    cluster: cluster3,
    topics: [topic12],
    producers: [{ id: 'producer-1', config: { acks: 'all', 'linger.ms': 5 }, workload: { topic: 'events', rate: 5000, valueBytes: 1024, keys: { kind: 'uniform', count: 10_000 } } }],
    consumers: consumers('steady', 3, 'events'),
  },
  /** The same cluster at 100 records/s for 10 simulated minutes: time compression when little happens. */
  light: {
    id: 'bench-light',
    duration: '10m',
    quiet: '0s',
    trace: 'minimal',
    cluster: cluster3,
    topics: [topic12],
    producers: [{ id: 'producer-1', config: { acks: 'all', 'linger.ms': 5 }, workload: { topic: 'events', rate: 100, valueBytes: 1024, keys: { kind: 'uniform', count: 10_000 } } }],
    consumers: consumers('light', 3, 'events'),
  },
  /** 3 controllers, 9 brokers, 1,000 partitions RF 3; 20,000 records/s from 4 producers; 2 groups. */
  big: {
    id: 'bench-big',
    duration: '60s',
    quiet: '0s',
    trace: 'minimal',
    cluster: { controllers: 3, brokers: 9 },
    topics: [{ name: 'events', partitions: 1000, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
    producers: Array.from({ length: 4 }, (_, i) => ({
      id: `producer-${i + 1}`,
      config: { acks: 'all', 'linger.ms': 5 },
      workload: { topic: 'events', rate: 5000, valueBytes: 1024, keys: { kind: 'uniform' as const, count: 100_000 } },
    })),
    consumers: [...consumers('big-a', 3, 'events'), ...consumers('big-b', 3, 'events')],
  },
};
