/**
 * How the group coordinator picks the assignor of a classic group at the end of a join: only protocols
 * (assignor names) that every member supports are candidates; each member votes for the first candidate in
 * its own preference list; the most votes win.
 */
import { javaStringHashCode } from './groupCoordinatorPartition';
import { javaHashMapBucket, javaHashMapCapacity } from '../javaHashOrder';

export interface ProtocolVoter {
  readonly memberId: string;
  /** The member's protocol names in preference order (its partition.assignment.strategy). */
  readonly protocols: readonly string[];
}

/**
 * [group-coordinator/.../classic/ClassicGroup.java `selectProtocol`, `candidateProtocols`;
 *  ClassicGroupMember.java `vote`]
 * On a tie Kafka takes the first of the tied protocols in its HashMap's iteration order; we reproduce that
 * order (bucket of the name's hash) and break a same-bucket tie by name.
 */
export function selectProtocol(members: readonly ProtocolVoter[]): string {
  if (members.length === 0) throw new Error('Cannot select protocol for empty group');
  const candidates = candidateProtocols(members);
  const votes = new Map<string, number>();
  for (const m of members) {
    const vote = m.protocols.find((p) => candidates.has(p));
    if (vote === undefined) throw new Error(`Member ${m.memberId} does not support any of the candidate protocols`);
    votes.set(vote, (votes.get(vote) ?? 0) + 1);
  }
  const capacity = javaHashMapCapacity(votes.size);
  let best: string | undefined;
  for (const [name, count] of votes) {
    if (best === undefined) {
      best = name;
      continue;
    }
    const bestCount = votes.get(best)!;
    if (count > bestCount || (count === bestCount && iterationOrder(name, best, capacity) < 0)) best = name;
  }
  return best!;
}

/** Protocols every member supports (the coordinator rejects a join that would leave none). */
export function candidateProtocols(members: readonly ProtocolVoter[]): Set<string> {
  const [first, ...rest] = members;
  const common = new Set(first?.protocols ?? []);
  for (const m of rest) for (const p of [...common]) if (!m.protocols.includes(p)) common.delete(p);
  return common;
}

function iterationOrder(a: string, b: string, capacity: number): number {
  return (
    javaHashMapBucket(javaStringHashCode(a), capacity) - javaHashMapBucket(javaStringHashCode(b), capacity) ||
    (a < b ? -1 : a > b ? 1 : 0)
  );
}
