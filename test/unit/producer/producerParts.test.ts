import { describe, expect, it } from 'vitest';
import { Random } from '../../../sim/core/random';
import { reconnectBackoff } from '../../../sim/kafka/client/backoff';
import { ClientMetadata } from '../../../sim/kafka/client/metadataCache';
import { CompressionRatioEstimator, nextCompressionRatioEstimate } from '../../../sim/kafka/client/producer/compressionRatioEstimator';
import { ClusterConnectionStates } from '../../../sim/kafka/client/producer/connectionStates';
import { ProducerBatch } from '../../../sim/kafka/client/producer/producerBatch';
import { effectiveProducerConfig } from '../../../sim/kafka/client/producer/producerConfigRules';
import type { MetadataResponse } from '../../../sim/kafka/protocol';
import { BATCH_HEADER, PAYLOADS, RECORD_BYTES, ms, producerConfig, rec } from './support';

describe('ProducerBatch', () => {
  it('always takes its first record, then only what fits under its capacity', () => {
    const b = new ProducerBatch('t', 0, 0, BATCH_HEADER + 2 * RECORD_BYTES, 'none', PAYLOADS);
    expect(b.tryAppend(rec('a'))).toBe(true);
    expect(b.tryAppend(rec('b'))).toBe(true);
    expect(b.isFull).toBe(true);
    expect(b.tryAppend(rec('c'))).toBe(false);
    const tiny = new ProducerBatch('t', 0, 0, 10, 'none', PAYLOADS);
    expect(tiny.tryAppend(rec('big'))).toBe(true);
    expect(tiny.recordCount).toBe(1);
  });

  it('estimates a compressed batch with the topic ratio padded by 5%', () => {
    // 10 records of 57 bytes = 570 uncompressed; at ratio 0.5: 61 + trunc(570 * 0.5 * 1.05) = 61 + 299.
    const b = new ProducerBatch('t', 0, 0, 100_000, 'gzip', PAYLOADS, 0.5);
    for (let i = 0; i < 10; i++) b.tryAppend(rec(`v${i}`));
    expect(b.uncompressedRecordsBytes).toBe(570);
    expect(b.estimatedBytes).toBe(61 + 299);
  });

  it('skips the retry backoff only for the retry during which a newer leader epoch showed up', () => {
    const b = new ProducerBatch('t', 0, 0, 1000, 'none', PAYLOADS);
    b.maybeUpdateLeaderEpoch(3);
    b.reenqueued(ms(10), ms(100));
    b.maybeUpdateLeaderEpoch(3);
    expect(b.hasLeaderChangedForTheOngoingRetry()).toBe(false);
    b.maybeUpdateLeaderEpoch(4);
    expect(b.hasLeaderChangedForTheOngoingRetry()).toBe(true);
    b.reenqueued(ms(20), ms(200));
    expect(b.hasLeaderChangedForTheOngoingRetry()).toBe(false);
    expect(b.attempts).toBe(2);
    expect(b.waitedTimeUs(ms(25))).toBe(ms(5));
  });

  it('reaches its delivery timeout counting from creation, whatever the retries', () => {
    const b = new ProducerBatch('t', 0, ms(1000), 1000, 'none', PAYLOADS);
    b.reenqueued(ms(5000), 0);
    expect(b.hasReachedDeliveryTimeout(ms(120_000), ms(120_999))).toBe(false);
    expect(b.hasReachedDeliveryTimeout(ms(120_000), ms(121_000))).toBe(true);
  });
});

describe('compression ratio estimate', () => {
  it('improves by 0.005 per batch toward a better ratio and jumps at least 0.05 toward a worse one', () => {
    expect(nextCompressionRatioEstimate(1, 0.4)).toBeCloseTo(0.995, 12);
    expect(nextCompressionRatioEstimate(0.402, 0.4)).toBe(0.4);
    expect(nextCompressionRatioEstimate(0.4, 0.42)).toBeCloseTo(0.45, 12);
    expect(nextCompressionRatioEstimate(0.4, 0.9)).toBe(0.9);
    const e = new CompressionRatioEstimator();
    expect(e.estimation('t', 'zstd')).toBe(1);
    for (let i = 0; i < 200; i++) e.updateEstimation('t', 'zstd', 0.35);
    expect(e.estimation('t', 'zstd')).toBe(0.35);
    expect(e.estimation('u', 'zstd')).toBe(1);
    expect(e.estimation('t', 'none')).toBe(1);
  });
});

