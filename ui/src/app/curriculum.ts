import type { ScenarioSpec } from '../../../sim/scenario/spec';

/**
 * The scenario library as a course, in the order the guide builds its ideas: what an acknowledgement means, the
 * ISR and the high watermark, min.insync.replicas, Eligible Leader Replicas, leader epochs, KRaft, consumer groups,
 * producers and ordering, compaction and retention, transactions and share groups, and running a cluster. Each
 * chapter lists its scenarios in teaching order; a scenario the list does not name joins the first chapter whose
 * tags it has (the library grows), and anything else goes to the last.
 */
export interface Chapter {
  readonly id: string;
  readonly title: string;
  /** Scenario ids in teaching order. */
  readonly order: readonly string[];
  /** Tags that place a scenario the order does not name. */
  readonly tags: readonly string[];
}

export const CHAPTERS: readonly Chapter[] = [
  { id: 'acks', title: 'Acknowledgements', order: ['acks1-leader-crash', 'acks0-broker-failure', 'default-rf1-broker-loss', 'acks-all-min-isr-2-survives-one'], tags: ['acks', 'defaults'] },
  { id: 'isr', title: 'The ISR and the high watermark', order: ['jepsen-2013-isr-shrink', 'acks-all-min-isr-1-isr-shrink-loss', 'unclean-election-loss', 'hw-frozen-below-min-isr'], tags: ['isr', 'high-watermark', 'unclean-election'] },
  { id: 'min-isr', title: 'min.insync.replicas and what a disk keeps', order: ['acks-all-min-isr-2-two-down-rejects', 'alert-under-min-isr-before-loss', 'correlated-power-loss-no-fsync', 'zone-outage-without-rack-awareness', 'zone-outage-with-rack-awareness'], tags: ['min.insync.replicas', 'fsync', 'rack-awareness'] },
  { id: 'elr', title: 'Eligible Leader Replicas (KIP-966)', order: ['elr-last-replica-standing'], tags: ['elr', 'kip-966'] },
  { id: 'epochs', title: 'Leader epochs (KIP-101)', order: ['kip101-legacy-truncation-loss', 'kip101-legacy-divergence'], tags: ['kip-101', 'leader-epoch'] },
  { id: 'kraft', title: 'KRaft controllers', order: ['controller-quorum-failover'], tags: ['kraft', 'controller'] },
  {
    id: 'groups',
    title: 'Consumer groups',
    order: [
      'courier-hub',
      'group-parallelism-6-of-7',
      'consumer-lag-restart',
      'duplicates-after-crash-before-commit',
      'auto-commit-async-at-most-once',
      'static-membership-restart',
      'eager-vs-cooperative-pause',
      'slow-consumer-rebalance-storm',
      'busy-group-join-classic-vs-kip848',
      'slow-member-eager-cooperative-kip848',
      'rolling-restart-static-vs-dynamic',
      'rolling-restart-static-vs-dynamic-kip848',
      'online-migration-classic-consumer',
      'coordinator-failover-mid-reconciliation',
      'poison-pill-blocks-partition',
      'poison-pill-dead-letter-topic',
    ],
    tags: ['consumer-groups', 'rebalance'],
  },
  {
    id: 'producers',
    title: 'Producers, keys and ordering',
    order: ['why-kafka-is-fast', 'key-order-per-entity', 'retries-without-idempotence-reorder', 'idempotent-producer-dedup', 'partition-count-change-breaks-key-order', 'hot-partition-and-salting', 'sizing-sale-peak'],
    tags: ['producer', 'ordering', 'partitions'],
  },
  { id: 'retention', title: 'Compaction and retention', order: ['retention-deletes-whole-segments', 'lag-exceeds-retention-skips', 'compaction-latest-per-key'], tags: ['retention', 'compaction'] },
  { id: 'transactions', title: 'Transactions and share groups', order: [], tags: ['transactions', 'exactly-once', 'share-groups', 'share-group'] },
  {
    id: 'operations',
    title: 'Running a cluster',
    order: ['rolling-restart-careless', 'rolling-restart-careful', 'rolling-upgrade-stops-at-failure', 'rolling-upgrade-pause-carries-on', 'reassign-hot-partition-unthrottled', 'reassign-hot-partition-throttled'],
    tags: ['operations', 'metrics'],
  },
];

