import { ByteReader, ByteWriter, WireFormatError } from '../codec/bytes';
import { decodeMessage, encodeMessage } from '../codec/message';
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

/** Reads a versioned body: the int16 version, then the body at that version (a newer one as our newest). */
function readVersioned<T>(schema: typeof ConsumerProtocolSubscription | typeof ConsumerProtocolAssignment, bytes: Uint8Array): T | null {
  try {
    const r = new ByteReader(bytes);
    const version = r.int16();
    if (version < 0) return null;
    return decodeMessage<T>(schema, Math.min(version, schema.validVersions.max), r);
  } catch (e) {
    if (e instanceof WireFormatError) return null;
    throw e;
  }
}

function writeVersioned(schema: typeof ConsumerProtocolSubscription | typeof ConsumerProtocolAssignment, version: number, body: object): Uint8Array {
  const w = new ByteWriter(64);
  w.int16(version);
  encodeMessage(schema, version, body, w);
  return w.toBytes();
}

/** A consumer's subscription from JoinGroup metadata [ConsumerProtocol.deserializeSubscription]; null when it is not one. */
export function decodeSubscription(bytes: Uint8Array): Subscription | null {
  return readVersioned<Subscription>(ConsumerProtocolSubscription, bytes);
}

export function encodeSubscription(s: Partial<Subscription>, version = 3): Uint8Array {
  return writeVersioned(ConsumerProtocolSubscription, version, s);
}

/** An assignment from SyncGroup bytes [ConsumerProtocol.deserializeAssignment]; null when it is not one. */
export function decodeAssignment(bytes: Uint8Array): Assignment | null {
  return readVersioned<Assignment>(ConsumerProtocolAssignment, bytes);
}

export function encodeAssignment(a: Partial<Assignment>, version = 0): Uint8Array {
  return writeVersioned(ConsumerProtocolAssignment, version, a);
}

/** Topic-partitions grouped by topic, as the consumer protocol lists them (topics in first-seen order). */
export function groupByTopic(tps: readonly { topic: string; partition: number }[]): { topic: string; partitions: number[] }[] {
  const out = new Map<string, number[]>();
  for (const tp of tps) {
    let list = out.get(tp.topic);
    if (!list) out.set(tp.topic, (list = []));
    list.push(tp.partition);
  }
  return [...out].map(([topic, partitions]) => ({ topic, partitions }));
}

export function flatten(groups: readonly { topic: string; partitions: readonly number[] }[]): { topic: string; partition: number }[] {
  return groups.flatMap((g) => g.partitions.map((partition) => ({ topic: g.topic, partition })));
}
