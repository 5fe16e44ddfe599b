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
import type { TraceEvent } from '../core/trace';

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

export function checkPartitionOwnership(events: readonly TraceEvent[]): OwnershipReport {
  const owners = new Map<string, Map<string, Holder>>();
  const removed = new Set<string>();
  const violations: OwnershipViolation[] = [];
  let zombieClaims = 0;
  let assignments = 0;
  const groupOwners = (g: string): Map<string, Holder> => {
    let m = owners.get(g);
    if (!m) owners.set(g, (m = new Map()));
    return m;
  };
  const releaseWhere = (pred: (h: Holder, group: string) => boolean): void => {
    for (const [g, m] of owners) for (const [tp, h] of [...m]) if (pred(h, g)) m.delete(tp);
  };
  for (const e of events) {
    switch (e.kind) {
      case 'consumer.assignment': {
        const group = e.group as string | null;
        if (group === null) break;
        assignments++;
        const node = e.node;
        const memberId = e.memberId as string;
        const m = groupOwners(group);
        for (const tp of [...(e.revoked as string[]), ...(e.lost as string[])]) if (m.get(tp)?.node === node) m.delete(tp);
        const assigned = e.assigned as string[];
        if (assigned.length === 0) break;
        if (removed.has(`${group}\u0000${memberId}`)) {
          zombieClaims++;
          break;
        }
        for (const tp of assigned) {
          const h = m.get(tp);
          if (h && h.node !== node) violations.push({ t: e.t, group, partition: tp, holder: h, claimant: { node, memberId } });
          m.set(tp, { node, memberId, generation: e.generation as number, since: e.t });
        }
        break;
      }
      case 'host.crash':
      case 'host.power-off': {
        const dead = new Set(e.processes as string[]);
        releaseWhere((h) => dead.has(h.node));
        break;
      }
      case 'process.exit': {
        const p = e.process as string;
        releaseWhere((h) => h.node === p);
        break;
      }
      case 'group.rebalance': {
        const group = e.group as string;
        const generation = e.generation as number;
        const rejoined = new Set(e.rejoined as string[]);
        releaseWhere((h, g) => g === group && h.generation < generation && !rejoined.has(h.memberId));
        break;
      }
      case 'group.member.leave':
      case 'group.member.expire':
      case 'group.member.join': {
        const group = e.group as string;
        const memberId = e.kind === 'group.member.join' ? (e.replaced as string | null) : (e.memberId as string);
        if (memberId === null) break;
        removed.add(`${group}\u0000${memberId}`);
        releaseWhere((h, g) => g === group && h.memberId === memberId);
        break;
      }
    }
  }
  return { violations, zombieClaims, assignments };
}
