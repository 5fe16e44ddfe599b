/**
 * The `browser` workload: `steady` in headless Chromium (Debian's, driven by playwright-core) and in Node, from
 * one bundle, in the same bench run. Peak memory is the renderer's peak resident set (VmHWM in /proc).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import type { BenchRun } from './browserEntry';
import type { WorkloadFigures } from './workloadRuns';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

async function bundle(): Promise<{ file: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'kafkasim-bench-'));
  await build({
    configFile: false,
    logLevel: 'warn',
    build: {
      outDir: dir,
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      lib: { entry: fileURLToPath(new URL('./browserEntry.ts', import.meta.url)), formats: ['es'], fileName: () => 'bench.mjs' },
    },
  });
  return { file: join(dir, 'bench.mjs'), dir };
}

/** Peak resident set of the Chromium renderer processes descended from `pid`, in MB (0 when /proc says nothing). */
function rendererPeakMB(pid: number): number {
  let peak = 0;
  const visit = (p: number): void => {
    let children: number[] = [];
    try {
      children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return;
    }
    for (const c of children) {
      try {
        const cmd = readFileSync(`/proc/${c}/cmdline`, 'utf8');
        if (cmd.includes('--type=renderer')) {
          const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${c}/status`, 'utf8'));
          if (m) peak = Math.max(peak, Number(m[1]) / 1024);
        }
      } catch {
        // the process ended meanwhile
      }
      visit(c);
    }
  };
  visit(pid);
  return Math.round(peak);
}

function figures(r: BenchRun, peakMemoryMB: number): WorkloadFigures {
  return {
    simulatedSeconds: r.simulatedSeconds,
    wallSeconds: Number(r.wallSeconds.toFixed(3)),
    events: r.events,
    eventsPerSec: Math.round(r.events / r.wallSeconds),
    compression: Number((r.simulatedSeconds / r.wallSeconds).toFixed(2)),
    peakMemoryMB,
    usPerEvent: Number(((r.wallSeconds * 1e6) / r.events).toFixed(2)),
    // No forced GC in a renderer or in the bundle's Node run: live heap per record is measured by the Node workloads.
    bytesPerRecord: null,
  };
}

export interface BrowserFigures extends WorkloadFigures {
  /** The same run in Node (same bundle, this process). */
  readonly node: WorkloadFigures;
  /** Browser wall time over Node's (1 = as fast). */
  readonly slowdown: number;
}

/** Runs `steady` once in Node and once in Chromium; null (with the reason) when there is no Chromium. */
export async function runBrowser(duration?: string): Promise<BrowserFigures | { skipped: string }> {
  if (!existsSync(CHROMIUM)) return { skipped: `${CHROMIUM} not found (apt-get install chromium)` };
  const { file, dir } = await bundle();
  try {
    await import(pathToFileURL(file).href);
    const run = (globalThis as { kafkasimBench?: (n: string, d?: string) => BenchRun }).kafkasimBench!;
    const nodeRun = run('steady', duration);
    const nodeFigures = figures(nodeRun, Math.round(process.resourceUsage().maxRSS / 1024));
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage();
      await page.goto('about:blank');
      await page.addScriptTag({ content: readFileSync(file, 'utf8'), type: 'module' });
      await page.waitForFunction(() => typeof (globalThis as { kafkasimBench?: unknown }).kafkasimBench === 'function');
      const b = await page.evaluate(([d]) => (globalThis as unknown as { kafkasimBench: (n: string, d?: string) => BenchRun }).kafkasimBench('steady', d), [duration] as const);
      const f = figures(b, rendererPeakMB(process.pid));
      return { ...f, node: nodeFigures, slowdown: Number((f.wallSeconds / nodeFigures.wallSeconds).toFixed(2)) };
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// `tsx test/bench/browser.ts [duration]` runs it alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runBrowser(process.argv[2]).then((r) => console.log(JSON.stringify(r)));
}
