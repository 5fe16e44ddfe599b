import { describe, expect, it } from 'vitest';
import type { Kafka } from 'kafkajs';
import { simulatedCluster } from '../../sim/embed/simulatedCluster';
import type { ScenarioSpec } from '../../sim/scenario/spec';

/**
 * Real kafkajs (the pinned devDependency) against the simulated cluster, in-process on simulated time: its own
 * retries, timeouts and rebalances, through the scenario's faults. The checkers judge its history as they judge
 * the simulated clients', and must say what Kafka predicts.
 */

interface AppOutcome {
  readonly acked: readonly string[];
  readonly seen: ReadonlySet<string>;
}

/** A producer sending one value every `everyMs` until `untilMs`, and a consumer group of two reading it all. */
async function app(kafka: Kafka, sleep: (ms: number) => Promise<void>, scenarioMs: () => number, topic: string, acks: -1 | 1, untilMs: number, consumeUntilMs: number): Promise<AppOutcome> {
  const seen = new Set<string>();
  // A 10 s session: a member kafkajs abandons (it rejoins under a new id after a failed SyncGroup) leaves the group
  // sooner than with the default 30 s, so the group settles within the scenario.
  const consumers = [0, 1].map(() => kafka.consumer({ groupId: 'readers', sessionTimeout: 10_000, heartbeatInterval: 1000, maxWaitTimeInMs: 1000 }));
  for (const c of consumers) {
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    await c.run({ eachMessage: async ({ message }) => void seen.add(message.value!.toString()) });
  }
  const producer = kafka.producer({ retry: { retries: 8 } });
  await producer.connect();
  const acked: string[] = [];
  for (let i = 0; scenarioMs() < untilMs; i++) {
    const value = `value-${i}`;
    try {
      await producer.send({ topic, acks, messages: [{ key: `key-${i % 7}`, value }] });
      acked.push(value);
    } catch {
      // given up after the retries: unknown whether it was written
    }
    await sleep(25);
  }
  await producer.disconnect();
  while (scenarioMs() < consumeUntilMs && acked.some((v) => !seen.has(v))) await sleep(250);
  await Promise.all(consumers.map((c) => c.disconnect()));
  return { acked, seen };
}

const LEADER_CRASH: ScenarioSpec = {
  id: 'kafkajs-leader-crash',
  duration: '30s',
  quiet: '30s',
  cluster: { controllers: 3, brokers: 3 },
  topics: [{ name: 'payments', partitions: 2, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
  faults: [{ at: '6s', fault: 'crash', targets: ['leader:payments/0'], duration: '10s' }],
};

async function leaderCrash(seed: number) {
  const cluster = simulatedCluster({ scenario: LEADER_CRASH, seed });
  return cluster.run(({ kafka, sleep, scenarioMs }) => app(kafka, sleep, scenarioMs, 'payments', -1, 20_000, 50_000));
}

describe('kafkajs in-process against the simulated cluster', () => {
  it('acks=-1, min.insync.replicas=2, a leader crash: nothing acknowledged is lost, the group reads it all; two runs, one trace', async () => {
    const first = await leaderCrash(11);
    const again = await leaderCrash(11);
    expect(again.result.traceHash).toBe(first.result.traceHash);
    expect(again.value.acked).toEqual(first.value.acked);

    const { value, result } = first;
    expect(value.acked.length).toBeGreaterThan(100);
    expect(value.acked.filter((v) => !value.seen.has(v))).toEqual([]);
    expect(result.checks['lost-write']!.count).toBe(0);
    expect(result.checks['unseen']!.count).toBe(0);
    expect(result.checks['elected-outside-isr']!.count).toBe(0);
    // The crash really moved leadership, and the kafkajs clients were part of the trace the checkers read.
    expect(result.trace.some((e) => e.kind === 'controller.election' && e.topic === 'payments')).toBe(true);
    expect(result.trace.filter((e) => e.kind === 'send.ok' && e.node.startsWith('app-producer')).length).toBe(value.acked.length);
    expect(result.trace.some((e) => e.kind === 'consumer.assignment' && e.node.startsWith('app-consumer'))).toBe(true);
    expect(result.trace.some((e) => e.kind === 'wire.close' && (e.reason as string).includes('internal error'))).toBe(false);
    // A different seed is a different run.
    const other = await leaderCrash(12);
    expect(other.result.traceHash).not.toBe(first.result.traceHash);
  }, 300_000);

  it('acks=1 and an unclean election: acknowledged writes are lost, and the checkers say so', async () => {
    const cluster = simulatedCluster({
      scenario: {
        id: 'kafkajs-unclean-election',
        duration: '40s',
        quiet: '30s',
        cluster: { controllers: 3, brokers: 3 },
        topics: [{ name: 'ledger', partitions: 1, replicationFactor: 3, config: { 'min.insync.replicas': 1, 'unclean.leader.election.enable': true } }],
        faults: [
          { at: '5s', fault: 'crash', targets: ['broker:3'], duration: '15s' },
          { at: '15s', fault: 'crash', targets: ['broker:1', 'broker:2'], duration: '15s' },
        ],
      },
      seed: 3,
    });
    const { value, result } = await cluster.run(({ kafka, sleep, scenarioMs }) => app(kafka, sleep, scenarioMs, 'ledger', 1, 36_000, 60_000));
    expect(value.acked.length).toBeGreaterThan(100);
    expect(result.checks['elected-outside-isr']!.count).toBeGreaterThan(0);
    expect(result.checks['lost-write']!.count).toBeGreaterThan(0);
    // The lost writes are ones kafkajs was told were written, between the first crash and the second.
    const lost = result.checks['lost-write']!.values ?? [];
    expect(lost.every((v) => value.acked.includes(v))).toBe(true);
  }, 300_000);
});
