/**
 * `uniform`, the default server assignor (the first of group.consumer.assignors): balanced and sticky, by the
 * homogeneous builder when all members subscribe to the same topics, else the heterogeneous one.
 * [group-coordinator/.../assignor/UniformAssignor.java]
 */
import type { ServerAssignor } from './groupSpec';
import { assignUniformHeterogeneous } from './uniformHeterogeneousAssignmentBuilder';
import { assignUniformHomogeneous } from './uniformHomogeneousAssignmentBuilder';

export const UNIFORM_ASSIGNOR: ServerAssignor = {
  name: 'uniform',
  assign(group, topics) {
    if (group.members.size === 0) return new Map();
    return group.subscriptionType === 'HOMOGENEOUS' ? assignUniformHomogeneous(group, topics) : assignUniformHeterogeneous(group, topics);
  },
};
