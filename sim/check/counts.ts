/**
 * Plain counts a scenario may expect on: records delivered to consumers (records-read), partition leader
 * elections, changes of the active controller, consumer group rebalances, records moved to a dead-letter topic.
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const counts: CheckDefinition = {
  id: 'counts',
  source: FIGURE,
  make: (h) => {
    let elections = 0;
    let controllers = 0;
    let rebalances = 0;
    let deadLettered = 0;
    return {
      handlers: {
        'controller.election': () => {
          elections++;
        },
        'controller.active': () => {
          controllers++;
        },
        'group.rebalance': () => {
          rebalances++;
        },
        // A consumer group's epoch bump with members is its rebalance (groupFigures.ts).
        'group.consumer.epoch': (e) => {
          if (e.members > 0) rebalances++;
        },
        'consumer.dead-letter': (e) => {
          if (e.ok) deadLettered++;
        },
      },
      report: (out) => {
        out['records-read'] = result(h.reads.recordsRead);
        out.elections = result(elections);
        out['controller-elections'] = result(controllers);
        out.rebalances = result(rebalances);
        out['dead-lettered'] = result(deadLettered);
      },
    };
  },
};
