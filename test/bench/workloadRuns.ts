/**
 * Runs a workload of workloads.ts in fresh Node processes (one per run, so each peak memory is its own) and
 * keeps the median run by wall time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileShare, type CpuProfile, type ProfileShare } from './profileShare';

export interface WorkloadFigures {
  readonly simulatedSeconds: number;
  readonly wallSeconds: number;
  readonly events: number;
  readonly eventsPerSec: number;
  readonly compression: number;
  /** CPU seconds of the run (user + system) and simulated seconds per CPU second: steadier than wall on a shared machine. */
  readonly cpuSeconds?: number | undefined;
  readonly cpuCompression?: number | undefined;
  readonly peakMemoryMB: number;
  /** Wall microseconds per engine event. */
  readonly usPerEvent: number;
  /** Live heap (typed arrays' contents included) after a forced GC at the end of the run, per acknowledged record. */
  readonly bytesPerRecord: number | null;
}

const script = fileURLToPath(new URL('./workload.ts', import.meta.url));

export function runWorkload(name: string, runs: number, duration?: string): { median: WorkloadFigures; all: WorkloadFigures[] } {
  const all: WorkloadFigures[] = [];
  for (let i = 0; i < runs; i++) {
    // Node's default heap, as a user's run gets it: a run holds every record it wrote (its logs, their disk chunks,
    // the checkers' history) until it ends, and the big workload has to fit in that.
    const args = ['--expose-gc', '--import', 'tsx', script, name, ...(duration ? [duration] : [])];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (r.status !== 0) throw new Error(`workload ${name} failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-5).join('\n')}`);
    const line = r.stdout.trim().split('\n').pop()!;
    const f = JSON.parse(line) as WorkloadFigures;
    all.push({
      simulatedSeconds: f.simulatedSeconds,
      wallSeconds: f.wallSeconds,
      events: f.events,
      eventsPerSec: f.eventsPerSec,
      compression: f.compression,
      cpuSeconds: f.cpuSeconds,
      cpuCompression: f.cpuCompression,
      peakMemoryMB: f.peakMemoryMB,
      usPerEvent: f.usPerEvent,
      bytesPerRecord: f.bytesPerRecord,
    });
  }
  const sorted = [...all].sort((a, b) => a.wallSeconds - b.wallSeconds);
  return { median: sorted[Math.floor(sorted.length / 2)]!, all };
}

export interface CheckerCostFigures {
  /** Median CPU seconds of the run with the checkers, and without. */
  readonly cpuOn: number;
  readonly cpuOff: number;
  /** (on - off) / on: the checkers' share of the run's CPU, report included. */
  readonly share: number;
  /** What the checkers hold at the end of the run, per acknowledged record. */
  readonly bytesPerAckedRecord: number;
  readonly acked: number;
}

const costScript = fileURLToPath(new URL('./checkerCost.ts', import.meta.url));

/** The checkers' cost on a workload: runs with them on and off, alternating, each in a fresh process. */
export function runCheckerCost(name: string, runs: number): CheckerCostFigures {
  const on: { cpuSeconds: number; bytesPerAckedRecord: number; acked: number }[] = [];
  const off: { cpuSeconds: number }[] = [];
  for (let i = 0; i < runs; i++) {
    for (const mode of ['on', 'off'] as const) {
      const args = ['--expose-gc', '--import', 'tsx', costScript, name, mode];
      const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (r.status !== 0) throw new Error(`checker cost ${name} ${mode} failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-5).join('\n')}`);
      const f = JSON.parse(r.stdout.trim().split('\n').pop()!) as { cpuSeconds: number; bytesPerAckedRecord: number; acked: number };
      (mode === 'on' ? on : off).push(f);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const cpuOn = median(on.map((x) => x.cpuSeconds));
  const cpuOff = median(off.map((x) => x.cpuSeconds));
  return {
    cpuOn,
    cpuOff,
    share: Number(((cpuOn - cpuOff) / cpuOn).toFixed(3)),
    bytesPerAckedRecord: median(on.map((x) => x.bytesPerAckedRecord)),
    acked: on[0]!.acked,
  };
}

/** The checkers' code: every frame from these files is the checkers' (their report included). */
export const CHECKER_CODE: readonly string[] = ['/sim/check/'];

/**
 * The checkers' share of a workload's CPU profile: the workload run as the bench runs it (checkers on) under
 * `node --cpu-prof`, once per run in a fresh process, and the share of its busy samples with a frame of the
 * checkers' code on the stack (profileShare.ts). Unlike on/off CPU times, it does not count what the checkers
 * make the rest of the run pay (a fuller heap to collect, colder caches), and it does not swing with the load
 * of a shared machine. The run with the median share is kept.
 */
export function checkerProfileShare(name: string, runs: number, duration?: string): ProfileShare {
  const shares: ProfileShare[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'checker-profile-'));
    try {
      const args = ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', script, name, ...(duration ? [duration] : [])];
      const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (r.status !== 0) throw new Error(`profile of ${name} failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-5).join('\n')}`);
      // One profile per thread (tsx's loader runs on one of its own): the run's is the largest.
      const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
      const main = files.map((f) => join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size)[0];
      if (main === undefined) throw new Error(`profile of ${name}: node wrote no .cpuprofile`);
      shares.push(profileShare(JSON.parse(readFileSync(main, 'utf8')) as CpuProfile, CHECKER_CODE));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return [...shares].sort((a, b) => a.share - b.share)[Math.floor(shares.length / 2)]!;
}
