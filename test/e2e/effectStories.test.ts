import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, ROOT, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

// The consume-transform-produce scenario run at least once: the crash between writing a poll's outputs and its
// commitSync makes the inputs read again written twice. The checks view lists those inputs beside the lost
// writes, and a chosen one tells its story (the same lines the CLI report prints).
const ID = 'txn-exactly-once-consume-transform-produce';

function atLeastOnce(): ScenarioSpec {
  const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', `${ID}.json`), 'utf8')) as ScenarioSpec;
  return {
    ...spec,
    id: `${ID}-alo`,
    consumers: spec.consumers!.map((c) => (c.transform ? { ...c, transform: { ...c.transform, guarantee: 'at_least_once' as const } } : c)),
  };
}

describe.skipIf(!browserAvailable())('effects not exactly once in the checks view (Chromium)', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lists the duplicated inputs the Node checkers found and shows a chosen one’s story', async () => {
    const spec = atLeastOnce();
    const node = runScenario(validateScenario(spec), { seed: 1 });
    const notOnce = node.checks['output-not-once']!;
    const dups = node.checks['output-duplicates']!;
    expect(dups.count).toBeGreaterThan(0);
    expect(notOnce.values!.length).toBeGreaterThan(0);

    const { page, errors } = await openPage(app);
    await page.waitForSelector('#gallery:not([hidden])');
    await page.setInputFiles('#file-input', { name: `${spec.id}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(spec)) });
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(node.traceHash);

    await page.click('[data-testid=tab-checks]');
    await expect(page.locator('[data-testid=effect-count]').textContent()).resolves.toContain(`${notOnce.count} input`);
    const first = notOnce.values![0]!;
    const item = page.locator('[data-testid=effect]').first();
    await expect(item.textContent()).resolves.toContain(first);
    // Every listed input of this run is a duplicate (at least once never loses an output).
    expect(await item.textContent()).toContain('output twice or more');
    await item.click();
    await page.waitForSelector('[data-testid=story] li');
    const story = (await page.locator('[data-testid=story]').textContent()) ?? '';
    expect(story).toContain('The story of a duplicated effect');
    expect(story).toContain(first);
    // The lines of the checker's own story for that input, as the CLI prints them.
    const lines = notOnce.stories![0]!;
    expect(lines.some((l) => l.includes('outside any transaction, acknowledged'))).toBe(true);
    expect(story).toContain('has 2 outputs in the committed output');
    expect(story).toContain('crash of enricher');
    expect(await page.locator('[data-testid=story] li').count()).toBe(lines.length);
    await screenshot(page, 'effect-story');
    expect(errors).toEqual([]);
    await page.close();
  });
});
