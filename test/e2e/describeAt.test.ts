// `kafkasim describe --at` and the UI's operator panel read the same run in two folds (sim/check/describeAt.ts
// and ui/src/model/describeTables.ts over the UI's ClusterState): at the same moment they must print the same
// tables.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceEvent } from '../../sim/core/trace';
import { DescribeFold } from '../../sim/check/describeAt';
import { runScenario } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';
import { TraceModel } from '../../ui/src/model/traceModel';
import { Replay } from '../../ui/src/model/replay';
import { groupRows, topicRows } from '../../ui/src/model/describeTables';
import { ROOT } from './support';

function library(id: string): ScenarioSpec {
  return JSON.parse(readFileSync(join(ROOT, 'scenarios', `${id}.json`), 'utf8')) as ScenarioSpec;
}

describe('describe --at matches the UI at the same moment', () => {
  for (const id of ['rolling-restart-careful', 'acks1-leader-crash']) {
    it(`${id}: topics, groups and the quorum leader, every 250 ms of the run`, () => {
      const r = runScenario(validateScenario({ ...library(id), duration: '18s', quiet: '2s' }), { hash: false });
      const events = r.trace as TraceEvent[];
      const model = new TraceModel(r.cluster.world.trace.header, events, r.checks);
      const replay = new Replay(model);
      const start = r.startUs;
      const end = events[events.length - 1]!.t - start;
      const fold = new DescribeFold(events);
      let compared = 0;
      const mismatches: string[] = [];
      for (let at = 0; at <= end; at += 250_000) {
        const d = fold.at(at);
        const s = replay.at(model.indexAtTime(start + at));
        // The UI draws the topics the scenario declares; the internal ones are the CLI's alone.
        const cli = d.topics.filter((p) => !p.topic.startsWith('__')).map((p) => ({ topic: p.topic, partition: p.partition, leader: p.leader, leaderEpoch: p.leaderEpoch, isr: [...p.isr].sort(), elr: [...p.elr].sort(), highWatermark: p.leader >= 0 ? p.highWatermark : -1, logEndOffset: p.leader >= 0 ? p.logEndOffset : -1 }));
        const ui = topicRows(s).map((p) => ({ ...p, isr: [...p.isr].sort(), elr: [...p.elr].sort() }));
        const byKey = new Map(ui.map((p) => [`${p.topic}-${p.partition}`, p]));
        for (const c of cli) {
          const u = byKey.get(`${c.topic}-${c.partition}`);
          if (JSON.stringify(c) !== JSON.stringify(u)) mismatches.push(`${at / 1000} ms: ${JSON.stringify(c)} vs ${JSON.stringify(u)}`);
        }
        const cg = d.groups.map((g) => ({ group: g.group, partition: `${g.topic}-${g.partition}`, currentOffset: g.currentOffset, logEndOffset: g.logEndOffset, lag: g.lag, consumerId: g.consumerId }));
        const ug = groupRows(s);
        if (JSON.stringify(cg) !== JSON.stringify(ug)) mismatches.push(`${at / 1000} ms groups: ${JSON.stringify(cg).slice(0, 300)} vs ${JSON.stringify(ug).slice(0, 300)}`);
        const uiLeader = [...s.raft].find(([, st]) => st === 'Leader')?.[0] ?? null;
        if (d.quorum.leaderId !== uiLeader) mismatches.push(`${at / 1000} ms quorum leader: ${d.quorum.leaderId} vs ${uiLeader}`);
        compared++;
      }
      expect(compared).toBeGreaterThan(70);
      expect(mismatches.slice(0, 5)).toEqual([]);
    });
  }
});
