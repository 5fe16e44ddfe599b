import { COMPRESSION_TYPES } from '../records';
import { bool, double, int, listOf, oneOf, optionalString, text, throttledReplicaList, type ConfigOf } from './def';

/** Java's Long.MAX_VALUE as a double: Kafka's "never" for flush.messages, flush.ms, max.compaction.lag.ms. */
export const LONG_MAX = 2 ** 63;
export const INT_MAX = 2147483647;
/** The smallest segment.bytes: one v0 record's overhead [LegacyRecord.RECORD_OVERHEAD_V0]; the simulator allows tiny segments. */
export const SEGMENT_BYTES_MIN = 14;

/**
 * Topic-level configs with Kafka 4.x names and defaults
 * [storage/.../log/LogConfig.java; server-common/.../config/ServerLogConfigs.java].
 */
export const TOPIC_CONFIGS = {
  'cleanup.policy': listOf(['delete', 'compact'] as const, ['delete'], 'delete old segments, compact to the latest record per key, or both', { minLength: 1 }),
  'compression.type': oneOf(['producer', 'uncompressed', ...COMPRESSION_TYPES.filter((c) => c !== 'none')] as const, 'producer', 'the compression the broker keeps (producer = as sent)'),
  'delete.retention.ms': int(86_400_000, 'how long tombstones survive after the cleaner first sees them', { min: 0, max: LONG_MAX }),
  // [src: clients/.../common/config/TopicConfig.java `ERRORS_DEADLETTERQUEUE_GROUP_ENABLE_CONFIG` (KIP-1191)]
  'errors.deadletterqueue.group.enable': bool(false, 'a share group may write its dead-letter records to this topic (KIP-1191)'),
  'file.delete.delay.ms': int(60_000, 'delay before a deleted segment file is removed', { min: 0, max: LONG_MAX }),
  'flush.messages': int(LONG_MAX, 'fsync after this many messages (default: never; Kafka relies on replication)', { min: 1, max: LONG_MAX }),
  'flush.ms': int(LONG_MAX, 'fsync when data is this old (default: never)', { min: 0, max: LONG_MAX }),
  'follower.replication.throttled.replicas': throttledReplicaList('replicas (partition:broker) whose follower fetches for this topic the follower-side replication throttle limits'),
  'index.interval.bytes': int(4096, 'bytes between offset-index entries', { min: 0 }),
  'leader.replication.throttled.replicas': throttledReplicaList('replicas (partition:broker) whose leaders serve follower fetches for this topic under the leader-side replication throttle'),
  'max.compaction.lag.ms': int(LONG_MAX, 'a record stays uncompacted at most this long', { min: 1, max: LONG_MAX }),
  'max.message.bytes': int(1_048_588, 'the largest record batch the broker accepts', { min: 0 }),
  'message.timestamp.type': oneOf(['CreateTime', 'LogAppendTime'] as const, 'CreateTime', 'whose clock stamps records'),
  'min.cleanable.dirty.ratio': double(0.5, 'clean when this share of the log is dirty', { min: 0, max: 1 }),
  'min.compaction.lag.ms': int(0, 'a record stays uncompacted at least this long', { min: 0, max: LONG_MAX }),
  'min.insync.replicas': int(1, 'replicas that must hold a write before acks=all succeeds', { min: 1 }),
  'retention.bytes': int(-1, 'delete old segments above this size per partition (-1: no limit)', { min: -1, max: LONG_MAX }),
  'retention.ms': int(604_800_000, 'delete segments older than this (-1: keep for ever)', { min: -1, max: LONG_MAX }),
  'segment.bytes': int(1_073_741_824, 'roll a new segment at this size (the simulator allows tiny segments)', { min: SEGMENT_BYTES_MIN }),
  'segment.index.bytes': int(10_485_760, 'size of a segment\'s offset index', { min: 4 }),
  'segment.jitter.ms': int(0, 'random jitter subtracted from segment.ms', { min: 0, max: LONG_MAX }),
  'segment.ms': int(604_800_000, 'roll a new segment when the active one is this old', { min: 1, max: LONG_MAX }),
  'unclean.leader.election.enable': bool(false, 'allow a replica outside the ISR to become leader (may lose acknowledged data)'),
} as const;
export type TopicConfig = ConfigOf<typeof TOPIC_CONFIGS>;

