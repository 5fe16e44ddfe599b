/**
 * output-duplicates: input records of a consume-transform-produce application whose derived record appears more
 * than once in the committed output (the final log as a read_committed reader sees it: writes of aborted or
 * unfinished transactions left out). Exactly-once means each input's effect appears once; at-least-once
 * writes an input's output again when the input is read again after a crash or a failed commit.
 */
import type { CheckDefinition } from './check';
import { IntColumn } from './history/columns';
import { result } from './report';

export const outputDuplicates: CheckDefinition = {
  id: 'outputDuplicates',
  source: 'exactly-once (KIP-98, KIP-447): one effect per input',
  make: (h) => {
    /** Output value id -> its input's value id (-1: none). */
    const inputOf = new IntColumn();
    /** Output topics (topic ids) and how many outputs were written. */
    const outputTopics = new Set<number>();
    let outputs = 0;
    /** Input value id -> times its output is in the committed output. */
    const times = new Map<number, number>();
    /** Input value id -> the output offsets (for the examples). */
    const where = new Map<number, string[]>();
    return {
      handlers: {
        'consumer.transform': (e) => {
          if (e.input === null) return;
          inputOf.set(h.values.id(e.output), h.values.id(e.input));
          outputTopics.add(h.tps.topic(h.tps.id(e.outputTopic, 0)));
          outputs++;
        },
        'final.partition': () => {
          if (outputs === 0) return;
          const { final, offsets, values } = h.finals.current!;
          if (!outputTopics.has(h.tps.topic(final.tp))) return;
          for (let i = 0; i < values.length; i++) {
            const v = values[i]!;
            if (v < 0 || h.transactions.isUncommitted(v)) continue;
            const u = inputOf.get(v);
            if (u < 0) continue;
            times.set(u, (times.get(u) ?? 0) + 1);
            let list = where.get(u);
            if (!list) where.set(u, (list = []));
            if (list.length < 4) list.push(`${h.where(final.tp)}@${offsets[i]!}`);
          }
        },
      },
      report: (out) => {
        const dup = [...times].filter(([, n]) => n > 1).map(([u]) => u).sort((a, b) => a - b);
        out['output-duplicates'] = result(
          dup.length,
          dup.slice(0, 5).map((u) => `the output of ${h.value(u)} is in the committed output ${times.get(u)} times (${where.get(u)!.join(', ')})`),
          { values: dup.map((u) => h.value(u)) },
        );
      },
    };
  },
};
