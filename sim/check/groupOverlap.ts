/**
 * group-overlap: moments when two members of one group owned the same partition, counting ownership as the
 * coordinator grants it (partitionOwnership.ts): a member it removed may still believe it owns partitions (a
 * zombie, fenced on commit), which does not count. Only a simulator can see this: it reads every member's view
 * and the coordinator's at once.
 */
import { SIMULATOR_ONLY, type CheckDefinition } from './check';
import { PartitionOwnership } from './partitionOwnership';
import { result } from './report';

export const groupOverlap: CheckDefinition = {
  id: 'groupOverlap',
  source: SIMULATOR_ONLY,
  make: (h) => {
    const ownership = new PartitionOwnership();
    return {
      handlers: ownership.handlers,
      report: (out) => {
        const overlaps = ownership.report().violations.map((v) => `${v.partition} was owned by ${v.holder.node} and ${v.claimant.node} in group ${v.group} at ${h.at(v.t)}`);
        out['group-overlap'] = result(overlaps.length, overlaps);
      },
    };
  },
};
