/**
 * commit-backwards: a group's committed offset for a partition moved backwards (a zombie's late commit, a
 * rebalance that re-processed and re-committed). Only a simulator can see this across every member at once.
 */
import { SIMULATOR_ONLY, type CheckDefinition } from './check';
import { result } from './report';

export const commitBackwards: CheckDefinition = {
  id: 'commitBackwards',
  source: SIMULATOR_ONLY,
  make: (h) => {
    /** group -> partition -> committed offset. */
    const committed = new Map<string, Map<number, number>>();
    let count = 0;
    const examples: string[] = [];
    return {
      handlers: {
        'consumer.commit': (e) => {
          if (!e.ok) return;
          let mine = committed.get(e.group);
          if (!mine) committed.set(e.group, (mine = new Map()));
          for (const o of e.offsets) {
            const tp = h.tps.id(o.topic, o.partition);
            const prev = mine.get(tp);
            if (prev !== undefined && o.offset < prev) {
              count++;
              if (examples.length < 5) examples.push(`group ${e.group} committed ${h.where(tp)} offset ${o.offset} after ${prev} (${h.at(e.t)})`);
            }
            mine.set(tp, o.offset);
          }
        },
      },
      report: (out) => {
        out['commit-backwards'] = result(count, examples);
      },
    };
  },
};
