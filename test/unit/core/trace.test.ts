import { describe, expect, it } from 'vitest';
import { fnv1a64 } from '../../../sim/core/hash';
import { Scheduler } from '../../../sim/core/scheduler';
import { FilterSink, JsonlSink, MemorySink, Trace, UNSTAMPED, fold, makeHeader, parseTrace, type EventIn, type TraceSink } from '../../../sim/core/trace';
import { defineKinds, list, nullable, num, obj, optional, str, type KindsOf } from '../../../sim/core/traceSchema';

/** This test's own kinds, as a schema (kept out of the simulator's registry). */
const TEST_KINDS = defineKinds({ 'test.ping': { n: num, note: optional(str) } });
type TestKinds = KindsOf<typeof TEST_KINDS>;
type TestEvent = EventIn<TestKinds>;

function fixedTrace(sinks: TraceSink<TestEvent>[] = []) {
  const s = new Scheduler();
  const trace = new Trace<TestKinds>(s, makeHeader('golden', 1, { brokers: 3 }), sinks);
  for (let i = 0; i < 5; i++) {
    s.at(i * 1000, () => trace.emit('test.ping', `node-${i % 2}`, { n: i, note: i === 3 ? 'é "quoted"' : 'plain' }));
  }
  s.runUntilIdle();
  return trace;
}

const HEADER = '{"format":"kafkasim-trace","version":1,"scenario":"golden","seed":1,"config":{}}';
const ping = (seq: number, fields: string) => `{"t":${seq * 10},"seq":${seq},"kind":"test.ping","node":"n"${fields}}`;

