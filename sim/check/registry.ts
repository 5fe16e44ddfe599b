/**
 * The table of checks: every check a run is judged by, each a small fold in a file named for it (see
 * README.md). The checkers make one of each per run; names.ts lists the results they produce and what each
 * means.
 */
import type { CheckDefinition } from './check';
import { abortedRead } from './abortedRead';
import { alerts } from './alertChecks';
import { ackedUnflushed } from './ackedUnflushed';
import { batching } from './batching';
import { commitBackwards } from './commitBackwards';
import { commitWait } from './commitWait';
import { counts } from './counts';
import { duplicate } from './duplicate';
import { electedOutsideIsr } from './electedOutsideIsr';
import { errors } from './errors';
import { groupFigures } from './groupFigures';
import { groupOverlap } from './groupOverlap';
import { highWatermarkRegression } from './highWatermarkRegression';
import { idleMembers } from './idleMembers';
import { inconsistentOffsets } from './inconsistentOffsets';
import { keysMovedPartition } from './keysMovedPartition';
import { latency } from './latency';
import { leaderEpochConflict } from './leaderEpochConflict';
import { logFigures } from './logFigures';
import { lsoStall } from './lsoStall';
import { lostWrite } from './lostWrite';
import { lostWriteJepsen } from './lostWriteJepsen';
import { nonmonotonicPoll } from './nonmonotonicPoll';
import { nonmonotonicSend } from './nonmonotonicSend';
import { outputDuplicates } from './outputDuplicates';
import { partitionOffline } from './partitionOffline';
import { partitionSkew } from './partitionSkew';
import { pollSkip } from './pollSkip';
import { readThenTruncated } from './readThenTruncated';
import { sendOutcomes } from './sendOutcomes';
import { transactions } from './transactions';
import { shareDeliveries } from './shareDeliveries';
import { shareSafety } from './shareSafety';
import { orderBreaks } from './orderBreaks';
import { unavailability } from './unavailability';
import { unseen } from './unseen';

export const CHECK_DEFINITIONS: readonly CheckDefinition[] = [
  // Jepsen's anomalies
  lostWrite,
  lostWriteJepsen,
  unseen,
  duplicate,
  inconsistentOffsets,
  pollSkip,
  nonmonotonicPoll,
  nonmonotonicSend,
  abortedRead,
  outputDuplicates,
  // What only a simulator can see
  readThenTruncated,
  leaderEpochConflict,
  highWatermarkRegression,
  electedOutsideIsr,
  ackedUnflushed,
  groupOverlap,
  commitBackwards,
  shareSafety,
  // Figures
  sendOutcomes,
  counts,
  groupFigures,
  shareDeliveries,
  orderBreaks,
  unavailability,
  latency,
  errors,
  batching,
  partitionSkew,
  keysMovedPartition,
  logFigures,
  idleMembers,
  commitWait,
  partitionOffline,
  alerts,
  transactions,
  lsoStall,
];
