/** A broker as the metadata image holds it (Kafka's BrokerRegistration), without listeners and features. */
export interface BrokerRegistration {
  readonly id: number;
  /** The broker epoch: the metadata offset at which this incarnation registered. */
  readonly epoch: number;
  readonly incarnationId: string;
  readonly rack: string | null;
  readonly fenced: boolean;
  readonly inControlledShutdown: boolean;
}

/**
 * Unfenced and not in controlled shutdown: may lead partitions and join ISRs.
 * [metadata/.../controller/ClusterControlManager.java `isActive`; KIP-841]
 */
export function isActiveBroker(b: BrokerRegistration | undefined): boolean {
  return b !== undefined && !b.fenced && !b.inControlledShutdown;
}
