/**
 * What a share consumer says about a record it acquired, with the wire ids of ShareAcknowledge / ShareFetch
 * AcknowledgementBatches: GAP(0) for an offset that holds no record, ACCEPT(1), RELEASE(2), REJECT(3), and
 * RENEW(4) (KIP-1222, 4.2: keep the acquisition and restart its lock).
 * [src: clients/src/main/java/org/apache/kafka/clients/consumer/AcknowledgeType.java;
 * ShareAcknowledgeRequest.json `AcknowledgeTypes`]
 */
export type AcknowledgeType = 'GAP' | 'ACCEPT' | 'RELEASE' | 'REJECT' | 'RENEW';

export const ACKNOWLEDGE_TYPE_ID: Readonly<Record<AcknowledgeType, number>> = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 };

export const ACKNOWLEDGE_TYPES: readonly AcknowledgeType[] = ['GAP', 'ACCEPT', 'RELEASE', 'REJECT', 'RENEW'];
