import { array, bytes, int32, message, scalarArray, string, type MessageOf } from '../codec/schema';

/**
 * What a consumer puts in JoinGroup's protocol metadata and SyncGroup's assignment: an int16 version, then the
 * body [ConsumerProtocolSubscription.json, ConsumerProtocolAssignment.json; ConsumerProtocol.java]. The broker
 * never needs them; the simulator reads them to see subscriptions and assignments as the simulated clients give them.
 */
export const ConsumerProtocolSubscription = message('ConsumerProtocolSubscription', '0-3', 'none', [
  scalarArray('topics', '0+', 'string'),
  bytes('userData', '0+', { nullable: '0+', default: null }),
  array('ownedPartitions', '1+', [string('topic', '1+'), scalarArray('partitions', '1+', 'int32')]),
  int32('generationId', '2+', { default: -1 }),
  string('rackId', '3+', { nullable: '3+', default: null }),
]);

export const ConsumerProtocolAssignment = message('ConsumerProtocolAssignment', '0-3', 'none', [
  array('assignedPartitions', '0+', [string('topic', '0+'), scalarArray('partitions', '0+', 'int32')]),
  bytes('userData', '0+', { nullable: '0+', default: null }),
]);

export type Subscription = MessageOf<typeof ConsumerProtocolSubscription>;
export type Assignment = MessageOf<typeof ConsumerProtocolAssignment>;
