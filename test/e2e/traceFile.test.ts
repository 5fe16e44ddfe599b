import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonlSink } from '../../sim/core/trace';
import { cutToDuration } from '../../sim/scenario/cutDuration';
import { runScenario } from '../../sim/scenario/runner';
import { validateScenario } from '../../sim/scenario/validate';
import type { ScenarioSpec } from '../../sim/scenario/spec';
import { browserAvailable, openPage, ROOT, screenshot, startApp, status, waitLoaded, type AppServer } from './support';

const tmp = mkdtempSync(join(tmpdir(), 'kafkasim-ui-'));

describe.skipIf(!browserAvailable())('trace files in the UI', () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('opens a trace written by the CLI (file picker), with the hash the CLI printed', async () => {
    const file = join(tmp, 'acks1.jsonl');
    const out = execFileSync(process.execPath, [join(ROOT, 'bin/kafkasim.js'), 'run', 'acks1-leader-crash', '--seed', '2', '--trace', file], { cwd: ROOT, encoding: 'utf8' });
    const printed = /trace hash ([0-9a-f]{16})/.exec(out)?.[1];
    expect(printed).toMatch(/^[0-9a-f]{16}$/);
    const lines = readFileSync(file, 'utf8').trim().split('\n').length;

    const { page, errors } = await openPage(app);
    await page.waitForSelector('#gallery:not([hidden])');
    await page.setInputFiles('#file-input', file);
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(printed);
    expect(Number(await status(page, 'events'))).toBe(lines - 1);
    await expect(page.locator('[data-testid=run-title]').textContent()).resolves.toContain('acks1.jsonl');
    await expect(page.locator('[data-testid=lost-count]').count()).resolves.toBe(1);
    // A trace of a library scenario can be rerun here, to change its settings.
    await expect(page.locator('[data-testid=run-here]').count()).resolves.toBe(1);
    await screenshot(page, 'trace-file');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens a trace dropped on the page, with the run\'s hash though an editor gave it CRLF line ends and a byte-order mark', async () => {
    const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', 'acks1-leader-crash.json'), 'utf8')) as ScenarioSpec;
    let text = '';
    const r = runScenario(validateScenario({ ...cutToDuration(spec, '6s').spec, quiet: '2s', faults: [], captions: [] }), { seed: 3, sinks: [new JsonlSink((l) => (text += l))] });
    const { page, errors } = await openPage(app);
    await page.waitForSelector('#gallery:not([hidden])');
    const drop = async (t: string) => {
      const dt = await page.evaluateHandle((t) => {
        const d = new DataTransfer();
        d.items.add(new File([t], 'dropped.jsonl', { type: 'application/x-ndjson' }));
        return d;
      }, t);
      await page.dispatchEvent('body', 'dragenter', { dataTransfer: dt });
      await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
    };
    await drop('\ufeff' + text.replace(/\n/g, '\r\n'));
    await waitLoaded(page, 1);
    expect(await status(page, 'hash')).toBe(r.traceHash);
    // The same refusal as `kafkasim check` for a trace cut short: the error names where it stops.
    const lines = text.trimEnd().split('\n');
    await drop(lines.slice(0, -3).join('\n'));
    await page.waitForSelector('#error-bar:not([hidden])');
    await expect(page.locator('#error-bar').textContent()).resolves.toContain(`the trace stops at line ${lines.length - 3}`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows consumer groups from consumer.* and group.* events, and says so when there are none', async () => {
    const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', 'acks1-leader-crash.json'), 'utf8')) as ScenarioSpec;
    const lines: string[] = [];
    runScenario(validateScenario({ ...cutToDuration(spec, '12s').spec, quiet: '3s' }), { seed: 1, sinks: [new JsonlSink((l) => lines.push(l.trimEnd()))] });
    const header = lines[0]!;
    const events = lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown> & { t: number; seq: number });
    const t0 = events.find((e) => e['kind'] === 'scenario.start')!.t;
    // A group of two consumers, added the way the consumer client traces them: one owns orders-0 and
    // commits, crashes at 6s, and the other takes over after a rebalance.
    const s = 1_000_000;
    const extra: Record<string, unknown>[] = [
      { t: t0 + 0.5 * s, kind: 'group.rebalance', node: 'broker-2', group: 'billing', generation: 1, protocol: 'range', leader: 'm1', members: ['m1', 'm2'], rejoined: ['m1', 'm2'], reason: 'initial join' },
      { t: t0 + 0.6 * s, kind: 'consumer.assignment', node: 'consumer-1', group: 'billing', memberId: 'm1', generation: 1, protocol: 'range', assigned: ['orders-0'], revoked: [], lost: [], owned: ['orders-0'] },
      { t: t0 + 0.6 * s, kind: 'consumer.assignment', node: 'consumer-2', group: 'billing', memberId: 'm2', generation: 1, protocol: 'range', assigned: [], revoked: [], lost: [], owned: [] },
      ...[1, 2, 3, 4, 5].map((k) => ({ t: t0 + k * s, kind: 'consumer.commit', node: 'consumer-1', group: 'billing', memberId: 'm1', generation: 1, source: 'auto', offsets: [{ topic: 'orders', partition: 0, offset: k * 150 }], ok: true, error: 'NONE', sentAt: t0 + k * s - 2000 })),
      { t: t0 + 6 * s, kind: 'host.crash', node: 'consumer-1', processes: ['consumer-1'] },
      { t: t0 + 9 * s, kind: 'group.rebalance', node: 'broker-2', group: 'billing', generation: 2, protocol: 'range', leader: 'm2', members: ['m2'], rejoined: ['m2'], reason: 'member m1 expired' },
      { t: t0 + 9 * s + 5000, kind: 'consumer.assignment', node: 'consumer-2', group: 'billing', memberId: 'm2', generation: 2, protocol: 'range', assigned: ['orders-0'], revoked: [], lost: [], owned: ['orders-0'] },
      { t: t0 + 10 * s, kind: 'consumer.commit', node: 'consumer-2', group: 'billing', memberId: 'm2', generation: 2, source: 'auto', offsets: [{ topic: 'orders', partition: 0, offset: 1500 }], ok: true, error: 'NONE', sentAt: t0 + 10 * s - 2000 },
    ];
    const merged = [...events, ...extra.map((e) => ({ ...e, seq: 0 }) as Record<string, unknown> & { t: number; seq: number })].sort((a, b) => a.t - b.t || a.seq - b.seq);
    merged.forEach((e, i) => (e.seq = i));
    const file = join(tmp, 'groups.jsonl');
    writeFileSync(file, [header, ...merged.map((e) => JSON.stringify(e))].join('\n') + '\n');

    // First a run without consumers: the groups view says there are none.
    const { page, errors } = await openPage(app, '?s=acks1-leader-crash&seed=1&view=groups');
    await waitLoaded(page, 1);
    await expect(page.locator('[data-testid=groups-empty]').textContent()).resolves.toContain('no consumer groups');
    await page.setInputFiles('#file-input', file);
    await waitLoaded(page, 2);
    await page.click('[data-testid=tab-groups]');
    await page.waitForSelector('[data-testid=groups-svg] rect.own');
    expect(await page.locator('[data-testid=groups-svg] rect.own').count()).toBe(2);
    expect(await page.locator('[data-testid=groups-svg] line.rebalance').count()).toBe(2);
    expect(await page.locator('[data-testid=groups-svg] path.lag').count()).toBe(1);
    expect(await page.locator('[data-testid=groups-empty]').isVisible()).toBe(false);
    await page.keyboard.press('End');
    // The table follows the cursor on the next frame.
    await page.waitForFunction(() => document.querySelector('.groups-table')?.textContent?.includes('consumer-2') === true, undefined, { timeout: 10_000 });
    await expect(page.locator('.groups-table').textContent()).resolves.toContain('consumer-2');
    await screenshot(page, 'groups');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows markup in keys, values and names as text, and runs none of it', async () => {
    // A run whose keys are markup; then its values and its producer's name rewritten into markup too
    // (consistently, so the checkers still find its lost writes).
    const spec = JSON.parse(readFileSync(join(ROOT, 'scenarios', 'acks1-leader-crash.json'), 'utf8')) as ScenarioSpec;
    const evilKey = '<img src=x onerror="window.__pwned=1">';
    const producers = spec.producers!.map((p) => ({ ...p, workload: { ...(p.workload as object), keys: { kind: 'fixed', key: evilKey } } })) as unknown as ScenarioSpec['producers'];
    let text = '';
    runScenario(validateScenario({ ...spec, producers, title: '<script>window.__pwned=2</script>acks1' }), { seed: 1, sinks: [new JsonlSink((l) => (text += l))] });
    const evilName = '<b onmouseover=window.__pwned=3>p1</b>';
    // In the events only: the header's scenario must still be one this build can check (producer ids are names).
    const nl = text.indexOf('\n') + 1;
    text = text.slice(0, nl) + text.slice(nl).split('"producer-1').join(`"${evilName.replace(/"/g, '\\"')}`);
    const file = join(tmp, 'markup.jsonl');
    writeFileSync(file, text);

    const { page, errors } = await openPage(app);
    await page.waitForSelector('#gallery:not([hidden])');
    await page.setInputFiles('#file-input', file);
    await waitLoaded(page, 1);
    // The lost writes list shows the values as text.
    const item = page.locator('[data-testid=lost-write]').first();
    await expect(item.textContent()).resolves.toContain(`${evilName}:`);
    await item.click();
    await page.waitForSelector('[data-testid=story] li');
    await expect(page.locator('[data-testid=story]').textContent()).resolves.toContain(evilName);
    // The key shows in a record's tooltip.
    await page.locator('[data-testid=partition-A] rect.cell[data-testid=highlight]').first().hover();
    await expect(page.locator('[data-testid=tooltip]').textContent()).resolves.toContain(evilKey);
    // The title and the timeline lane carry the markup as text.
    await expect(page.locator('[data-testid=run-title]').textContent()).resolves.toContain('<script>');
    await expect(page.locator('[data-testid=timeline-svg] text.lane-label title', { hasText: evilName }).count()).resolves.toBe(1);
    // Nothing of it became an element or ran.
    expect(await page.locator('img[src="x"], b[onmouseover], #app script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await screenshot(page, 'markup');
    expect(errors).toEqual([]);
    await page.close();
  });
});
