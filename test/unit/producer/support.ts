import { PRODUCER_CONFIGS, type ProducerConfig } from '../../../sim/kafka/config/configs';
import { resolveConfig } from '../../../sim/kafka/config/def';
import { RecordAccumulator, type ClusterView } from '../../../sim/kafka/client/producer/accumulator';
import { BufferPool } from '../../../sim/kafka/client/producer/bufferPool';
import { CompressionRatioEstimator } from '../../../sim/kafka/client/producer/compressionRatioEstimator';
import type { PendingRecord, ProducerBatch } from '../../../sim/kafka/client/producer/producerBatch';
import { PayloadTable } from '../../../sim/kafka/records';
import { TransactionManager } from '../../../sim/kafka/client/producer/transactionManager';

export function producerConfig(overrides: Record<string, unknown> = {}): ProducerConfig {
  return resolveConfig(PRODUCER_CONFIGS, overrides, 'producer');
}

/**
 * A keyless record with a declared 50-byte value. Its v2 size, worked out by hand (zig-zag varints take one byte
 * below 64): attributes 1, timestamp delta 1, offset delta 1 (while below 64), key length -1 as a varint 1, value
 * length 50 as a varint 1, the value 50, header count 1 = 56 bytes of body, plus 1 byte for the body length: 57.
 */
export const RECORD_BYTES = 57;
export const BATCH_HEADER = 61;

/** The keys and values of the test records (one table, as a producer has). */
export const PAYLOADS = new PayloadTable();

export function rec(value: string, key: string | null = null, atMs = 0): PendingRecord {
  return { key, keyId: PAYLOADS.internKey(key), valueId: PAYLOADS.addValue(value), valueSize: 50, timestamp: atMs };
}

/** A mutable leader table: topic-partition -> [leader, leader epoch]. */
export class Leaders implements ClusterView {
  readonly table = new Map<string, [number, number]>();
  set(topic: string, partition: number, leader: number, epoch = 0): this {
    this.table.set(`${topic}-${partition}`, [leader, epoch]);
    return this;
  }
  leaderOf(topic: string, partition: number): number {
    return this.table.get(`${topic}-${partition}`)?.[0] ?? -1;
  }
  leaderEpochOf(topic: string, partition: number): number {
    return this.table.get(`${topic}-${partition}`)?.[1] ?? -1;
  }
}

export function accumulator(
  overrides: Record<string, unknown> = {},
  idempotent = false,
): { acc: RecordAccumulator; pool: BufferPool; txn: TransactionManager<ProducerBatch> | null; config: ProducerConfig } {
  const config = producerConfig(overrides);
  const pool = new BufferPool(config['buffer.memory']);
  const txn = idempotent ? new TransactionManager<ProducerBatch>() : null;
  const acc = new RecordAccumulator(config, pool, txn, new CompressionRatioEstimator(), PAYLOADS);
  return { acc, pool, txn, config };
}

export const ms = (n: number) => n * 1000;
