import { describe, expect, it } from 'vitest';
import { fnv1a64 } from '../../../sim/core/hash';
import { Scheduler } from '../../../sim/core/scheduler';
import { FilterSink, JsonlSink, MemorySink, Trace, makeHeader, parseTrace } from '../../../sim/core/trace';

declare module '../../../sim/core/trace' {
  interface TraceKinds {
    'test.ping': { n: number; note?: string };
  }
}

function fixedTrace(sinks: ConstructorParameters<typeof Trace>[2] = []) {
  const s = new Scheduler();
  const trace = new Trace(s, makeHeader('golden', 1, { brokers: 3 }), sinks);
  for (let i = 0; i < 5; i++) {
    s.at(i * 1000, () => trace.emit('test.ping', `node-${i % 2}`, { n: i, note: i === 3 ? 'é "quoted"' : 'plain' }));
  }
  s.runUntilIdle();
  return trace;
}

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
    const parsed = parseTrace(lines.join(''));
    expect(parsed.header.scenario).toBe('golden');
    expect(parsed.events.map((e) => e.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('filters what a sink keeps', () => {
    const mem = new MemorySink();
    fixedTrace([new FilterSink((e) => e.node === 'node-1', mem)]);
    expect(mem.events.map((e) => e.n)).toEqual([1, 3]);
  });

  it('rejects a trace that is not one, naming the line', () => {
    expect(() => parseTrace('')).toThrow(/empty/);
    expect(() => parseTrace('{"format":"other"}')).toThrow(/line 1: expected a header/);
    expect(() => parseTrace('{"format":"kafkasim-trace","version":1}\nnot json')).toThrow(/line 2: not valid JSON/);
  });
});
