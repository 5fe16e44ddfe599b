import { Fnv1a64 } from './hash';
import type { TraceNumbers } from './numberedText';
import type { Micros } from './time';
import { checkFields, type KindSchemas, type KindsOf } from './traceSchema';
import { didYouMean } from './validate';

/**
 * The registry of trace event kinds and their fields. Each layer declares its kinds as a schema beside the code
 * that emits them and adds them here (`interface TraceKinds extends KindsOf<typeof HOST_KINDS> {}`, see
 * traceSchema.ts), so an event's fields are checked where it is emitted, known where it is read, and validated
 * when a saved trace is loaded, all from that one declaration.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface TraceKinds {}

export type TraceKind = keyof TraceKinds & string;

/** Fields every event carries, in this order on every line: time (us), sequence, kind, node. */
export type TraceEventBase = {
  readonly t: Micros;
  readonly seq: number;
  readonly kind: string;
  readonly node: string;
};

/** The base fields' names (not fields of any kind). */
export const BASE_FIELDS: ReadonlySet<string> = new Set(['t', 'seq', 'kind', 'node']);

/** An event of kind K of a kinds registry (for a union of kinds, the union of their events). */
export type EventOf<Kinds, K extends keyof Kinds> = K extends keyof Kinds ? TraceEventBase & { readonly kind: K } & Kinds[K] : never;

/** Any event of a kinds registry: the union of its kinds' events, narrowed by `e.kind`. */
export type EventIn<Kinds> = { [K in keyof Kinds & string]: EventOf<Kinds, K> }[keyof Kinds & string];

/** A typed event of kind K. */
export type TraceEventOf<K extends TraceKind> = EventOf<TraceKinds, K>;

/** Any event of a simulator trace: switch on `kind` to read its fields. */
export type TraceEvent = EventIn<TraceKinds>;

/** An event as plain fields, for code that shows every field without interpreting any (an event table). */
export type UntypedTraceEvent = TraceEventBase & { readonly [field: string]: unknown };

/** The events of one kind, typed (for tests and tools that look at one kind at a time). */
export function ofKind<K extends TraceKind>(events: readonly TraceEventBase[], kind: K): TraceEventOf<K>[] {
  return events.filter((e): e is TraceEventOf<K> => e.kind === kind);
}

/** Handlers by kind: each receives the events of its kind, typed. Kinds without a handler pass by. */
export type Handlers<Kinds = TraceKinds> = { readonly [K in keyof Kinds & string]?: (e: EventOf<Kinds, K>) => void };

/**
 * One function that hands each event to the handlers of its kind, in the order the handler sets are given
 * (a kind's handlers are looked up once per event, not once per handler set).
 */
export function dispatcher<Kinds = TraceKinds>(...sets: readonly Handlers<Kinds>[]): (e: EventIn<Kinds>) => void {
  return dispatcherOf<Kinds>(handlerLists<Kinds>(sets));
}

/** Each kind's handlers, in the order the handler sets are given. */
export function handlerLists<Kinds = TraceKinds>(sets: readonly Handlers<Kinds>[]): Map<string, ((e: TraceEventBase) => void)[]> {
  const lists = new Map<string, ((e: TraceEventBase) => void)[]>();
  for (const set of sets) {
    for (const kind of Object.keys(set)) {
      const f = (set as Record<string, ((e: TraceEventBase) => void) | undefined>)[kind];
      if (f === undefined) continue;
      let list = lists.get(kind);
      if (list === undefined) lists.set(kind, (list = []));
      list.push(f);
    }
  }
  return lists;
}

