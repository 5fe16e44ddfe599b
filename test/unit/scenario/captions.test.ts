import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../sim/core/validate';
import { ofKind, type TraceEvent } from '../../../sim/core/trace';
import { nameNodes } from '../../../sim/scenario/captionAnchors';
import { runScenario } from '../../../sim/scenario/runner';
import type { CaptionSpec, ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

const BASE: ScenarioSpec = {
  id: 'captions',
  duration: '12s',
  quiet: '2s',
  cluster: { brokers: 3 },
  topics: [{ name: 'orders', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 'orders', rate: 20 } }],
  faults: [{ at: '2s', fault: 'crash', targets: ['leader:orders/0'], duration: '5s' }],
};

function refused(captions: CaptionSpec[], re: RegExp): void {
  let caught: unknown;
  try {
    validateScenario({ ...BASE, captions });
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(ValidationError);
  expect((caught as Error).message).toMatch(re);
}

describe('captions anchored to the event they describe', () => {
  it('refuses an unknown event kind, a field the kind lacks, and a selector that names nothing', () => {
    refused([{ at: '1s', text: 'x', on: 'controller.elektion' }], /captions\[0\]\.on: "controller\.elektion" is not allowed; expected a trace event kind .*did you mean "controller\.election"\?/);
    refused([{ at: '1s', text: 'x', on: 'caption' }], /captions\[0\]\.on: "caption" is not allowed/);
    refused([{ at: '1s', text: 'x', on: 'replica.truncate', where: { topik: 'orders' } }], /captions\[0\]\.where\.topik: "orders" is not allowed; expected a field of replica\.truncate \(node, topic, .*did you mean "topic"\?/);
    refused([{ at: '1s', text: 'x', where: { topic: 'orders' } }], /captions\[0\]\.where: .* only together with "on"/);
    refused([{ at: '1s', text: '{broker:9} crashes' }], /captions\[0\]\.text\[0\]: "broker:9" is not allowed; expected a broker id of this scenario \(1 to 3\)/);
    refused([{ at: '1s', text: 'x', on: 'replica.role', where: { node: '{leadr:orders/0}' } }], /captions\[0\]\.where\.node\[0\]: "leadr:orders\/0" is not allowed.*did you mean "leader:orders\/0"\?/);
  });

  it('names brokers as the UI does', () => {
    const resolve = (sel: string) => (sel === 'leader:o/0' ? ['broker-2'] : sel === 'follower:o/0' ? ['broker-1', 'broker-3'] : null);
    expect(nameNodes('{leader:o/0} crashes; {follower:o/0} follow', resolve)).toBe('Broker 2 crashes; broker 1 and broker 3 follow');
    expect(nameNodes('unknown {x:y} stays', resolve)).toBe('unknown {x:y} stays');
    expect(nameNodes('{x:y} stays', resolve)).toBe('{x:y} stays');
  });

  it('shows a caption right after its event, not at its time, and names the broker the run crashed', () => {
    const s = validateScenario({
      ...BASE,
      captions: [
        { at: '1s', text: 'before any fault' },
        { at: '1s', text: '{leader:orders/0} crashes', on: 'host.crash' },
        { at: '2s', text: 'a new leader', on: 'controller.election' },
        { at: '2s', text: 'never happens', on: 'replica.truncate', where: { topic: 'nothing' } },
      ],
    });
    const r = runScenario(s, { seed: 3 });
    const events = r.trace as TraceEvent[];
    const caps = ofKind(events, 'caption');
    expect(caps.map((c) => c.text.split(' ')[0])).toEqual(['before', 'Broker', 'a', 'never']);
    // The fixed-time caption keeps its moment and has no anchor.
    expect(caps[0]!.t).toBe(r.startUs + 1_000_000);
    expect(caps[0]!.about).toBeUndefined();
    for (const [k, kind] of [[1, 'host.crash'], [2, 'controller.election']] as const) {
      const c = caps[k]!;
      const anchor = events.find((e) => e.seq === c.about)!;
      expect(anchor.kind).toBe(kind);
      expect(c.t).toBe(anchor.t);
      expect(c.seq).toBeGreaterThan(anchor.seq);
      // The first such event at or after the caption's time.
      expect(events.find((e) => e.kind === kind && e.t >= r.startUs + (k === 1 ? 1 : 2) * 1_000_000)!.seq).toBe(anchor.seq);
    }
    const crashed = events.find((e) => e.seq === caps[1]!.about)!.node;
    expect(caps[1]!.text).toBe(`${crashed.replace('broker-', 'Broker ')} crashes`);
    // A caption whose event never came is shown at the end rather than lost.
    expect(caps[3]!.about).toBeUndefined();
    expect(caps[3]!.seq).toBeLessThan(events.find((e) => e.kind === 'scenario.end')!.seq);
  });
});
