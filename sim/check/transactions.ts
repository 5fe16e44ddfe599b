/**
 * transactions.committed / transactions.aborted: transactions the coordinator confirmed (EndTxn answered);
 * transactions.fenced: transactional producer instances fenced — a newer instance with the same
 * transactional.id bumped the epoch, or the coordinator's timeout abort did (PRODUCER_FENCED,
 * INVALID_PRODUCER_EPOCH). Other fatal errors of a transactional producer count under errors.<NAME>.
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const transactions: CheckDefinition = {
  id: 'transactions',
  source: FIGURE,
  make: (h) => {
    const fenced: string[] = [];
    return {
      handlers: {
        'producer.fenced': (e) => {
          if (e.error === 'PRODUCER_FENCED' || e.error === 'INVALID_PRODUCER_EPOCH') fenced.push(`${e.node} (${e.error} on ${e.request}) was fenced at ${h.at(e.t)}`);
        },
      },
      report: (out) => {
        out['transactions.committed'] = result(h.transactions.committedCount);
        out['transactions.aborted'] = result(h.transactions.abortedCount);
        out['transactions.fenced'] = result(fenced.length, fenced.slice(0, 5));
      },
    };
  },
};
