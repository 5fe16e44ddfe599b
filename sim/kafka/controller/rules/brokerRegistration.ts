import type { KafkaError } from '../../errors';
import type { MetadataView } from '../../metadata/metadataImage';
import { NO_LEADER } from '../../metadata/records';
import type { ControllerResult } from './controllerResult';
import { generateLeaderAndIsrUpdates } from './leaderAndIsrUpdates';

/** What a BrokerRegistration request carries that the rules use. */
export interface BrokerRegistrationData {
  readonly brokerId: number;
  readonly incarnationId: string;
  readonly rack: string | null;
  /** The broker epoch from the clean-shutdown file; -1 when there was none (the last shutdown was unclean). */
  readonly previousBrokerEpoch: number;
}

export interface BrokerRegistrationReply {
  readonly error: KafkaError;
  /** The broker epoch of the registration, -1 on error. */
  readonly brokerEpoch: number;
}

/**
 * A broker that comes back as a new incarnation was shut down; the partitions must forget it.
 * Unclean (no clean-shutdown file naming its last epoch) with ELR on: remove it from every ISR and every ELR,
 * never as leader, so that its possibly truncated log cannot be chosen (KIP-966). Otherwise: remove it from
 * the ISRs as fencing does. [metadata/.../controller/ReplicationControlManager.java `handleBrokerShutdown`]
 */
export function handleBrokerShutdown(image: MetadataView, brokerId: number, isCleanShutdown: boolean): ControllerResult<void> {
  const result: ControllerResult<void> = { records: [], response: undefined, elections: [] };
  if (image.elrEnabled() && !isCleanShutdown) {
    const update = { reason: 'handleBrokerUncleanShutdown', brokerToRemove: NO_LEADER, brokerToAdd: NO_LEADER, brokerWithUncleanShutdown: brokerId };
    // Both passes read the same image; a broker is never in both the ISR and the ELR of a partition.
    generateLeaderAndIsrUpdates(image, update, image.partitionsWithBrokerInIsr(brokerId), result.records, result.elections);
    generateLeaderAndIsrUpdates(image, update, image.partitionsWithBrokerInElr(brokerId), result.records, result.elections);
  } else {
    const update = { reason: 'handleBrokerShutdown', brokerToRemove: brokerId, brokerToAdd: NO_LEADER, brokerWithUncleanShutdown: NO_LEADER };
    generateLeaderAndIsrUpdates(image, update, image.partitionsWithBrokerInIsr(brokerId), result.records, result.elections);
  }
  return result;
}

/**
 * BrokerRegistration: a new incarnation gets the new broker epoch (the caller passes the metadata offset its
 * records will start at) and starts fenced, after the shutdown clean-up above; the same incarnation
 * re-registering keeps its epoch and state. Another incarnation while the registered one still has a live
 * session is DUPLICATE_BROKER_REGISTRATION. The shutdown counts as clean only when the request's previous
 * broker epoch equals the registered epoch (KAFKA-18635).
 * [metadata/.../controller/ClusterControlManager.java `registerBroker`]
 *
 * @param existingSessionValid whether the heartbeat tracker holds an unexpired session for the currently
 *   registered epoch of this broker id (soft state of the active controller).
 */
export function registerBroker(
  image: MetadataView,
  request: BrokerRegistrationData,
  newBrokerEpoch: number,
  existingSessionValid: boolean,
): ControllerResult<BrokerRegistrationReply> {
  const existing = image.broker(request.brokerId);
  const newIncarnation = existing === undefined || existing.incarnationId !== request.incarnationId;
  if (existing !== undefined && existingSessionValid && newIncarnation) {
    return { records: [], response: { error: 'DUPLICATE_BROKER_REGISTRATION', brokerEpoch: -1 }, elections: [] };
  }
  if (newIncarnation) {
    // No registration at all compares as -2, which no previous epoch (-1 or real) equals.
    const storedEpoch = existing?.epoch ?? -2;
    const result = handleBrokerShutdown(image, request.brokerId, storedEpoch === request.previousBrokerEpoch);
    result.records.push({
      type: 'RegisterBrokerRecord',
      brokerId: request.brokerId,
      incarnationId: request.incarnationId,
      brokerEpoch: newBrokerEpoch,
      rack: request.rack,
      fenced: true,
      inControlledShutdown: false,
    });
    return { records: result.records, response: { error: 'NONE', brokerEpoch: newBrokerEpoch }, elections: result.elections };
  }
  return {
    records: [
      {
        type: 'RegisterBrokerRecord',
        brokerId: request.brokerId,
        incarnationId: request.incarnationId,
        brokerEpoch: existing.epoch,
        rack: request.rack,
        fenced: existing.fenced,
        inControlledShutdown: existing.inControlledShutdown,
      },
    ],
    response: { error: 'NONE', brokerEpoch: existing.epoch },
    elections: [],
  };
}

/**
 * UnregisterBroker: take the broker out of every ISR (electing new leaders where it led) and run the ELR
 * partitions through the builder too, then drop the registration.
 * [ReplicationControlManager.java `unregisterBroker`, `handleBrokerUnregistered`]
 */
export function unregisterBroker(image: MetadataView, brokerId: number): ControllerResult<KafkaError> {
  const registration = image.broker(brokerId);
  if (!registration) return { records: [], response: 'BROKER_ID_NOT_REGISTERED', elections: [] };
  const result: ControllerResult<KafkaError> = { records: [], response: 'NONE', elections: [] };
  const update = { reason: 'handleBrokerUnregistered', brokerToRemove: brokerId, brokerToAdd: NO_LEADER, brokerWithUncleanShutdown: NO_LEADER };
  generateLeaderAndIsrUpdates(image, update, image.partitionsWithBrokerInIsr(brokerId), result.records, result.elections);
  generateLeaderAndIsrUpdates(image, update, image.partitionsWithBrokerInElr(brokerId), result.records, result.elections);
  result.records.push({ type: 'UnregisterBrokerRecord', brokerId, brokerEpoch: registration.epoch });
  return result;
}
