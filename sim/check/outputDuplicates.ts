/**
 * output-duplicates: input records of a consume-transform-produce application whose derived record appears more
 * than once in the committed output (the final log as a read_committed reader sees it: writes of aborted or
 * unfinished transactions left out). Exactly-once means each input's effect appears once; at-least-once
 * writes an input's output again when the input is read again after a crash or a failed commit.
 *
 * output-lost: inputs the application's group committed past (its final committed offset on the input partition,
 * plain or transactional) whose output is not in the committed output at all: consumed and acknowledged as done,
 * yet without effect (offsets committed before the outputs were written). Inputs below the first offset the group
 * transformed on a partition (it started later, auto.offset.reset=latest) and inputs of aborted transactions (a
 * read_committed application never sees them) are owed nothing. output-not-once adds the two: the inputs whose
 * effect is not exactly once, what the explore property exactly-once asks to be 0. Each comes with its story
 * (outputEffectStory.ts), as a lost write does.
 */
import type { Handlers } from '../core/trace';
import type { CheckDefinition } from './check';
import { IntColumn } from './history/columns';
import { OutputEffectEvents } from './outputEffectStory';
import { result } from './report';

/** Stories told per check, as for lost writes. */
const MAX_STORIES = 5;

/** Both handler tables on one: a kind both fold runs `a`'s, then `b`'s. */
function both(a: Handlers, b: Handlers): Handlers {
  const out: Record<string, (e: never) => void> = { ...(b as Record<string, (e: never) => void>) };
  for (const [k, f] of Object.entries(a as Record<string, (e: never) => void>)) {
    const g = out[k];
    out[k] = g ? (e: never) => (f(e), g(e)) : f;
  }
  return out as Handlers;
}

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
    /** Consumer node -> its group (from its polls). */
    const groupOf = new Map<string, string>();
    /** Group -> input partition (tp id) -> the first offset it transformed there. */
    const firstTransformed = new Map<string, Map<number, number>>();
    /** Group -> partition (tp id) -> its latest committed offset. */
    const committedOf = new Map<string, Map<number, number>>();
    const commit = (group: string, offsets: readonly { topic: string; partition: number; offset: number }[]): void => {
      let m = committedOf.get(group);
      if (!m) committedOf.set(group, (m = new Map()));
      for (const o of offsets) m.set(h.tps.id(o.topic, o.partition), o.offset);
    };
    /** Inputs the group committed past, in the final input logs: value id -> where it was, and the group. */
    const owed = new Map<number, string>();
    const owedGroup = new Map<number, string>();
    const stories = new OutputEffectEvents(h, groupOf);
    return {
      handlers: both(stories.handlers, {
        'consumer.poll': (e) => {
          if (e.group !== null && !groupOf.has(e.node)) groupOf.set(e.node, e.group);
        },
        'consumer.transform': (e) => {
          if (e.input === null) return;
          inputOf.set(h.values.id(e.output), h.values.id(e.input));
          outputTopics.add(h.tps.topic(h.tps.id(e.outputTopic, 0)));
          outputs++;
          const group = groupOf.get(e.node);
          if (group === undefined) return;
          let m = firstTransformed.get(group);
          if (!m) firstTransformed.set(group, (m = new Map()));
          const tp = h.tps.id(e.topic, e.partition);
          const first = m.get(tp);
          if (first === undefined || e.offset < first) m.set(tp, e.offset);
        },
        'group.offset.commit': (e) => {
          if (e.error === 'NONE') commit(e.group, e.offsets);
        },
        'group.offset.txn': (e) => {
          if (e.result === 'commit') commit(e.group, e.offsets);
        },
        'final.partition': () => {
          if (outputs === 0) return;
          const { final, offsets, values } = h.finals.current!;
          for (const [group, first] of firstTransformed) {
            const from = first.get(final.tp);
            const to = committedOf.get(group)?.get(final.tp);
            if (from === undefined || to === undefined) continue;
            for (let i = 0; i < values.length; i++) {
              const v = values[i]!;
              const o = offsets[i]!;
              if (v < 0 || o < from || o >= to || h.transactions.isUncommitted(v)) continue;
              if (!owed.has(v)) {
                owed.set(v, `${h.where(final.tp)}@${o}`);
                owedGroup.set(v, group);
              }
            }
          }
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
      }),
      report: (out) => {
        const dup = [...times].filter(([, n]) => n > 1).map(([u]) => u).sort((a, b) => a - b);
        out['output-duplicates'] = result(
          dup.length,
          dup.slice(0, 5).map((u) => `the output of ${h.value(u)} is in the committed output ${times.get(u)} times (${where.get(u)!.join(', ')})`),
          { values: dup.map((u) => h.value(u)), stories: dup.slice(0, MAX_STORIES).map((u) => stories.duplicateStory(u, where.get(u)!)) },
        );
        const lost = [...owed.keys()].filter((u) => !times.has(u)).sort((a, b) => a - b);
        out['output-lost'] = result(
          lost.length,
          lost.slice(0, 5).map((u) => `${h.value(u)} (${owed.get(u)}) is below its group's committed offset, but no output of it is in the committed output`),
          { values: lost.map((u) => h.value(u)), stories: lost.slice(0, MAX_STORIES).map((u) => stories.lostStory(u, owed.get(u)!, owedGroup.get(u)!)) },
        );
        // Its stories line up with its values: the duplicates' first, then the losses'.
        const d = out['output-duplicates']!;
        const l = out['output-lost']!;
        const storied = [...dup.slice(0, MAX_STORIES), ...lost.slice(0, MAX_STORIES)];
        out['output-not-once'] = result(
          dup.length + lost.length,
          [...d.examples, ...l.examples].slice(0, 5),
          storied.length === 0 ? {} : { values: storied.map((u) => h.value(u)), stories: [...d.stories!, ...l.stories!] },
        );
      },
    };
  },
};
