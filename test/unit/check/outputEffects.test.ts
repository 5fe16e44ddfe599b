import { describe, expect, it } from 'vitest';
import { runCheckers } from '../../../sim/check/checkers';
import type { TraceEvent } from '../../../sim/core/trace';
import { exactlyOnce } from '../../../sim/explore/properties/exactlyOnce';

// The effects of a consume-transform-produce application on hand-written traces: an input's output twice
// (output-duplicates), an input committed past without its output (output-lost), and both (output-not-once).
let seq = 0;
const ev = (t: number, kind: string, node: string, fields: Record<string, unknown>) => ({ t, seq: seq++, kind, node, ...fields }) as unknown as TraceEvent;
const invoke = (t: number, node: string, topic: string, value: string) => ev(t, 'send.invoke', node, { topic, partition: 0, key: null, value });
const ok = (t: number, node: string, topic: string, offset: number, value: string) => ev(t, 'send.ok', node, { topic, partition: 0, offset, values: [value], broker: 1, acks: 'all' });
const poll = (t: number, offsets: number[], values: string[]) =>
  ev(t, 'consumer.poll', 'app', { group: 'g', memberId: 'm', generation: 1, count: offsets.length, records: [{ topic: 'in', partition: 0, offsets, values, keys: offsets.map(() => null) }] });
const transform = (t: number, offset: number, input: string, output: string) => ev(t, 'consumer.transform', 'app', { topic: 'in', partition: 0, offset, input, output, outputTopic: 'out' });
const committed = (t: number, offset: number) => ev(t, 'group.offset.commit', 'broker-1', { group: 'g', memberId: 'm', generation: 1, offsets: [{ topic: 'in', partition: 0, offset }], error: 'NONE' });
const final = (t: number, topic: string, values: string[]) =>
  ev(t, 'final.partition', 'runner', {
    topic, partition: 0, leader: 1, leaderEpoch: 1, replicas: [1], highWatermark: values.length, logStartOffset: 0, logEndOffset: values.length, compacted: false, offline: false,
    isr: [1], elr: [], offsets: values.map((_, i) => i), keys: values.map(() => null), values,
  });

/** p writes p:0, p:1, p:2 to in-0 (offsets 0-2); the app polls all three. */
function inputs(): TraceEvent[] {
  return [invoke(1, 'p', 'in', 'p:0'), ok(2, 'p', 'in', 0, 'p:0'), invoke(1, 'p', 'in', 'p:1'), ok(2, 'p', 'in', 1, 'p:1'), invoke(1, 'p', 'in', 'p:2'), ok(2, 'p', 'in', 2, 'p:2'), poll(3, [0, 1, 2], ['p:0', 'p:1', 'p:2'])];
}

/** The app transforms the inputs at `offsets` and writes the outputs listed in `written` (by input offset). */
function app(offsets: number[], written: number[]): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const o of offsets) out.push(transform(4, o, `p:${o}`, `app:${o}`));
  written.forEach((o, i) => out.push(invoke(5, 'app', 'out', `app:${o}`), ok(6, 'app', 'out', i, `app:${o}`)));
  return out;
}

const figures = (r: ReturnType<typeof runCheckers>) => [r['output-duplicates']!.count, r['output-lost']!.count, r['output-not-once']!.count];