/**
 * Broker configs with Kafka 4.x names and defaults [server/.../config/ReplicationConfigs.java,
 * KRaftConfigs.java, ServerLogConfigs.java, GroupCoordinatorConfig.java, raft/QuorumConfig.java]; the bounds
 * are Kafka's validators (the controller.quorum.* timings are atLeast(0) in raft/QuorumConfig.java).
 */
export const BROKER_CONFIGS = {
  'auto.create.topics.enable': bool(true, 'a Metadata request naming an unknown topic creates it (with num.partitions and default.replication.factor)'),
  'delete.topic.enable': bool(true, 'DeleteTopics may delete topics'),
  'num.partitions': int(1, 'partitions of an auto-created or unspecified topic', { min: 1 }),
  'default.replication.factor': int(1, 'replication factor when a topic does not say', { min: 1 }),
  'min.insync.replicas': int(1, 'cluster default of the topic config', { min: 1 }),
  'unclean.leader.election.enable': bool(false, 'cluster default of the topic config'),
  'unclean.leader.election.interval.ms': int(300_000, 'how often the controller retries unclean elections for leaderless partitions', { min: 1 }),
  'replica.lag.time.max.ms': int(30_000, 'a follower that has not caught up for this long leaves the ISR', { min: 1 }),
  'replica.fetch.wait.max.ms': int(500, 'how long a follower fetch waits on the leader for new data', { min: 0 }),
  'replica.fetch.min.bytes': int(1, 'bytes a follower fetch waits for', { min: 1 }),
  'replica.fetch.max.bytes': int(1_048_576, 'bytes per partition in a follower fetch', { min: 0 }),
  'replica.fetch.response.max.bytes': int(10_485_760, 'bytes in a whole follower fetch response', { min: 0 }),
  'replica.fetch.backoff.ms': int(1000, 'backoff after a follower fetch error', { min: 0 }),
  'replica.socket.timeout.ms': int(30_000, 'request timeout of follower fetches', { min: 1 }),
  'replica.high.watermark.checkpoint.interval.ms': int(5000, 'how often high watermarks are written to disk', { min: 1 }),
  'auto.leader.rebalance.enable': bool(true, 'move leadership back to preferred replicas periodically'),
  'leader.imbalance.check.interval.seconds': int(300, 'how often the preferred-leader election runs', { min: 1 }),
  'broker.heartbeat.interval.ms': int(2000, 'how often a broker heartbeats to the active controller', { min: 1 }),
  'broker.session.timeout.ms': int(9000, 'a broker without a heartbeat for this long is fenced', { min: 1 }),
  'leader.replication.throttled.rate': int(LONG_MAX, 'bytes/s a leader sends to throttled replicas outside the ISR (kafka-reassign-partitions --throttle)', { min: 0, max: LONG_MAX }),
  'follower.replication.throttled.rate': int(LONG_MAX, 'bytes/s a follower fetches for throttled replicas outside the ISR', { min: 0, max: LONG_MAX }),
  'replication.quota.window.num': int(11, 'samples the replication quotas keep', { min: 1 }),
  'replication.quota.window.size.seconds': int(1, 'length of one replication quota sample', { min: 1 }),
  'controlled.shutdown.enable': bool(true, 'on SIGTERM a broker first asks the controller to move its leaderships away (controlled shutdown)'),
  'log.retention.check.interval.ms': int(300_000, 'how often retention runs', { min: 1 }),
  'log.initial.task.delay.ms': int(30_000, 'delay before the first retention, flush and checkpoint tasks', { min: 0 }),
  'log.cleaner.enable': bool(true, 'run the log cleaner for compacted topics'),
  'log.cleaner.backoff.ms': int(15_000, 'cleaner sleep when nothing is cleanable', { min: 0 }),
  'log.cleaner.io.max.bytes.per.second': double(100 * 1024 * 1024, 'cleaner I/O rate (the simulator needs a finite rate; Kafka\'s default is unlimited)', { min: 1 }),
  'message.max.bytes': int(1_048_588, 'cluster default of max.message.bytes', { min: 0 }),
  'offsets.topic.num.partitions': int(50, 'partitions of __consumer_offsets', { min: 1 }),
  'offsets.topic.replication.factor': int(3, 'replication factor of __consumer_offsets (it cannot be created on fewer brokers: groups then find no coordinator)', { min: 1 }),
  // Kafka bounds it at 1, but it becomes __consumer_offsets' segment.bytes, whose CreateTopics a smaller value fails:
  // refused here with the topic config's bound instead of a cluster whose coordinator never loads.
  'offsets.topic.segment.bytes': int(104_857_600, 'segment size of __consumer_offsets', { min: SEGMENT_BYTES_MIN }),
  'offsets.commit.timeout.ms': int(5000, 'how long an offset commit waits for replication', { min: 1 }),
  'offsets.retention.minutes': int(10_080, 'committed offsets of an empty group expire after this', { min: 1 }),
  // [src: group-coordinator/.../GroupCoordinatorConfig.java `OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG`: long, default 600000, atLeast(1)]
  'offsets.retention.check.interval.ms': int(600_000, 'how often the group coordinator expires committed offsets (offsets.retention.minutes)', { min: 1, max: LONG_MAX }),
  'group.initial.rebalance.delay.ms': int(3000, 'the first rebalance of an empty group waits this long for more members', { min: 0 }),
  'group.min.session.timeout.ms': int(6000, 'smallest session.timeout.ms a consumer may ask for', { min: 0 }),
  'group.max.session.timeout.ms': int(1_800_000, 'largest session.timeout.ms a consumer may ask for', { min: 0 }),
  'group.max.size': int(INT_MAX, 'members a group may have', { min: 1 }),
  'group.coordinator.rebalance.protocols': listOf(['classic', 'consumer'] as const, ['classic', 'consumer'], 'the rebalance protocols the group coordinator serves', { minLength: 1 }),
  'group.consumer.session.timeout.ms': int(45_000, 'a consumer-protocol member without a heartbeat for this long is removed', { min: 1 }),
  'group.consumer.min.session.timeout.ms': int(45_000, 'smallest consumer.session.timeout.ms a group may set', { min: 1 }),
  'group.consumer.max.session.timeout.ms': int(60_000, 'largest consumer.session.timeout.ms a group may set', { min: 1 }),
  'group.consumer.heartbeat.interval.ms': int(5000, 'how often consumer-protocol members heartbeat (the coordinator tells them)', { min: 1 }),
  'group.consumer.min.heartbeat.interval.ms': int(5000, 'smallest consumer.heartbeat.interval.ms a group may set', { min: 1 }),
  'group.consumer.max.heartbeat.interval.ms': int(15_000, 'largest consumer.heartbeat.interval.ms a group may set', { min: 1 }),
  'group.consumer.max.size': int(INT_MAX, 'members a consumer-protocol group may have', { min: 1 }),
  'group.consumer.assignors': listOf(['uniform', 'range'] as const, ['uniform', 'range'], 'server assignors; the first is the default', { minLength: 1 }),
  'group.consumer.migration.policy': oneOf(['bidirectional', 'upgrade', 'downgrade', 'disabled'] as const, 'bidirectional', 'online conversion of a non-empty group between the classic and the consumer protocol'),
  // Share groups (KIP-932), Kafka 4.2 [src: group-coordinator/.../modern/share/ShareGroupConfig.java `CONFIG_DEF`; GroupCoordinatorConfig.java `SHARE_GROUP_*`]
  'group.share.delivery.count.limit': int(5, 'deliveries of a record to a share group before it is archived', { min: 2, max: 10 }),
  'group.share.record.lock.duration.ms': int(30_000, 'how long a share consumer holds the records it acquired', { min: 1000, max: 3_600_000 }),
  'group.share.min.record.lock.duration.ms': int(15_000, 'smallest record lock duration a share group may use', { min: 1000, max: 30_000 }),
  'group.share.max.record.lock.duration.ms': int(60_000, 'largest record lock duration a share group may use', { min: 30_000, max: 3_600_000 }),
  'group.share.partition.max.record.locks': int(2000, 'in-flight records a share-partition may hold (SPEO - SPSO + 1) before it stops acquiring new ones', { min: 100, max: 10_000 }),
  'group.share.session.timeout.ms': int(45_000, 'a share group member without a heartbeat for this long is removed', { min: 1 }),
  'group.share.min.session.timeout.ms': int(45_000, 'smallest share.session.timeout.ms a group may set', { min: 1 }),
  'group.share.max.session.timeout.ms': int(60_000, 'largest share.session.timeout.ms a group may set', { min: 1 }),
  'group.share.heartbeat.interval.ms': int(5000, 'how often share group members heartbeat (the coordinator tells them)', { min: 1 }),
  'group.share.min.heartbeat.interval.ms': int(5000, 'smallest share.heartbeat.interval.ms a group may set', { min: 1 }),
  'group.share.max.heartbeat.interval.ms': int(15_000, 'largest share.heartbeat.interval.ms a group may set', { min: 1 }),
  'group.share.max.size': int(200, 'members a share group may have', { min: 1, max: 1000 }),
  // Share-group dead-letter queues (KIP-1191, Kafka 4.4) [src: group-coordinator/.../GroupCoordinatorConfig.java `ERRORS_DEADLETTERQUEUE_*`]
  'errors.deadletterqueue.topic.name.prefix': text('dlq.', 'a share group\'s dead-letter topic must start with this ("" allows any name)'),
  'errors.deadletterqueue.auto.create.topics.enable': bool(false, 'a missing dead-letter topic is created (with num.partitions, default.replication.factor and errors.deadletterqueue.group.enable=true)'),
  'producer.id.expiration.ms': int(86_400_000, 'producer state expires after this long without writes', { min: 1 }),
  'transaction.state.log.num.partitions': int(50, 'partitions of __transaction_state', { min: 1 }),
  'transaction.state.log.replication.factor': int(3, 'replication factor of __transaction_state (it is not created on fewer brokers)', { min: 1 }),
  'transaction.state.log.min.isr': int(2, 'min.insync.replicas of __transaction_state', { min: 1 }),
  'transaction.state.log.segment.bytes': int(104_857_600, 'segment size of __transaction_state', { min: 1 }),
  'transaction.max.timeout.ms': int(900_000, 'the largest transaction.timeout.ms a producer may ask for', { min: 1 }),
  'transaction.partition.verification.enable': bool(true, 'a partition leader verifies with the coordinator that a transactional write belongs to an ongoing transaction (KIP-890 part 1)'),
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': int(10_000, 'how often the coordinator aborts transactions past their timeout', { min: 1 }),
  'controller.quorum.election.timeout.ms': int(1000, 'Raft election timeout (randomised up to twice this)', { min: 0 }),
  'controller.quorum.fetch.timeout.ms': int(2000, 'a voter without a fetch response for this long starts an election', { min: 0 }),
  'controller.quorum.election.backoff.max.ms': int(1000, 'cap of the election backoff', { min: 0 }),
  'controller.quorum.request.timeout.ms': int(2000, 'timeout of quorum requests', { min: 0 }),
  'controller.quorum.retry.backoff.ms': int(20, 'backoff between quorum request retries', { min: 0 }),
  'controller.quorum.append.linger.ms': int(25, 'how long the leader lingers before appending', { min: 0 }),
  'metadata.max.idle.interval.ms': int(500, 'the active controller writes a no-op record when idle this long', { min: 0 }),
  'max.incremental.fetch.session.cache.slots': int(1000, 'incremental fetch sessions (KIP-227) a broker keeps for clients', { min: 0 }),
  'min.incremental.fetch.session.eviction.ms': int(120_000, 'a fetch session idle this long may give its slot to a new one', { min: 0 }),
  'socket.request.max.bytes': int(104_857_600, 'the largest request frame a broker reads; a bigger one closes the connection', { min: 1 }),
  'initial.broker.registration.timeout.ms': int(60_000, 'how long a broker tries to register', { min: 1 }),
} as const;
export type BrokerConfig = ConfigOf<typeof BROKER_CONFIGS>;

