/**
 * `partition.assignment.strategy`: the assignors a consumer offers in JoinGroup, in preference order, and the
 * rebalance protocol (eager or cooperative) that list commits the consumer to.
 */
import { cooperativeStickyAssignor } from './cooperativeStickyAssignor';
import type { AssignorName, ConsumerPartitionAssignor, RebalanceProtocol } from './consumerPartitionAssignor';
import { rangeAssignor } from './rangeAssignor';
import { roundRobinAssignor } from './roundRobinAssignor';
import { stickyAssignor } from './stickyAssignor';

/** The default list. [clients/.../consumer/ConsumerConfig.java `PARTITION_ASSIGNMENT_STRATEGY_CONFIG`] */
export const DEFAULT_PARTITION_ASSIGNMENT_STRATEGY: readonly AssignorName[] = ['range', 'cooperative-sticky'];

export const ASSIGNORS: Readonly<Record<AssignorName, ConsumerPartitionAssignor>> = {
  range: rangeAssignor,
  roundrobin: roundRobinAssignor,
  sticky: stickyAssignor,
  'cooperative-sticky': cooperativeStickyAssignor,
};

export function isAssignorName(name: string): name is AssignorName {
  return Object.prototype.hasOwnProperty.call(ASSIGNORS, name);
}

/** The assignor registered under `name`; throws for a name Kafka would not know either. */
export function assignorFor(name: string): ConsumerPartitionAssignor {
  if (!isAssignorName(name)) throw new Error(`unknown partition.assignment.strategy ${JSON.stringify(name)}`);
  return ASSIGNORS[name];
}

/** Kafka orders protocols by id: EAGER(0) < COOPERATIVE(1). */
const PROTOCOL_ID: Readonly<Record<RebalanceProtocol, number>> = { EAGER: 0, COOPERATIVE: 1 };

/**
 * The rebalance protocol of a consumer: the most advanced one that *every* configured assignor supports.
 * So the default [range, cooperative-sticky] runs EAGER (range is eager-only) even when cooperative-sticky wins
 * the group's vote; only a list of cooperative assignors alone makes the consumer cooperative.
 * [clients/.../consumer/internals/ConsumerCoordinator.java constructor]
 */
export function rebalanceProtocolFor(assignorNames: readonly string[]): RebalanceProtocol {
  if (assignorNames.length === 0) throw new Error('partition.assignment.strategy is empty');
  let common: RebalanceProtocol[] = [...assignorFor(assignorNames[0]!).supportedProtocols];
  for (const name of assignorNames) {
    const supported = assignorFor(name).supportedProtocols;
    common = common.filter((p) => supported.includes(p));
  }
  if (common.length === 0) {
    throw new Error(`Specified assignors ${assignorNames.join(', ')} do not have commonly supported rebalance protocol`);
  }
  return common.reduce((a, b) => (PROTOCOL_ID[b] > PROTOCOL_ID[a] ? b : a));
}
