/**
 * The wire: codec throughput (a produce request's record batches decoded, a fetch response's encoded), and the
 * in-process bridge's cost (a kafkajs producer and consumer through a scenario, against the same scenario alone).
 */
import { simulatedCluster } from '../../sim/embed/simulatedCluster';
import { startScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import { decodeBatches, encodeBatches, type WireRecordBatch } from '../../sim/kafka/wire/records/recordBatch';
import type { ScenarioSpec } from '../../sim/scenario/spec';

function batch(n: number, compression: 'none' | 'gzip'): WireRecordBatch {
  const text = new TextEncoder();
  return {
    baseOffset: 0,
    partitionLeaderEpoch: 0,
    compression,
    timestampType: 'CreateTime',
    isTransactional: false,
    isControl: false,
    hasDeleteHorizonMs: false,
    lastOffsetDelta: n - 1,
    baseTimestamp: 1_767_225_600_000,
    maxTimestamp: 1_767_225_600_000,
    producerId: 1,
    producerEpoch: 0,
    baseSequence: 0,
    records: Array.from({ length: n }, (_, i) => ({ timestampDelta: 0, offsetDelta: i, key: text.encode(`key-${i % 100}`), value: text.encode(`{"order":${i},"amount":${i * 7},"status":"paid"}`.padEnd(200, ' ')), headers: [] })),
  };
}

function codec(compression: 'none' | 'gzip'): { encodeMBps: number; decodeMBps: number; recordsPerSecDecode: number } {
  const b = [batch(500, compression)];
  const plainBytes = encodeBatches([batch(500, 'none')]).length;
  let t = performance.now();
  let n = 0;
  let bytes: Uint8Array = new Uint8Array(0);
  while (performance.now() - t < 1500) {
    bytes = encodeBatches(b);
    n++;
  }
  const encodeSec = (performance.now() - t) / 1000 / n;
  t = performance.now();
  let m = 0;
  while (performance.now() - t < 1500) {
    decodeBatches(bytes);
    m++;
  }
  const decodeSec = (performance.now() - t) / 1000 / m;
  return { encodeMBps: Number((plainBytes / encodeSec / 1e6).toFixed(1)), decodeMBps: Number((plainBytes / decodeSec / 1e6).toFixed(1)), recordsPerSecDecode: Math.round(500 / decodeSec) };
}

const SPEC: ScenarioSpec = {
  id: 'bench-wire',
  duration: '30s',
  quiet: '10s',
  cluster: { controllers: 3, brokers: 3 },
  topics: [{ name: 'orders', partitions: 3, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
  faults: [{ at: '10s', fault: 'crash', targets: ['leader:orders/0'], duration: '5s' }],
};

async function bridge(): Promise<{ simulatedSeconds: number; wallSeconds: number; aloneWallSeconds: number; sends: number; consumed: number }> {
  let t = performance.now();
  const alone = startScenario(validateScenario(SPEC), { groupCoordinator: true, keepEvents: false });
  alone.world.runUntil(alone.endUs);
  alone.finish();
  const aloneWallSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const cluster = simulatedCluster({ scenario: SPEC, seed: 1, keepEvents: false });
  const { value } = await cluster.run(async ({ kafka, sleep, scenarioMs }) => {
    const seen = new Set<string>();
    const consumer = kafka.consumer({ groupId: 'bench', sessionTimeout: 10_000, heartbeatInterval: 1000, maxWaitTimeInMs: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'orders', fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.add(message.value!.toString()) });
    const producer = kafka.producer();
    await producer.connect();
    let sends = 0;
    for (let i = 0; scenarioMs() < 25_000; i++) {
      await producer.send({ topic: 'orders', acks: -1, messages: Array.from({ length: 10 }, (_, j) => ({ key: `k${j}`, value: `v${i}-${j}` })) }).then(() => sends++, () => {});
      await sleep(10);
    }
    await producer.disconnect();
    while (scenarioMs() < 35_000 && seen.size < sends * 10) await sleep(200);
    await consumer.disconnect();
    return { sends, consumed: seen.size };
  });
  return { simulatedSeconds: (cluster.world.now - cluster.startUs) / 1e6, wallSeconds: Number(((performance.now() - t) / 1000).toFixed(2)), aloneWallSeconds: Number(aloneWallSeconds.toFixed(2)), ...value };
}

export async function runWire(parts: { codec?: boolean; bridge?: boolean } = { codec: true, bridge: true }): Promise<Record<string, unknown>> {
  return {
    ...(parts.codec && { codecNone: codec('none'), codecGzip: codec('gzip') }),
    ...(parts.bridge && { kafkajs: await bridge() }),
  };
}
