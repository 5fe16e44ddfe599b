import { describe, expect, it } from 'vitest';
import { ofKind, type TraceEvent } from '../../../sim/core/trace';
import { displayName, nameNodes } from '../../../sim/scenario/captionAnchors';
import { runScenario } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

const BASE: ScenarioSpec = {
  id: 'named-brokers',
  duration: '6s',
  quiet: '1s',
  cluster: { brokers: 3, brokerNames: ['london', 'paris', 'tokyo'] },
  topics: [{ name: 'orders', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'p1', workload: { topic: 'orders', rate: 10 } }],
  faults: [{ at: '2s', fault: 'crash', targets: ['leader:orders/0'], duration: '2s' }],
  captions: [{ at: '2s', text: '{leader:orders/0} crashes; {follower:orders/0} carry on.', on: 'host.crash' }],
};

function refusal(cluster: ScenarioSpec['cluster']): string {
  try {
    validateScenario({ ...BASE, cluster });
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
}

describe('cluster.brokerNames', () => {
  it('refuses a wrong count, a bad or duplicate name and a node-like name, in one line naming the field', () => {
    expect(refusal({ brokers: 3, brokerNames: ['a', 'b'] })).toMatch(/^cluster\.brokerNames: an array of 2 is not allowed; expected one name per broker, in broker id order \(3 names for cluster\.brokers = 3\)$/);
    expect(refusal({ brokers: 2, brokerNames: ['ok', '<b>x</b>'] })).toMatch(/^cluster\.brokerNames\[1\]: "<b>x<\/b>" is not allowed; expected a name of 1–24 letters/);
    expect(refusal({ brokers: 2, brokerNames: ['east', 'East'] })).toMatch(/^cluster\.brokerNames\[1\]: "East" is not allowed; expected a name no other broker has$/);
    expect(refusal({ brokers: 2, brokerNames: ['east', 'broker 1'] })).toMatch(/^cluster\.brokerNames\[1\]: "broker 1" is not allowed; expected a name that is not a node id/);
    expect(refusal({ brokers: 1, brokerNames: [7] as unknown as string[] })).toMatch(/^cluster\.brokerNames\[0\]: 7 is not allowed; expected a non-empty string/);
    expect(refusal({ brokers: 3, brokerNamez: ['a'] } as never)).toMatch(/did you mean "brokerNames"\?/);
    expect(validateScenario(BASE).cluster.brokerNames).toEqual(['london', 'paris', 'tokyo']);
    expect(validateScenario({ ...BASE, cluster: { brokers: 3 } }).cluster.brokerNames).toBeNull();
  });

  it('names brokers in captions by the scenario\'s names, keeping their case', () => {
    const names = ['london', 'paris', 'tokyo'];
    expect(displayName('broker-2', names)).toBe('paris');
    expect(displayName('broker-2')).toBe('broker 2');
    expect(displayName('controller-1', names)).toBe('controller 1');
    const resolve = (sel: string) => (sel === 'leader:o/0' ? ['broker-2'] : sel === 'follower:o/0' ? ['broker-1', 'broker-3'] : null);
    expect(nameNodes('{leader:o/0} crashes; {follower:o/0} follow', resolve, names)).toBe('paris crashes; london and tokyo follow');
    expect(nameNodes('{leader:o/0} crashes', resolve)).toBe('Broker 2 crashes');
  });

  it('a run names the crashed leader by its name in the caption, and never "broker N"', () => {
    const events = runScenario(validateScenario(BASE), { seed: 1 }).trace as TraceEvent[];
    const caption = ofKind(events, 'caption')[0]!;
    const crash = events.find((e) => e.seq === caption.about)!;
    expect(crash.kind).toBe('host.crash');
    const leaderName = ['london', 'paris', 'tokyo'][Number(crash.node.replace('broker-', '')) - 1]!;
    expect(caption.text.startsWith(`${leaderName} crashes; `)).toBe(true);
    expect(caption.text).not.toMatch(/broker \d/i);
  });
});
