import type { Handlers } from '../core/trace';

/** One group's rebalance pauses (total ms, the partitions it ever owned, a few examples) and its hand-overs. */
export interface GroupPauses {
  totalMs: number;
  readonly partitions: Set<string>;
  readonly examples: string[];
  moved: number;
  readonly movedExamples: string[];
}

/** How long one member had nothing to process because of rebalances. */
export interface MemberPause {
  readonly group: string;
  totalMs: number;
  /** When it gave up or lost its last partition, while it waits for one; -1 otherwise. */
  since: number;
  readonly examples: string[];
}

/**
 * What rebalances did to each group and member, from the members' own view of their partitions
 * (consumer.assignment), so both protocols (classic and KIP-848) are measured alike:
 * - pauses per partition: a partition pauses when a member gives it up (revoked, or lost when the member fell out
 *   of the group) while no other member of the group owns it, and resumes when a member takes it on. An eager
 *   rebalance pauses every partition until the group re-forms; a cooperative or KIP-848 one only the partitions
 *   that move. A crashed member gives nothing up: the time until its partitions move is failure detection, not a
 *   rebalance pause, and is not counted; nor is the wait of a static member's partitions for its next incarnation
 *   (same group.instance.id) after a restart. A pause still open at the end counts up to the end if the group
 *   still has a member then.
 * - partitions moved: a member takes on a partition whose last owner was another member (a static member's
 *   restarted instance, with the same group.instance.id, is the same member).
 * - each member's pause: from the moment it owns nothing after owning something (it revoked or lost its last
 *   partition) until it owns a partition again; a crash or a close ends it uncounted.
 */
export class RebalancePauses {
  private readonly out = new Map<string, GroupPauses>();
  private readonly members = new Map<string, MemberPause>();
  /** group -> member -> owned partitions. */
  private readonly owned = new Map<string, Map<string, Set<string>>>();
  /** group -> partition -> when it was given up, and by whom. */
  private readonly since = new Map<string, Map<string, { t: number; who: string; node: string }>>();
  /** group -> partition -> the member that owned it last. */
  private readonly lastOwner = new Map<string, Map<string, { who: string; node: string }>>();
  private readonly memberGroup = new Map<string, string>();
  /** A consumer's identity for hand-overs: its group.instance.id when static. */
  private readonly identity = new Map<string, string>();

  constructor(private readonly at: (t: number) => string) {}

  private endMemberPause(node: string, t: number, counted: boolean): void {
    const mp = this.members.get(node);
    if (!mp || mp.since < 0) return;
    if (counted) {
      mp.totalMs += (t - mp.since) / 1000;
      if (mp.examples.length < 3) mp.examples.push(`${node} had no partition for ${Math.round((t - mp.since) / 1000)} ms from ${this.at(mp.since)}`);
    }
    mp.since = -1;
  }

  private readonly died = (e: { t: number; processes: readonly string[] }): void => {
    // The member is gone without giving anything up: whoever takes its partitions next does not count a pause.
    for (const pid of e.processes) {
      const g = this.memberGroup.get(pid);
      if (g !== undefined) this.owned.get(g)?.delete(pid);
      this.endMemberPause(pid, e.t, false);
    }
  };

  readonly handlers: Handlers = {
    'group.member.join': (e) => {
      if (e.groupInstanceId !== null) this.identity.set(e.clientId, `instance ${e.groupInstanceId}`);
    },
    'consumer.assignment': (e) => {
      if (!e.group) return;
      const g = e.group;
      this.memberGroup.set(e.node, g);
      const who = this.identity.get(e.node) ?? e.node;
      let o = this.out.get(g);
      if (!o) this.out.set(g, (o = { totalMs: 0, partitions: new Set(), examples: [], moved: 0, movedExamples: [] }));
      let members = this.owned.get(g);
      if (!members) this.owned.set(g, (members = new Map()));
      let waiting = this.since.get(g);
      if (!waiting) this.since.set(g, (waiting = new Map()));
      let last = this.lastOwner.get(g);
      if (!last) this.lastOwner.set(g, (last = new Map()));
      let mp = this.members.get(e.node);
      if (!mp) this.members.set(e.node, (mp = { group: g, totalMs: 0, since: -1, examples: [] }));
      const ownedElsewhere = (p: string): boolean => {
        for (const [m, s] of members!) if (m !== e.node && s.has(p)) return true;
        return false;
      };
      const before = members.get(e.node) ?? new Set<string>();
      const after = new Set(e.owned);
      for (const p of before) if (!after.has(p) && !ownedElsewhere(p)) waiting.set(p, { t: e.t, who, node: e.node });
      for (const p of after) {
        o.partitions.add(p);
        if (before.has(p)) continue;
        const previous = last.get(p);
        if (previous !== undefined && previous.who !== who) {
          o.moved++;
          if (o.movedExamples.length < 5) o.movedExamples.push(`${p} moved from ${previous.node} to ${e.node} at ${this.at(e.t)}`);
        }
        last.set(p, { who, node: e.node });
        const w = waiting.get(p);
        if (w === undefined) continue;
        waiting.delete(p);
        // Back to the next incarnation of the static member that gave it up: it waited for a restart, not a rebalance.
        if (w.who === who && w.node !== e.node) continue;
        o.totalMs += (e.t - w.t) / 1000;
        if (e.t > w.t && o.examples.length < 3) o.examples.push(`${p} waited ${Math.round((e.t - w.t) / 1000)} ms for ${e.node}`);
      }
      members.set(e.node, after);
      if (after.size > 0) this.endMemberPause(e.node, e.t, true);
      else if (before.size > 0 && mp.since < 0) mp.since = e.t;
    },
    'consumer.close': (e) => this.endMemberPause(e.node, e.t, false),
    'host.crash': this.died,
    'host.power-off': this.died,
  };

  /** Every group's pauses and every member's, open ones counted up to `end`. */
  finish(end: number): { groups: Map<string, GroupPauses>; members: Map<string, MemberPause> } {
    for (const [g, waiting] of this.since) {
      const o = this.out.get(g)!;
      const live = [...(this.owned.get(g)?.values() ?? [])].some((s) => s.size > 0);
      if (!live) continue;
      for (const w of waiting.values()) o.totalMs += (end - w.t) / 1000;
    }
    for (const node of this.members.keys()) this.endMemberPause(node, end, true);
    return { groups: this.out, members: this.members };
  }
}
