import { formatTime } from '../../../sim/core/time';

/** Scenario time (relative to scenario.start) as the checkers print it: "5.004s", "850ms", "-1.200s". */
export function rel(t: number, t0: number): string {
  const d = Math.round(t - t0);
  return d === 0 ? '0s' : formatTime(d);
}

/** A time in seconds with fixed decimals, for axes and the clock. */
export function secs(us: number, digits = 3): string {
  return `${(us / 1e6).toFixed(digits)}s`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/** Truncates a text for a label; the full text belongs in a title/tooltip. */
export function short(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1))}…`;
}
