import type { MetadataResponse, PartitionMetadata } from '../protocol';

/** The process id of broker `id` on the simulated network. */
export function brokerActorId(id: number): string {
  return `broker-${id}`;
}

/** The broker id of a process id like "broker-3", or null. */
export function brokerIdOf(actorId: string): number | null {
  const m = /^broker-(\d+)$/.exec(actorId);
  return m ? Number(m[1]) : null;
}

/**
 * A client's view of the cluster (Kafka's Metadata / MetadataCache on the client): which broker leads
 * each partition and with which leader epoch. It is only as fresh as the last Metadata response.
 */
export class ClientMetadata {
  private readonly topics = new Map<string, PartitionMetadata[]>();
  private brokers: number[] = [];
  /** Simulated time of the last successful update (us), -1 never. */
  lastUpdateUs = -1;
  /** Bumped on every update, so callers can tell whether a leader changed since they looked. */
  version = 0;

  constructor(readonly bootstrap: readonly number[]) {
    this.brokers = [...bootstrap];
  }

  update(r: MetadataResponse, nowUs: number): void {
    this.brokers = r.brokers.map((b) => b.id).sort((a, b) => a - b);
    if (this.brokers.length === 0) this.brokers = [...this.bootstrap];
    for (const t of r.topics) {
      if (t.error !== 'NONE') continue;
      const parts = [...t.partitions].sort((a, b) => a.partition - b.partition);
      const old = this.topics.get(t.name);
      // Never go back to an older leader epoch from a stale broker's answer.
      if (old) {
        for (let i = 0; i < parts.length; i++) {
          const o = old[i];
          const n = parts[i]!;
          if (o && o.leaderEpoch > n.leaderEpoch) parts[i] = o;
        }
      }
      this.topics.set(t.name, parts);
    }
    this.lastUpdateUs = nowUs;
    this.version++;
  }

  knownBrokers(): readonly number[] {
    return this.brokers;
  }

  partitionCount(topic: string): number | null {
    return this.topics.get(topic)?.length ?? null;
  }

  partition(topic: string, partition: number): PartitionMetadata | undefined {
    return this.topics.get(topic)?.[partition];
  }

  /** The leader's broker id, or -1 when unknown or leaderless. */
  leaderOf(topic: string, partition: number): number {
    return this.topics.get(topic)?.[partition]?.leader ?? -1;
  }

  leaderEpochOf(topic: string, partition: number): number {
    return this.topics.get(topic)?.[partition]?.leaderEpoch ?? -1;
  }
}
