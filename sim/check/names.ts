import { METRICS } from './metrics';
import { GROUP_FIGURES, UNPROCESSED, groupFigureName } from './groupMetrics';

/**
 * Every checker result by name, with what it means. A report always has every one of them (count 0 when
 * nothing was found), and scenario expectations refer to them.
 */
export const CHECKS = {
  // Jepsen's Kafka anomaly names (reference 13.2)
  'lost-write': 'acknowledged records missing from the final committed log of a healed cluster (the simulator knows the truth)',
  'lost-write-jepsen': "Jepsen's black-box form: acknowledged, below the highest offset some consumer read in its partition, never read",
  duplicate: 'a value written at more than one offset',
  'inconsistent-offsets': 'one partition offset seen with two different values',
  'poll-skip': 'a consumer jumped over records between two polls without a reassignment',
  'nonmonotonic-poll': 'a consumer read an offset at or before one it had already read, without a reassignment or seek',
  'nonmonotonic-send': "a producer's acknowledged sends to one key landed out of order",
  unseen: 'acknowledged records no consumer ever read (loss, or just lag)',
  G1a: 'a consumer read a value whose send definitely failed (aborted read)',
  // Simulator-only facts
  'acked-unflushed': 'records acknowledged while no replica had them on disk (only in page cache)',
  'elected-outside-isr': 'leaders elected from outside the ISR (unclean or last-known-leader elections)',
  'read-then-truncated': 'records a consumer read that later vanished from the log (read above the final high watermark)',
  'group-overlap': 'moments when two members of one group owned the same partition',
  'commit-backwards': 'committed offsets that moved backwards',
  'leader-epoch-conflict': 'partitions and leader epochs claimed by two different brokers (the epoch fences leadership)',
  'high-watermark-regression': "times a leader's high watermark went down within its leader epoch",
  // Outcomes and service figures
  acked: 'records acknowledged to producers',
  'send-failed': 'records whose send failed for good',
  'send-unknown': 'records sent whose outcome never came back',
  'records-read': 'records delivered to consumers (with re-reads)',
  're-reads': 'records a group read more than once',
  'unavailability.longest-ms': 'the longest span in which a producer had records waiting on a partition and no acknowledgement came (ms)',
  'unavailability.total-ms': 'such spans longer than a second, added (ms)',
  'latency.p50-ms': 'send-to-acknowledgement latency, median (ms)',
  'latency.p99-ms': 'send-to-acknowledgement latency, 99th percentile (ms)',
  'e2e.p99-ms': 'send-to-first-read latency, 99th percentile (ms)',
  'lag.max': 'the largest consumer lag seen (records)',
  'lag.final': 'consumer lag at the end of the run (records, summed over groups and partitions)',
  rebalances: 'consumer group rebalances',
  'rebalance.pause-ms': 'processing paused by rebalances, per member on average (ms)',
  elections: 'partition leader elections',
  'controller-elections': 'changes of the active controller',
  'dead-lettered': 'records a consumer moved to a dead-letter topic',
} as const;

export type CheckName = keyof typeof CHECKS;
export const CHECK_NAMES = Object.keys(CHECKS) as CheckName[];

/** Counts of errors by name also count as checks: `errors.NOT_ENOUGH_REPLICAS`, `errors.TIMEOUT`, ... */
export const ERROR_CHECK_PREFIX = 'errors.';

export function isKnownCheck(name: string): boolean {
  return (
    name in CHECKS ||
    name in METRICS ||
    name === UNPROCESSED ||
    groupFigureName(name) !== null ||
    (name.startsWith(ERROR_CHECK_PREFIX) && name.length > ERROR_CHECK_PREFIX.length)
  );
}

/** Every name an expectation may use (errors.<NAME> aside). */
export function knownCheckNames(): string[] {
  return [...CHECK_NAMES, ...Object.keys(METRICS), UNPROCESSED, ...Object.keys(GROUP_FIGURES).map((f) => `${f}.<group>`)];
}
