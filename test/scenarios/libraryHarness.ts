import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ofKind } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { validateScenario } from '../../sim/scenario/validate';

const DIR = join(process.cwd(), 'scenarios');

export function librarySpecs(): ScenarioSpec[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as ScenarioSpec);
}

/** Registers one test per scenario of this shard: every expectation holds for seeds 1 to 5. */
export function libraryTests(shard: number, shards: number, seeds: readonly number[] = [1, 2, 3, 4, 5]): void {
  const specs = librarySpecs().filter((_, i) => i % shards === shard);
  for (const spec of specs) {
    it(`${spec.id} meets its expectations for seeds ${seeds.join(', ')}`, () => {
      const s = validateScenario(spec);
      expect(s.expect.length, `${spec.id} states no expectations`).toBeGreaterThan(0);
      for (const seed of seeds) {
        const r = runScenario(s, { seed, hash: false });
        const failed = r.expectations.filter((e) => !e.ok).map((e) => `${e.description}: observed ${e.actual}`);
        expect(failed, `${spec.id} seed ${seed}`).toEqual([]);
        // A guided story stays true for every seed: each anchored caption found the event it describes.
        const anchored = ofKind(r.trace, 'caption').filter((c) => c.about !== undefined).length;
        expect(anchored, `${spec.id} seed ${seed}: captions whose event never came`).toBe(s.captions.filter((c) => c.on !== null).length);
      }
    });
  }
}
