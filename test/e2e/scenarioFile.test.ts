import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

const MINE: ScenarioSpec = {
  id: 'my-leader-crash',
  title: 'My own: the leader crashes',
  duration: '8s',
  quiet: '3s',
  topics: [{ name: 'orders', partitions: 1, replicationFactor: 3 }],
  producers: [{ id: 'producer-1', config: { acks: '1' }, workload: { topic: 'orders', rate: 50 } }],
  faults: [{ at: '3s', fault: 'crash', targets: ['leader:orders/0'], duration: '3s' }],
  expect: [{ check: 'elections', op: '>=', value: 1, description: 'a new leader is elected' }],
};

/** Scenario files (issue 21, item 3): open one and run it, edit and rerun it, errors in the CLI's words. */
describe.skipIf(!browserAvailable())('scenario files in Chromium', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('opens a scenario file and runs it, refuses a bad one as the CLI does, and reruns an edited one', async () => {
    const node = runScenario(validateScenario(MINE), { seed: 1 });
    const { page, errors } = await openPage(app);
    await page.waitForSelector('#gallery:not([hidden])');
    await page.setInputFiles('#file-input', { name: 'my-leader-crash.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(MINE, null, 2)) });
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(node.traceHash);
    await expect(page.locator('[data-testid=run-title]').textContent()).resolves.toContain('My own: the leader crashes');
    // It runs like a library scenario: its settings row is there, and the link carries the document.
    expect(await page.locator('[data-testid=set-A-acks]').count()).toBe(1);
    await page.waitForFunction(() => (document.querySelector('#status')?.getAttribute('data-url') ?? '').includes('spec='));

    // A bad file: the message `kafkasim run bad.json` prints (the field, the value, what is allowed).
    const bad = { ...MINE, faults: [{ at: '3s', fault: 'crash', targets: ['zone:nowhere'] }] } as ScenarioSpec;
    let cli = '';
    try {
      validateScenario(bad);
    } catch (e) {
      cli = `bad.json: ${(e as Error).message}`;
    }
    expect(cli).toContain('faults[0].targets[0]: "zone:nowhere" is not allowed');
    await page.setInputFiles('#file-input', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
    await page.waitForSelector('#error-bar:not([hidden])');
    await expect(page.locator('#error-bar').textContent()).resolves.toBe(`Could not open ${cli}`);
    await page.setInputFiles('#file-input', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{ "id": "x",\n  "duration": }') });
    await page.waitForFunction(() => (document.querySelector('#error-bar')?.textContent ?? '').includes('broken.json is not valid JSON'));
    await expect(page.locator('#error-bar').textContent()).resolves.toMatch(/line 2, column \d+/);

    // Edit the scenario on screen and run the edit.
    await page.keyboard.press('e');
    await page.waitForSelector('[data-testid=editor]');
    const text = await page.locator('[data-testid=editor-text]').inputValue();
    expect(JSON.parse(text)).toEqual(MINE);
    const edited = { ...MINE, producers: [{ ...MINE.producers![0]!, config: { acks: 'all' } }] };
    await page.locator('[data-testid=editor-text]').fill(JSON.stringify({ ...edited, duration: 'soon' }));
    await page.click('[data-testid=editor-run]');
    await page.waitForSelector('[data-testid=editor-error]:not([hidden])');
    await expect(page.locator('[data-testid=editor-error]').textContent()).resolves.toContain('duration: "soon" is not allowed');
    await screenshot(page, 'scenario-editor-error');
    await page.locator('[data-testid=editor-text]').fill(JSON.stringify(edited));
    await page.click('[data-testid=editor-run]');
    await waitLoaded(page, 2);
    expect(await status(page, 'hash')).toBe(runScenario(validateScenario(edited), { seed: 1 }).traceHash);
    expect(await page.locator('#editor').isVisible()).toBe(false);
    await expect(page.locator('[data-testid=settings-A]').textContent()).resolves.toContain('acks=all');
    await screenshot(page, 'scenario-file-run');
    expect(errors).toEqual([]);
    await page.close();
  });
});