/** Producer configs, Kafka 4.x defaults [clients/.../producer/ProducerConfig.java]. */
export const PRODUCER_CONFIGS = {
  'acks': oneOf(['all', '0', '1'] as const, 'all', 'acknowledgements the leader waits for: 0 none, 1 its own append, all every in-sync replica', { '-1': 'all' }),
  'batch.size': int(16_384, 'target bytes of a batch per partition', { min: 0 }),
  'linger.ms': int(5, 'how long a batch waits for more records', { min: 0 }),
  'buffer.memory': int(33_554_432, 'bytes of unsent records the producer may hold', { min: 0 }),
  'max.block.ms': int(60_000, 'how long send() blocks for buffer space or metadata', { min: 0 }),
  'max.in.flight.requests.per.connection': int(5, 'unacknowledged requests per broker', { min: 1 }),
  'retries': int(INT_MAX, 'retries of a failed batch (bounded by delivery.timeout.ms)', { min: 0, max: INT_MAX }),
  'delivery.timeout.ms': int(120_000, 'a record fails if not acknowledged within this', { min: 0 }),
  'request.timeout.ms': int(30_000, 'how long the producer waits for a response', { min: 0 }),
  'retry.backoff.ms': int(100, 'first backoff before a retry', { min: 0 }),
  'retry.backoff.max.ms': int(1000, 'cap of the exponential retry backoff', { min: 0 }),
  'max.request.size': int(1_048_576, 'bytes in one produce request', { min: 0 }),
  'compression.type': oneOf(COMPRESSION_TYPES, 'none', 'compression of batches'),
  'enable.idempotence': bool(true, 'sequence numbers so retries never duplicate or reorder'),
  'transactional.id': optionalString('makes the producer transactional: its records are written in transactions (see the workload\'s transactionSize), a new instance fences older ones'),
  'transaction.timeout.ms': int(60_000, 'the coordinator aborts a transaction open longer than this (at most transaction.max.timeout.ms)', { min: 1 }),
  'partitioner.adaptive.partitioning.enable': bool(true, 'the sticky partitioner favours brokers with shorter queues'),
  'partitioner.availability.timeout.ms': int(0, 'skip partitions whose broker has had ready data this long (0: off)', { min: 0 }),
  'partitioner.ignore.keys': bool(false, 'ignore keys when choosing a partition'),
  'metadata.max.age.ms': int(300_000, 'refresh metadata at least this often', { min: 0 }),
  'reconnect.backoff.ms': int(50, 'first backoff before reconnecting', { min: 0 }),
  'reconnect.backoff.max.ms': int(1000, 'cap of the reconnect backoff', { min: 0 }),
} as const;
export type ProducerConfig = ConfigOf<typeof PRODUCER_CONFIGS>;

