/**
 * group.idle-members: members owning no partition at the end, in the group with the most of them (more members
 * than partitions leave some idle). Each live member's last reported assignment counts.
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const idleMembers: CheckDefinition = {
  id: 'idleMembers',
  source: FIGURE,
  make: () => {
    /** group -> member -> partitions it owns. */
    const owned = new Map<string, Map<string, number>>();
    const gone = (procs: readonly string[]) => {
      for (const g of owned.values()) for (const p of procs) g.delete(p);
    };
    return {
      handlers: {
        'consumer.assignment': (e) => {
          if (!e.group) return;
          let g = owned.get(e.group);
          if (!g) owned.set(e.group, (g = new Map()));
          g.set(e.node, e.owned.length);
        },
        'host.crash': (e) => gone(e.processes),
        'host.power-off': (e) => gone(e.processes),
        'consumer.close': (e) => gone([e.node]),
        'process.exit': (e) => gone([e.process]),
      },
      report: (out) => {
        let idle = 0;
        const examples: string[] = [];
        for (const [group, members] of owned) {
          const none = [...members].filter(([, n]) => n === 0).map(([m]) => m);
          if (none.length > idle) idle = none.length;
          if (none.length > 0) examples.push(`${none.join(', ')} own nothing in group ${group}`);
        }
        out['group.idle-members'] = result(idle, examples);
      },
    };
  },
};
