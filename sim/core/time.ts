/**
 * Simulated time is an integer count of microseconds since the start of a run.
 * Kafka's configs stay in their own unit (ms) at the edge and are converted here.
 */
export type Micros = number;

export const MICROS_PER_MS = 1_000;
export const MICROS_PER_SECOND = 1_000_000;

/** Milliseconds to simulated time (rounded to a whole microsecond). */
export function ms(n: number): Micros {
  return Math.round(n * MICROS_PER_MS);
}

/** Seconds to simulated time (rounded to a whole microsecond). */
export function seconds(n: number): Micros {
  return Math.round(n * MICROS_PER_SECOND);
}

/** Simulated time to milliseconds (fractional). */
export function toMs(t: Micros): number {
  return t / MICROS_PER_MS;
}

/** Simulated time to seconds (fractional). */
export function toSeconds(t: Micros): number {
  return t / MICROS_PER_SECOND;
}

/** "12.345s" or "850ms" or "40us": for people, never for parsing. */
export function formatTime(t: Micros): string {
  if (t < 0) return `-${formatTime(-t)}`;
  if (t >= MICROS_PER_SECOND) return `${(t / MICROS_PER_SECOND).toFixed(3)}s`;
  if (t >= MICROS_PER_MS) return `${(t / MICROS_PER_MS).toFixed(t % MICROS_PER_MS === 0 ? 0 : 3)}ms`;
  return `${t}us`;
}

/**
 * Parses a duration a person typed: "60s", "1500ms", "2m", "1h", "250us" or a bare number of milliseconds.
 * Returns null when the text is not a duration, so the caller can name the field in its error.
 */
export function parseDuration(text: string): Micros | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|m|min|h)?\s*$/.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  switch (m[2]) {
    case 'us':
      return Math.round(n);
    case undefined:
    case 'ms':
      return ms(n);
    case 's':
      return seconds(n);
    case 'm':
    case 'min':
      return seconds(n * 60);
    case 'h':
      return seconds(n * 3600);
    default:
      return null;
  }
}
