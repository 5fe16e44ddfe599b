/**
 * How producers batched: produce.batches and produce.records-per-batch over all acknowledged batches, and
 * per producer (producer.records-per-batch.max/.min/.ratio, producer.batches.max/.min) so a scenario can show
 * linger.ms and batch.size at work, or one producer's small batches beside another's full ones.
 */
import { FIGURE, type CheckDefinition } from './check';
import { result } from './report';

export const batching: CheckDefinition = {
  id: 'batching',
  source: FIGURE,
  make: (h) => ({
    report: (out) => {
      let batches = 0;
      let records = 0;
      for (const b of h.sends.batchesOf.values()) {
        batches += b.batches;
        records += b.records;
      }
      out['produce.batches'] = result(batches);
      out['produce.records-per-batch'] = result(batches === 0 ? 0 : Math.round((records / batches) * 100) / 100);
      const rows = [...h.sends.batchesOf]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([producer, p]) => ({ producer, batches: p.batches, records: p.records, perBatch: Math.round((p.records / p.batches) * 100) / 100 }));
      const examples = rows.map((x) => `${x.producer}: ${x.records} records in ${x.batches} batches (${x.perBatch} per batch)`);
      const by = (f: (x: (typeof rows)[number]) => number, dir: 1 | -1) => [...rows].sort((a, b) => dir * (f(b) - f(a)))[0];
      const fullest = by((x) => x.perBatch, 1);
      const emptiest = by((x) => x.perBatch, -1);
      out['producer.records-per-batch.max'] = result(fullest?.perBatch ?? 0, examples);
      out['producer.records-per-batch.min'] = result(emptiest?.perBatch ?? 0, examples);
      out['producer.records-per-batch.ratio'] = result(fullest && emptiest ? Math.round((fullest.perBatch / emptiest.perBatch) * 100) / 100 : 0, examples);
      out['producer.batches.max'] = result(by((x) => x.batches, 1)?.batches ?? 0, examples);
      out['producer.batches.min'] = result(by((x) => x.batches, -1)?.batches ?? 0, examples);
    },
  }),
};
