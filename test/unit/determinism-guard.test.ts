import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// Inside sim/ all time comes from the simulated clock and all randomness from seeded streams.
// sim/cli and sim/explore run outside a simulation (I/O, workers) and are exempt, as is any line
// that says `determinism-ok` in a comment.
const BANNED: [RegExp, string][] = [
  [/\bMath\.random\b/, 'Math.random'],
  [/\bDate\.now\b|\bnew Date\b|\bDate\(/, 'Date'],
  [/\bsetTimeout\b/, 'setTimeout'],
  [/\bsetInterval\b/, 'setInterval'],
  [/\bsetImmediate\b/, 'setImmediate'],
  [/\bperformance\.now\b/, 'performance.now'],
  [/\bprocess\.hrtime\b/, 'process.hrtime'],
  [/\bcrypto\.(getRandomValues|random\w*)\b|\brandomUUID\b|\brandomBytes\b/, 'crypto randomness'],
  [/\basync\s+(function\b|\(|[A-Za-z_$][\w$]*\s*(\(|=>))|\bawait\b/, 'async/await'],
];
const EXEMPT_DIRS = ['sim/cli', 'sim/explore'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

export function findViolations(root: string): string[] {
  const out: string[] = [];
  for (const file of files(join(root, 'sim'))) {
    const rel = relative(root, file).split('\\').join('/');
    if (EXEMPT_DIRS.some((d) => rel.startsWith(d + '/'))) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.includes('determinism-ok')) return;
        const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '');
        for (const [re, what] of BANNED) if (re.test(code)) out.push(`${rel}:${i + 1} uses ${what}: ${line.trim()}`);
      });
  }
  return out;
}

describe('determinism guard', () => {
  it('finds no real time, real randomness, timers or async in simulation code', () => {
    expect(findViolations(process.cwd())).toEqual([]);
  });

  it('would catch each banned construct', () => {
    const samples = [
      'const x = Math.random();',
      'const t = Date.now();',
      'const d = new Date();',
      'setTimeout(f, 1);',
      'setInterval(f, 1);',
      'setImmediate(f);',
      'performance.now();',
      'process.hrtime();',
      'crypto.getRandomValues(a);',
      'crypto.randomUUID();',
      'async function f() {}',
      'const g = async () => 1;',
      'await x;',
    ];
    for (const s of samples) {
      const code = s;
      expect(BANNED.some(([re]) => re.test(code)), s).toBe(true);
    }
    expect(BANNED.some(([re]) => re.test('const asyncCommit = true; // commitAsync'))).toBe(false);
  });
});
