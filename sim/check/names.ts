import { didYouMean, lookup, quoteName } from '../core/validate';
import { CLIENT_ERRORS, CONSUMER_EXCEPTIONS, KAFKA_ERRORS } from '../kafka/errors';

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
  G1a: 'a consumer read a value whose send definitely failed, or a read_committed consumer read a write of a transaction that aborted or never committed (aborted read)',
  // Transactions
  'transactions.committed': 'transactions the coordinator confirmed committed (EndTxn answered)',
  'transactions.aborted': 'transactions the application aborted and the coordinator confirmed',
  'transactions.fenced': 'transactional producer instances fenced (a newer instance with the same transactional.id, or the coordinator aborted their transaction)',
  'transactions.batches-per-transaction': 'acknowledged batches of transactional producers per transaction they ended (each commit flushes: at least one batch per partition written)',
  'transactions.markers': 'COMMIT/ABORT markers the transaction coordinators had written: one per partition of each decided transaction',
  'transactions.requests-per-transaction': 'transaction requests clients sent per transaction they ended (AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn, retries included; under transaction.version 2 the leaders add partitions, KIP-890)',
  'output-duplicates': 'inputs of a consume-transform-produce application whose output appears more than once in the committed (read_committed) output',
  'output-lost': "inputs a consume-transform-produce application's group committed past whose output is not in the committed output at all",
  'output-not-once': 'inputs of a consume-transform-produce application whose output is not exactly once in the committed output (output-duplicates + output-lost)',
  'lso-stall-ms': 'the longest time an open transaction held a partition\'s last stable offset below its high watermark (ms): read_committed consumers wait that long',
  // Simulator-only facts
  'acked-unflushed': 'records acknowledged while no replica had them on disk (only in page cache)',
  'elected-outside-isr': 'leaders elected from outside the ISR (unclean or last-known-leader elections)',
  'read-then-truncated': 'records a consumer read that later vanished from the log (read above the final high watermark)',
  'group-overlap': 'moments when two members of one group owned the same partition',
  'commit-backwards': 'committed offsets that moved backwards',
  'leader-epoch-conflict': 'partitions and leader epochs claimed by two different brokers (the epoch fences leadership)',
  'high-watermark-regression': "times a leader's high watermark went down within its leader epoch",
  'share.acked-by-non-holder': 'records whose acknowledgement a share-partition applied although, by the acquisition history, the member did not hold them, or that were acknowledged twice (must be 0)',
  'share.unfinished': 'at-least-once of share groups: acknowledged records, from where the share-partition started, that the group neither acknowledged nor archived by the end',
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
  // Share groups (KIP-932)
  'share.deliveries.max': 'the most times one record was delivered to a share group (the examples give the histogram of delivery counts)',
  'share.redelivered': 'records delivered to a share group more than once (released, lock expired, or a new leader)',
  'share.archived': 'records a share group gave up on: the delivery-count limit, REJECT, or below the log start',
  'share.dead-lettered': 'records a share group wrote to its dead-letter topic (KIP-1191; the examples give the reasons: rejected, delivery-count limit; a record written twice after a leader change counts twice)',
  'share.dead-letter-failed': 'dead-letter writes that failed (DLQ topic missing or not enabled, a name without the prefix, attempts spent): those records were archived without a DLQ record',
  'share.lock-expired': 'acquired records whose acquisition lock expired before the member acknowledged them',
  'share.acks-refused': 'acknowledgements a share-partition refused with INVALID_RECORD_STATE: the member no longer held the record (its lock expired, a new leader)',
  'share.in-flight.max': 'the largest in-flight window of a share-partition after an acquisition (SPEO - SPSO + 1; capped by group.share.partition.max.record.locks)',
  'share.members-idle': 'share consumers that were assigned partitions but never received a record',
  'share.order-breaks': 'records a share group handed out while an earlier record of the same key and partition was not yet acknowledged or archived',
  'group.order-breaks': 'records a consumer group handed out while an earlier record of the same key and partition was not yet processed',
} as const;

export type CheckName = keyof typeof CHECKS;
export const CHECK_NAMES = Object.keys(CHECKS) as CheckName[];

