import { formatTime } from '../core/time';
import type { TraceEvent } from '../core/trace';
import { tpKey } from '../kafka/protocol';

// Leadership facts the checkers report as leader-epoch-conflict and high-watermark-regression (and the
// explorer's single-leader-per-epoch and hw-monotonic properties judge by).

interface Claim {
  readonly broker: number;
  readonly t: number;
  readonly source: string;
}

/**
 * At most one broker leads a partition in a given leader epoch: the epoch is the fencing token of
 * leadership [PartitionChangeBuilder bumps it with every new leader; Partition.makeLeader takes it]. A
 * broker claims an epoch when it takes the leader role (replica.role), the controller when it commits an
 * election or a partition change naming a leader (controller.election, controller.partition). Two
 * different brokers under one (partition, epoch) is a violation.
 */
export function leaderEpochConflicts(trace: readonly TraceEvent[]): { count: number; examples: string[] } {
  const claims = new Map<string, Claim[]>();
  let startUs = 0;
  const claim = (topic: string, partition: number, epoch: number, c: Claim) => {
    if (c.broker < 0 || epoch < 0) return;
    const key = `${topic}-${partition} epoch ${epoch}`;
    let list = claims.get(key);
    if (!list) claims.set(key, (list = []));
    if (!list.some((x) => x.broker === c.broker)) list.push(c);
  };
  for (const e of trace) {
    switch (e.kind) {
      case 'scenario.start':
        startUs = e.t;
        break;
      case 'replica.role':
        if (e.role === 'leader') claim(e.topic as string, e.partition as number, e.leaderEpoch as number, { broker: e.broker as number, t: e.t, source: `took the leader role (${e.node})` });
        break;
      case 'controller.election':
        claim(e.topic as string, e.partition as number, e.leaderEpoch as number, { broker: e.leader as number, t: e.t, source: `elected by ${e.node}` });
        break;
      case 'controller.partition':
        claim(e.topic as string, e.partition as number, e.leaderEpoch as number, { broker: e.leader as number, t: e.t, source: `named leader by ${e.node}` });
        break;
    }
  }
  const examples: string[] = [];
  let count = 0;
  for (const [key, list] of claims) {
    if (list.length < 2) continue;
    count++;
    examples.push(`${key} had ${list.length} leaders: ${list.map((c) => `broker ${c.broker} ${c.source} at ${formatTime(c.t - startUs)}`).join('; ')}`);
  }
  return { count, examples };
}

/**
 * A leader's high watermark never goes down within its leader epoch [Partition.maybeIncrementLeaderHW only
 * moves it forward; a new epoch may start lower, which is allowed]. Each broker's current leader epoch per
 * partition comes from its replica.role events; its high watermark from replica.hw (and the HW it held when
 * it took the role). Per (partition, epoch) the highest HW seen so far must never be undercut. A leader that
 * crashes starts over: after a restart its HW comes from the checkpoint file, which lags by design
 * [ReplicaManager.checkpointHighWatermarks], and it serves nobody before the controller unfences it.
 * The checkers feed it each event as the run emits it.
 */
export class HighWatermarkWatch {
  private readonly epochOf = new Map<number, Map<string, number>>(); // broker -> partition -> epoch it leads, absent when not leading
  private readonly highest = new Map<string, Map<number, { hw: number; broker: number; t: number }>>(); // partition -> epoch -> highest HW
  /** Regressions as found, each described when the report is built. */
  private readonly found: { tp: string; epoch: number; broker: number; what: string; hw: number; t: number; best: { hw: number; broker: number; t: number }; startUs: number }[] = [];
  private count = 0;
  private startUs = 0;

  private note(tp: string, epoch: number, broker: number, hw: number, t: number, what: string): void {
    let byEpoch = this.highest.get(tp);
    if (!byEpoch) this.highest.set(tp, (byEpoch = new Map()));
    const best = byEpoch.get(epoch);
    if (best && hw < best.hw) {
      this.count++;
      this.found.push({ tp, epoch, broker, what, hw, t, best, startUs: this.startUs });
      return;
    }
    if (!best || hw > best.hw) byEpoch.set(epoch, { hw, broker, t });
  }

  observe(e: TraceEvent): void {
    if (e.kind === 'replica.hw') {
      if (e.role === 'follower') return; // a follower's HW follows its leader's; only leaders are judged
      const mine = this.epochOf.get(e.broker as number);
      if (mine === undefined) return;
      const where = tpKey(e.topic as string, e.partition as number);
      const epoch = mine.get(where);
      if (epoch === undefined) return;
      this.note(where, epoch, e.broker as number, e.hw as number, e.t, 'moved its high watermark to');
    } else if (e.kind === 'scenario.start') this.startUs = e.t;
    else if (e.kind === 'replica.role') {
      const where = tpKey(e.topic as string, e.partition as number);
      const broker = e.broker as number;
      if (e.role !== 'leader') {
        this.epochOf.get(broker)?.delete(where);
        return;
      }
      let mine = this.epochOf.get(broker);
      if (!mine) this.epochOf.set(broker, (mine = new Map()));
      mine.set(where, e.leaderEpoch as number);
      this.note(where, e.leaderEpoch as number, broker, e.hw as number, e.t, 'took the leader role with high watermark');
    } else if (e.kind === 'host.crash' || e.kind === 'host.power-off' || e.kind === 'process.exit') {
      // A dead broker leads nothing until it takes the role again, and its new incarnation starts over.
      for (const p of e.kind === 'process.exit' ? [e.process as string] : ((e.processes as string[] | undefined) ?? [])) {
        const m = /^broker-(\d+)$/.exec(p);
        if (!m) continue;
        const broker = Number(m[1]);
        this.epochOf.delete(broker);
        for (const byEpoch of this.highest.values()) for (const [epoch, best] of [...byEpoch]) if (best.broker === broker) byEpoch.delete(epoch);
      }
    }
  }

  result(): { count: number; examples: string[] } {
    const examples = this.found.map(
      (f) =>
        `${f.tp} epoch ${f.epoch}: broker ${f.broker} ${f.what} ${f.hw} at ${formatTime(f.t - f.startUs)}, below ${f.best.hw} (broker ${f.best.broker}, ${formatTime(f.best.t - f.startUs)})`,
    );
    return { count: this.count, examples };
  }
}
