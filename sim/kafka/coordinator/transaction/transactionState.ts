/**
 * The states of a transactional id on its coordinator, with Kafka's ids, names and the states each may be
 * entered from. [src: transaction-coordinator/.../transaction/TransactionState.java]
 */

export type TransactionState =
  | 'Empty'
  | 'Ongoing'
  | 'PrepareCommit'
  | 'PrepareAbort'
  | 'CompleteCommit'
  | 'CompleteAbort'
  | 'Dead'
  | 'PrepareEpochFence';

/** The byte each state is written as in a `__transaction_state` value. [src: TransactionState.java `id`] */
export const TRANSACTION_STATE_ID: Readonly<Record<TransactionState, number>> = {
  Empty: 0,
  Ongoing: 1,
  PrepareCommit: 2,
  PrepareAbort: 3,
  CompleteCommit: 4,
  CompleteAbort: 5,
  Dead: 6,
  PrepareEpochFence: 7,
};

export const TRANSACTION_STATES: readonly TransactionState[] = Object.keys(TRANSACTION_STATE_ID) as TransactionState[];

/**
 * The states a state may be entered from. PrepareAbort is also entered from Empty and the two Complete states:
 * with transaction version 2 a client that does not know whether its transaction reached the coordinator may
 * abort it anyway. [src: TransactionState.java static block `validPreviousStates`]
 */
export const VALID_PREVIOUS_STATES: Readonly<Record<TransactionState, readonly TransactionState[]>> = {
  Empty: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  Ongoing: ['Ongoing', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareCommit: ['Ongoing'],
  PrepareAbort: ['Ongoing', 'PrepareEpochFence', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  CompleteCommit: ['PrepareCommit'],
  CompleteAbort: ['PrepareAbort'],
  Dead: ['Empty', 'CompleteAbort', 'CompleteCommit'],
  PrepareEpochFence: ['Ongoing'],
};

export function isValidTransition(from: TransactionState, to: TransactionState): boolean {
  return VALID_PREVIOUS_STATES[to].includes(from);
}

/** States in which an idle transactional id may expire (become Dead). [src: TransactionState.java `isExpirationAllowed`] */
export function isExpirationAllowed(state: TransactionState): boolean {
  return state === 'Empty' || state === 'CompleteCommit' || state === 'CompleteAbort';
}

/** A transaction whose outcome is decided but whose markers may still be in flight. */
export function isPreparing(state: TransactionState): boolean {
  return state === 'PrepareCommit' || state === 'PrepareAbort';
}

export function transactionStateFromId(id: number): TransactionState {
  const s = TRANSACTION_STATES.find((k) => TRANSACTION_STATE_ID[k] === id);
  if (s === undefined) throw new RangeError(`Unknown transaction state id ${id} from the transaction status message`);
  return s;
}