/**
 * Figures a scenario may set expectations on, beyond the anomaly checkers: how the workload was shaped
 * (batching, partition skew), what the logs kept (retention, compaction), how groups spread the work.
 * Each entry: name -> what it means; `metricChecks` computes them all.
 */
export const METRICS = {
  'produce.batches': 'record batches acknowledged to producers',
  'produce.records-per-batch': 'records per acknowledged batch, on average',
  'partition.max-share-pct': 'the busiest partition\'s share of its topic\'s acknowledged records (percent), in the most skewed topic',
  'partition.max-share-pct.most-even-topic': 'the busiest partition\'s share of its topic\'s acknowledged records (percent), in the least skewed topic',
  'producer.records-per-batch.max': 'records per acknowledged batch of the producer with the fullest batches',
  'producer.records-per-batch.min': 'records per acknowledged batch of the producer with the emptiest batches',
  'producer.records-per-batch.ratio': 'how many times fuller the fullest producer\'s batches were than the emptiest producer\'s (1 with one producer)',
  'producer.batches.max': 'acknowledged batches of the producer that needed the most',
  'producer.batches.min': 'acknowledged batches of the producer that needed the fewest',
  'keys.moved-partition': 'keys whose acknowledged records landed on more than one partition of a topic (per producer), e.g. after the partition count changed',
  'final.records': 'records in the final committed logs of the scenario\'s topics',
  'segments.deleted': 'log segments deleted by retention (all replicas)',
  'records.compacted-away': 'records the log cleaner removed, tombstones included (all replicas)',
  'tombstones.removed': 'tombstones the log cleaner removed once delete.retention.ms had passed (all replicas; __consumer_offsets included)',
  'final.tombstones': 'tombstones (records with a null value) in the final committed logs of the scenario\'s topics',
  'group.idle-members': 'members owning no partition at the end, in the group with the most of them',
  'commit.max-wait-ms': 'the longest a record a leader appended waited for the high watermark to cover it (ms; still waiting at the end counts to the end)',
  'partition.offline-ms': 'the longest time a partition had no leader in the committed metadata (ms; still leaderless at the end counts to the end)',
  'replicas.diverged': 'replicas whose log, at the end, holds a different record than the leader\'s at some offset below the high watermark',
} as const;

export type MetricName = keyof typeof METRICS;

/**
 * Figures per consumer group, named `<figure>.<group>` (e.g. `lag.final.billing`), so one scenario can
 * compare groups: an eager group beside a cooperative one, an under-provisioned group beside a sized one.
 */
export const GROUP_FIGURES = {
  'lag.final': 'the group\'s lag at the end: high watermark minus committed offset, summed over partitions',
  'lag.max': 'the largest lag the group reached, summed over the partitions it has committed (at every commit and every high-watermark advance)',
  'rebalance.pause-ms':
    'processing paused by rebalances, per partition of the group on average (ms): how long partitions waited between one member giving them up and a member taking them on',
  rebalances: 'rebalances of the group: generations the classic coordinator completed, group epochs a consumer-protocol (KIP-848) group moved to with members in it',
  'partitions.moved':
    'partitions that changed hands, summed over the group\'s rebalances: a member took on a partition another member owned last (a partition returned to its last owner, or to a static member\'s next incarnation, did not move)',
  'members.paused': 'members of the group that had nothing to process at some moment because of a rebalance (member.pause-ms.<consumer> above 0): all of them in an eager rebalance, only those that lose every partition otherwise',
  'records-read': 'records the group\'s members polled (with re-reads)',
  're-reads': 'records the group read more than once',
  unseen: 'acknowledged records of the group\'s topics its members never read',
  unprocessed: 'acknowledged records of the group\'s topics it never finished processing',
} as const;

export type GroupFigure = keyof typeof GROUP_FIGURES;

/** Figures per member of a group, named `<figure>.<consumer id>` (e.g. `member.pause-ms.billing-2`). */
export const MEMBER_FIGURES = {
  'member.pause-ms':
    'how long the member had nothing to process because of rebalances (ms): from giving up or losing its last partition until it owned one again, while it ran; a member that keeps some partitions through a rebalance does not pause',
} as const;

