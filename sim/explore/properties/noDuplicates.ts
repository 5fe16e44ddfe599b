import { MAX_IN_FLIGHT_REQUESTS_FOR_IDEMPOTENCE } from '../../kafka/client/producer/producerConfigRules';
import type { ProducerSpec } from '../../scenario/spec';
import { checkProperty } from './property';

/**
 * Idempotence on, with what it needs: acks=all, retries > 0, at most 5 requests in flight
 * [ProducerConfig.postProcessAndValidateIdempotenceConfigs]. On by Kafka's default rather than written, so a
 * --set that conflicts with it (producer.acks=1) turns it off as Kafka does, instead of a ConfigException.
 */
function idempotent(p: ProducerSpec): ProducerSpec {
  const c = { ...p.config, acks: 'all' } as Record<string, unknown>;
  delete c['enable.idempotence'];
  if (c.retries === 0 || c.retries === '0') delete c.retries;
  if (Number(c['max.in.flight.requests.per.connection'] ?? 0) > MAX_IN_FLIGHT_REQUESTS_FOR_IDEMPOTENCE) c['max.in.flight.requests.per.connection'] = MAX_IN_FLIGHT_REQUESTS_FOR_IDEMPOTENCE;
  return { ...p, config: c };
}

/**
 * No value is written at two offsets (the checkers' duplicate). It is the idempotent producer's promise
 * [KIP-98; ProducerStateManager checks each batch's sequence], so generated producers are made idempotent;
 * `--set producer.enable.idempotence=false` shows what retries do without it.
 */
export const noDuplicates = checkProperty('no-duplicates', 'duplicate', 'no record is written twice (the idempotent producer)', (spec) => ({
  ...spec,
  producers: (spec.producers ?? []).map(idempotent),
}));