/** Consumer configs, Kafka 4.x defaults [clients/.../consumer/ConsumerConfig.java]. */
export const CONSUMER_CONFIGS = {
  'group.id': optionalString('the consumer group (null: no group, manual assignment)'),
  'group.instance.id': optionalString('static membership: a restart within session.timeout.ms causes no rebalance'),
  'group.protocol': oneOf(['classic', 'consumer'] as const, 'classic', 'the rebalance protocol: classic (JoinGroup/SyncGroup) or consumer (KIP-848, ConsumerGroupHeartbeat)'),
  'group.remote.assignor': optionalString('the server assignor a consumer-protocol member asks for (null: the broker\'s default, the first of group.consumer.assignors)'),
  'fetch.min.bytes': int(1, 'bytes a fetch waits for', { min: 0 }),
  'fetch.max.wait.ms': int(500, 'how long a fetch waits for fetch.min.bytes', { min: 0 }),
  'fetch.max.bytes': int(52_428_800, 'bytes in one fetch response', { min: 0 }),
  'max.partition.fetch.bytes': int(1_048_576, 'bytes per partition in one fetch', { min: 0 }),
  'max.poll.records': int(500, 'records one poll() returns', { min: 1 }),
  'max.poll.interval.ms': int(300_000, 'a consumer that does not poll within this leaves the group', { min: 1 }),
  'session.timeout.ms': int(45_000, 'classic protocol: a member without a heartbeat for this long is removed', { min: 1 }),
  'heartbeat.interval.ms': int(3000, 'classic protocol: how often the member heartbeats', { min: 1 }),
  'auto.offset.reset': oneOf(['latest', 'earliest', 'none'] as const, 'latest', 'where to start without a valid committed offset'),
  'enable.auto.commit': bool(true, 'commit positions in the background'),
  'auto.commit.interval.ms': int(5000, 'how often auto-commit runs', { min: 0 }),
  'isolation.level': oneOf(['read_uncommitted', 'read_committed'] as const, 'read_uncommitted', 'read_committed stops at the last stable offset'),
  'partition.assignment.strategy': listOf(['range', 'roundrobin', 'sticky', 'cooperative-sticky'] as const, ['range', 'cooperative-sticky'], 'classic protocol: assignors in order of preference', { minLength: 1 }),
  'request.timeout.ms': int(30_000, 'how long the consumer waits for a response', { min: 0 }),
  'default.api.timeout.ms': int(60_000, 'timeout of blocking calls such as commitSync', { min: 0 }),
  'retry.backoff.ms': int(100, 'first backoff before a retry', { min: 0 }),
  'retry.backoff.max.ms': int(1000, 'cap of the retry backoff', { min: 0 }),
  'metadata.max.age.ms': int(300_000, 'refresh metadata at least this often', { min: 0 }),
} as const;
export type ConsumerConfig = ConfigOf<typeof CONSUMER_CONFIGS>;

