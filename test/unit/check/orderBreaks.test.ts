import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReportOut } from '../../../sim/check/check';
import { History } from '../../../sim/check/history/history';
import { orderBreaks, OutOffsets } from '../../../sim/check/orderBreaks';
import { result } from '../../../sim/check/report';
import { NumberedListBuilder, type TraceNumbers } from '../../../sim/core/numberedText';

// share.order-breaks and group.order-breaks from hand-written events, each answer worked out in the comments.

type Handler = (e: Record<string, unknown>) => void;

/** Folds the events; with `numbered`, each poll comes with its keys' numbers beside it, as a run hands them along. */
function fold(events: readonly Record<string, unknown>[], numbered = false): ReportOut {
  const h = new History();
  const check = orderBreaks.make(h, { figures: [] });
  const handlers = check.handlers as unknown as Record<string, Handler>;
  for (const e of events) {
    h.numbers.value = numbered && e.kind === 'consumer.poll' ? keyNumbers(e) : undefined;
    handlers[e.kind as string]?.(e);
  }
  const out: ReportOut = {};
  check.report(out);
  return out;
}

const sharePoll = (seq: number, offsets: number[], keys: (string | null)[]) => ({
  kind: 'share.poll',
  seq,
  group: 's',
  records: [{ topic: 't', partition: 0, offsets, keys }],
});
const shareAck = (offsets: number[], type = 'ACCEPT') => ({ kind: 'share.ack', group: 's', topic: 't', partition: 0, offsets, type });
const groupPoll = (seq: number, partition: number, offsets: number[], keys: (string | null)[]) => ({
  kind: 'consumer.poll',
  seq,
  group: 'g',
  records: [{ topic: 't', partition, offsets, keys }],
});
/** A poll's numbers as the consumer hands them: each partition's values (none here), then each one's keys. */
function keyNumbers(e: Record<string, unknown>): TraceNumbers {
  const records = e.records as { keys: (string | null)[] }[];
  const keys = records.map((r) => {
    const b = new NumberedListBuilder();
    for (const k of r.keys) b.add(k === null ? null : k.replace(/\d+$/, ''), k === null ? -1 : Number(/\d+$/.exec(k)?.[0] ?? -1));
    return b.finish();
  });
  return [...records.map(() => undefined), ...keys];
}
const processed = (partition: number, offsets: number[]) => ({ kind: 'consumer.processed', topic: 't', partition, offsets });

