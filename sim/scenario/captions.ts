import type { Micros } from '../core/time';
import { ValidationError, didYouMean, expectObject, expectString, isRecord, join } from '../core/validate';
import { readSelectors, type TargetResolver } from '../world/nemesis';
import { TRACE_SCHEMA } from './traceKinds';
import { PLACEHOLDER } from './captionAnchors';

/**
 * The captions of a guided scenario. A caption is anchored to the event it describes, not to a fixed time:
 * `"at": "17s", "on": "controller.election"` shows the caption right after the first election at or after 17 s, so
 * whatever reads the trace (the UI, the CLI) shows it when the cluster's state is what it says. A caption names
 * the cluster's nodes as the UI does: `{leader:orders/0}` or `{follower:accounts/0#1}` in its text becomes the
 * broker the selector means when the scenario starts ("broker 2"), so the story and the screen use one name.
 */

/** The event a caption waits for: a trace kind and fields that must match (`{"topic": "orders"}`, `{"node": "{leader:orders/0}"}`). */
export interface CaptionAnchor {
  readonly kind: string;
  readonly where: Readonly<Record<string, string | number | boolean>>;
}

export interface Caption {
  /** Scenario time from which the caption waits for its anchor (or shows, without one). */
  readonly atUs: Micros;
  readonly text: string;
  readonly on: CaptionAnchor | null;
}

const CAPTION_FIELDS = ['at', 'text', 'on', 'where'] as const;

/** Reads one caption entry; `readAt` reads its time (within the run). */
export function readCaption(v: unknown, path: string, readAt: (v: unknown, path: string) => Micros, resolver: TargetResolver): Caption {
  const o = expectObject(v, path, CAPTION_FIELDS);
  const text = expectString(o.text, join(path, 'text'));
  const names = [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
  if (names.length > 0) readSelectors(names, join(path, 'text'), resolver);
  const atUs = readAt(o.at, join(path, 'at'));
  if (o.on === undefined) {
    if (o.where !== undefined) throw new ValidationError(join(path, 'where'), o.where, 'fields to match only together with "on" (the event kind the caption waits for)');
    return { atUs, text, on: null };
  }
  const kind = expectString(o.on, join(path, 'on'));
  const kinds = Object.keys(TRACE_SCHEMA);
  const fields = (TRACE_SCHEMA as Record<string, Record<string, unknown>>)[kind];
  if (!fields || kind === 'caption') {
    const near = didYouMean(kind, kinds);
    throw new ValidationError(join(path, 'on'), kind, 'a trace event kind (e.g. "controller.election", "replica.truncate", "host.crash", "fault.start")', near ? `did you mean "${near}"?` : undefined);
  }
  const where: Record<string, string | number | boolean> = {};
  if (o.where !== undefined) {
    if (!isRecord(o.where)) throw new ValidationError(join(path, 'where'), o.where, `an object of ${kind} fields to match, e.g. {"topic": "orders"}`);
    const allowed = ['node', ...Object.keys(fields)];
    for (const [k, val] of Object.entries(o.where)) {
      if (!allowed.includes(k)) {
        const near = didYouMean(k, allowed);
        throw new ValidationError(join(join(path, 'where'), k), val, `a field of ${kind} (${allowed.join(', ')})`, near ? `did you mean "${near}"?` : undefined);
      }
      if (typeof val !== 'string' && typeof val !== 'number' && typeof val !== 'boolean') throw new ValidationError(join(join(path, 'where'), k), val, 'a string, number or boolean to compare the field with');
      // A node may be named by a selector ("{leader:orders/0}"): the host it means when the scenario starts.
      const sel = typeof val === 'string' ? /^\{([^{}\s]+)\}$/.exec(val) : null;
      if (sel) readSelectors([sel[1]!], join(join(path, 'where'), k), resolver);
      where[k] = val;
    }
  }
  return { atUs, text, on: { kind, where } };
}

