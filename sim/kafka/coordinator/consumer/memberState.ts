/**
 * Where a consumer group member stands in reconciling its assignment towards its target (KIP-848).
 * [group-coordinator/.../modern/MemberState.java]
 */
export const MEMBER_STATES = ['STABLE', 'UNREVOKED_PARTITIONS', 'UNRELEASED_PARTITIONS', 'UNKNOWN'] as const;

/**
 * - STABLE: the member owns its whole target assignment (at the target epoch), or waits for a newer one.
 * - UNREVOKED_PARTITIONS: it must give partitions up (revoke them) before it can move to the next epoch.
 * - UNRELEASED_PARTITIONS: it reached the target epoch but waits for partitions their previous owners still hold.
 * - UNKNOWN: a state written by a newer version (Kafka only meets it after a downgrade); the member is fenced.
 */
export type MemberState = (typeof MEMBER_STATES)[number];

/** A state read back from a record; a name this version does not know reads as UNKNOWN. [MemberState.java `fromValue`] */
export function memberStateFrom(name: string): MemberState {
  return (MEMBER_STATES as readonly string[]).includes(name) ? (name as MemberState) : 'UNKNOWN';
}