describe('producer config rules', () => {
  it('idempotence (the default) is switched off quietly by acks=1, retries=0 or more than 5 in flight', () => {
    expect(effectiveProducerConfig(producerConfig()).idempotent).toBe(true);
    for (const o of [{ acks: '1' }, { acks: '0' }, { retries: 0 }, { 'max.in.flight.requests.per.connection': 6 }]) {
      const r = effectiveProducerConfig(producerConfig(o));
      expect(r.idempotent).toBe(false);
      expect(r.errors).toEqual([]);
    }
  });

  it('but an explicit enable.idempotence=true with such a conflict is an error', () => {
    const r = effectiveProducerConfig(producerConfig({ acks: '1', 'enable.idempotence': true }), new Set(['acks', 'enable.idempotence']));
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toContain('acks=all');
  });

  it('raises a default delivery.timeout.ms below linger.ms + request.timeout.ms, refuses an explicit one', () => {
    expect(effectiveProducerConfig(producerConfig({ 'request.timeout.ms': 200_000 })).deliveryTimeoutMs).toBe(200_005);
    const r = effectiveProducerConfig(producerConfig({ 'delivery.timeout.ms': 1000 }), new Set(['delivery.timeout.ms']));
    expect(r.errors).toHaveLength(1);
    expect(effectiveProducerConfig(producerConfig({ 'delivery.timeout.ms': 1000 })).deliveryTimeoutMs).toBe(30_005);
  });
});

describe('ClusterConnectionStates', () => {
  it('blacks a broker out for the reconnect backoff after a break, growing while it keeps failing', () => {
    // reconnect.backoff.ms=50 with no jitter drawn: max 1000, so backoffs run 50 * 2^n (jittered +-20%).
    const c = new ClusterConnectionStates(reconnectBackoff(50, 1000, Random.root(1)));
    expect(c.isBlackedOut(1, 0)).toBe(false);
    c.disconnected(1, ms(100));
    const first = c.connectionDelay(1, ms(100));
    expect(first).toBeGreaterThanOrEqual(ms(40));
    expect(first).toBeLessThanOrEqual(ms(60));
    // Several failures reported at the same instant count once.
    c.disconnected(1, ms(100));
    expect(c.connectionDelay(1, ms(100))).toBe(first);
    c.disconnected(1, ms(200));
    const second = c.connectionDelay(1, ms(200));
    expect(second).toBeGreaterThanOrEqual(ms(80));
    expect(second).toBeLessThanOrEqual(ms(120));
    c.connected(1);
    expect(c.isBlackedOut(1, ms(200))).toBe(false);
    expect(c.isConnected(1)).toBe(true);
  });
});

