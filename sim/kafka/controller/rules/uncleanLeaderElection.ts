import type { MetadataView } from '../../metadata/metadataImage';
import type { ControllerResult } from './controllerResult';
import { electLeader } from './electLeader';
import { MAX_ELECTIONS_PER_IMBALANCE } from './preferredLeaderElection';

/**
 * One run of the periodic unclean-election retry (every unclean.leader.election.interval.ms): for each
 * leaderless partition whose topic has unclean.leader.election.enable=true, an UNCLEAN election, in topic
 * then partition order, stopping at `maxRecords` records. The response is true when the cap was hit.
 * [metadata/.../controller/ReplicationControlManager.java `maybeElectUncleanLeaders`,
 * `maybeTriggerUncleanLeaderElectionForLeaderlessPartitions`]
 */
export function maybeElectUncleanLeaders(image: MetadataView, maxRecords = MAX_ELECTIONS_PER_IMBALANCE): ControllerResult<boolean> {
  const result: ControllerResult<boolean> = { records: [], response: false, elections: [] };
  for (const tp of image.partitionsWithNoLeader()) {
    if (result.records.length >= maxRecords) break;
    const topic = image.topicById(tp.topicId);
    if (!topic || !image.uncleanLeaderElectionEnabled(topic.name)) continue;
    const one = electLeader(image, topic.name, tp.partitionId, 'UNCLEAN', 'maybeElectUncleanLeaders');
    result.records.push(...one.records);
    result.elections.push(...one.elections);
  }
  return { ...result, response: result.records.length >= maxRecords };
}
