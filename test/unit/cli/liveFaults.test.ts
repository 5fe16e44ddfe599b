import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../sim/core/validate';
import { parseFaultLine } from '../../../sim/serve/liveFaults';
import type { TargetResolver } from '../../../sim/world/nemesis';

const resolver: TargetResolver = {
  prefixes: ['tag:', 'leader:', 'zone:'],
  hostIds: ['broker-1', 'broker-2', 'broker-3', 'tcp-clients'],
  resolve: () => [],
};

const parse = (line: string) => parseFaultLine(line, resolver, 7, 1_000_000);

describe('faults typed on a live server', () => {
  it('reads each verb with its targets, groups, direction and parameters', () => {
    expect(parse('crash broker-2')).toEqual({ index: 7, atUs: 1_000_000, fault: 'crash', targets: ['broker-2'] });
    expect(parse('isolate leader:orders/0 for 10s')).toMatchObject({ fault: 'isolate', targets: ['leader:orders/0'], durationUs: 10_000_000 });
    expect(parse('partition broker-1,broker-2 | broker-3 for 15s')).toMatchObject({ fault: 'partition', groups: [['broker-1', 'broker-2'], ['broker-3']], durationUs: 15_000_000 });
    expect(parse('one-way broker-1 -> tag:broker')).toMatchObject({ fault: 'one-way', from: ['broker-1'], to: ['tag:broker'] });
    expect(parse('latency broker-1 -> * 200ms')).toMatchObject({ fault: 'latency', from: ['broker-1'], to: ['*'], addMs: 200 });
    expect(parse('lossy broker-1 -> broker-2 0.25')).toMatchObject({ fault: 'lossy', rate: 0.25 });
    expect(parse('slow-disk broker-1 x20')).toMatchObject({ fault: 'slow-disk', targets: ['broker-1'], factor: 20 });
    expect(parse('heal')).toMatchObject({ fault: 'heal' });
    expect(parse('heal broker-3').targets).toEqual(['broker-3']);
  });

  it('answers a mistake with the schedule validation\'s one line, naming the field and what is allowed', () => {
    const wrong = (line: string) => {
      try {
        parse(line);
      } catch (e) {
        expect(e).toBeInstanceOf(ValidationError);
        return (e as Error).message;
      }
      throw new Error(`"${line}" was accepted`);
    };
    expect(wrong('crash brokr-2')).toMatch(/^fault\.targets\[0\]: "brokr-2" is not allowed; .*did you mean "broker-2"/);
    expect(wrong('explode broker-1')).toMatch(/^fault\.fault: "explode" is not allowed; expected one of/);
    expect(wrong('restart broker-1 for 5s')).toMatch(/fault\.duration/);
    expect(wrong('latency broker-1 -> *')).toMatch(/a delay after the targets/);
    expect(wrong('one-way broker-1 broker-2')).toMatch(/one-way <from> -> <to>/);
  });
});
