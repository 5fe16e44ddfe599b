import { ms, type Micros } from '../../../core/time';
import type { KafkaError } from '../../errors';
import type { MetadataView } from '../../metadata/metadataImage';
import { handleBrokerFenced, handleBrokerUnfenced } from './brokerFencing';
import { handleBrokerInControlledShutdown } from './controlledShutdown';
import type { ControllerResult } from './controllerResult';

/** Kafka's BrokerControlState. */
export type BrokerControlState = 'FENCED' | 'UNFENCED' | 'CONTROLLED_SHUTDOWN' | 'SHUTDOWN_NOW';

/**
 * The active controller's soft state about one broker (Kafka's BrokerHeartbeatState): never in the metadata
 * log, rebuilt when a controller becomes active. Plain data; the functions below return new values.
 */
export interface BrokerHeartbeatState {
  readonly brokerId: number;
  /** The broker epoch this session belongs to. */
  readonly brokerEpoch: number;
  readonly lastContact: Micros;
  readonly fenced: boolean;
  /** The last metadata offset the broker reported, -1 when unknown. */
  readonly metadataOffset: number;
  /** The offset at which its controlled shutdown completes, -1 when not shutting down. */
  readonly controlledShutdownOffset: number;
}

/** What a BrokerHeartbeat request carries. */
export interface BrokerHeartbeatData {
  readonly brokerId: number;
  readonly brokerEpoch: number;
  readonly currentMetadataOffset: number;
  readonly wantFence: boolean;
  readonly wantShutDown: boolean;
}

export interface BrokerHeartbeatReply {
  readonly error: KafkaError;
  readonly isCaughtUp: boolean;
  readonly isFenced: boolean;
  readonly inControlledShutdown: boolean;
  readonly shouldShutDown: boolean;
}

export function isShuttingDown(s: BrokerHeartbeatState): boolean {
  return s.controlledShutdownOffset >= 0;
}

/** [BrokerHeartbeatManager.java `currentBrokerState`] */
export function currentBrokerState(s: BrokerHeartbeatState): BrokerControlState {
  if (isShuttingDown(s)) return 'CONTROLLED_SHUTDOWN';
  return s.fenced ? 'FENCED' : 'UNFENCED';
}

/** [BrokerControlState `fenced()`: FENCED and SHUTDOWN_NOW] */
export function stateIsFenced(state: BrokerControlState): boolean {
  return state === 'FENCED' || state === 'SHUTDOWN_NOW';
}

/**
 * The lowest metadata offset reported by an active broker (unfenced, not shutting down), or +Infinity when
 * there is none. A broker in controlled shutdown may stop once every active broker has seen its last change.
 * [BrokerHeartbeatManager.java `lowestActiveOffset`]
 */
export function lowestActiveOffset(states: Iterable<BrokerHeartbeatState>): number {
  let lowest = Number.POSITIVE_INFINITY;
  for (const s of states) if (!s.fenced && !isShuttingDown(s) && s.metadataOffset < lowest) lowest = s.metadataOffset;
  return lowest;
}

/**
 * The next state of a broker that just heartbeated:
 * FENCED -> SHUTDOWN_NOW if it wants to shut down; -> UNFENCED if it does not want fencing and has caught up
 * to the offset of its RegisterBrokerRecord.
 * UNFENCED -> SHUTDOWN_NOW (wants fence and shutdown) / FENCED (wants fence) / CONTROLLED_SHUTDOWN (wants
 * shutdown while leading partitions) / SHUTDOWN_NOW (wants shutdown, leads nothing).
 * CONTROLLED_SHUTDOWN -> SHUTDOWN_NOW once it leads nothing and the lowest active offset reached its
 * controlled-shutdown offset.
 * [metadata/.../controller/BrokerHeartbeatManager.java `calculateNextBrokerState`]
 */
export function calculateNextBrokerState(
  current: BrokerControlState,
  request: Pick<BrokerHeartbeatData, 'currentMetadataOffset' | 'wantFence' | 'wantShutDown'>,
  registerBrokerRecordOffset: number,
  hasLeaderships: boolean,
  controlledShutdownOffset: number,
  lowestActive: number,
): BrokerControlState {
  switch (current) {
    case 'FENCED':
      if (request.wantShutDown) return 'SHUTDOWN_NOW';
      if (!request.wantFence && request.currentMetadataOffset >= registerBrokerRecordOffset) return 'UNFENCED';
      return 'FENCED';
    case 'UNFENCED':
      if (request.wantFence) return request.wantShutDown ? 'SHUTDOWN_NOW' : 'FENCED';
      if (request.wantShutDown) return hasLeaderships ? 'CONTROLLED_SHUTDOWN' : 'SHUTDOWN_NOW';
      return 'UNFENCED';
    case 'CONTROLLED_SHUTDOWN':
      if (hasLeaderships) return 'CONTROLLED_SHUTDOWN';
      return controlledShutdownOffset <= lowestActive ? 'SHUTDOWN_NOW' : 'CONTROLLED_SHUTDOWN';
    case 'SHUTDOWN_NOW':
      return 'SHUTDOWN_NOW';
  }
}

