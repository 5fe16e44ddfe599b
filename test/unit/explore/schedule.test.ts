import { describe, expect, it } from 'vitest';
import { materializeSchedule, type ScheduleWindow } from '../../../sim/explore/arbitraries/faultSchedule';
import type { FaultStep } from '../../../sim/explore/arbitraries/faultStep';
import { budgetViolation, isSeveral } from '../../../sim/explore/budget';
import { CUT_SIDES, faultPalette } from '../../../sim/explore/palette';
import type { FaultEntry } from '../../../sim/world/nemesis';

const palette = faultPalette({
  id: 'x',
  duration: '20s',
  cluster: { controllers: 3, brokers: 3 },
  topics: [{ name: 'orders', partitions: 3 }],
});
const w: ScheduleWindow = { startMs: 1000, endMs: 20_000, maxDurationMs: 15_000, settleMs: 10_000, maxFaults: 6 };
const step = (s: Partial<FaultStep>): FaultStep => ({ kind: 'crash', target: 0, variant: 0, at: 0, duration: 5, ...s });

describe('the fault palette', () => {
  it('names the first partitions\' leaders first, then brokers and controllers; several-host targets apart', () => {
    expect(palette.single).toEqual([
      'leader:orders/0',
      'leader:orders/1',
      'broker:1',
      'broker:2',
      'broker:3',
      'controller:active',
      'controller-1',
      'controller-2',
      'controller-3',
    ]);
    expect(palette.several).toEqual([['follower:orders/0'], ['leader:orders/0', 'follower:orders/0'], ['follower:orders/1'], ['leader:orders/1', 'follower:orders/1'], ['tag:broker']]);
    expect(palette.single.some((s) => isSeveral([s]))).toBe(false);
    expect(palette.several.every((s) => isSeveral(s))).toBe(true);
  });
});

describe('materializeSchedule', () => {
  it('one at a time: each fault starts its gap after the previous one ended and settled, on one host', () => {
    const out = materializeSchedule([step({ at: 5, duration: 20 }), step({ kind: 'power-loss', target: 2, at: 0, duration: 10 }), step({ at: 300 })], palette, 'one-at-a-time', w);
    // 1000 + 500 = 1500 for 2 s; then 1500 + 2000 + 10000 settle = 13500 for 1 s; the third would start at 24500 > 20000.
    expect(out).toEqual([
      { at: 1500, fault: 'crash', targets: ['leader:orders/0'], duration: 2000 },
      { at: 13_500, fault: 'power-loss', targets: ['broker:1'], duration: 1000 },
    ]);
    expect(budgetViolation(out, 'one-at-a-time', 10_000)).toBeNull();
  });

  it('one at a time never picks a several-host target, whatever the index', () => {
    for (let target = 0; target < 64; target++) {
      const [e] = materializeSchedule([step({ target })], palette, 'one-at-a-time', w);
      expect(isSeveral(e!.targets!)).toBe(false);
    }
  });

  it('otherwise starts faults at absolute times and may hit several hosts', () => {
    const s = [step({ at: 10 }), step({ at: 10, target: palette.single.length + 4 })];
    const out = materializeSchedule(s, palette, 'none', w);
    expect(out.map((e) => [e.at, e.targets])).toEqual([
      [2000, ['leader:orders/0']],
      [2000, ['tag:broker']],
    ]);
  });

  it('without correlated power loss, a power loss hits one host and overlapping ones are dropped', () => {
    const s = [
      step({ kind: 'power-loss', at: 0, duration: 50, target: palette.single.length + 4 }),
      step({ kind: 'power-loss', at: 20, duration: 10, target: 1 }),
      step({ kind: 'crash', at: 20, target: palette.single.length + 4 }),
      step({ kind: 'power-loss', at: 60, duration: 10, target: 2 }),
    ];
    const out = materializeSchedule(s, palette, 'no-correlated-power-loss', w);
    expect(out.map((e) => `${e.fault}@${e.at as number} ${e.targets!.join('+')}`)).toEqual([
      // target index 13 of 9 single-host selectors wraps to 13 % 9 = 4: broker:3.
      'power-loss@1000 broker:3',
      'crash@3000 tag:broker',
      'power-loss@7000 broker:1',
    ]);
    expect(budgetViolation(out, 'no-correlated-power-loss')).toBeNull();
  });

  it('builds each network fault from its variant: which side, which direction, how slow', () => {
    const [part] = materializeSchedule([step({ kind: 'partition', variant: 1 })], palette, 'none', w);
    expect(part).toMatchObject({ fault: 'partition', groups: [['leader:orders/0'], CUT_SIDES[1]] });
    const [out] = materializeSchedule([step({ kind: 'one-way', variant: 0 })], palette, 'none', w);
    expect(out).toMatchObject({ fault: 'one-way', from: ['leader:orders/0'], to: CUT_SIDES[0] });
    const [inward] = materializeSchedule([step({ kind: 'one-way', variant: 5 })], palette, 'none', w);
    expect(inward).toMatchObject({ fault: 'one-way', from: CUT_SIDES[2], to: ['leader:orders/0'] });
    const [slow] = materializeSchedule([step({ kind: 'slow-disk', variant: 2 })], palette, 'none', w);
    expect(slow).toMatchObject({ fault: 'slow-disk', factor: 100 });
  });
});

describe('budgetViolation', () => {
  const e = (at: number, duration: number, fault: FaultEntry['fault'], targets: string[]): FaultEntry => ({ at, duration, fault, targets });

  it('one at a time: overlaps, too short a settle and several-host targets break it', () => {
    expect(budgetViolation([e(0, 1000, 'crash', ['broker:1']), e(500, 1000, 'crash', ['broker:2'])], 'one-at-a-time')).toMatch(/starts before/);
    expect(budgetViolation([e(0, 1000, 'crash', ['broker:1']), e(1500, 1000, 'crash', ['broker:2'])], 'one-at-a-time', 1000)).toMatch(/settled/);
    expect(budgetViolation([e(0, 1000, 'crash', ['broker:1']), e(2000, 1000, 'crash', ['broker:2'])], 'one-at-a-time', 1000)).toBeNull();
    expect(budgetViolation([e(0, 1000, 'crash', ['follower:t/0'])], 'one-at-a-time')).toMatch(/more than one host/);
    // A cut impairs its small side: the host cut off.
    const cut: FaultEntry = { at: 0, duration: 1000, fault: 'one-way', from: CUT_SIDES[0]!, to: ['leader:t/0'] };
    expect(budgetViolation([cut], 'one-at-a-time')).toBeNull();
  });

  it('no correlated power loss: overlapping or several-host power losses break it, crashes do not', () => {
    expect(budgetViolation([e(0, 1000, 'power-loss', ['broker:1']), e(500, 1000, 'power-loss', ['broker:2'])], 'no-correlated-power-loss')).toMatch(/overlap/);
    expect(budgetViolation([e(0, 1000, 'power-loss', ['tag:broker'])], 'no-correlated-power-loss')).toMatch(/more than one host/);
    expect(budgetViolation([e(0, 1000, 'crash', ['tag:broker']), e(0, 1000, 'power-loss', ['broker:1'])], 'no-correlated-power-loss')).toBeNull();
    expect(budgetViolation([e(0, 1000, 'power-loss', ['tag:broker'])], 'none')).toBeNull();
  });
});
