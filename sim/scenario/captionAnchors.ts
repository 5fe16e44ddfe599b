import type { Micros } from '../core/time';
import type { Trace, TraceEventBase, TraceSink } from '../core/trace';
import type { CaptionAnchor } from './captions';

/**
 * The run-time half of guided captions (captions.ts reads them): naming nodes as the UI does, and emitting an
 * anchored caption right after the event it describes.
 */

/** `{selector}` in a caption's text. */
export const PLACEHOLDER = /\{([^{}\s]+)\}/g;

/**
 * What the UI calls a host: the scenario's name for a broker (`cluster.brokerNames`), else "broker 2" for broker-2;
 * "controller 1" for controller-1; a client by its id.
 */
export function displayName(hostId: string, brokerNames: readonly string[] | null = null): string {
  const m = /^(broker|controller)-(\d+)$/.exec(hostId);
  if (!m) return hostId;
  const named = m[1] === 'broker' ? brokerNames?.[Number(m[2]) - 1] : undefined;
  return named ?? `${m[1]} ${m[2]}`;
}

/** The caption's text with each `{selector}` replaced by the names of the hosts it means now. */
export function nameNodes(text: string, resolve: (selector: string) => readonly string[] | null, brokerNames: readonly string[] | null = null): string {
  const named = text.replace(PLACEHOLDER, (whole, sel: string) => {
    const hosts = resolve(sel);
    if (!hosts || hosts.length === 0) return whole;
    const names = hosts.map((h) => displayName(h, brokerNames));
    return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
  });
  // A name put first opens a sentence ("Broker 2 crashes."); a name the scenario gave a broker keeps its case ("db-east").
  const givenFirst = brokerNames !== null && brokerNames.some((n) => named.startsWith(n));
  return named !== text && text.startsWith('{') && named.charAt(0) !== '{' && !givenFirst ? named.charAt(0).toUpperCase() + named.slice(1) : named;
}

/** The anchor with each `"{selector}"` value replaced by the one host id it means now (a node to match). */
export function nameAnchor(on: CaptionAnchor, resolve: (selector: string) => readonly string[] | null): CaptionAnchor {
  const where: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(on.where)) {
    const sel = typeof v === 'string' ? /^\{([^{}\s]+)\}$/.exec(v) : null;
    const hosts = sel ? resolve(sel[1]!) : null;
    where[k] = hosts && hosts.length > 0 ? hosts[0]! : v;
  }
  return { kind: on.kind, where };
}

function matches(e: TraceEventBase, on: CaptionAnchor): boolean {
  if (e.kind !== on.kind) return false;
  const fields = e as unknown as Record<string, unknown>;
  for (const k in on.where) if (fields[k] !== on.where[k]) return false;
  return true;
}

/**
 * Watches the trace for the anchors of the captions whose time has come and emits each caption right after its
 * event (scheduled at the same instant, so it follows the handler that emitted the anchor). `about` is the anchor's
 * sequence number: what the caption talks about.
 */
export class CaptionAnchors implements TraceSink {
  private readonly waiting: { readonly atUs: Micros; readonly text: string; readonly on: CaptionAnchor }[] = [];
  private schedule: ((atUs: Micros, f: () => void) => void) | null = null;
  private trace: Trace | null = null;

  /** A caption (time absolute) to wait for; kept in time order. */
  add(c: { readonly atUs: Micros; readonly text: string; readonly on: CaptionAnchor }): void {
    let k = this.waiting.length;
    while (k > 0 && this.waiting[k - 1]!.atUs > c.atUs) k--;
    this.waiting.splice(k, 0, c);
  }

  attach(trace: Trace, schedule: (atUs: Micros, f: () => void) => void): void {
    this.trace = trace;
    this.schedule = schedule;
  }

  event(e: TraceEventBase): void {
    const w = this.waiting;
    if (w.length === 0 || w[0]!.atUs > e.t) return;
    for (let k = 0; k < w.length && w[k]!.atUs <= e.t; k++) {
      const c = w[k]!;
      if (!matches(e, c.on)) continue;
      w.splice(k--, 1);
      const about = e.seq;
      this.schedule?.(e.t, () => this.trace?.emit('caption', 'scenario', { text: c.text, about }));
    }
  }

  /** Captions whose anchor never came: shown at the end, so the story is complete even when a run went otherwise. */
  flush(): void {
    for (const c of this.waiting.splice(0)) this.trace?.emit('caption', 'scenario', { text: c.text });
  }
}