describe('order breaks', () => {
  it('a share group: a record handed out beside an earlier one of its key, and a released one coming back late', () => {
    const out = fold([
      sharePoll(1, [0], ['a']),
      // Offset 1 (key a) goes to another poll while offset 0 is still out: one break. Offset 2 (key b) is alone.
      sharePoll(2, [1, 2], ['a', 'b']),
      shareAck([1]),
      shareAck([0], 'RENEW'), // RENEW keeps offset 0 out
      shareAck([0], 'RELEASE'),
      // Offset 0 comes back after offset 1 of its key was finished: a second break.
      sharePoll(3, [0], ['a']),
    ]);
    expect(out['share.order-breaks']!.count).toBe(2);
    expect(out['share.order-breaks']!.examples).toEqual([
      's t-0: key a offset 1 was handed out while offset 0 of the same key was still out',
      's t-0: key a offset 0 was handed out after offset 1 of the same key was finished',
    ]);
    expect(out['group.order-breaks']!.count).toBe(0);
  });

  it('a consumer group: in order on one member is no break; a re-read after processing, and a partition of its own', () => {
    const out = fold([
      // One poll's records of one key run in order on the member that polled them.
      groupPoll(1, 0, [0, 1, 2], ['a', 'a', null]),
      processed(0, [0, 1, 2]),
      processed(0, [0, 1]), // finished twice: nothing more
      groupPoll(2, 0, [3], ['a']),
      // Partition 1's offset 0 is another record: its key's state is its own.
      groupPoll(3, 1, [0], ['a']),
      processed(1, [0]),
      // Offset 3 still out with poll 2; offset 4 of key a handed to poll 4: they run side by side.
      groupPoll(4, 0, [4], ['a']),
      processed(0, [3, 4]),
      // Offset 1 handed out again (a rewind) after offset 4 of its key was finished.
      groupPoll(5, 0, [1], ['a']),
    ]);
    expect(out['group.order-breaks']!.count).toBe(2);
    expect(out['group.order-breaks']!.examples).toEqual([
      'g t-0: key a offset 4 was handed out while offset 3 of the same key was still out',
      'g t-0: key a offset 1 was handed out after offset 4 of the same key was finished',
    ]);
    expect(out['share.order-breaks']!.count).toBe(0);
  });

  it('several records of a key out at once, finished out of order; the keys\' numbers give what their texts give', () => {
    const events = [
      groupPoll(1, 0, [0, 1], ['k7', 'k7']),
      // Offset 2 of k7 goes to poll 2 while 0 and 1 are out: one break; k8 is alone, k10 (a key with a number of its own) too.
      groupPoll(2, 0, [2, 3, 4], ['k7', 'k8', 'k10']),
      processed(0, [1]),
      // Offset 1 is finished, offset 0 still out with poll 1: offset 5 of k7, handed to poll 3, breaks again.
      groupPoll(3, 0, [5], ['k7']),
      processed(0, [0, 2, 5, 3, 4]),
      // Every k7 offset is finished up to 5; a rewind to offset 1 runs after it.
      groupPoll(4, 0, [1], ['k7']),
      // The same key on another partition keeps its own state: no break.
      groupPoll(5, 1, [0], ['k7']),
    ];
    const out = fold(events);
    expect(out['group.order-breaks']!.count).toBe(3);
    expect(out['group.order-breaks']!.examples).toEqual([
      'g t-0: key k7 offset 2 was handed out while offset 0 of the same key was still out',
      'g t-0: key k7 offset 5 was handed out while offset 0 of the same key was still out',
      'g t-0: key k7 offset 1 was handed out after offset 5 of the same key was finished',
    ]);
    expect(fold(events, true)).toEqual(out);
  });

  it('the offsets out: a window that follows them, grows to span them, and keeps far ones aside, like a map', () => {
    const out = new OutOffsets();
    const model = new Map<number, number>();
    const set = (o: number, k: number) => (out.set(o, k), model.set(o, k));
    const del = (o: number) => (out.delete(o), model.delete(o));
    // Offsets handed out and finished in order, far past the first window; one stays out all along.
    set(5, 1);
    for (let o = 6; o < 500; o++) {
      set(o, o % 7);
      if (o % 3 === 0) del(o - 1);
    }
    // One far beyond any window, one before the window; offset 400 given another key.
    set(5_000_000, 9);
    set(2, 3);
    set(400, 8);
    del(5_000_000);
    set(5_000_001, 4);
    for (const o of [2, 5, 6, 7, 8, 299, 400, 498, 499, 500, 5_000_000, 5_000_001, 1e12]) expect(out.get(o)).toBe(model.get(o) ?? -1);
    for (const o of model.keys()) del(o);
    expect([out.get(5), out.get(5_000_001)]).toEqual([-1, -1]);
    set(10, 0);
    expect([out.get(10), out.get(11)]).toEqual([0, -1]);
  });

  it('a partition read one poll at a time skips the key rows, and finds what the rule by its words finds', () => {
    // The rule by its words, with a list per partition of the offsets out (in the order handed out, with their
    // key and poll) and each key's highest finished offset.
    function byTheRule(events: readonly Record<string, unknown>[]): { count: number; examples: string[] } {
      const out = new Map<number, Map<number, { key: string; poll: number }>>();
      const maxFinished = new Map<string, number>();
      const examples: string[] = [];
      let count = 0;
      for (const e of events) {
        if (e.kind === 'consumer.poll') {
          const r = (e.records as { partition: number; offsets: number[]; keys: string[] }[])[0]!;
          const open = out.get(r.partition) ?? new Map<number, { key: string; poll: number }>();
          out.set(r.partition, open);
          r.offsets.forEach((o, i) => {
            const key = r.keys[i]!;
            const finished = maxFinished.get(`${r.partition}/${key}`) ?? -1;
            let why = finished > o ? `after offset ${finished} of the same key was finished` : null;
            for (const [earlier, x] of open) if (why === null && x.key === key && earlier < o && x.poll !== e.seq) why = `while offset ${earlier} of the same key was still out`;
            const was = open.get(o);
            if (was) was.poll = e.seq as number;
            else open.set(o, { key, poll: e.seq as number });
            if (why !== null) {
              count++;
              if (examples.length < 5) examples.push(`g t-${r.partition}: key ${key} offset ${o} was handed out ${why}`);
            }
          });
        } else {
          const open = out.get(e.partition as number);
          for (const o of e.offsets as number[]) {
            const x = open?.get(o);
            if (!x) continue;
            open!.delete(o);
            const k = `${e.partition}/${x.key}`;
            maxFinished.set(k, Math.max(maxFinished.get(k) ?? -1, o));
          }
        }
      }
      return { count, examples };
    }
    // One poll's records, all but the last finished; another poll re-reads offset 0 while offset 5 is still out.
    const rewound = [groupPoll(1, 0, [0, 1, 2, 3, 4, 5], ['a', 'b', 'c', 'd', 'a', 'b']), processed(0, [0, 1, 2, 3, 4]), groupPoll(2, 0, [0], ['a'])];
    expect(fold(rewound)['group.order-breaks']).toEqual(result(1, ['g t-0: key a offset 0 was handed out after offset 4 of the same key was finished']));
    expect(byTheRule(rewound)).toEqual({ count: 1, examples: fold(rewound)['group.order-breaks']!.examples });
    // Polls of two partitions, mostly the next offsets in order (sometimes a rewind, or a poll while the last one's
    // records are still out), and records processed mostly in order; an offset's key is fixed, 4 keys per partition.
    const step = fc.record({
      partition: fc.integer({ min: 0, max: 1 }),
      poll: fc.boolean(),
      samePoll: fc.integer({ min: 0, max: 3 }),
      rewind: fc.integer({ min: -6, max: 8 }),
      count: fc.integer({ min: 1, max: 4 }),
      finish: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 4 }),
      inOrder: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const next = [0, 0];
        let seq = 0;
        const events: Record<string, unknown>[] = [];
        const keyOf = (o: number) => `k${(o * 5) % 4}`;
        for (const s of steps) {
          if (s.poll) {
            if (s.samePoll !== 0 || seq === 0) seq++;
            const from = Math.max(0, next[s.partition]! - Math.max(0, s.rewind));
            const offsets = Array.from({ length: s.count }, (_, i) => from + i);
            next[s.partition] = Math.max(next[s.partition]!, from + s.count);
            events.push(groupPoll(seq, s.partition, offsets, offsets.map(keyOf)));
          } else {
            const upTo = next[s.partition]!;
            const offsets = s.inOrder ? Array.from({ length: upTo }, (_, i) => i) : s.finish.map((d) => Math.max(0, upTo - 1 - d));
            events.push(processed(s.partition, offsets));
          }
        }
        const out = fold(events);
        const expected = byTheRule(events);
        expect({ count: out['group.order-breaks']!.count, examples: out['group.order-breaks']!.examples }).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
