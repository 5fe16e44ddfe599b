import type { ProducerConfig } from '../../config/configs';

/** The broker keeps the metadata of 5 batches per producer, so no more may be in flight [ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE]. */
export const MAX_IN_FLIGHT_REQUESTS_FOR_IDEMPOTENCE = 5;

export interface EffectiveProducerConfig {
  /** Idempotence is on after the checks below. */
  readonly idempotent: boolean;
  /** delivery.timeout.ms, raised to linger.ms + request.timeout.ms when it was left at its default. */
  readonly deliveryTimeoutMs: number;
  /** What Kafka would refuse with a ConfigException (only possible for settings the user gave explicitly). */
  readonly errors: readonly string[];
}

/**
 * What the producer's configs amount to [ProducerConfig.postProcessAndValidateIdempotenceConfigs;
 * KafkaProducer.configureDeliveryTimeout]. Idempotence (on by default) needs acks=all, retries > 0 and at most
 * 5 requests in flight: when one of them conflicts, an explicit enable.idempotence=true is an error, while the
 * default is quietly switched off. delivery.timeout.ms must cover linger.ms + request.timeout.ms: an explicit
 * smaller value is an error, the default is raised. `userSet` names the configs the user gave.
 */
export function effectiveProducerConfig(config: ProducerConfig, userSet: ReadonlySet<string> = new Set()): EffectiveProducerConfig {
  const errors: string[] = [];
  const conflicts: string[] = [];
  if (config.acks !== 'all') conflicts.push(`idempotence needs acks=all, not acks=${config.acks}`);
  if (config.retries === 0) conflicts.push('idempotence needs retries > 0');
  if (config['max.in.flight.requests.per.connection'] > MAX_IN_FLIGHT_REQUESTS_FOR_IDEMPOTENCE) {
    conflicts.push(`idempotence allows at most ${MAX_IN_FLIGHT_REQUESTS_FOR_IDEMPOTENCE} requests in flight, not ${config['max.in.flight.requests.per.connection']}`);
  }
  let idempotent = config['enable.idempotence'];
  if (idempotent && conflicts.length > 0) {
    if (userSet.has('enable.idempotence')) errors.push(...conflicts.map((c) => `enable.idempotence=true: ${c}`));
    idempotent = false;
  }
  if (config['transactional.id'] !== null && !idempotent) {
    errors.push('transactional.id needs enable.idempotence=true');
  }
  const floor = config['linger.ms'] + config['request.timeout.ms'];
  let deliveryTimeoutMs = config['delivery.timeout.ms'];
  if (deliveryTimeoutMs < floor) {
    if (userSet.has('delivery.timeout.ms')) errors.push(`delivery.timeout.ms=${deliveryTimeoutMs} must be at least linger.ms + request.timeout.ms (${floor})`);
    deliveryTimeoutMs = floor;
  }
  return { idempotent, deliveryTimeoutMs, errors };
}
