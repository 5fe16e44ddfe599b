/**
 * Checks, over a trace, that no two members of a group own one partition at the same moment.
 *
 * A member owns a partition from the consumer.assignment event that assigns it until the first of: its own
 * revocation or loss of it; the death of its process (host.crash, host.power-off, process.exit); the coordinator
 * removing its member id (group.member.leave, group.member.expire, or a static member replaced by a new
 * incarnation, group.member.join with `replaced`); or a new generation the member did not rejoin (group.rebalance
 * without it in `rejoined`: a static member that missed the rebalance). The last two rules are what the classic
 * protocol guarantees: a member the coordinator removed, or left behind in an older generation, may still believe
 * it owns partitions until it hears otherwise (a "zombie"; its commits are fenced with UNKNOWN_MEMBER_ID or
 * ILLEGAL_GENERATION), but its claims no longer count. Assignments a removed member id takes on later are
 * reported as zombie claims.
 */
import { fold, type Handlers, type TraceEvent, type TraceEventOf } from '../core/trace';

export interface OwnershipViolation {
  readonly t: number;
  readonly group: string;
  readonly partition: string;
  readonly holder: { readonly node: string; readonly memberId: string; readonly generation: number; readonly since: number };
  readonly claimant: { readonly node: string; readonly memberId: string };
}

export interface OwnershipReport {
  readonly violations: OwnershipViolation[];
  /** Assignments taken on by a member id the coordinator had already removed (not counted as ownership). */
  readonly zombieClaims: number;
  /** Assignment events looked at. */
  readonly assignments: number;
}

interface Holder {
  readonly node: string;
  readonly memberId: string;
  readonly generation: number;
  readonly since: number;
}

/** The ownership rules as handlers: feed it a trace (or a run as it goes), then read `report()`. */
export class PartitionOwnership {
  private readonly owners = new Map<string, Map<string, Holder>>();
  private readonly removed = new Set<string>();
  private readonly violations: OwnershipViolation[] = [];
  private zombieClaims = 0;
  private assignments = 0;

  private groupOwners(g: string): Map<string, Holder> {
    let m = this.owners.get(g);
    if (!m) this.owners.set(g, (m = new Map()));
    return m;
  }

  private releaseWhere(pred: (h: Holder, group: string) => boolean): void {
    for (const [g, m] of this.owners) for (const [tp, h] of [...m]) if (pred(h, g)) m.delete(tp);
  }

  private readonly died = (e: TraceEventOf<'host.crash' | 'host.power-off'>): void => {
    const dead = new Set(e.processes);
    this.releaseWhere((h) => dead.has(h.node));
  };

  private readonly memberRemoved = (group: string, memberId: string | null): void => {
    if (memberId === null) return;
    this.removed.add(`${group}\u0000${memberId}`);
    this.releaseWhere((h, g) => g === group && h.memberId === memberId);
  };

  readonly handlers: Handlers = {
    'consumer.assignment': (e) => {
      const group = e.group;
      if (group === null) return;
      this.assignments++;
      const node = e.node;
      const memberId = e.memberId;
      const m = this.groupOwners(group);
      for (const tp of [...e.revoked, ...e.lost]) if (m.get(tp)?.node === node) m.delete(tp);
      if (e.assigned.length === 0) return;
      if (this.removed.has(`${group}\u0000${memberId}`)) {
        this.zombieClaims++;
        return;
      }
      for (const tp of e.assigned) {
        const h = m.get(tp);
        if (h && h.node !== node) this.violations.push({ t: e.t, group, partition: tp, holder: h, claimant: { node, memberId } });
        m.set(tp, { node, memberId, generation: e.generation, since: e.t });
      }
    },
    'host.crash': this.died,
    'host.power-off': this.died,
    'process.exit': (e) => this.releaseWhere((h) => h.node === e.process),
    'group.rebalance': (e) => {
      const rejoined = new Set(e.rejoined);
      this.releaseWhere((h, g) => g === e.group && h.generation < e.generation && !rejoined.has(h.memberId));
    },
    'group.member.leave': (e) => this.memberRemoved(e.group, e.memberId),
    'group.member.expire': (e) => this.memberRemoved(e.group, e.memberId),
    'group.member.join': (e) => this.memberRemoved(e.group, e.replaced),
  };

  report(): OwnershipReport {
    return { violations: this.violations, zombieClaims: this.zombieClaims, assignments: this.assignments };
  }
}

/** The ownership rules over a whole trace. */
export function checkPartitionOwnership(events: readonly TraceEvent[]): OwnershipReport {
  const o = new PartitionOwnership();
  fold(events, o.handlers);
  return o.report();
}
