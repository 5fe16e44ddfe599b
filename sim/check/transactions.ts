/**
 * transactions.committed / transactions.aborted: transactions the coordinator confirmed (EndTxn answered);
 * transactions.fenced: transactional producer instances fenced — a newer instance with the same
 * transactional.id bumped the epoch, or the coordinator's timeout abort did (PRODUCER_FENCED,
 * INVALID_PRODUCER_EPOCH). Other fatal errors of a transactional producer count under errors.<NAME>.
 * What transactions cost: transactions.batches-per-transaction (acknowledged batches of transactional producers
 * per transaction they ended: each commit flushes, so a transaction takes at least one batch per partition it
 * wrote) and transactions.markers (the COMMIT/ABORT markers coordinators had written: one per partition of every
 * decided transaction, each an offset in the log and a replicated write), and
 * transactions.requests-per-transaction (the transaction-protocol requests clients sent per transaction they
 * ended — AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn, retries included: under
 * transaction.version 2 a producer sends only its EndTxn, the leaders add their partitions, KIP-890 part 2).
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const transactions: CheckDefinition = {
  id: 'transactions',
  source: FIGURE,
  make: (h) => {
    const fenced: string[] = [];
    const transactional = new Set<string>();
    let markers = 0;
    let requests = 0;
    return {
      handlers: {
        'producer.txn': (e) => {
          requests += e.requests;
        },
        'producer.id': (e) => {
          if (e.transactionalId !== undefined) transactional.add(e.node);
        },
        'txn.markers': (e) => {
          markers += e.partitions.length;
        },
        'producer.fenced': (e) => {
          if (e.error === 'PRODUCER_FENCED' || e.error === 'INVALID_PRODUCER_EPOCH') fenced.push(`${e.node} (${e.error} on ${e.request}) was fenced at ${h.at(e.t)}`);
        },
      },
      report: (out) => {
        out['transactions.committed'] = result(h.transactions.committedCount);
        out['transactions.aborted'] = result(h.transactions.abortedCount);
        out['transactions.fenced'] = result(fenced.length, fenced.slice(0, 5));
        let batches = 0;
        let records = 0;
        for (const p of transactional) {
          const b = h.sends.batchesOf.get(p);
          batches += b?.batches ?? 0;
          records += b?.records ?? 0;
        }
        const ended = h.transactions.committedCount + h.transactions.abortedCount;
        const perTxn = ended === 0 ? 0 : Math.round((batches / ended) * 100) / 100;
        out['transactions.batches-per-transaction'] = result(perTxn, ended === 0 ? [] : [`${batches} batches (${records} records) in ${ended} transactions`]);
        out['transactions.markers'] = result(markers, ended === 0 ? [] : [`${markers} markers for ${ended} transactions`]);
        const requestsPerTxn = ended === 0 ? 0 : Math.round((requests / ended) * 100) / 100;
        out['transactions.requests-per-transaction'] = result(requestsPerTxn, ended === 0 ? [] : [`${requests} requests for ${ended} transactions`]);
      },
    };
  },
};
