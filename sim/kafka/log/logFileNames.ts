import { topicPartitionName, type TopicPartition } from '../topicPartition';

/**
 * File names in a log directory, as Kafka names them: `<topic>-<partition>/` holding segments named by their
 * 20-digit zero-padded base offset. [src: storage/src/main/java/org/apache/kafka/storage/internals/log/LogFileUtils.java]
 */

export const LOG_FILE_SUFFIX = '.log';
export const PRODUCER_SNAPSHOT_FILE_SUFFIX = '.snapshot';
export const DELETED_FILE_SUFFIX = '.deleted';
export const CLEANED_FILE_SUFFIX = '.cleaned';
export const TMP_FILE_SUFFIX = '.tmp';

/** Per partition. [src: storage/.../checkpoint/LeaderEpochCheckpointFile.java] */
export const LEADER_EPOCH_CHECKPOINT_FILENAME = 'leader-epoch-checkpoint';

/** Per log directory. [src: core/.../log/LogManager.scala; ReplicaManager.scala; LogCleanerManager.java] */
export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
export const HIGH_WATERMARK_FILENAME = 'replication-offset-checkpoint';
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';
/** Written on a clean shutdown; its absence at start-up means recovery. [src: CleanShutdownFileHandler.java] */
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

/** "00000000000000000042". [src: LogFileUtils.java `filenamePrefixFromOffset`] */
export function filenamePrefixFromOffset(offset: number): string {
  return String(offset).padStart(20, '0');
}

export function partitionDir(logDir: string, tp: TopicPartition): string {
  return `${logDir}/${topicPartitionName(tp)}`;
}

export function logFile(dir: string, baseOffset: number): string {
  return `${dir}/${filenamePrefixFromOffset(baseOffset)}${LOG_FILE_SUFFIX}`;
}

export function producerSnapshotFile(dir: string, offset: number): string {
  return `${dir}/${filenamePrefixFromOffset(offset)}${PRODUCER_SNAPSHOT_FILE_SUFFIX}`;
}

/** The offset a segment or snapshot file is named after, or null for other files. */
export function offsetFromFileName(path: string, suffix: string): number | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (!name.endsWith(suffix)) return null;
  const prefix = name.slice(0, name.length - suffix.length);
  if (!/^\d{20}$/.test(prefix)) return null;
  return Number(prefix);
}
