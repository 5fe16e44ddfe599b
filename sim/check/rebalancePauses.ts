import type { Handlers } from '../core/trace';

/** One group's rebalance pauses: total ms, the partitions it ever owned, a few examples. */
export interface GroupPauses {
  totalMs: number;
  readonly partitions: Set<string>;
  readonly examples: string[];
}

/**
 * Rebalance pauses per group, partition by partition: a partition pauses when a member gives it up (revoked, or
 * lost when the member fell out of the group) and resumes when a member takes it on. An eager rebalance pauses
 * every partition of every member until the group re-forms; a cooperative one only the partitions that move,
 * between the revocation and the follow-up rebalance. A crashed member gives nothing up: the time until its
 * partitions move is failure detection, not a rebalance pause, and is not counted. A pause still open at the
 * end counts up to the end if the group still has a member then.
 */
export class RebalancePauses {
  private readonly out = new Map<string, GroupPauses>();
  /** group -> member -> owned partitions. */
  private readonly owned = new Map<string, Map<string, Set<string>>>();
  /** group -> partition -> when it was given up. */
  private readonly since = new Map<string, Map<string, number>>();
  private readonly memberGroup = new Map<string, string>();

  private readonly died = (e: { processes: readonly string[] }): void => {
    // The member is gone without giving anything up: whoever takes its partitions next does not count a pause.
    for (const pid of e.processes) {
      const g = this.memberGroup.get(pid);
      if (g !== undefined) this.owned.get(g)?.delete(pid);
    }
  };

  readonly handlers: Handlers = {
    'consumer.assignment': (e) => {
      if (!e.group) return;
      const g = e.group;
      this.memberGroup.set(e.node, g);
      let o = this.out.get(g);
      if (!o) this.out.set(g, (o = { totalMs: 0, partitions: new Set(), examples: [] }));
      let members = this.owned.get(g);
      if (!members) this.owned.set(g, (members = new Map()));
      let waiting = this.since.get(g);
      if (!waiting) this.since.set(g, (waiting = new Map()));
      const before = members.get(e.node) ?? new Set<string>();
      const after = new Set(e.owned);
      for (const p of before) if (!after.has(p)) waiting.set(p, e.t);
      for (const p of after) {
        o.partitions.add(p);
        const t = waiting.get(p);
        if (t === undefined || before.has(p)) continue;
        waiting.delete(p);
        o.totalMs += (e.t - t) / 1000;
        if (e.t > t && o.examples.length < 3) o.examples.push(`${p} waited ${Math.round((e.t - t) / 1000)} ms for ${e.node}`);
      }
      members.set(e.node, after);
    },
    'host.crash': this.died,
    'host.power-off': this.died,
  };

  /** Every group's pauses, open ones counted up to `end`. */
  finish(end: number): Map<string, GroupPauses> {
    for (const [g, waiting] of this.since) {
      const o = this.out.get(g)!;
      const live = [...(this.owned.get(g)?.values() ?? [])].some((s) => s.size > 0);
      if (!live) continue;
      for (const t of waiting.values()) o.totalMs += (end - t) / 1000;
    }
    return this.out;
  }
}
