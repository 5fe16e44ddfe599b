import type { ApiDefinition } from './api';
import { apiVersions } from './apiVersions';
import { consumerGroupHeartbeat } from './consumerGroupHeartbeat';
import { createTopics } from './createTopics';
import { deleteTopics } from './deleteTopics';
import { describeCluster } from './describeCluster';
import { describeConfigs } from './describeConfigs';
import { fetch } from './fetch';
import { findCoordinator } from './findCoordinator';
import { heartbeat } from './heartbeat';
import { initProducerId } from './initProducerId';
import { joinGroup } from './joinGroup';
import { leaveGroup } from './leaveGroup';
import { listOffsets } from './listOffsets';
import { metadata } from './metadata';
import { offsetCommit } from './offsetCommit';
import { offsetFetch } from './offsetFetch';
import { offsetForLeaderEpoch } from './offsetForLeaderEpoch';
import { produce } from './produce';
import { syncGroup } from './syncGroup';

/** Every API the broker serves, by key: adding one is a file in this folder and a line here. */
export const APIS: readonly ApiDefinition[] = [
  produce,
  fetch,
  listOffsets,
  metadata,
  offsetCommit,
  offsetFetch,
  findCoordinator,
  joinGroup,
  heartbeat,
  leaveGroup,
  syncGroup,
  apiVersions,
  createTopics,
  deleteTopics,
  initProducerId,
  offsetForLeaderEpoch,
  describeConfigs,
  describeCluster,
  consumerGroupHeartbeat,
] as ApiDefinition[];

const BY_KEY = new Map<number, ApiDefinition>(APIS.map((a) => [a.key, a]));

export function apiByKey(key: number): ApiDefinition | undefined {
  return BY_KEY.get(key);
}
