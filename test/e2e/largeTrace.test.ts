import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlSink } from '../../sim/core/trace';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, ROOT, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

/** A 100,000-event trace: acks1-leader-crash with a producer sending 2,900 records a second. */
function bigTrace(): { file: string; events: number } {
  const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', 'acks1-leader-crash.json'), 'utf8')) as ScenarioSpec;
  const producers = spec.producers!.map((p) => ({ ...p, workload: { ...(p.workload as object), rate: 2900 } })) as unknown as ScenarioSpec['producers'];
  const chunks: string[] = [];
  const r = runScenario(validateScenario({ ...spec, producers }), { seed: 1, keepEvents: false, hash: false, sinks: [new JsonlSink((l) => chunks.push(l))] });
  const file = join(mkdtempSync(join(tmpdir(), 'kafkasim-ui-big-')), 'big.jsonl');
  writeFileSync(file, chunks.join(''));
  return { file, events: r.events };
}

describe.skipIf(!browserAvailable())('a large trace in the UI', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('loads 100,000 events and scrubs them smoothly', async () => {
    const { file, events } = bigTrace();
    expect(events).toBeGreaterThanOrEqual(100_000);
    const { page, errors } = await openPage(app);
    await page.waitForSelector('#gallery:not([hidden])');
    const started = Date.now();
    await page.setInputFiles('#file-input', file);
    await waitLoaded(page, 1, 120_000);
    const loadMs = Date.now() - started;
    expect(Number(await status(page, 'events'))).toBe(events);
    // Indexing and keyframing in the page (one pass each); the whole load includes reading, parsing and checking in the worker.
    expect(Number(await status(page, 'load-ms'))).toBeLessThan(3000);
    expect(loadMs).toBeLessThan(30_000);

    // Scrub: 40 slider moves across the run, each drawn before the next; time each one.
    const times = await page.evaluate(async () => {
      const slider = document.querySelector<HTMLInputElement>('[data-testid=time-slider]')!;
      const min = Number(slider.min);
      const max = Number(slider.max);
      const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));
      const out: number[] = [];
      for (let k = 0; k < 40; k++) {
        const v = Math.round(min + ((k * 7919) % 40) * ((max - min) / 40));
        const t = performance.now();
        slider.value = String(v);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        await frame();
        await frame();
        out.push(performance.now() - t);
      }
      return out;
    });
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(`100k-event trace: load ${loadMs} ms (index ${await status(page, 'load-ms')} ms); scrub median ${median.toFixed(1)} ms, max ${times[times.length - 1]!.toFixed(1)} ms`);
    // Two frames are ~33 ms; headless Chromium rasterises in software, so allow generous room.
    expect(median).toBeLessThan(150);

    // Zooming the timeline redraws the canvas layer only.
    const box = (await page.locator('[data-testid=timeline-svg]').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.5);
    for (let k = 0; k < 5; k++) await page.mouse.wheel(0, -300);
    await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
    const drawMs = Number(await page.getAttribute('[data-testid=timeline]', 'data-draw-ms'));
    expect(drawMs).toBeLessThan(150);
    await screenshot(page, 'large-trace');
    expect(errors).toEqual([]);
    await page.close();
  });
});
