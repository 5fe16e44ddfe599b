import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describeCase, fuzzCase, type FuzzCase } from './cases';
import { prepareFixtures } from './fixtures';
import { runCases } from './harness';
import { judge, type Outcome, type Verdict } from './verdict';

/** A case slower than this is listed (see CampaignResult.slow). */
export const SLOW_MS = 60_000;

/**
 * The default limit of one case, in CPU time of its own thread (harness.ts): past it, a case is a hang. CPU time,
 * so that a machine shared with other work does not turn a slow case into a hang (two 9,000-partition cases did
 * at 600 s of wall-clock time); generous, because a legitimate case can be slow (9,000 partitions on three
 * brokers run in about 30 s of CPU); a hang never answers at all.
 */
export const CASE_LIMIT_MS = 600_000;

export interface CampaignOptions {
  readonly cases: number;
  readonly seed: number;
  readonly workers: number;
  readonly limitMs: number;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface Finding {
  readonly verdict: Exclude<Verdict, 'ok'>;
  readonly index: number;
  readonly what: string;
  readonly detail: string;
}

export interface CampaignResult {
  readonly seed: number;
  readonly cases: number;
  /** How many cases came to each verdict (ok included). */
  readonly figures: Record<Verdict, number>;
  /** Exit codes seen (0, 1, 2, 3, threw, hang, died). */
  readonly codes: Record<string, number>;
  readonly findings: readonly Finding[];
  /** Cases that ran a scenario (exit 0 or 1), for a determinism sample. */
  readonly ran: readonly FuzzCase[];
  /** Cases that took longer than SLOW_MS but answered (a big cluster is slow, not hung): not findings, but shown. */
  readonly slow: readonly { what: string; wallMs: number; cpuMs: number | null }[];
  readonly wallMs: number;
}

/** The cases of a campaign: `count` draws from `seed`, the same on every machine. */
export function drawCases(count: number, seed: number): FuzzCase[] {
  return fc.sample(fuzzCase, { numRuns: count, seed });
}

/** Draws `cases` cases from `seed`, runs them under the harness and counts what came of them. */
export async function campaign(opts: CampaignOptions): Promise<CampaignResult> {
  const t0 = performance.now();
  const tmp = mkdtempSync(join(tmpdir(), 'kafkasim-fuzz-'));
  try {
    await prepareFixtures(tmp);
    const cases = drawCases(opts.cases, opts.seed);
    const figures: Record<Verdict, number> = { ok: 0, 'stack-trace': 0, hang: 0, died: 0, 'multi-line-error': 0, 'accepted-nonsense': 0 };
    const codes: Record<string, number> = {};
    const findings: Finding[] = [];
    const ran: FuzzCase[] = [];
    const slow: { what: string; wallMs: number; cpuMs: number | null }[] = [];
    let done = 0;
    await runCases(cases, {
      workers: opts.workers,
      limitMs: opts.limitMs,
      tmp,
      onOutcome: (i, c, o: Outcome) => {
        const v = judge(o, c.mustReject);
        figures[v]++;
        codes[String(o.code)] = (codes[String(o.code)] ?? 0) + 1;
        if (o.code === 0 || o.code === 1) ran.push(c);
        if (v === 'ok' && o.wallMs > SLOW_MS) slow.push({ what: describeCase(c), wallMs: o.wallMs, cpuMs: o.cpuMs ?? null });
        if (v !== 'ok') {
          const detail = v === 'accepted-nonsense' ? `accepted (exit ${o.code}): ${c.mustReject}` : o.err.split('\n').slice(0, 6).join(' | ').slice(0, 600);
          findings.push({ verdict: v, index: i, what: describeCase(c), detail });
        }
        opts.onProgress?.(++done, cases.length);
      },
    });
    return { seed: opts.seed, cases: cases.length, figures, codes, findings, ran, slow, wallMs: Math.round(performance.now() - t0) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
