/**
 * Your own kafkajs code against a simulated Kafka cluster, in-process and on simulated time.
 *
 * The cluster is a scenario (three brokers, a topic with three replicas and min.insync.replicas=2) whose leader
 * crashes at 12 s (once the group has formed and the producer is writing) and comes back at 22 s. The application below is plain kafkajs: a producer with acks=-1 and a
 * consumer group of two. It runs on the simulated clock, so the minute of the scenario (the crash, the controller
 * fencing the dead broker after broker.session.timeout.ms, the election, the group's rebalances) takes seconds of
 * real time, and the same seed gives the same run every time. The checkers then judge what the application did.
 */
import { describe, expect, it } from 'vitest';
import { simulatedCluster } from 'kafkasim';

describe('an application through a leader crash', () => {
  it('acks=-1 with min.insync.replicas=2: every acknowledged record is kept and consumed', async () => {
    const cluster = simulatedCluster({
      scenario: {
        id: 'my-app-leader-crash',
        duration: '40s',
        quiet: '30s',
        cluster: { controllers: 3, brokers: 3 },
        topics: [{ name: 'payments', partitions: 2, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
        faults: [{ at: '12s', fault: 'crash', targets: ['leader:payments/0'], duration: '10s' }],
      },
      seed: 7,
    });

    const { value: consumed, result } = await cluster.run(async ({ kafka, sleep, scenarioMs }) => {
      const seen = new Set<string>();
      const consumers = [1, 2].map(() => kafka.consumer({ groupId: 'billing', sessionTimeout: 10_000, heartbeatInterval: 1000 }));
      for (const c of consumers) {
        await c.connect();
        await c.subscribe({ topic: 'payments', fromBeginning: true });
        await c.run({ eachMessage: async ({ message }) => void seen.add(message.value!.toString()) });
      }
      const producer = kafka.producer();
      await producer.connect();
      const acked: string[] = [];
      for (let i = 0; scenarioMs() < 30_000; i++) {
        try {
          await producer.send({ topic: 'payments', acks: -1, messages: [{ key: `account-${i % 10}`, value: `payment-${i}` }] });
          acked.push(`payment-${i}`);
        } catch {
          // kafkajs gave up after its retries: the payment may or may not be written
        }
        await sleep(50);
      }
      await producer.disconnect();
      // Let the group catch up before it leaves.
      while (scenarioMs() < 60_000 && acked.some((v) => !seen.has(v))) await sleep(200);
      await Promise.all(consumers.map((c) => c.disconnect()));
      return { acked, seen };
    });

    // What the application saw...
    expect(consumed.acked.length).toBeGreaterThan(50);
    expect(consumed.acked.filter((v) => !consumed.seen.has(v))).toEqual([]);
    // ...and what the checkers say of the history and the final logs.
    expect(result.checks['lost-write']!.count).toBe(0);
    expect(result.checks['unseen']!.count).toBe(0);
    expect(result.checks['elected-outside-isr']!.count).toBe(0);
  });
});
