import { errorCode, type KafkaError } from '../../errors';
import type { TopicImage } from '../../metadata/metadataImage';
import type { WireBroker } from '../context';

/**
 * What several translations ask of the broker's applied metadata, answered as Kafka's KRaftMetadataCache does
 * [core/src/main/scala/kafka/server/metadata/KRaftMetadataCache.scala].
 */

export { errorCode as code };

/** Internal topics are listed with isInternal (Topic.isInternal). */
export function isInternalTopic(name: string): boolean {
  return name === '__consumer_offsets' || name === '__transaction_state' || name === '__share_group_state';
}

/** A registered, unfenced broker: what Kafka calls alive [KRaftMetadataCache.getAliveBrokerNodes]. */
export function aliveBrokerIds(b: WireBroker): number[] {
  return b.image
    .brokers()
    .filter((r) => !r.fenced && b.endpoint(r.id) !== undefined)
    .map((r) => r.id);
}

export function isAlive(b: WireBroker, id: number): boolean {
  const r = b.image.broker(id);
  return r !== undefined && !r.fenced && b.endpoint(id) !== undefined;
}

/** Brokers as Metadata, DescribeCluster and the KIP-951 node endpoints list them. */
export function brokerNodes(b: WireBroker, ids: readonly number[]): { nodeId: number; host: string; port: number; rack: string | null }[] {
  const out: { nodeId: number; host: string; port: number; rack: string | null }[] = [];
  for (const id of ids) {
    const e = b.endpoint(id);
    if (e) out.push({ nodeId: id, host: e.host, port: e.port, rack: b.image.broker(id)?.rack ?? null });
  }
  return out;
}

/**
 * In KRaft no client can reach a controller, so Metadata and DescribeCluster name a random alive broker as the
 * controller [KRaftMetadataCache.getRandomAliveBrokerId]; drawn from the broker's seeded stream.
 */
export function randomAliveBrokerId(b: WireBroker): number {
  const alive = aliveBrokerIds(b);
  return alive.length === 0 ? -1 : alive[b.random.int(0, alive.length)]!;
}

/** A topic by name, or by id for versions that name topics by id. */
export function topicByNameOrId(b: WireBroker, name: string | null, topicId: string | null): TopicImage | undefined {
  return topicId !== null ? b.image.topicById(topicId) : name !== null ? b.image.topicByName(name) : undefined;
}

/** The leader this broker knows for a partition (KIP-951's CurrentLeader), or -1 / -1. */
export function leaderOf(b: WireBroker, topic: string, partition: number): { leaderId: number; leaderEpoch: number } {
  const p = b.image.partitionByName(topic, partition);
  if (!p || p.leader < 0 || !isAlive(b, p.leader)) return { leaderId: -1, leaderEpoch: p?.leaderEpoch ?? -1 };
  return { leaderId: p.leader, leaderEpoch: p.leaderEpoch };
}

/** Errors after which a client should learn the new leader (KIP-951 attaches CurrentLeader to them). */
export function isLeadershipError(e: KafkaError): boolean {
  return e === 'NOT_LEADER_OR_FOLLOWER' || e === 'FENCED_LEADER_EPOCH';
}

/** A partition that does not exist in this broker's metadata: UNKNOWN_TOPIC_OR_PARTITION. */
export function partitionExists(b: WireBroker, topic: string, partition: number): boolean {
  const t = b.image.topicByName(topic);
  return t !== undefined && partition >= 0 && partition < t.partitions.length;
}

/** Why a topic name is not legal, or null [Topic.detectInvalidTopic]. */
export function invalidTopicReason(name: string): string | null {
  if (name.length === 0) return 'the empty string is not allowed';
  if (name === '.' || name === '..') return `'${name}' is not allowed`;
  if (name.length > 249) return `the length of '${name}' is longer than the max allowed length 249`;
  if (!/^[a-zA-Z0-9._-]+$/.test(name)) return `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  return null;
}