/**
 * Share consumer configs, Kafka 4.2 defaults [clients/.../consumer/ConsumerConfig.java; ShareConsumerConfig.java
 * `SHARE_ACKNOWLEDGEMENT_MODE_CONFIG`]: a KafkaShareConsumer takes the consumer's fetch and network configs and
 * refuses the group-protocol, offset and commit ones (the broker keeps the share-partition state).
 */
export const SHARE_CONSUMER_CONFIGS = {
  'share.acknowledgement.mode': oneOf(['implicit', 'explicit'] as const, 'implicit', 'implicit: the next poll accepts every record the last one returned; explicit: the application acknowledges each record (ACCEPT, RELEASE, REJECT)'),
  'max.poll.records': int(500, 'records one poll() returns (and one ShareFetch acquires)', { min: 1 }),
  'fetch.min.bytes': int(1, 'bytes a ShareFetch waits for', { min: 0 }),
  'fetch.max.wait.ms': int(500, 'how long a ShareFetch waits for records to acquire', { min: 0 }),
  'request.timeout.ms': int(30_000, 'how long the consumer waits for a response', { min: 0 }),
  'default.api.timeout.ms': int(60_000, 'timeout of blocking calls such as commitSync', { min: 0 }),
  'retry.backoff.ms': int(100, 'first backoff before a retry', { min: 0 }),
  'retry.backoff.max.ms': int(1000, 'cap of the retry backoff', { min: 0 }),
  'metadata.max.age.ms': int(300_000, 'refresh metadata at least this often', { min: 0 }),
} as const;
export type ShareConsumerConfig = ConfigOf<typeof SHARE_CONSUMER_CONFIGS>;

/**
 * Group configs of the consumer protocol (kafka-configs --entity-type groups): they override the broker's
 * group.consumer.* defaults for one group, within group.consumer.min/max.*. [group-coordinator/.../GroupConfig.java]
 */
export const GROUP_CONFIGS = {
  'consumer.session.timeout.ms': int(45_000, 'the group\'s session timeout (default: group.consumer.session.timeout.ms)', { min: 1 }),
  'consumer.heartbeat.interval.ms': int(5000, 'the group\'s heartbeat interval (default: group.consumer.heartbeat.interval.ms)', { min: 1 }),
} as const;