describe('Trace', () => {
  it('hashes FNV-1a 64 as the published vectors', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64('foobar')).toBe('85944171f73967e8');
  });

  it('gives a fixed event list its golden hash', () => {
    // Computed independently (Python's json + FNV-1a) from the canonical JSON Lines below; any change to the format must change it on purpose.
    expect(fixedTrace().hash()).toBe('ae44ccf3acfe85fc');
  });

  it('writes canonical JSON Lines: header, then t, seq, kind, node and the fields', () => {
    const lines: string[] = [];
    fixedTrace([new JsonlSink((l) => lines.push(l))]);
    expect(lines[0]).toBe('{"format":"kafkasim-trace","version":1,"scenario":"golden","seed":1,"config":{"brokers":3}}\n');
    expect(lines[1]).toBe('{"t":0,"seq":0,"kind":"test.ping","node":"node-0","n":0,"note":"plain"}\n');
    expect(lines).toHaveLength(6);
    // The hash is the hash of exactly these lines.
    expect(fnv1a64(lines.join(''))).toBe(fixedTrace().hash());
    const parsed = parseTrace(lines.join(''), TEST_KINDS);
    expect(parsed.header.scenario).toBe('golden');
    expect(parsed.events.map((e) => e.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('emitEvent stamps time and sequence into the emitter\'s literal and writes the line emit writes', () => {
    const lines = (use: 'emit' | 'emitEvent') => {
      const s = new Scheduler();
      const out: string[] = [];
      const mem = new MemorySink<TestEvent>();
      const trace = new Trace<TestKinds>(s, makeHeader('golden', 1, {}), [new JsonlSink((l) => out.push(l)), mem]);
      s.at(2000, () => trace.emit('test.ping', 'n', { n: 0 }));
      s.at(3000, () =>
        use === 'emit' ? trace.emit('test.ping', 'n', { n: 1, note: 'x' }) : trace.emitEvent({ t: UNSTAMPED, seq: UNSTAMPED, kind: 'test.ping', node: 'n', n: 1, note: 'x' }),
      );
      s.runUntilIdle();
      return { out, kept: mem.events[1]!, hash: trace.hash() };
    };
    const a = lines('emit');
    const b = lines('emitEvent');
    expect(b.out[2]).toBe('{"t":3000,"seq":1,"kind":"test.ping","node":"n","n":1,"note":"x"}\n');
    expect(b.out).toEqual(a.out);
    expect(b.hash).toBe(a.hash);
    expect(b.kept).toMatchObject({ t: 3000, seq: 1 });
  });

  it('filters what a sink keeps', () => {
    const mem = new MemorySink<TestEvent>();
    fixedTrace([new FilterSink((e) => e.node === 'node-1', mem)]);
    expect(mem.events.map((e) => e.n)).toEqual([1, 3]);
  });

  it('rejects a trace that is not one, naming the line', () => {
    expect(() => parseTrace('', TEST_KINDS)).toThrow(/empty/);
    expect(() => parseTrace('{"format":"other"}', TEST_KINDS)).toThrow(/line 1: expected a header/);
    expect(() => parseTrace(`${HEADER}\nnot json\n{}`, TEST_KINDS)).toThrow(/line 2: not valid JSON/);
  });

  it('validates every event against its kind: a renamed field, a wrong type, an unknown kind or field', () => {
    const good = [HEADER, ping(0, ',"n":1'), ping(1, ',"n":2,"note":"x"')].join('\n');
    expect(parseTrace(good, TEST_KINDS).events.map((e) => e.n)).toEqual([1, 2]);
    expect(() => parseTrace([HEADER, ping(0, ',"count":1')].join('\n'), TEST_KINDS)).toThrow('line 2 (test.ping): field "n" is missing (a number)');
    expect(() => parseTrace([HEADER, ping(0, ',"n":"1"')].join('\n'), TEST_KINDS)).toThrow('line 2 (test.ping): field "n" must be a number, got "1"');
    expect(() => parseTrace([HEADER, ping(0, ',"n":1,"extra":true')].join('\n'), TEST_KINDS)).toThrow(/line 2 \(test\.ping\): field "extra" is not a field of this kind/);
    expect(() => parseTrace([HEADER, ping(0, ',"n":1').replace('test.ping', 'test.pong')].join('\n'), TEST_KINDS)).toThrow('line 2: unknown event kind "test.pong" (did you mean "test.ping"?)');
    expect(() => parseTrace([HEADER, ping(0, ',"n":1').replace('"node":"n"', '"node":7')].join('\n'), TEST_KINDS)).toThrow('line 2 (test.ping): field "node" must be a string, got 7');
    expect(() => parseTrace([HEADER, ping(0, ',"n":1').replace('"t":0', '"t":-1')].join('\n'), TEST_KINDS)).toThrow(/line 2 \(test\.ping\): field "t" must be a whole number/);
    expect(() => parseTrace([HEADER.replace('"seed":1', '"seed":null'), ping(0, ',"n":1')].join('\n'), TEST_KINDS)).toThrow('line 1 (header): field "seed" must be a number or a string, got null');
  });

  it('names where nested fields go wrong', () => {
    const NESTED = defineKinds({ 'test.batch': { records: list(obj({ offset: num, value: nullable(str) })) } });
    const line = (records: string) => `{"t":0,"seq":0,"kind":"test.batch","node":"n","records":${records}}`;
    expect(parseTrace([HEADER, line('[{"offset":1,"value":null}]')].join('\n'), NESTED).events).toHaveLength(1);
    expect(() => parseTrace([HEADER, line('[{"offset":1,"value":null},{"offset":"2","value":"v"}]')].join('\n'), NESTED)).toThrow(
      'line 2 (test.batch): field "records[1].offset" must be a number, got "2"',
    );
    expect(() => parseTrace([HEADER, line('[{"offset":1}]')].join('\n'), NESTED)).toThrow('field "records[0].value" is missing (a string or null)');
  });

  it('refuses events out of order and a trace cut short', () => {
    expect(() => parseTrace([HEADER, ping(1, ',"n":1'), ping(0, ',"n":2')].join('\n'), TEST_KINDS)).toThrow('line 3 (test.ping): seq 0 does not follow seq 1 of line 2');
    const backwards = [HEADER, ping(0, ',"n":1'), ping(1, ',"n":2').replace('"t":10', '"t":0').replace('"seq":1', '"seq":1').replace('"t":10', '"t":0')];
    expect(() => parseTrace([HEADER, ping(0, ',"n":1').replace('"t":0', '"t":50'), ping(1, ',"n":2')].join('\n'), TEST_KINDS)).toThrow('line 3 (test.ping): t 10 is before t 50 of line 2');
    expect(parseTrace(backwards.join('\n'), TEST_KINDS).events).toHaveLength(2); // equal times are fine
    const cut = [HEADER, ping(0, ',"n":1'), ping(1, ',"n":2').slice(0, 30)].join('\n');
    expect(() => parseTrace(cut, TEST_KINDS)).toThrow('line 3: not valid JSON: the file ends in the middle of an event (cut short?)');
    const whole = [HEADER, ping(0, ',"n":1')].join('\n');
    expect(() => parseTrace(whole, TEST_KINDS, { endKind: 'test.end' })).toThrow('the trace stops at line 2 (test.ping) without a "test.end" event: it was cut short');
  });

  it('gives one hash whatever the line ends, a byte-order mark or a final newline', () => {
    const lines: string[] = [];
    const trace = fixedTrace([new JsonlSink((l) => lines.push(l))]);
    const lf = lines.join('');
    const variants = [lf, lf.replace(/\n/g, '\r\n'), '\ufeff' + lf, lf.slice(0, -1), lf.replace(/\n/g, '\r\n').slice(0, -2), lf + '\n\n'];
    for (const v of variants) expect(parseTrace(v, TEST_KINDS).hash).toBe(trace.hash());
  });

  it('folds events through handlers by kind, in the order the sets are given', () => {
    const KINDS = defineKinds({ 'a.x': { n: num }, 'a.y': { s: str } });
    type K = KindsOf<typeof KINDS>;
    const text = [HEADER, '{"t":0,"seq":0,"kind":"a.x","node":"n","n":1}', '{"t":1,"seq":1,"kind":"a.y","node":"n","s":"two"}', '{"t":2,"seq":2,"kind":"a.x","node":"n","n":3}'].join('\n');
    const seen: string[] = [];
    fold<K>(
      parseTrace(text, KINDS).events,
      { 'a.x': (e) => seen.push(`first x ${e.n}`), 'a.y': (e) => seen.push(`first y ${e.s}`) },
      { 'a.x': (e) => seen.push(`second x ${e.n + 1}`) },
    );
    expect(seen).toEqual(['first x 1', 'second x 2', 'first y two', 'first x 3', 'second x 4']);
  });
});
