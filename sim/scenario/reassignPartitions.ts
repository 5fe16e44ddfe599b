import { ms, type Micros } from '../core/time';
import { defineKinds, list, num, oneOf, str, type KindsOf } from '../core/traceSchema';
import type { Admin } from '../kafka/admin';
import { brokerActorId } from '../kafka/client/metadataCache';
import type { KafkaCluster } from '../kafka/cluster';
import type { IncrementalAlterConfigsRequest, MetadataResponse } from '../kafka/protocol';
import type { World } from '../world/world';
import type { ReassignPartitionsAction } from './actions';
import { tpKey } from '../kafka/topicPartition';

export const REASSIGN_STEPS = ['throttle-set', 'submitted', 'rejected', 'completed', 'throttle-removed'] as const;

export const REASSIGN_KINDS = defineKinds({
  /** A step of kafka-reassign-partitions (action `index`) for these partitions ("topic-p"). */
  'operator.reassign': { index: num, step: oneOf(...REASSIGN_STEPS), partitions: list(str), detail: str },
});

declare module '../core/trace' {
  interface TraceKinds extends KindsOf<typeof REASSIGN_KINDS> {}
}

/** How often --verify looks again (an operator's loop around `kafka-reassign-partitions --verify`). */
export const VERIFY_INTERVAL_MS = 1000;

type Changes = IncrementalAlterConfigsRequest['changes'];

/**
 * The configs `kafka-reassign-partitions --execute --throttle` sets: the rate on every broker the moves touch
 * (current and new replicas), and per topic the replicas to throttle: leader side every current replica (any
 * of them may lead the copy), follower side the new ones; with `value` null, the configs --verify removes.
 * [tools/.../reassign/ReassignPartitionsCommand.java `calculateLeaderThrottles`, `calculateFollowerThrottles`,
 * `calculateReassigningBrokers`, `modifyReassignmentThrottle`, `clearAllThrottles`]
 */
export function throttleConfigs(
  moves: readonly { topic: string; partition: number; current: readonly number[]; target: readonly number[] }[],
  rate: number | null,
): Changes {
  const brokers = new Set<number>();
  const leader = new Map<string, string[]>();
  const follower = new Map<string, string[]>();
  for (const m of moves) {
    for (const b of [...m.current, ...m.target]) brokers.add(b);
    for (const b of m.current) (leader.get(m.topic) ?? leader.set(m.topic, []).get(m.topic)!).push(`${m.partition}:${b}`);
    for (const b of m.target) if (!m.current.includes(b)) (follower.get(m.topic) ?? follower.set(m.topic, []).get(m.topic)!).push(`${m.partition}:${b}`);
  }
  const out: Changes[number][] = [];
  for (const b of [...brokers].sort((x, y) => x - y)) {
    for (const name of ['leader.replication.throttled.rate', 'follower.replication.throttled.rate']) {
      out.push({ resourceType: 'BROKER', resourceName: String(b), name, value: rate === null ? null : String(rate) });
    }
  }
  for (const [topic, list] of leader) out.push({ resourceType: 'TOPIC', resourceName: topic, name: 'leader.replication.throttled.replicas', value: rate === null ? null : list.join(',') });
  for (const [topic, list] of follower) out.push({ resourceType: 'TOPIC', resourceName: topic, name: 'follower.replication.throttled.replicas', value: rate === null ? null : list.join(',') });
  return out;
}

/**
 * A reassignment as an operator runs it: read the current assignment (Metadata), set the throttle if asked,
 * submit AlterPartitionReassignments, then --verify every second until none of the partitions is still moving,
 * and remove the throttle. Everything goes through the operator's admin client.
 */
export class ReassignPartitions {
  private readonly names: string[];
  private startedUs: Micros = 0;

  constructor(
    private readonly world: World,
    private readonly cluster: KafkaCluster,
    private readonly admin: () => Admin | undefined,
    private readonly a: ReassignPartitionsAction,
  ) {
    this.names = a.partitions.map((p) => tpKey(p.topic, p.partition));
  }

  private emit(step: (typeof REASSIGN_STEPS)[number], detail: string): void {
    this.world.trace.emit('operator.reassign', 'operator', { index: this.a.index, step, partitions: this.names, detail });
  }

  private after(delay: Micros, fn: () => void): void {
    this.world.scheduler.after(delay, fn, undefined, `reassignment ${this.a.index}`);
  }

  start(): void {
    this.startedUs = this.world.now;
    if (this.a.throttle === null) {
      this.submit(null);
      return;
    }
    this.describe(0, (m) => {
      const moves = this.a.partitions.map((p) => {
        const current = m.topics.find((t) => t.name === p.topic)?.partitions.find((x) => x.partition === p.partition)?.replicas ?? [];
        return { topic: p.topic, partition: p.partition, current, target: p.replicas };
      });
      const changes = throttleConfigs(moves, this.a.throttle);
      this.admin()?.alterConfigs(changes, (error, message) => {
        this.emit('throttle-set', error === 'NONE' ? `${this.a.throttle} B/s on brokers ${[...new Set(moves.flatMap((x) => [...x.current, ...x.target]))].sort((x, y) => x - y).join(',')}` : `${error} ${message}`);
        this.submit(moves);
      });
    });
  }

  /** Metadata from the first broker that answers (the tool's --bootstrap-server). */
  private describe(attempt: number, onDone: (m: MetadataResponse) => void): void {
    const admin = this.admin();
    if (!admin?.alive) return;
    const via = brokerActorId(this.cluster.brokerIds[attempt % this.cluster.brokerIds.length]!);
    admin.describeTopicsVia(via, (m) => {
      if (m) onDone(m);
      else this.after(ms(100), () => this.describe(attempt + 1, onDone));
    });
  }

  private submit(moves: Parameters<typeof throttleConfigs>[0] | null): void {
    const admin = this.admin();
    if (!admin?.alive) return;
    admin.alterPartitionReassignments(
      this.a.partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas })),
      (results) => {
        const failed = results.filter((r) => r.error !== 'NONE');
        if (failed.length > 0) this.emit('rejected', failed.map((r) => `${r.topic}-${r.partition}: ${r.error} ${r.message}`).join('; '));
        if (failed.length === results.length) return;
        this.emit('submitted', `${results.length - failed.length} partition(s)`);
        this.verify(moves);
      },
    );
  }

  /** --verify: done once ListPartitionReassignments names none of ours; then the throttle comes off. */
  private verify(moves: Parameters<typeof throttleConfigs>[0] | null): void {
    const admin = this.admin();
    if (!admin?.alive) return;
    admin.listPartitionReassignments((ongoing) => {
      const still = ongoing.filter((r) => this.names.includes(tpKey(r.topic, r.partition)));
      if (still.length > 0) {
        this.after(ms(VERIFY_INTERVAL_MS), () => this.verify(moves));
        return;
      }
      this.emit('completed', `after ${Math.round((this.world.now - this.startedUs) / 1000)} ms`);
      if (moves) admin.alterConfigs(throttleConfigs(moves, null), (error) => this.emit('throttle-removed', error));
    });
  }
}
