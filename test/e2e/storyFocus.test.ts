// What the partition view frames when it follows the story, and what a caption names, without a browser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ofKind, type TraceEvent } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { TraceModel } from '../../ui/src/model/traceModel';
import { currentMoment, divergence, MOMENT_HOLD_US, storyMoments } from '../../ui/src/model/storyFocus';
import { captionSubject } from '../../ui/src/model/captionSubject';
import type { BatchNode } from '../../ui/src/model/replicaLog';
import { ROOT } from './support';

const batch = (base: number, last: number, epoch: number): BatchNode => ({ base, last, epoch, t: 0, prev: null });

describe('the story the partition view follows', () => {
  it('finds where two replicas hold different epochs, and nothing where one only lags', () => {
    const leader = { batches: [batch(0, 4, 0), batch(5, 9, 1), batch(10, 19, 2)], logStart: 0, leo: 20 };
    const lagging = { batches: [batch(0, 4, 0), batch(5, 7, 1)], logStart: 0, leo: 8 };
    expect(divergence([leader, lagging])).toBeNull();
    const diverged = { batches: [batch(0, 4, 0), batch(5, 12, 0)], logStart: 0, leo: 13 };
    expect(divergence([leader, diverged])).toEqual({ lo: 5, hi: 12 });
    // Below a replica's log start nothing is compared.
    expect(divergence([leader, { ...diverged, logStart: 13 }])).toBeNull();
  });

  it('reads the truncation and the election of acks1-leader-crash, each holding the view for a while', () => {
    const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', 'acks1-leader-crash.json'), 'utf8')) as ScenarioSpec;
    const r = runScenario(validateScenario(spec), { seed: 1 });
    const events = r.trace as TraceEvent[];
    const model = new TraceModel(r.cluster.world.trace.header, events, r.checks);
    const moments = storyMoments(model, 'orders-0');
    const cut = ofKind(events, 'replica.truncate')[0]!;
    const elect = ofKind(events, 'controller.election').find((e) => e.topic === 'orders')!;
    expect(moments.map((m) => m.kind)).toEqual(['election', 'truncate']);
    const t = moments.find((m) => m.kind === 'truncate')!;
    expect(t).toMatchObject({ i: cut.seq, broker: cut.broker, lo: cut.to, hi: cut.from - 1 });
    expect(currentMoment(moments, cut.seq - 1, cut.t)?.kind).toBe('election');
    expect(currentMoment(moments, cut.seq, cut.t)).toBe(t);
    expect(currentMoment(moments, cut.seq + 10, cut.t + MOMENT_HOLD_US + 1)).toBeNull();

    // The election's caption names the old and the new leader, and the partition.
    const caption = model.captions[2]!;
    expect(caption.about).toBe(elect.seq);
    const subject = captionSubject(model, caption.about);
    expect([...subject.brokers].sort()).toEqual([elect.leader, elect.previousLeader].sort());
    expect(subject.hosts).toContain(`broker-${elect.leader}`);
    expect(subject.partition).toBe('orders-0');
  });
});