export type MemberFigure = keyof typeof MEMBER_FIGURES;

export function memberFigureName(name: string): { figure: MemberFigure; consumer: string } | null {
  for (const f of Object.keys(MEMBER_FIGURES) as MemberFigure[]) {
    if (name.startsWith(`${f}.`) && name.length > f.length + 1) return { figure: f, consumer: name.slice(f.length + 1) };
  }
  return null;
}

/**
 * Figures of one partition, named `<figure>.<topic>-<partition>` (`unavailability.longest-ms.orders-0`), for
 * expectations that must say which partition suffered, not only that one did. A run computes them only when an
 * expectation (or the caller) names them (partitionFigures.ts), so a report over a thousand partitions stays the
 * size of one over three.
 */
export const PARTITION_FIGURES = {
  acked: 'records acknowledged to producers on the partition',
  'unavailability.longest-ms': 'the longest span in which a producer had records waiting on the partition and no acknowledgement came (ms)',
  'unavailability.total-ms': 'such spans on the partition longer than a second, added (ms)',
  'partition.offline-ms': 'the longest time the partition had no leader in the committed metadata (ms; still leaderless at the end counts to the end)',
  elections: 'leader elections of the partition',
  'leader.final': 'the partition\'s leader in the committed metadata at the end of the run (a broker id; -1: none)',
  'final.records': 'records in the partition\'s final committed log',
  'final.tombstones': 'tombstones (null values) in the partition\'s final committed log',
  'records.compacted-away': 'records the log cleaner removed from the partition, tombstones included (all replicas)',
  'tombstones.removed': 'tombstones the log cleaner removed from the partition once delete.retention.ms had passed (all replicas)',
} as const;

export type PartitionFigure = keyof typeof PARTITION_FIGURES;

/** A per-partition figure's parts. */
export interface PartitionFigureName {
  readonly figure: PartitionFigure;
  readonly topic: string;
  readonly partition: number;
}

/**
 * `unavailability.longest-ms.orders-0` -> the figure, topic and partition; null for a name that is not one. Topic
 * names may hold dots and dashes: the partition is the digits after the last dash.
 */
export function partitionFigureName(name: string): PartitionFigureName | null {
  for (const figure of Object.keys(PARTITION_FIGURES) as PartitionFigure[]) {
    if (!name.startsWith(`${figure}.`)) continue;
    const m = /^(.+)-(0|[1-9][0-9]{0,8})$/.exec(name.slice(figure.length + 1));
    if (m) return { figure, topic: m[1]!, partition: Number(m[2]) };
  }
  return null;
}

/** Also, over all groups: acknowledged records of consumed topics that some group never processed. */
export const UNPROCESSED = 'unprocessed';

export function groupFigureName(name: string): { figure: GroupFigure; group: string } | null {
  for (const f of Object.keys(GROUP_FIGURES) as GroupFigure[]) {
    if (name.startsWith(`${f}.`) && name.length > f.length + 1) return { figure: f, group: name.slice(f.length + 1) };
  }
  return null;
}

/** Counts of errors by name also count as checks: `errors.NOT_ENOUGH_REPLICAS`, `errors.TIMEOUT`, ... */
export const ERROR_CHECK_PREFIX = 'errors.';

/** The error names `errors.<NAME>` may use: Kafka's, the clients' own, the consumer's fatal exceptions. */
export const ERROR_NAMES: readonly string[] = [...Object.keys(KAFKA_ERRORS), ...CLIENT_ERRORS, ...CONSUMER_EXCEPTIONS];

/** Whether a name is a result some run can report (a group figure of any group; an error name the simulator knows). */
export function isKnownCheck(name: string): boolean {
  if (lookup(CHECKS, name) !== undefined || lookup(METRICS, name) !== undefined || name === UNPROCESSED) return true;
  if (groupFigureName(name) !== null || memberFigureName(name) !== null || partitionFigureName(name) !== null) return true;
  return name.startsWith(ERROR_CHECK_PREFIX) && ERROR_NAMES.includes(name.slice(ERROR_CHECK_PREFIX.length));
}

