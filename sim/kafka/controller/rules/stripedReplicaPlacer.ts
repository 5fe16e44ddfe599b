import type { Random } from '../../../core/random';

/** A broker the placer may use: registered and not in controlled shutdown. Fenced ones only as followers. */
export interface UsableBroker {
  readonly id: number;
  readonly rack: string | null;
  readonly fenced: boolean;
}

/** Brokers of one kind in one rack, striped: each placement starts one further along. */
class BrokerList {
  readonly brokers: number[] = [];
  private index = 0;
  private offset = 0;
  private epoch = 0;

  initialize(random: Random): void {
    if (this.brokers.length === 0) return;
    this.brokers.sort((a, b) => a - b);
    this.offset = random.int(0, this.brokers.length);
  }

  shuffle(random: Random): void {
    const shuffled = random.shuffle(this.brokers);
    for (let i = 0; i < shuffled.length; i++) this.brokers[i] = shuffled[i]!;
  }

  /** The next broker of this placement (epoch), or -1 when all were used. */
  next(epoch: number): number {
    const n = this.brokers.length;
    if (n === 0) return -1;
    if (this.epoch !== epoch) {
      this.epoch = epoch;
      this.index = 0;
      this.offset = (this.offset + 1) % n;
    }
    if (this.index >= n) return -1;
    return this.brokers[(this.index++ + this.offset) % n]!;
  }
}

class Rack {
  readonly fenced = new BrokerList();
  readonly unfenced = new BrokerList();

  initialize(random: Random): void {
    this.fenced.initialize(random);
    this.unfenced.initialize(random);
  }

  shuffle(random: Random): void {
    this.fenced.shuffle(random);
    this.unfenced.shuffle(random);
  }

  /** Unfenced brokers first; fenced ones only when the rack has no unfenced one left for this placement. */
  next(epoch: number): number {
    const r = this.unfenced.next(epoch);
    return r >= 0 ? r : this.fenced.next(epoch);
  }
}

/** null (no rack) sorts first. [metadata/.../metadata/OptionalStringComparator.java] */
function compareRacks(a: string | null, b: string | null): number {
  if (a === null) return b === null ? 0 : -1;
  if (b === null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export type PlacementResult = { readonly ok: true; readonly assignments: number[][] } | { readonly ok: false; readonly message: string };

/**
 * Places `numPartitions` partitions of `replicationFactor` replicas, striping over racks and brokers as Kafka's
 * StripedReplicaPlacer does: each partition starts at the next rack, takes its leader from an unfenced broker,
 * then one replica per rack in turn (so replicas land on distinct racks while racks last; fenced brokers only
 * fill follower slots); every partition starts one broker further along within each rack, and after as many
 * partitions as there are unfenced brokers the racks and brokers are reshuffled. Deterministic given `random`,
 * which (like the controller's placer) should be one stream kept across calls.
 * [metadata/src/main/java/org/apache/kafka/metadata/placement/StripedReplicaPlacer.java]
 */
export function placeReplicas(
  usableBrokers: readonly UsableBroker[],
  numPartitions: number,
  replicationFactor: number,
  random: Random,
): PlacementResult {
  // RackList: racks in a total order (Kafka iterates a HashMap here; we use the rack order).
  const racks = new Map<string | null, Rack>();
  let numTotal = 0;
  let numUnfenced = 0;
  for (const b of [...usableBrokers].sort((x, y) => x.id - y.id)) {
    let rack = racks.get(b.rack);
    if (!rack) racks.set(b.rack, (rack = new Rack()));
    (b.fenced ? rack.fenced : rack.unfenced).brokers.push(b.id);
    numTotal++;
    if (!b.fenced) numUnfenced++;
  }
  const sortedNames = Array.from(racks.keys()).sort(compareRacks);
  for (const name of sortedNames) racks.get(name)!.initialize(random);
  let rackNames = sortedNames.slice();
  let offset = rackNames.length === 0 ? 0 : random.int(0, rackNames.length);
  let epoch = 0;

  if (replicationFactor <= 0) return { ok: false, message: `replication factor ${replicationFactor} is not positive` };
  if (numUnfenced === 0) return { ok: false, message: 'every broker is fenced' };
  if (replicationFactor > numTotal) {
    return { ok: false, message: `${replicationFactor} replicas need ${replicationFactor} brokers, but only ${numTotal} are registered` };
  }

  const assignments: number[][] = [];
  for (let p = 0; p < numPartitions; p++) {
    // After one placement per unfenced broker, reshuffle so the same assignments do not repeat.
    if (epoch === numUnfenced && numUnfenced > 1) {
      rackNames = random.shuffle(rackNames);
      for (const name of sortedNames) racks.get(name)!.shuffle(random);
      epoch = 0;
    }
    if (offset === rackNames.length) offset = 0;
    const replicas: number[] = [];
    let firstRackIndex = offset;
    for (;;) {
      const leader = racks.get(rackNames[firstRackIndex]!)!.unfenced.next(epoch);
      if (leader >= 0) {
        replicas.push(leader);
        break;
      }
      firstRackIndex = (firstRackIndex + 1) % rackNames.length;
    }
    let rackIndex = offset;
    for (let r = 1; r < replicationFactor; r++) {
      let next = -1;
      do {
        if (rackIndex === firstRackIndex) firstRackIndex = -1; // the leader's rack already gave this round
        else next = racks.get(rackNames[rackIndex]!)!.next(epoch);
        rackIndex = (rackIndex + 1) % rackNames.length;
      } while (next < 0);
      replicas.push(next);
    }
    assignments.push(replicas);
    epoch++;
    offset++;
  }
  return { ok: true, assignments };
}