/** The dispatcher of handler lists by kind (handlerLists). */
export function dispatcherOf<Kinds = TraceKinds>(lists: ReadonlyMap<string, readonly ((e: TraceEventBase) => void)[]>): (e: EventIn<Kinds>) => void {
  // One function per kind: its handler, or one that calls its handlers in order.
  const table = new Map<string, (e: TraceEventBase) => void>();
  for (const [kind, list] of lists) {
    table.set(
      kind,
      list.length === 1
        ? list[0]!
        : (e) => {
            for (let i = 0; i < list.length; i++) list[i]!(e);
          },
    );
  }
  return (e) => {
    const f = table.get(e.kind);
    if (f !== undefined) f(e);
  };
}

/** Folds `events` through the handler sets, in order: every reader of a trace is such a fold. */
export function fold<Kinds = TraceKinds>(events: Iterable<EventIn<Kinds>>, ...sets: readonly Handlers<Kinds>[]): void {
  const dispatch = dispatcher<Kinds>(...sets);
  for (const e of events) dispatch(e);
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
export interface TraceSink<E extends TraceEventBase = TraceEvent> {
  /** True when the sink needs each event as its canonical JSON line (computed once and shared). */
  readonly wantsLines?: boolean;
  header?(header: TraceHeader, line: string): void;
  /** `numbers`: what the emitter handed along about the event's numbered texts (numberedText.ts), not part of it. */
  event(e: E, line: string, numbers?: TraceNumbers): void;
  close?(): void;
}

/** Keeps every event in memory (the checkers and the UI read this). */
export class MemorySink<E extends TraceEventBase = TraceEvent> implements TraceSink<E> {
  readonly events: E[] = [];
  header_: TraceHeader | undefined;
  header(h: TraceHeader): void {
    this.header_ = h;
  }
  event(e: E): void {
    this.events.push(e);
  }
}

/** Writes JSON Lines through a function the caller owns (a file, stdout, a download). */
export class JsonlSink implements TraceSink<TraceEventBase> {
  readonly wantsLines = true;
  constructor(private readonly write: (line: string) => void) {}
  header(_h: TraceHeader, line: string): void {
    this.write(line + '\n');
  }
  event(_e: TraceEventBase, line: string): void {
    this.write(line + '\n');
  }
}

/** Passes on only the events a predicate keeps. */
export class FilterSink<E extends TraceEventBase = TraceEvent> implements TraceSink<E> {
  readonly wantsLines: boolean;
  constructor(
    private readonly keep: (e: E) => boolean,
    private readonly inner: TraceSink<E>,
  ) {
    this.wantsLines = inner.wantsLines === true;
  }
  header(h: TraceHeader, line: string): void {
    this.inner.header?.(h, line);
  }
  event(e: E, line: string, numbers?: TraceNumbers): void {
    if (this.keep(e)) this.inner.event(e, line, numbers);
  }
  close(): void {
    this.inner.close?.();
  }
}

/** Streams the 64-bit FNV-1a hash of the canonical JSON Lines (header line included). */
export class HashSink implements TraceSink<TraceEventBase> {
  readonly wantsLines = true;
  private readonly h = new Fnv1a64();
  header(_h: TraceHeader, line: string): void {
    this.h.update(line).update('\n');
  }
  event(_e: TraceEventBase, line: string): void {
    this.h.update(line).update('\n');
  }
  hex(): string {
    return this.h.hex();
  }
}

/** What `Trace.emitEvent` stamps over: an event's time and sequence as its emitter writes them. */
export const UNSTAMPED = 0;

/** An event of kind K as its emitter builds it for `Trace.emitEvent` (t and seq UNSTAMPED, then the kind's fields). */
export type Unstamped<Kinds, K extends keyof Kinds> = { t: Micros; seq: number; kind: K; node: string } & Kinds[K];

/** Something that knows the simulated time (the scheduler). */
export interface Clock {
  readonly now: Micros;
}

/**
 * The trace recorder. Layers call `emit(kind, node, fields)`; the recorder stamps time and sequence,
 * builds the canonical line once if any sink wants it, and hands the event to every sink in order.
 */
export class Trace<Kinds = TraceKinds> {
  private nextSeq = 0;
  private readonly sinks: TraceSink<EventIn<Kinds>>[];
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
    sinks: readonly TraceSink<NoInfer<EventIn<Kinds>>>[],
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

  /** `numbers`: the numbers of the event's numbered texts, handed to the sinks beside it (numberedText.ts). */
  emit<K extends keyof Kinds & string>(kind: K, node: string, fields: Kinds[K], numbers?: TraceNumbers): void {
    const e = { t: this.clock.now, seq: this.nextSeq++, kind, node } as Record<string, unknown>;
    Object.assign(e, fields);
    this.deliver(e as unknown as EventIn<Kinds>, numbers);
  }

  /**
   * `emit` for the busiest kinds: the emitter builds the whole event as one object literal, base fields first
   * with `t: 0, seq: 0` (UNSTAMPED), and the recorder stamps time and sequence in place. Every such event then has
   * one shape from its creation (no copy, no fields added later), and its line is the same as `emit`'s.
   */
  emitEvent<K extends keyof Kinds & string>(e: Unstamped<Kinds, K>, numbers?: TraceNumbers): void {
    const w = e as { t: Micros; seq: number };
    w.t = this.clock.now;
    w.seq = this.nextSeq++;
    this.deliver(e as unknown as EventIn<Kinds>, numbers);
  }

  private deliver(e: EventIn<Kinds>, numbers: TraceNumbers | undefined): void {
    const line = this.wantLines ? JSON.stringify(e) : '';
    const sinks = this.sinks;
    for (let i = 0; i < sinks.length; i++) sinks[i]!.event(e, line, numbers);
  }

  /** The streaming hash of everything so far (header included), or '' when hashing is off. */
  hash(): string {
    return this.hashSink ? this.hashSink.hex() : '';
  }

  close(): void {
    for (const s of this.sinks) s.close?.();
  }
}

/** What a loaded trace must be beyond well-formed lines. */
export interface ParseOptions {
  /**
   * The kind of the event that closes a complete trace (it must be the last event): a trace without it was cut
   * short (a crashed writer, a truncated copy) and is refused, naming where it stops.
   */
  readonly endKind?: string;
}

export interface ParsedTrace<E> {
  readonly header: TraceHeader;
  readonly events: E[];
  /**
   * FNV-1a 64 of the trace's lines, each with one "\n": the run's trace hash when the file is its canonical
   * output. A byte-order mark, CRLF line ends, blank lines and a missing final newline do not change it.
   */
  readonly hash: string;
}

const HEADER_FIELDS = ['format', 'version', 'scenario', 'seed', 'config'];

/**
 * Parses a JSON Lines trace and validates it once against `schema`: the header, then every event's base fields
 * (t and seq increasing, a known kind, a node) and its kind's fields (each declared field present with its type,
 * none undeclared). A file that fails gets one error naming the line and the field, so readers can trust the
 * events' types. Normalises what editors and transfers change without changing the trace: a byte-order mark,
 * CRLF line ends, blank lines, a missing final newline.
 */
export function parseTrace<S extends KindSchemas>(text: string, schema: S, options: ParseOptions = {}): ParsedTrace<EventIn<KindsOf<S>>> {
  let header: TraceHeader | undefined;
  const events: TraceEventBase[] = [];
  const h = new Fnv1a64();
  const kinds = Object.keys(schema);
  let prev: TraceEventBase | undefined;
  let prevLine = 0;
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    const cutShort = end < 0;
    if (end < 0) end = text.length;
    lineNo++;
    const raw = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    start = end + 1;
    if (raw.trim() === '') continue;
    const at = `line ${lineNo}`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new TraceFormatError(cutShort && header !== undefined ? `${at}: not valid JSON: the file ends in the middle of an event (cut short?)` : `${at}: not valid JSON`);
    }
    h.update(raw).update('\n');
    if (header === undefined) {
      header = checkHeader(value, at);
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TraceFormatError(`${at}: an event must be a JSON object`);
    const e = value as Record<string, unknown>;
    const kind = e.kind;
    if (typeof kind !== 'string') throw new TraceFormatError(`${at}: field "kind" must be a string, got ${describeValueShort(kind)}`);
    const label = `${at} (${kind})`;
    if (!Number.isInteger(e.t) || (e.t as number) < 0) throw new TraceFormatError(`${label}: field "t" must be a whole number of microseconds >= 0, got ${describeValueShort(e.t)}`);
    if (!Number.isInteger(e.seq) || (e.seq as number) < 0) throw new TraceFormatError(`${label}: field "seq" must be a whole number >= 0, got ${describeValueShort(e.seq)}`);
    if (typeof e.node !== 'string') throw new TraceFormatError(`${label}: field "node" must be a string, got ${describeValueShort(e.node)}`);
    if (!Object.prototype.hasOwnProperty.call(schema, kind)) {
      const near = didYouMean(kind, kinds);
      throw new TraceFormatError(`${at}: unknown event kind ${JSON.stringify(kind)}${near ? ` (did you mean "${near}"?)` : ''}`);
    }
    const ev = e as unknown as TraceEventBase;
    if (prev !== undefined) {
      if (ev.seq <= prev.seq) throw new TraceFormatError(`${label}: seq ${ev.seq} does not follow seq ${prev.seq} of line ${prevLine}: the events are out of order`);
      if (ev.t < prev.t) throw new TraceFormatError(`${label}: t ${ev.t} is before t ${prev.t} of line ${prevLine}: the events are out of order`);
    }
    const problem = checkFields(schema[kind]!, e, BASE_FIELDS);
    if (problem !== null) throw new TraceFormatError(`${label}: field "${problem.path}" ${problem.problem}`);
    events.push(ev);
    prev = ev;
    prevLine = lineNo;
  }
  if (!header) throw new TraceFormatError('the trace is empty: expected a header line');
  if (options.endKind !== undefined && prev?.kind !== options.endKind) {
    const where = prev === undefined ? 'after its header' : `at line ${prevLine} (${prev.kind})`;
    throw new TraceFormatError(`the trace stops ${where} without a "${options.endKind}" event: it was cut short`);
  }
  return { header, events: events as EventIn<KindsOf<S>>[], hash: h.hex() };
}

