/**
 * The state of one in-flight record of a share-partition, with the ids Kafka persists in `__share_group_state`.
 * AVAILABLE -> ACQUIRED on a ShareFetch; ACQUIRED -> AVAILABLE (released), ACKNOWLEDGED (accepted) or ARCHIVED
 * (rejected, or released at the delivery-count limit); ARCHIVING is the DLQ flow's half-way state (KIP-1191).
 * ACKNOWLEDGED and ARCHIVED are terminal: they only wait for the start offset to pass them.
 * [src: server/src/main/java/org/apache/kafka/server/share/fetch/RecordState.java `validateTransition`]
 */
export type RecordState = 'AVAILABLE' | 'ACQUIRED' | 'ACKNOWLEDGED' | 'ARCHIVING' | 'ARCHIVED';

/** The persisted id of each state. [RecordState.java] */
export const RECORD_STATE_ID: Readonly<Record<RecordState, number>> = { AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVING: 3, ARCHIVED: 4 };

const NEXT: Readonly<Record<RecordState, readonly RecordState[]>> = {
  AVAILABLE: ['ACQUIRED', 'ARCHIVED'],
  ACQUIRED: ['AVAILABLE', 'ACKNOWLEDGED', 'ARCHIVING', 'ARCHIVED'],
  ARCHIVING: ['ARCHIVED'],
  ACKNOWLEDGED: [],
  ARCHIVED: [],
};

/** Whether a record may move from `from` to `to`. [RecordState.java `validateTransition`] */
export function isValidTransition(from: RecordState, to: RecordState): boolean {
  return NEXT[from].includes(to);
}

/** Finished: nothing more happens to the record; the start offset may move past it. */
export function isTerminal(s: RecordState): boolean {
  return s === 'ACKNOWLEDGED' || s === 'ARCHIVED';
}
