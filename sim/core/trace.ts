import { Fnv1a64 } from './hash';
import type { Micros } from './time';

/**
 * The registry of trace event kinds and their fields. Each layer adds its own kinds by augmenting this
 * interface (`declare module '../core/trace' { interface TraceKinds { 'host.crash': {...} } }`), so an
 * event's fields are checked where it is emitted and known where it is read.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface TraceKinds {}

export type TraceKind = keyof TraceKinds & string;

/** Fields every event carries, in this order on every line: time (us), sequence, kind, node. */
export interface TraceEventBase {
  readonly t: Micros;
  readonly seq: number;
  readonly kind: string;
  readonly node: string;
}

/** A typed event of kind K. */
export type TraceEventOf<K extends TraceKind> = TraceEventBase & { readonly kind: K } & TraceKinds[K];

/** Any event in a trace (use `isKind` to narrow). */
export type TraceEvent = TraceEventBase & Record<string, unknown>;

export function isKind<K extends TraceKind>(e: TraceEventBase, kind: K): e is TraceEventOf<K> {
  return e.kind === kind;
}

export const TRACE_FORMAT = 'kafkasim-trace';
export const TRACE_VERSION = 1;

/** The first line of every trace. */
export interface TraceHeader {
  readonly format: typeof TRACE_FORMAT;
  readonly version: number;
  readonly scenario: string;
  readonly seed: number | string;
  /** The full, resolved configuration of the run (plain JSON). */
  readonly config: unknown;
}

export function makeHeader(scenario: string, seed: number | string, config: unknown): TraceHeader {
  return { format: TRACE_FORMAT, version: TRACE_VERSION, scenario, seed, config };
}

/** Receives the header once, then every event in order. */
export interface TraceSink {
  /** True when the sink needs each event as its canonical JSON line (computed once and shared). */
  readonly wantsLines?: boolean;
  header?(header: TraceHeader, line: string): void;
  event(e: TraceEvent, line: string): void;
  close?(): void;
}

/** The canonical text of an event: compact JSON with t, seq, kind, node first, then the kind's fields. */
export function canonicalLine(e: TraceEventBase): string {
  return JSON.stringify(e);
}

/** Keeps every event in memory (the checkers and the UI read this). */
export class MemorySink implements TraceSink {
  readonly events: TraceEvent[] = [];
  header_: TraceHeader | undefined;
  header(h: TraceHeader): void {
    this.header_ = h;
  }
  event(e: TraceEvent): void {
    this.events.push(e);
  }
}

/** Writes JSON Lines through a function the caller owns (a file, stdout, a download). */
export class JsonlSink implements TraceSink {
  readonly wantsLines = true;
  constructor(private readonly write: (line: string) => void) {}
  header(_h: TraceHeader, line: string): void {
    this.write(line + '\n');
  }
  event(_e: TraceEvent, line: string): void {
    this.write(line + '\n');
  }
}

/** Passes on only the events a predicate keeps. */
export class FilterSink implements TraceSink {
  readonly wantsLines: boolean;
  constructor(
    private readonly keep: (e: TraceEvent) => boolean,
    private readonly inner: TraceSink,
  ) {
    this.wantsLines = inner.wantsLines === true;
  }
  header(h: TraceHeader, line: string): void {
    this.inner.header?.(h, line);
  }
  event(e: TraceEvent, line: string): void {
    if (this.keep(e)) this.inner.event(e, line);
  }
  close(): void {
    this.inner.close?.();
  }
}

/** Streams the 64-bit FNV-1a hash of the canonical JSON Lines (header line included). */
export class HashSink implements TraceSink {
  readonly wantsLines = true;
  private readonly h = new Fnv1a64();
  header(_h: TraceHeader, line: string): void {
    this.h.update(line).update('\n');
  }
  event(_e: TraceEvent, line: string): void {
    this.h.update(line).update('\n');
  }
  hex(): string {
    return this.h.hex();
  }
}

/** Something that knows the simulated time (the scheduler). */
export interface Clock {
  readonly now: Micros;
}

/**
 * The trace recorder. Layers call `emit(kind, node, fields)`; the recorder stamps time and sequence,
 * builds the canonical line once if any sink wants it, and hands the event to every sink in order.
 */
export class Trace {
  private nextSeq = 0;
  private readonly sinks: TraceSink[];
  /**
   * Record routine detail (each follower's copy of each batch, followers' high watermarks). A "minimal"
   * trace leaves it out; emitters of such events check this first, so they cost nothing when it is off.
   */
  readonly detail: boolean;
  private readonly wantLines: boolean;
  private readonly hashSink: HashSink | undefined;

  constructor(
    private readonly clock: Clock,
    readonly header: TraceHeader,
    sinks: TraceSink[],
    options: { hash?: boolean; detail?: boolean } = {},
  ) {
    this.detail = options.detail !== false;
    this.sinks = sinks.slice();
    if (options.hash !== false) {
      this.hashSink = new HashSink();
      this.sinks.push(this.hashSink);
    }
    this.wantLines = this.sinks.some((s) => s.wantsLines === true);
    const line = JSON.stringify(header);
    for (const s of this.sinks) s.header?.(header, line);
  }

  /** Events emitted so far. */
  get count(): number {
    return this.nextSeq;
  }

  emit<K extends TraceKind>(kind: K, node: string, fields: TraceKinds[K]): void {
    const e = { t: this.clock.now, seq: this.nextSeq++, kind, node } as Record<string, unknown>;
    Object.assign(e, fields);
    const line = this.wantLines ? JSON.stringify(e) : '';
    const sinks = this.sinks;
    for (let i = 0; i < sinks.length; i++) sinks[i]!.event(e as TraceEvent, line);
  }

  /** The streaming hash of everything so far (header included), or '' when hashing is off. */
  hash(): string {
    return this.hashSink ? this.hashSink.hex() : '';
  }

  close(): void {
    for (const s of this.sinks) s.close?.();
  }
}

/** Parses a JSON Lines trace text into its header and events; errors name the line. */
export function parseTrace(text: string): { header: TraceHeader; events: TraceEvent[] } {
  const lines = text.split('\n');
  let header: TraceHeader | undefined;
  const events: TraceEvent[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new TraceFormatError(`line ${i + 1}: not valid JSON`);
    }
    if (header === undefined) {
      const h = value as Partial<TraceHeader>;
      if (typeof h !== 'object' || h === null || h.format !== TRACE_FORMAT) {
        throw new TraceFormatError(`line ${i + 1}: expected a header with format "${TRACE_FORMAT}"`);
      }
      if (h.version !== TRACE_VERSION) {
        throw new TraceFormatError(`line ${i + 1}: trace version ${String(h.version)} is not supported (this build reads ${TRACE_VERSION})`);
      }
      header = h as TraceHeader;
      continue;
    }
    const e = value as TraceEvent;
    if (typeof e !== 'object' || e === null || typeof e.t !== 'number' || typeof e.kind !== 'string') {
      throw new TraceFormatError(`line ${i + 1}: an event needs a numeric "t" and a string "kind"`);
    }
    events.push(e);
  }
  if (!header) throw new TraceFormatError('the trace is empty: expected a header line');
  return { header, events };
}

export class TraceFormatError extends Error {}
