import fc from 'fast-check';
import { INT_MAX } from '../../kafka/config/configs';

/**
 * Producer configs that decide what a write's acknowledgement means, with Kafka's names: acks,
 * enable.idempotence, retries, max.in.flight.requests.per.connection. Shrinks toward Kafka 4's defaults
 * (acks=all, idempotent, retries unbounded, 5 in flight). Idempotence needs acks=all and at most 5 in
 * flight [ProducerConfig.postProcessAndValidateIdempotenceConfigs], so other combinations turn it off.
 */
export function producerConfig(): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      acks: fc.constantFrom('all', '1', '0'),
      idempotence: fc.constantFrom(true, false),
      retries: fc.constantFrom(INT_MAX, 0, 3),
      inFlight: fc.constantFrom(5, 1, 2, 10),
    })
    .map(({ acks, idempotence, retries, inFlight }) => ({
      acks,
      'enable.idempotence': idempotence && acks === 'all' && inFlight <= 5 && retries > 0,
      retries,
      'max.in.flight.requests.per.connection': inFlight,
    }));
}
