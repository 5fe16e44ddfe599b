/**
 * What a transaction-coordinator rule returns, as Kafka's `ApiResult[(coordinatorEpoch, TxnTransitMetadata)]`:
 * refuse with an error, answer at once without writing, or write a transition to `__transaction_state` (and
 * keep `metadata`, whose pending state blocks other requests, until the write commits). Rules never write; the
 * coordinator does, and applies the transition only once committed.
 */
import type { KafkaError } from '../../errors';
import type { TransactionMetadata, TxnTransitMetadata } from './transactionMetadata';

export type CoordinatorDecision =
  | { readonly kind: 'error'; readonly error: KafkaError }
  | { readonly kind: 'answer'; readonly producerId: number; readonly producerEpoch: number }
  | {
      readonly kind: 'write';
      readonly metadata: TransactionMetadata;
      readonly transit: TxnTransitMetadata;
      /** InitProducerId on an open transaction: the write is an epoch-fenced abort and the client is told to retry. */
      readonly fencedOngoing?: boolean;
    };

export function refuse(error: KafkaError): CoordinatorDecision {
  return { kind: 'error', error };
}