/** Where the course begins. */
export const START_HERE = 'acks1-leader-crash';

/** The chapters with their scenarios, in course order; a chapter without scenarios is left out. */
export function course(library: readonly ScenarioSpec[]): { chapter: Chapter; scenarios: ScenarioSpec[] }[] {
  const byId = new Map(library.map((s) => [s.id, s]));
  const placed = new Set<string>();
  const out = CHAPTERS.map((chapter) => {
    const scenarios: ScenarioSpec[] = [];
    for (const id of chapter.order) {
      const s = byId.get(id);
      if (s && !placed.has(id)) {
        scenarios.push(s);
        placed.add(id);
      }
    }
    return { chapter, scenarios };
  });
  const last = out[out.length - 1]!;
  for (const s of library) {
    if (placed.has(s.id)) continue;
    const tags = s.tags ?? [];
    const home = out.find((c) => c.chapter.tags.some((t) => tags.includes(t))) ?? last;
    home.scenarios.push(s);
    placed.add(s.id);
  }
  return out.filter((c) => c.scenarios.length > 0);
}

/** Tags a learner reads (the guide's internal `guide:*` cross-references are not for them). */
export function visibleTags(s: ScenarioSpec): string[] {
  return (s.tags ?? []).filter((t) => !t.startsWith('guide:'));
}

/** The view that shows a scenario's lesson: share consumers on Share, a group's story on Groups, metrics and alerts on Operator. */
export function lessonView(s: ScenarioSpec): 'replicas' | 'groups' | 'operator' | 'share' {
  const tags = s.tags ?? [];
  if ((s.shareConsumers?.length ?? 0) > 0) return 'share';
  if (tags.includes('alerts') || tags.includes('metrics')) return 'operator';
  if (tags.includes('consumer-groups') || tags.includes('rebalance')) return 'groups';
  return 'replicas';
}

/**
 * The questions the guide's interview sections ask, in our words, each with the scenarios that answer it by showing
 * it (the first one the library has is offered).
 */
export const QUESTIONS: readonly { readonly q: string; readonly answers: readonly string[] }[] = [
  { q: 'Why can Kafka move so much data with so little hardware?', answers: ['why-kafka-is-fast'] },
  { q: 'What exactly does acks=all promise, and why does min.insync.replicas matter with it?', answers: ['acks-all-min-isr-2-survives-one', 'acks-all-min-isr-1-isr-shrink-loss'] },
  { q: 'Can a write the broker acknowledged still be lost?', answers: ['acks1-leader-crash', 'correlated-power-loss-no-fsync'] },
  { q: 'What does turning on unclean leader election buy, and what does it cost?', answers: ['unclean-election-loss'] },
  { q: 'A topic has 6 partitions and the group has 7 consumers: how many of them work?', answers: ['group-parallelism-6-of-7'] },
  { q: 'How do you keep the events of one entity (an order, a user) in order?', answers: ['key-order-per-entity', 'partition-count-change-breaks-key-order'] },
  { q: 'How many partitions should a topic get?', answers: ['sizing-sale-peak'] },
  { q: 'Why does every consumer have to cope with duplicates?', answers: ['duplicates-after-crash-before-commit', 'retries-without-idempotence-reorder'] },
  { q: 'Is Kafka exactly-once?', answers: ['txn-exactly-once-consume-transform-produce', 'idempotent-producer-dedup'] },
  { q: 'What happens when one record always fails to process?', answers: ['poison-pill-blocks-partition', 'poison-pill-dead-letter-topic'] },
  { q: 'What if a consumer falls further behind than the topic keeps data?', answers: ['lag-exceeds-retention-skips'] },
  { q: 'What is log compaction for?', answers: ['compaction-latest-per-key'] },
  { q: 'What replaced ZooKeeper, and what happens when its leader dies?', answers: ['controller-quorum-failover'] },
];