describe('ClientMetadata refresh timing', () => {
  const response = (leader: number, epoch: number, partitions = 1): Omit<MetadataResponse, 'correlationId'> & { correlationId: number } => ({
    type: 'MetadataResponse',
    correlationId: 1,
    brokers: [{ id: 1, rack: null }, { id: 2, rack: null }],
    controllerId: 1,
    topics: [
      {
        name: 't',
        error: 'NONE',
        partitions: Array.from({ length: partitions }, (_, p) => ({ partition: p, error: 'NONE' as const, leader, leaderEpoch: epoch, replicas: [1, 2], isr: [1, 2], elr: [] })),
      },
    ],
  });
  const backoff = (n: number) => ms(100 * 2 ** n);

  it('refreshes every metadata.max.age.ms, or sooner when asked, but never within retry.backoff.ms of the last one', () => {
    const m = new ClientMetadata([1]);
    m.update(response(1, 0), ms(1000));
    expect(m.timeToNextUpdate(ms(1000), ms(5000), backoff)).toBe(ms(5000));
    m.requestUpdate();
    expect(m.timeToNextUpdate(ms(1050), ms(5000), backoff)).toBe(ms(50));
    expect(m.timeToNextUpdate(ms(1100), ms(5000), backoff)).toBe(0);
  });

  it('backs off exponentially while answers change nothing or requests fail', () => {
    const m = new ClientMetadata([1]);
    m.update(response(1, 0), 0);
    m.update(response(1, 0), ms(100)); // unchanged: 1 equivalent answer
    m.update(response(1, 0), ms(300)); // unchanged: 2
    m.requestUpdate();
    expect(m.timeToNextUpdate(ms(300), ms(60_000), backoff)).toBe(ms(200));
    m.update(response(2, 1), ms(500)); // a new leader: back to the base backoff
    m.requestUpdate();
    expect(m.timeToNextUpdate(ms(500), ms(60_000), backoff)).toBe(ms(100));
    m.failedUpdate(ms(600));
    m.failedUpdate(ms(700));
    expect(m.timeToNextUpdate(ms(700), ms(60_000), backoff)).toBe(ms(200));
  });

  it('a new topic is fetched at once, and a larger partition count shows up on the next answer', () => {
    const m = new ClientMetadata([1]);
    m.update(response(1, 0, 3), 0);
    m.requestUpdateForNewTopics();
    expect(m.timeToNextUpdate(ms(1), ms(60_000), backoff)).toBe(0);
    m.update(response(1, 0, 6), ms(2));
    expect(m.partitionCount('t')).toBe(6);
  });
});

describe('ClientMetadata.updatePartitionLeadership (KIP-951) [Metadata.updatePartitionLeadership]', () => {
  const response: MetadataResponse = {
    type: 'MetadataResponse',
    correlationId: 1,
    brokers: [{ id: 1, rack: null }, { id: 2, rack: null }],
    controllerId: 1,
    topics: [{ name: 't', error: 'NONE', partitions: [0, 1].map((p) => ({ partition: p, error: 'NONE' as const, leader: 1, leaderEpoch: 4, replicas: [1, 2, 3], isr: [1, 2, 3], elr: [] })) }],
  };
  const hint = (partition: number, leaderId: number, leaderEpoch: number) => ({ topic: 't', partition, hint: { leaderId, leaderEpoch } });

  it('takes a newer leader whose broker is known, bumps the version, and leaves the refresh asked for pending', () => {
    const m = new ClientMetadata([1]);
    m.update(response, 0);
    m.requestUpdate();
    const v = m.version;
    expect(m.updatePartitionLeadership([hint(0, 2, 5)], [])).toEqual([{ topic: 't', partition: 0 }]);
    expect([m.leaderOf('t', 0), m.leaderEpochOf('t', 0)]).toEqual([2, 5]);
    expect([m.leaderOf('t', 1), m.leaderEpochOf('t', 1)]).toEqual([1, 4]);
    expect(m.version).toBe(v + 1);
    expect(m.updateRequested).toBe(true);
  });

  it('ignores incomplete, not newer, unknown-node and uncached hints; a node endpoint makes a new broker known', () => {
    const m = new ClientMetadata([1]);
    m.update(response, 0);
    const v = m.version;
    expect(m.updatePartitionLeadership([hint(0, -1, 5), hint(0, 2, -1), hint(0, 2, 4), hint(0, 2, 3), hint(1, 3, 5), hint(7, 2, 5)], [])).toEqual([]);
    expect(m.version).toBe(v);
    expect([m.leaderOf('t', 0), m.leaderEpochOf('t', 0)]).toEqual([1, 4]);
    // Broker 3 was not in the last Metadata answer, but the response lists it among its node endpoints.
    expect(m.updatePartitionLeadership([hint(1, 3, 5)], [3])).toEqual([{ topic: 't', partition: 1 }]);
    expect(m.leaderOf('t', 1)).toBe(3);
  });
});