/** Every name an expectation may use, with `<group>` standing for a group's name (errors.<NAME> aside). */
export function knownCheckNames(): string[] {
  return [
    ...CHECK_NAMES,
    ...Object.keys(METRICS),
    UNPROCESSED,
    ...Object.keys(GROUP_FIGURES).map((f) => `${f}.<group>`),
    ...Object.keys(MEMBER_FIGURES).map((f) => `${f}.<consumer>`),
    ...Object.keys(PARTITION_FIGURES).map((f) => `${f}.<topic>-<partition>`),
  ];
}

/** Why a scenario cannot expect on `name`, or null when it can. */
export interface CheckNameProblem {
  /** What is allowed there. */
  readonly allowed: string;
  /** "did you mean ..." or what is unknown. */
  readonly hint: string;
}

/**
 * Checks a name an expectation uses against everything a run of this scenario reports: the checks and
 * figures, `<figure>.<group>` for the scenario's own groups (a consumer outside a group is a group of its own),
 * `<figure>.<topic>-<partition>` for a partition of the scenario's topics (`partitions`: topic -> its partition
 * count, the most it reaches), and `errors.<NAME>` for an error name the simulator knows. An unknown name suggests
 * the nearest known one, so `lost-write.typo`, `lag.final.biling` or `leader.final.ordrs-0` is an error, not a
 * check that reads 0.
 */
export function checkNameProblem(name: string, groups: readonly string[], members: readonly string[] = [], partitions: ReadonlyMap<string, number> = new Map()): CheckNameProblem | null {
  if (lookup(CHECKS, name) !== undefined || lookup(METRICS, name) !== undefined || name === UNPROCESSED) return null;
  const figure = groupFigureName(name);
  if (figure !== null && groups.includes(figure.group)) return null;
  const memberFigure = memberFigureName(name);
  if (memberFigure !== null && members.includes(memberFigure.consumer)) return null;
  if (name.startsWith(ERROR_CHECK_PREFIX) && ERROR_NAMES.includes(name.slice(ERROR_CHECK_PREFIX.length))) return null;
  const pf = partitionFigureName(name);
  if (pf !== null && figure === null) return partitionProblem(pf, partitions);
  const allowed = `a check or figure (${[...CHECK_NAMES, ...Object.keys(METRICS), UNPROCESSED].join(', ')}), <figure>.<group> for ${
    groups.length > 0 ? `the groups ${groups.join(', ')}` : 'a group (this scenario has none)'
  } (figures: ${Object.keys(GROUP_FIGURES).join(', ')}), or errors.<NAME> for an error name`;
  const concrete = [
    ...CHECK_NAMES,
    ...Object.keys(METRICS),
    UNPROCESSED,
    ...Object.keys(GROUP_FIGURES).flatMap((f) => groups.map((g) => `${f}.${g}`)),
    ...Object.keys(MEMBER_FIGURES).flatMap((f) => members.map((c) => `${f}.${c}`)),
    ...Object.keys(PARTITION_FIGURES).flatMap((f) => [...partitions.keys()].map((t) => `${f}.${t}-0`)),
    ...(name.startsWith(ERROR_CHECK_PREFIX) ? ERROR_NAMES.map((e) => `${ERROR_CHECK_PREFIX}${e}`) : []),
  ];
  const near = didYouMean(name, concrete);
  const what =
    figure !== null
      ? `no group ${quoteName(figure.group)} in this scenario`
      : name.startsWith(ERROR_CHECK_PREFIX)
        ? `no error named ${quoteName(name.slice(ERROR_CHECK_PREFIX.length))}`
        : `unknown check ${quoteName(name)}`;
  return { allowed, hint: near ? `${what}; did you mean "${near}"?` : what };
}

