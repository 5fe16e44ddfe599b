import fc from 'fast-check';
import { INT_MAX } from '../../kafka/config/configs';

/**
 * Producer configs that decide what a write's acknowledgement means, with Kafka's names: acks,
 * enable.idempotence, retries, max.in.flight.requests.per.connection. Shrinks toward Kafka 4's defaults
 * (acks=all, idempotent, retries unbounded, 5 in flight). Idempotence needs acks=all and at most 5 in
 * flight [ProducerConfig.postProcessAndValidateIdempotenceConfigs], so other combinations turn it off.
 * Idempotence wanted is left to the default rather than written: then a --set that conflicts with it
 * (producer.acks=1) turns it off as Kafka does when enable.idempotence was not set explicitly, instead of
 * making the drawn scenario one that Kafka refuses.
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
      ...(!idempotence && { 'enable.idempotence': false }),
      retries,
      'max.in.flight.requests.per.connection': inFlight,
    }));
}