/**
 * Records the heartbeat: last contact, reported offset and fencing; a fenced broker leaves controlled shutdown.
 * [BrokerHeartbeatManager.java `touch`]
 */
export function touchBroker(s: BrokerHeartbeatState, now: Micros, fenced: boolean, metadataOffset: number): BrokerHeartbeatState {
  return { ...s, lastContact: now, fenced, metadataOffset, controlledShutdownOffset: fenced ? -1 : s.controlledShutdownOffset };
}

/**
 * Sets the controlled-shutdown offset once, when the records of the heartbeat that began the controlled shutdown
 * were written (`batchEndOffset` = the offset of the last of them). [BrokerHeartbeatManager.java
 * `maybeUpdateControlledShutdownOffset`; QuorumController.java `processBrokerHeartbeat` `processBatchEndOffset`]
 */
export function maybeUpdateControlledShutdownOffset(s: BrokerHeartbeatState, batchEndOffset: number): BrokerHeartbeatState {
  if (s.fenced) throw new Error(`broker ${s.brokerId}: a fenced broker cannot enter controlled shutdown`);
  return s.controlledShutdownOffset >= 0 ? s : { ...s, controlledShutdownOffset: batchEndOffset };
}

export interface HeartbeatOutcome extends ControllerResult<BrokerHeartbeatReply> {
  /** The broker's soft state after the heartbeat; undefined when the heartbeat was rejected. */
  readonly state: BrokerHeartbeatState | undefined;
  /** The state transition, for the trace. */
  readonly transition: { readonly from: BrokerControlState; readonly to: BrokerControlState } | undefined;
}

/**
 * BrokerHeartbeat on the active controller: check the broker epoch (STALE_BROKER_EPOCH), compute the next
 * state, generate the records of the transition (fence / unfence / enter controlled shutdown; SHUTDOWN_NOW
 * fences), and touch the session. When the reply says inControlledShutdown, the caller must then call
 * maybeUpdateControlledShutdownOffset with the end offset of the written batch.
 * [metadata/.../controller/ReplicationControlManager.java `processBrokerHeartbeat`]
 *
 * @param state the broker's current soft state, or undefined if the controller has none yet (then it is
 *   derived from the registration, as ClusterControlManager.activate does).
 */
export function processBrokerHeartbeat(
  image: MetadataView,
  state: BrokerHeartbeatState | undefined,
  request: BrokerHeartbeatData,
  now: Micros,
  lowestActive: number,
): HeartbeatOutcome {
  const registration = image.broker(request.brokerId);
  const registerOffset = image.registerBrokerRecordOffset(request.brokerId);
  if (!registration || registration.epoch !== request.brokerEpoch || registerOffset === undefined) {
    const reply: BrokerHeartbeatReply = { error: 'STALE_BROKER_EPOCH', isCaughtUp: false, isFenced: true, inControlledShutdown: false, shouldShutDown: false };
    return { records: [], response: reply, elections: [], state: undefined, transition: undefined };
  }
  const s: BrokerHeartbeatState =
    state !== undefined && state.brokerEpoch === registration.epoch ? state : newHeartbeatState(registration.id, registration.epoch, now, registration.fenced);
  const from = currentBrokerState(s);
  const to = calculateNextBrokerState(from, request, registerOffset, image.hasLeaderships(request.brokerId), s.controlledShutdownOffset, lowestActive);
  let result: ControllerResult<void> = { records: [], response: undefined, elections: [] };
  if (from !== to) {
    if (to === 'FENCED' || to === 'SHUTDOWN_NOW') result = handleBrokerFenced(image, request.brokerId);
    else if (to === 'UNFENCED') result = handleBrokerUnfenced(image, request.brokerId, request.brokerEpoch);
    else if (to === 'CONTROLLED_SHUTDOWN') result = handleBrokerInControlledShutdown(image, request.brokerId, request.brokerEpoch);
  }
  const next = touchBroker(s, now, stateIsFenced(to), request.currentMetadataOffset);
  const reply: BrokerHeartbeatReply = {
    error: 'NONE',
    isCaughtUp: request.currentMetadataOffset >= registerOffset,
    isFenced: stateIsFenced(to),
    inControlledShutdown: to === 'CONTROLLED_SHUTDOWN',
    shouldShutDown: to === 'SHUTDOWN_NOW',
  };
  return { records: result.records, response: reply, elections: result.elections, state: next, transition: from !== to ? { from, to } : undefined };
}