/** Why a per-partition figure names no partition of the scenario, or null when it names one. */
function partitionProblem(pf: PartitionFigureName, partitions: ReadonlyMap<string, number>): CheckNameProblem | null {
  const n = partitions.get(pf.topic);
  if (n !== undefined && pf.partition < n) return null;
  const topics = [...partitions].map(([t, count]) => `${t}: 0 to ${count - 1}`);
  const allowed = `${pf.figure}.<topic>-<partition> for a partition of this scenario's topics (${topics.length > 0 ? topics.slice(0, 10).join(', ') + (topics.length > 10 ? ', ...' : '') : 'none declared'})`;
  if (n !== undefined) return { allowed, hint: `topic ${quoteName(pf.topic)} has ${n} partition(s); did you mean "${pf.figure}.${pf.topic}-${n - 1}"?` };
  const near = didYouMean(pf.topic, [...partitions.keys()]);
  const what = `no topic ${quoteName(pf.topic)} in this scenario`;
  return { allowed, hint: near !== undefined ? `${what}; did you mean "${pf.figure}.${near}-${Math.min(pf.partition, partitions.get(near)! - 1)}"?` : what };
}

/**
 * The checks an expectation may judge over a window of the run (`"during": ["20s", "40s"]`): counts and spans of
 * what happens at moments — sends made in the window and their outcomes in it, reads, errors, elections, stalls,
 * the cleaner's work. Verdicts on the whole history (lost-write needs the healed end of the run) and figures of
 * the run's end or of a state that began before the window (lag, ownership, pauses) take none.
 */
const WINDOW_CHECKS: ReadonlySet<string> = new Set([
  'acked',
  'send-failed',
  'records-read',
  're-reads',
  'unavailability.longest-ms',
  'unavailability.total-ms',
  'latency.p50-ms',
  'latency.p99-ms',
  'e2e.p99-ms',
  'elections',
  'elected-outside-isr',
  'controller-elections',
  'rebalances',
  'dead-lettered',
  'transactions.committed',
  'transactions.aborted',
  'transactions.fenced',
  'transactions.batches-per-transaction',
  'transactions.markers',
  'transactions.requests-per-transaction',
  'produce.batches',
  'produce.records-per-batch',
  'producer.records-per-batch.max',
  'producer.records-per-batch.min',
  'producer.records-per-batch.ratio',
  'producer.batches.max',
  'producer.batches.min',
  'partition.max-share-pct',
  'partition.max-share-pct.most-even-topic',
  'segments.deleted',
  'records.compacted-away',
  'tombstones.removed',
  'partition.offline-ms',
]);
/** Per-group figures that count moments. */
const WINDOW_GROUP_FIGURES: ReadonlySet<string> = new Set(['rebalances', 'records-read', 're-reads']);

/** Every name "during" takes, for the error that lists them. */
export function windowCheckNames(): string[] {
  return [
    ...WINDOW_CHECKS,
    'errors.<NAME>',
    ...[...WINDOW_GROUP_FIGURES].map((f) => `${f}.<group>`),
    ...(Object.keys(PARTITION_FIGURES) as PartitionFigure[]).filter((f) => WINDOW_CHECKS.has(f)).map((f) => `${f}.<topic>-<partition>`),
  ];
}

/** Why `name` (a known check) cannot be judged over a window, or null when it can. */
export function windowProblem(name: string): string | null {
  if (WINDOW_CHECKS.has(name) || name.startsWith(ERROR_CHECK_PREFIX)) return null;
  const gf = groupFigureName(name);
  if (gf !== null && WINDOW_GROUP_FIGURES.has(gf.figure)) return null;
  const pf = gf === null ? partitionFigureName(name) : null;
  if (pf !== null && WINDOW_CHECKS.has(pf.figure)) return null;
  const figure = pf?.figure ?? gf?.figure ?? memberFigureName(name)?.figure ?? name;
  if (figure.startsWith('final.') || figure.endsWith('.final') || figure === 'replicas.diverged' || figure === 'group.idle-members') return `it is a figure of the run's end`;
  if (figure.startsWith('alert.')) return `it follows a rule set when the run starts`;
  if (figure === 'lag.max' || figure === 'rebalance.pause-ms') return `it depends on a state that began before the window`;
  if (lookup(CHECKS, figure) !== undefined || figure === UNPROCESSED || figure === 'keys.moved-partition') return `it is a verdict on the whole run, judged at its healed end`;
  return `it depends on a state that began before the window`;
}