function describeValueShort(v: unknown): string {
  return v === undefined ? 'nothing' : typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v) : JSON.stringify(v)?.slice(0, 40) ?? String(v);
}

function checkHeader(value: unknown, at: string): TraceHeader {
  const hd = value as Partial<TraceHeader> | null;
  if (typeof hd !== 'object' || hd === null || Array.isArray(hd) || hd.format !== TRACE_FORMAT) {
    throw new TraceFormatError(`${at}: expected a header with format "${TRACE_FORMAT}"`);
  }
  if (hd.version !== TRACE_VERSION) {
    throw new TraceFormatError(`${at}: trace version ${String(hd.version)} is not supported (this build reads ${TRACE_VERSION})`);
  }
  if (typeof hd.scenario !== 'string') throw new TraceFormatError(`${at} (header): field "scenario" must be a string, got ${describeValueShort(hd.scenario)}`);
  if (typeof hd.seed !== 'number' && typeof hd.seed !== 'string') throw new TraceFormatError(`${at} (header): field "seed" must be a number or a string, got ${describeValueShort(hd.seed)}`);
  if (!('config' in hd)) throw new TraceFormatError(`${at} (header): field "config" is missing`);
  for (const k of Object.keys(hd)) {
    if (!HEADER_FIELDS.includes(k)) throw new TraceFormatError(`${at} (header): field "${k}" is not a header field (they are: ${HEADER_FIELDS.join(', ')})`);
  }
  return hd as TraceHeader;
}

export class TraceFormatError extends Error {}