/**
 * A heartbeat that waited too long in the controller's queue only refreshes the session (so the broker is not
 * fenced for the controller's own delay); no state change, no records.
 * [ReplicationControlManager.java `processExpiredBrokerHeartbeat`]
 */
export function processExpiredBrokerHeartbeat(image: MetadataView, state: BrokerHeartbeatState, request: BrokerHeartbeatData, now: Micros): BrokerHeartbeatState {
  const registration = image.broker(request.brokerId);
  if (!registration || registration.epoch !== request.brokerEpoch) return state;
  return touchBroker(state, now, registration.fenced, request.currentMetadataOffset);
}

/** A fresh session for a broker (on registration, or when a controller becomes active). */
export function newHeartbeatState(brokerId: number, brokerEpoch: number, now: Micros, fenced: boolean): BrokerHeartbeatState {
  return { brokerId, brokerEpoch, lastContact: now, fenced, metadataOffset: -1, controlledShutdownOffset: -1 };
}

/**
 * A controller that becomes active starts every registered broker's session afresh: unfenced brokers get
 * last contact = now, so each live broker's broker.session.timeout.ms restarts at failover; fenced brokers are
 * tracked as fenced. Sorted by broker id. [metadata/.../controller/ClusterControlManager.java `activate`]
 */
export function activateHeartbeatStates(image: MetadataView, now: Micros): BrokerHeartbeatState[] {
  return image.brokers().map((b) => newHeartbeatState(b.id, b.epoch, now, b.fenced));
}

/**
 * Stale: `lastContact + broker.session.timeout.ms < now`. [BrokerHeartbeatTracker.java `isExpired`]
 */
export function isStale(s: BrokerHeartbeatState, now: Micros, sessionTimeoutMs: number): boolean {
  return s.lastContact + ms(sessionTimeoutMs) < now;
}

/**
 * The one stale unfenced broker to fence in this pass: the one heard from longest ago (ties: lowest id), or
 * undefined. Fencing one per pass lets the effect of each fencing be visible before the next.
 * [ReplicationControlManager.java `maybeFenceOneStaleBroker`; BrokerHeartbeatTracker.java `maybeRemoveExpired`]
 */
export function findOneStaleBroker(states: Iterable<BrokerHeartbeatState>, now: Micros, sessionTimeoutMs: number): BrokerHeartbeatState | undefined {
  let found: BrokerHeartbeatState | undefined;
  for (const s of states) {
    if (s.fenced || !isStale(s, now, sessionTimeoutMs)) continue;
    if (!found || s.lastContact < found.lastContact || (s.lastContact === found.lastContact && s.brokerId < found.brokerId)) found = s;
  }
  return found;
}

/**
 * The period of the stale-broker check: max(1 ms, broker.session.timeout.ms / 8), 1125 ms by default.
 * [QuorumController.java `maybeFenceStaleBrokerPeriodNs`]
 */
export function staleBrokerCheckIntervalMs(sessionTimeoutMs: number): number {
  return Math.max(1, sessionTimeoutMs / 8);
}

export interface FenceStaleOutcome extends ControllerResult<void> {
  /** The broker fenced in this pass, if any, with its soft state now fenced. */
  readonly fenced: BrokerHeartbeatState | undefined;
}

/**
 * One pass of the stale-broker check: fence at most one broker whose session expired and whose session
 * belongs to its current registration. [ReplicationControlManager.java `maybeFenceOneStaleBroker`]
 */
export function maybeFenceOneStaleBroker(
  image: MetadataView,
  states: Iterable<BrokerHeartbeatState>,
  now: Micros,
  sessionTimeoutMs: number,
): FenceStaleOutcome {
  const current: BrokerHeartbeatState[] = [];
  for (const s of states) if (image.broker(s.brokerId)?.epoch === s.brokerEpoch) current.push(s);
  const stale = findOneStaleBroker(current, now, sessionTimeoutMs);
  if (!stale) return { records: [], response: undefined, elections: [], fenced: undefined };
  const result = handleBrokerFenced(image, stale.brokerId, 'maybeFenceOneStaleBroker');
  return { ...result, fenced: { ...stale, fenced: true, controlledShutdownOffset: -1 } };
}