describe('the effects of a consume-transform-produce application', () => {
  it('an input its group committed past with no output in the committed output is lost (offsets committed before the output was written)', () => {
    const r = runCheckers([...inputs(), ...app([0, 1, 2], [0, 2]), committed(7, 3), final(9, 'in', ['p:0', 'p:1', 'p:2']), final(9, 'out', ['app:0', 'app:2'])]);
    expect(figures(r)).toEqual([0, 1, 1]);
    expect(r['output-lost']!.examples[0]).toContain('p:1');
    expect(r['output-lost']!.examples[0]).toContain('in-0@1');
  });

  it('an input at or past the committed offset is owed nothing yet: it will be read again', () => {
    const r = runCheckers([...inputs(), ...app([0, 1, 2], [0]), committed(7, 1), final(9, 'in', ['p:0', 'p:1', 'p:2']), final(9, 'out', ['app:0'])]);
    expect(figures(r)).toEqual([0, 0, 0]);
  });

  it('inputs below the first offset the group transformed are not its (it started later)', () => {
    const r = runCheckers([...inputs(), ...app([1, 2], [1, 2]), committed(7, 3), final(9, 'in', ['p:0', 'p:1', 'p:2']), final(9, 'out', ['app:1', 'app:2'])]);
    expect(figures(r)).toEqual([0, 0, 0]);
  });

  it('a duplicate and a loss together: output-not-once counts both', () => {
    const events = [...inputs(), ...app([0, 1, 2], [0, 2]), transform(7, 0, 'p:0', 'app:0b'), invoke(7, 'app', 'out', 'app:0b'), ok(8, 'app', 'out', 2, 'app:0b'), committed(8, 3)];
    const r = runCheckers([...events, final(9, 'in', ['p:0', 'p:1', 'p:2']), final(9, 'out', ['app:0', 'app:2', 'app:0b'])]);
    expect(figures(r)).toEqual([1, 1, 2]);
  });

  it('a transactional commit of the offsets counts once its marker made it committed', () => {
    const txnCommit = (result: string) => ev(7, 'group.offset.txn', 'broker-1', { group: 'g', producerId: 3, result, offsets: [{ topic: 'in', partition: 0, offset: 3 }], error: 'NONE' });
    const base = [...inputs(), ...app([0, 1, 2], [0, 2])];
    expect(figures(runCheckers([...base, txnCommit('pending'), final(9, 'in', ['p:0', 'p:1', 'p:2']), final(9, 'out', ['app:0', 'app:2'])]))).toEqual([0, 0, 0]);
    expect(figures(runCheckers([...base, txnCommit('commit'), final(9, 'in', ['p:0', 'p:1', 'p:2']), final(9, 'out', ['app:0', 'app:2'])]))).toEqual([0, 1, 1]);
  });

  it('the explore property exactly-once is broken by a lost effect alone, and says so in the expectation it writes', () => {
    const checks = runCheckers([...inputs(), ...app([0, 1, 2], [0, 2]), committed(7, 3), final(9, 'in', ['p:0', 'p:1', 'p:2']), final(9, 'out', ['app:0', 'app:2'])]);
    const v = exactlyOnce.evaluate({ trace: [], checks }, {});
    expect([v.ok, v.count]).toEqual([false, 1]);
    expect(v.examples[0]).toContain('p:1');
    expect(exactlyOnce.expectation({})).toMatchObject({ check: 'output-not-once', op: '=', value: 0 });
  });
});

describe('the story of an effect that is not exactly once', () => {
  const poll2 = (t: number) => ev(t, 'consumer.poll', 'app', { group: 'g', memberId: 'm', generation: 1, count: 0, records: [] });

  it('a duplicate: both reads, each output with its offset and "outside any transaction", the crash before any commit', () => {
    const events = [
      ...inputs(),
      poll2(3),
      ...app([0, 1, 2], [0, 1, 2]),
      ev(6.5, 'host.crash', 'app', { processes: ['app', 'app-producer'] }),
      transform(7, 0, 'p:0', 'app:0b'),
      invoke(7, 'app', 'out', 'app:0b'),
      ok(8, 'app', 'out', 3, 'app:0b'),
      committed(8, 3),
    ];
    const r = runCheckers([...events, final(9, 'in', ['p:0', 'p:1', 'p:2']), final(9, 'out', ['app:0', 'app:1', 'app:2', 'app:0b'])]);
    const story = r['output-duplicates']!.stories![0]!;
    expect(story[0]).toBe('Input p:0 (in-0@0) has 2 outputs in the committed output: out-0@0, out-0@3.');
    expect(story.filter((l) => l.startsWith('app read it'))).toHaveLength(2);
    expect(story.some((l) => l.includes('app:0 (out-0@0)') && l.includes('outside any transaction'))).toBe(true);
    expect(story.some((l) => l.includes('app:0b (out-0@3)'))).toBe(true);
    expect(story.some((l) => l.startsWith('app crashed at'))).toBe(true);
    expect(story.some((l) => l.includes('no offset of in-0 was committed: the instance that read it next started from the beginning'))).toBe(true);
    // output-not-once tells the same story for the same input.
    expect(r['output-not-once']!.values).toEqual(['p:0']);
    expect(r['output-not-once']!.stories![0]).toEqual(story);
  });

  it('a lost effect: the output was in a transaction that aborted, and the group committed past the input outside it', () => {
    const events = [
      ...inputs(),
      poll2(3),
      ...app([0, 1, 2], [0, 1, 2]),
      ev(6, 'producer.txn', 'app-producer', { transactionalId: 'app-1', result: 'abort', producerId: 9, producerEpoch: 4, values: ['app:1'], requests: 1 }),
      committed(7, 3),
    ];
    const r = runCheckers([...events, final(9, 'in', ['p:0', 'p:1', 'p:2']), final(9, 'out', ['app:0', 'app:2'])]);
    const story = r['output-lost']!.stories![0]!;
    expect(story[0]).toBe('Input p:1 (in-0@1) has no output in the committed output, yet group g committed past it.');
    expect(story.some((l) => l.includes('transaction app-1 (producer 9, epoch 4), aborted'))).toBe(true);
    expect(story[story.length - 1]).toContain('committed in-0 up to offset 3');
    expect(story[story.length - 1]).toContain('outside any transaction');
  });
});
