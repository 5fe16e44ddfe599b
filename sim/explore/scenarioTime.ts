import { parseDuration } from '../core/time';

/** A scenario time field (milliseconds, or a duration text such as "20s") in milliseconds; `fallback` when absent or unreadable. */
export function msOf(v: number | string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v === 'number') return v;
  const us = parseDuration(v);
  return us === null ? fallback : us / 1000;
}
