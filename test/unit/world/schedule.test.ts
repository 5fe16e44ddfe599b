import { describe, expect, it } from 'vitest';
import { ms, seconds } from '../../../sim/core/time';
import { ValidationError } from '../../../sim/core/validate';
import { validateSchedule, type TargetResolver } from '../../../sim/world/nemesis';
import { makeWorld } from './harness';

const world = makeWorld({ hosts: ['broker-1@z1/r1', 'broker-2@z1/r2', 'broker-3@z2/r3'] });
const resolver: TargetResolver = world.resolver;

/** The error a schedule raises (it must raise one). */
function errorOf(value: unknown): ValidationError {
  try {
    validateSchedule(value, resolver);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a validation error');
}

describe('validateSchedule', () => {
  it('reads a valid schedule: times in ms or duration text, defaults filled in', () => {
    const faults = validateSchedule(
      [
        { at: 1500, fault: 'crash', targets: ['broker-1'], duration: '10s' },
        { at: '2m', fault: 'slow-disk', targets: ['zone:z1'] },
        { at: 0, fault: 'partition', groups: [['broker-1'], ['rack:r2', 'broker-3']], duration: 500 },
        { at: '1h', fault: 'heal' },
      ],
      resolver,
    );
    expect(faults.map((f) => [f.index, f.fault, f.atUs, f.durationUs])).toEqual([
      [0, 'crash', ms(1500), seconds(10)],
      [1, 'slow-disk', seconds(120), undefined],
      [2, 'partition', 0, ms(500)],
      [3, 'heal', seconds(3600), undefined],
    ]);
    expect(faults[1]!.factor).toBe(10);
  });

  it('an unknown fault name: names the entry and field, shows the value, lists the kinds, suggests the nearest', () => {
    const e = errorOf([{ at: 0, fault: 'crash', targets: ['broker-1'] }, { at: 0, fault: 'partiton', groups: [] }]);
    expect(e.path).toBe('faults[1].fault');
    expect(e.value).toBe('partiton');
    expect(e.message).toContain('faults[1].fault: "partiton" is not allowed');
    expect(e.message).toContain('"crash", "stop", "restart", "power-loss"');
    expect(e.message).toContain('did you mean "partition"?');
  });

  it('a missing targets list', () => {
    const e = errorOf([{ at: 0, fault: 'power-loss' }]);
    expect(e.message).toBe('faults[0].targets: a missing value is not allowed; expected a list for "power-loss"');
  });

  it('an empty targets list', () => {
    const e = errorOf([{ at: 0, fault: 'pause', targets: [] }]);
    expect(e.message).toBe('faults[0].targets: an array of 0 is not allowed; expected an array of at least 1 item');
  });

  it('a bad selector: lists host ids and prefixes; suggests the nearest host or prefix', () => {
    const typoHost = errorOf([{ at: 0, fault: 'crash', targets: ['broker-1', 'brokr-2'] }]);
    expect(typoHost.path).toBe('faults[0].targets[1]');
    expect(typoHost.message).toBe(
      'faults[0].targets[1]: "brokr-2" is not allowed; expected a host id (broker-1, broker-2, broker-3), "*", ' +
        'or a selector starting with "zone:", "rack:", "tag:" (did you mean "broker-2"?)',
    );
    const typoPrefix = errorOf([{ at: 0, fault: 'isolate', targets: ['zon:z1'] }]);
    expect(typoPrefix.message).toContain('(did you mean "zone:z1"?)');
    const bare = errorOf([{ at: 0, fault: 'isolate', targets: ['zone:'] }]);
    expect(bare.path).toBe('faults[0].targets[0]');
    const inGroups = errorOf([{ at: 0, fault: 'partition', groups: [['broker-1'], ['nope']] }]);
    expect(inGroups.path).toBe('faults[0].groups[1][0]');
  });

  it('a negative time', () => {
    const e = errorOf([{ at: -5, fault: 'crash', targets: ['broker-1'] }]);
    expect(e.message).toBe('faults[0].at: -5 is not allowed; expected a number >= 0');
    const text = errorOf([{ at: 'soon', fault: 'crash', targets: ['broker-1'] }]);
    expect(text.message).toBe(
      'faults[0].at: "soon" is not allowed; expected a time in milliseconds (a number >= 0) or a duration such as "10s", "1500ms", "2m"',
    );
  });

  it('a duration on a fault that cannot be undone', () => {
    const e = errorOf([{ at: 0, fault: 'restart', targets: ['broker-1'], duration: 1000 }]);
    expect(e.path).toBe('faults[0].duration');
    expect(e.message).toContain('faults[0].duration: 1000 is not allowed; expected no duration for "restart"');
    expect(e.message).toContain('only crash, stop, power-loss, pause, partition, isolate, one-way, latency, lossy, slow-disk, disk-full can be undone');
  });

  it('a zero duration', () => {
    expect(errorOf([{ at: 0, fault: 'pause', targets: ['broker-1'], duration: 0 }]).message).toBe(
      'faults[0].duration: 0 is not allowed; expected a duration > 0',
    );
  });

  it('a loss rate out of range', () => {
    const e = errorOf([{ at: 0, fault: 'lossy', from: ['broker-1'], to: ['*'], rate: 1.5 }]);
    expect(e.message).toBe('faults[0].rate: 1.5 is not allowed; expected a number from 0 to 1');
    expect(errorOf([{ at: 0, fault: 'lossy', from: ['broker-1'], to: ['*'] }]).path).toBe('faults[0].rate');
  });

  it('a slow-disk factor below 1, and a latency that adds nothing', () => {
    expect(errorOf([{ at: 0, fault: 'slow-disk', targets: ['broker-1'], factor: 0.5 }]).message).toBe(
      'faults[0].factor: 0.5 is not allowed; expected a number >= 1',
    );
    expect(errorOf([{ at: 0, fault: 'latency', from: ['broker-1'], to: ['broker-2'] }]).message).toBe(
      'faults[0].addMs: a missing value is not allowed; expected a delay > 0 in addMs or jitterMs',
    );
  });

  it('an unknown field: lists the known ones and suggests the nearest', () => {
    const e = errorOf([{ at: 0, fault: 'crash', targtes: ['broker-1'] }]);
    expect(e.path).toBe('faults[0].targtes');
    expect(e.message).toContain('expected one of the known fields: at, fault, targets, groups, from, to, duration, factor, rate, addMs, jitterMs');
    expect(e.message).toContain('unknown field "targtes"; did you mean "targets"?');
  });

  it('a field the fault does not take', () => {
    expect(errorOf([{ at: 0, fault: 'crash', targets: ['broker-1'], rate: 0.1 }]).message).toBe(
      'faults[0].rate: 0.1 is not allowed; expected nothing: "crash" does not take "rate"',
    );
    expect(errorOf([{ at: 0, fault: 'one-way', from: ['broker-1'], to: ['broker-2'], targets: ['broker-1'] }]).path).toBe('faults[0].targets');
  });

  it('a partition needs at least two groups; a schedule must be a list of objects', () => {
    expect(errorOf([{ at: 0, fault: 'partition', groups: [['broker-1']] }]).message).toBe(
      'faults[0].groups: an array of 1 is not allowed; expected an array of at least 2 items',
    );
    expect(errorOf({ at: 0 }).message).toBe('faults: an object is not allowed; expected an array');
    expect(errorOf([42]).message).toBe('faults[0]: 42 is not allowed; expected an object');
  });

  it('a selector added by a higher layer validates and resolves when the fault fires', () => {
    const w = makeWorld({ hosts: ['b1', 'b2'] });
    let leader = 'b1';
    w.addResolver({ prefixes: ['leader:'], hostIds: [], resolve: (sel) => (sel.startsWith('leader:') ? [leader] : null) });
    w.schedule(validateSchedule([{ at: 100, fault: 'crash', targets: ['leader:orders-0'] }], w.resolver));
    w.start();
    leader = 'b2'; // the leader changed before the fault fired
    w.runUntil(ms(200));
    expect(w.memory!.events.find((e) => e.kind === 'fault.start')!.hosts).toEqual(['b2']);
  });
});
