/** The partition log: what the replication layer, the coordinators and the broker use. */
export * from './logConfig';
export * from '../topicPartition';
export * from './taskScheduler';
export * from './logFileNames';
export * from './leaderEpochFileCache';
export * from './producerAppendInfo';
export { ProducerStateManager, type ProducerSnapshotEntry } from './producerStateManager';
export { LogSegment } from './logSegment';
export { shouldRoll, type RollReason } from './segmentRoll';
export * from './retention';
export * from './cleanerSelection';
export * from './logCleaning';
export { LogCleaner, cleanableView } from './logCleaner';
export { validSegmentPrefix, type RecoveryStop } from './logRecovery';
export * from './unifiedLog';
export * from './logManager';
import './logEvents';
