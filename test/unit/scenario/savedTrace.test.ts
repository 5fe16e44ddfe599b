import { describe, expect, it } from 'vitest';
import { JsonlSink, ofKind, TraceFormatError } from '../../../sim/core/trace';
import { runScenario } from '../../../sim/scenario/runner';
import { checkSavedTrace, readTrace } from '../../../sim/scenario/savedTrace';
import { TRACE_SCHEMA } from '../../../sim/scenario/traceKinds';
import { validateScenario } from '../../../sim/scenario/validate';

/** A short run with a crash, a group and the message-level detail, as saved JSON Lines. */
function fixture(): { text: string; hash: string; checks: unknown } {
  const spec = validateScenario({
    id: 'fixture',
    duration: '4s',
    quiet: '2s',
    trace: 'full',
    topics: [{ name: 't', partitions: 2, replicationFactor: 3 }],
    producers: [{ id: 'p1', workload: { topic: 't', rate: 40, keys: { kind: 'uniform', count: 5 } } }],
    consumers: [{ id: 'c1', group: 'g', topics: ['t'] }],
    faults: [{ at: '1s', fault: 'crash', targets: ['broker-1'], duration: '1s' }],
  });
  let text = '';
  const r = runScenario(spec, { keepEvents: false, sinks: [new JsonlSink((l) => (text += l))] });
  return { text, hash: r.traceHash, checks: r.checks };
}

describe('a saved trace, validated against the schema', () => {
  const { text, hash, checks } = fixture();
  const lines = text.trimEnd().split('\n');

  it('checks like the run that wrote it, every event of it valid', () => {
    const c = checkSavedTrace(text);
    expect(c.hash).toBe(hash);
    expect(c.checks).toEqual(checks);
    expect(c.expectations).toEqual([]);
    // The fixture exercises many kinds, every one of them declared.
    const kinds = new Set(c.events.map((e) => e.kind));
    expect(kinds.size).toBeGreaterThan(25);
    for (const k of kinds) expect(Object.hasOwn(TRACE_SCHEMA, k)).toBe(true);
  });

  it('rejects a field renamed in one event, naming the line and the field', () => {
    const at = lines.findIndex((l) => l.includes('"kind":"replica.append"'));
    const renamed = [...lines];
    renamed[at] = renamed[at]!.replace('"base":', '"baseOffset":');
    expect(() => readTrace(renamed.join('\n'))).toThrow(new TraceFormatError(`line ${at + 1} (replica.append): field "base" is missing (a number)`));
    renamed[at] = lines[at]!.replace(/"epoch":\d+/, '"epoch":"7"');
    expect(() => readTrace(renamed.join('\n'))).toThrow(`line ${at + 1} (replica.append): field "epoch" must be a number, got "7"`);
    const poll = lines.findIndex((l) => l.includes('"kind":"consumer.poll"'));
    const nested = [...lines];
    nested[poll] = nested[poll]!.replace('"offsets":[', '"offsets":["x",');
    expect(() => readTrace(nested.join('\n'))).toThrow(`line ${poll + 1} (consumer.poll): field "records[0].offsets[0]" must be a number, got "x"`);
  });

  it('refuses a header whose scenario this build cannot check', () => {
    const header = JSON.parse(lines[0]!);
    header.config.spec.expect = [{ check: 'lost-write', op: '~', value: 0 }];
    expect(() => checkSavedTrace([JSON.stringify(header), ...lines.slice(1)].join('\n'))).toThrow(/^line 1 \(header\): config\.spec is not a scenario this build can check: expect\[0\]\.op/);
  });

  it('gives readers typed events: a field the schema does not declare does not compile', () => {
    const ok = ofKind(readTrace(text).events, 'send.ok')[0]!;
    expect(ok.values.length).toBeGreaterThan(0);
    // @ts-expect-error send.ok has "values", not "vals": renaming a field in a schema breaks every reader of it
    expect(ok.vals).toBeUndefined();
  });
});
