import type { MetadataView } from '../../metadata/metadataImage';
import { NO_LEADER } from '../../metadata/records';
import type { ControllerResult } from './controllerResult';
import { generateLeaderAndIsrUpdates } from './leaderAndIsrUpdates';

/**
 * A broker entering controlled shutdown: mark it (once) as in controlled shutdown, then remove it from every
 * ISR so that other ISR members take over the partitions it leads before it stops. It stays in the ELRs.
 * [metadata/.../controller/ReplicationControlManager.java `handleBrokerInControlledShutdown`; KIP-841]
 */
export function handleBrokerInControlledShutdown(image: MetadataView, brokerId: number, brokerEpoch: number): ControllerResult<void> {
  const result: ControllerResult<void> = { records: [], response: undefined, elections: [] };
  if (!image.broker(brokerId)?.inControlledShutdown) {
    result.records.push({ type: 'BrokerRegistrationChangeRecord', brokerId, brokerEpoch, inControlledShutdown: true });
  }
  generateLeaderAndIsrUpdates(
    image,
    { reason: `enterControlledShutdown[${brokerId}]`, brokerToRemove: brokerId, brokerToAdd: NO_LEADER, brokerWithUncleanShutdown: NO_LEADER },
    image.partitionsWithBrokerInIsr(brokerId),
    result.records,
    result.elections,
  );
  return result;
}
