/**
 * errors.<NAME>: errors by Kafka's name as producers and consumers saw them — each retry of a batch
 * (send.retry), each record of a batch that failed for good (send.fail), each error a consumer application saw
 * (consumer.error), each fatal error of a transactional producer (producer.fenced).
 * `errors.NOT_ENOUGH_REPLICAS > 0` is how a scenario expects a rejection.
 */
import { FIGURE, type CheckDefinition } from './check';
import { ERROR_CHECK_PREFIX } from './names';
import { result } from './report';

export const errors: CheckDefinition = {
  id: 'errors',
  source: FIGURE,
  make: () => {
    const byName = new Map<string, number>();
    const add = (name: string, n: number) => byName.set(name, (byName.get(name) ?? 0) + n);
    return {
      handlers: {
        'send.retry': (e) => add(e.error, 1),
        'send.fail': (e) => add(e.error, e.values.length),
        'consumer.error': (e) => add(e.error, 1),
        'producer.fenced': (e) => add(e.error, 1),
      },
      report: (out) => {
        for (const [name, n] of [...byName].sort()) out[`${ERROR_CHECK_PREFIX}${name}`] = result(n);
      },
    };
  },
};
