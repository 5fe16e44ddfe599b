import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview, type PreviewServer } from 'vite';
import { chromium, type Browser, type Page } from 'playwright-core';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'artifacts');

/**
 * Whether the browser tests can run. Without Debian's chromium they are skipped with a note, unless
 * KAFKASIM_REQUIRE_BROWSER is set (CI), where a missing browser is a failure.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.KAFKASIM_REQUIRE_BROWSER) throw new Error(`KAFKASIM_REQUIRE_BROWSER is set but ${CHROMIUM} is missing (apt-get install chromium)`);
  console.log(`note: ${CHROMIUM} not found; skipping the browser tests (apt-get install chromium, or set CHROMIUM_PATH)`);
  return false;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    newest = Math.max(newest, st.isDirectory() ? newestMtime(p) : st.mtimeMs);
  }
  return newest;
}

/**
 * Builds the site once per test run (vitest's processes share a parent): later files reuse the build
 * unless a source changed since.
 */
async function buildOnce(): Promise<string> {
  const outDir = join(tmpdir(), `kafkasim-e2e-${process.ppid}`);
  // Builds of earlier test runs (a day old) go.
  for (const name of readdirSync(tmpdir())) {
    const p = join(tmpdir(), name);
    if (name.startsWith('kafkasim-e2e-') && p !== outDir && Date.now() - statSync(p).mtimeMs > 86_400_000) rmSync(p, { recursive: true, force: true });
  }
  const marker = join(outDir, '.built');
  const sources = Math.max(newestMtime(join(ROOT, 'ui')), newestMtime(join(ROOT, 'sim')), newestMtime(join(ROOT, 'scenarios')), statSync(join(ROOT, 'vite.config.ts')).mtimeMs);
  if (existsSync(marker) && statSync(marker).mtimeMs >= sources) return outDir;
  await build({ root: join(ROOT, 'ui'), configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  writeFileSync(marker, '');
  return outDir;
}

export interface AppServer {
  readonly url: string;
  readonly browser: Browser;
  close(): Promise<void>;
}

/** Builds the UI, serves it with `vite preview`, and starts headless Chromium. */
export async function startApp(): Promise<AppServer> {
  const outDir = await buildOnce();
  const server: PreviewServer = await preview({
    root: join(ROOT, 'ui'),
    configFile: join(ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir },
    preview: { port: 0, host: '127.0.0.1', strictPort: false },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const url = server.resolvedUrls!.local[0]!;
  return {
    url,
    browser,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

export interface AppPage {
  readonly page: Page;
  /** Console errors and uncaught exceptions seen so far. */
  readonly errors: string[];
}

export async function openPage(app: AppServer, query = '', viewport = { width: 1440, height: 900 }): Promise<AppPage> {
  const page = await app.browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${String(e)}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.goto(`${app.url}${query}`);
  return { page, errors };
}

/** Waits until the app has finished its n-th load (a run or a trace file) and drawn it. */
export async function waitLoaded(page: Page, loads: number, timeout = 60_000): Promise<void> {
  await page.waitForSelector(`#status[data-ready="true"][data-loads="${loads}"]`, { state: 'attached', timeout });
  await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `ui-${name}.png`) });
}

export async function status(page: Page, key: string): Promise<string> {
  return (await page.getAttribute('#status', `data-${key}`)) ?? '';
}

/** Moves the time slider to a scenario time (ms), as a person dragging it would. */
export async function setSlider(page: Page, ms: number): Promise<void> {
  await page.$eval(
    '[data-testid=time-slider]',
    (el, v) => {
      const input = el as HTMLInputElement;
      input.value = String(v);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
    ms,
  );
  await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
}
