/**
 * elected-outside-isr: leaders elected from outside the ISR — an unclean election
 * (unclean.leader.election.enable), or the last-known-leader rule of KIP-966's ELR [PartitionChangeBuilder
 * electLeader]. Either may lose acknowledged records. Only a simulator can see this: it reads the controller's
 * committed decisions.
 */
import { SIMULATOR_ONLY, type CheckDefinition } from './check';
import { result } from './report';

export const electedOutsideIsr: CheckDefinition = {
  id: 'electedOutsideIsr',
  source: SIMULATOR_ONLY,
  make: (h) => {
    let count = 0;
    const examples: string[] = [];
    return {
      handlers: {
        'controller.election': (e) => {
          if (e.source !== 'UNCLEAN' && e.source !== 'LAST_KNOWN_LEADER') return;
          count++;
          if (examples.length < 5) {
            examples.push(`broker ${e.leader} became leader of ${h.where(h.tps.id(e.topic, e.partition))} at ${h.at(e.t)} by ${e.source === 'UNCLEAN' ? 'unclean election' : 'the last-known-leader rule'}`);
          }
        },
      },
      report: (out) => {
        out['elected-outside-isr'] = result(count, examples);
      },
    };
  },
};
