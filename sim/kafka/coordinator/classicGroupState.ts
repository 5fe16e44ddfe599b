/**
 * The states of a classic consumer group and the transitions Kafka allows between them.
 * [group-coordinator/.../classic/ClassicGroupState.java]
 */
export type ClassicGroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

/** The states a group may come from when it enters each state. [ClassicGroupState.java `validPreviousStates`] */
export const VALID_PREVIOUS_STATES: Readonly<Record<ClassicGroupState, readonly ClassicGroupState[]>> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

export function isValidTransition(from: ClassicGroupState, to: ClassicGroupState): boolean {
  return VALID_PREVIOUS_STATES[to].includes(from);
}

/** A rebalance may start from these states [ClassicGroup.java `canRebalance`]. */
export function canRebalance(state: ClassicGroupState): boolean {
  return isValidTransition(state, 'PreparingRebalance');
}
