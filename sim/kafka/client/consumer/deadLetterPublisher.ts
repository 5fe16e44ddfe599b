/**
 * The small producer path a consumer application uses to write poison pills to a dead-letter (or retry) topic:
 * one record per Produce request, acks=all, retried on retriable errors until default.api.timeout.ms runs out.
 * It sends Produce requests itself rather than embedding a Producer process; it is not idempotent, so a retry
 * after a lost response can write the record twice (as a plain producer with enable.idempotence=false would).
 */
import { ms, type Micros } from '../../../core/time';
import type { ConsumerConfig } from '../../config/configs';
import { isRetriable, type KafkaError } from '../../errors';
import type { NetworkClient } from '../../net/networkClient';
import type { ProduceResponse } from '../../protocol';
import { PayloadTable, buildBatch } from '../../records';
import type { ClientMetadata } from '../metadataCache';
import { brokerActorId } from '../metadataCache';
import { partitionForKey } from '../partitioner';

export interface DeadLetterHost {
  readonly now: Micros;
  readonly net: NetworkClient;
  readonly metadata: ClientMetadata;
  readonly config: ConsumerConfig;
  requestMetadata(): void;
  setTimer(delay: Micros, fn: () => void): unknown;
}

export type PublishResult = { readonly ok: true; readonly partition: number; readonly offset: number } | { readonly ok: false; readonly partition: number; readonly error: string };

export class DeadLetterPublisher {
  private roundRobin = 0;
  /** The keys and values this publisher wrote (its batches point to them). */
  private readonly payloads = new PayloadTable();

  constructor(private readonly host: DeadLetterHost) {}

  publish(topic: string, key: string | null, value: string | null, onDone: (r: PublishResult) => void): void {
    const h = this.host;
    const deadline = h.now + ms(h.config['default.api.timeout.ms']);
    let partition = -1;
    const retry = (error: string): void => {
      if (h.now >= deadline) return onDone({ ok: false, partition, error });
      h.setTimer(ms(h.config['retry.backoff.ms']), attempt);
    };
    const attempt = (): void => {
      const n = h.metadata.partitionCount(topic);
      if (n === null) {
        h.requestMetadata();
        return retry('UNKNOWN_TOPIC_OR_PARTITION');
      }
      if (partition < 0) partition = key !== null ? partitionForKey(key, n) : this.roundRobin++ % n;
      const leader = h.metadata.leaderOf(topic, partition);
      if (leader < 0) {
        h.requestMetadata();
        return retry('LEADER_NOT_AVAILABLE');
      }
      const batch = buildBatch([{ key, value, timestamp: Math.floor(h.now / 1000) }], { payloads: this.payloads });
      const request = { type: 'Produce' as const, acks: -1 as const, timeoutMs: h.config['request.timeout.ms'], partitions: [{ topic, partition, batch }] };
      h.net.send<typeof request, ProduceResponse>(brokerActorId(leader), request, { timeoutMs: h.config['request.timeout.ms'], bytes: batch.sizeInBytes }, (o) => {
        const p = o.ok ? o.response.partitions.find((x) => x.topic === topic && x.partition === partition) : undefined;
        const error: KafkaError = o.ok ? (p?.error ?? 'UNKNOWN_SERVER_ERROR') : o.error;
        if (error === 'NONE') return onDone({ ok: true, partition, offset: p!.baseOffset });
        if (!isRetriable(error)) return onDone({ ok: false, partition, error });
        h.requestMetadata();
        retry(error);
      });
    };
    attempt();
  }
}
