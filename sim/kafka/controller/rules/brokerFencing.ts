import type { MetadataView } from '../../metadata/metadataImage';
import { NO_LEADER } from '../../metadata/records';
import type { ControllerResult } from './controllerResult';
import { generateLeaderAndIsrUpdates } from './leaderAndIsrUpdates';

/**
 * Fencing a broker (session expired, it asked to be fenced, or it is shutting down now): remove it from every
 * ISR, electing new leaders where it led, then write the fence. The ELR keeps it (fencing alone does not make
 * a replica lose data). [metadata/.../controller/ReplicationControlManager.java `handleBrokerFenced`]
 */
export function handleBrokerFenced(image: MetadataView, brokerId: number, reason = 'handleBrokerFenced'): ControllerResult<void> {
  const registration = image.broker(brokerId);
  if (!registration) throw new Error(`handleBrokerFenced: broker ${brokerId} is not registered`);
  const result: ControllerResult<void> = { records: [], response: undefined, elections: [] };
  generateLeaderAndIsrUpdates(
    image,
    { reason, brokerToRemove: brokerId, brokerToAdd: NO_LEADER, brokerWithUncleanShutdown: NO_LEADER },
    image.partitionsWithBrokerInIsr(brokerId),
    result.records,
    result.elections,
  );
  result.records.push({ type: 'BrokerRegistrationChangeRecord', brokerId, brokerEpoch: registration.epoch, fenced: true });
  return result;
}

/**
 * Unfencing a broker that caught up with the metadata log: write the unfence, then re-run the election of
 * every leaderless partition with this broker acceptable, so that an ISR member, an ELR member or the last
 * known leader takes over as soon as it is back. [ReplicationControlManager.java `handleBrokerUnfenced`]
 */
export function handleBrokerUnfenced(image: MetadataView, brokerId: number, brokerEpoch: number): ControllerResult<void> {
  const result: ControllerResult<void> = { records: [], response: undefined, elections: [] };
  result.records.push({ type: 'BrokerRegistrationChangeRecord', brokerId, brokerEpoch, fenced: false });
  generateLeaderAndIsrUpdates(
    image,
    { reason: 'handleBrokerUnfenced', brokerToRemove: NO_LEADER, brokerToAdd: brokerId, brokerWithUncleanShutdown: NO_LEADER },
    image.partitionsWithNoLeader(),
    result.records,
    result.elections,
  );
  return result;
}
