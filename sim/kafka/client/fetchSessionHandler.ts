/**
 * The fetcher's side of an incremental fetch session with one broker (KIP-227), for replica fetchers and
 * consumers alike [src: clients/.../FetchSessionHandler.java; requests/FetchMetadata.java]. Each round the
 * fetcher adds the partitions it wants; the handler sends them all in a full request (no session yet, or after
 * an error), otherwise only the ones new or changed since the last request and the ones to forget.
 */
import type { KafkaError } from '../errors';
import type { FetchPartition, FetchResponse, TopicPartition } from '../protocol';
import { FINAL_EPOCH, INITIAL_EPOCH, INVALID_SESSION_ID, isFullFetch, nextEpoch } from '../broker/fetchSession';

/** One partition as the session last sent it (updated in place: this runs for every partition on every fetch). */
export interface SessionPartition {
  readonly key: string;
  readonly topic: string;
  readonly partition: number;
  fetchOffset: number;
  lastFetchedEpoch: number;
  currentLeaderEpoch: number;
  logStartOffset: number;
  maxBytes: number;
  /** The build that last added it (those an earlier build added and this one did not are forgotten). */
  round: number;
  /** When it entered the session: the session's order (the order forgotten partitions are listed in). */
  readonly seq: number;
}

/** What to send: the request's session fields and partitions. [src: FetchSessionHandler.FetchRequestData] */
export interface FetchRequestData {
  readonly sessionId: number;
  readonly sessionEpoch: number;
  readonly partitions: FetchPartition[];
  readonly forgottenTopicsData: TopicPartition[];
}

export class FetchSessionHandler {
  private sessionId = INVALID_SESSION_ID;
  private epoch = INITIAL_EPOCH;
  /** The partitions in the session, in the order they entered it. */
  private readonly session = new Map<string, SessionPartition>();
  private round = 0;
  /** Session partitions this round's `add` calls named: all of them means none is forgotten. */
  private addedThisRound = 0;
  private toSend: FetchPartition[] = [];
  /** Entries made so far (each session partition's `seq`). */
  private seqs = 0;
  /** `beginChanges` round: the partitions `forget` dropped, or null in a `begin` round. */
  private forgetting: SessionPartition[] | null = null;

  /** The session partition for `key` as last sent (what a response about it answers), or undefined. */
  sessionPartition(key: string): SessionPartition | undefined {
    return this.session.get(key);
  }

  get isFull(): boolean {
    return isFullFetch(this.epoch);
  }

  /** The broker holds a session for this fetcher. */
  get hasSession(): boolean {
    return this.sessionId !== INVALID_SESSION_ID;
  }

  /** Starts a round of `add` calls, then `build`. */
  begin(): void {
    this.round++;
    this.addedThisRound = 0;
    this.toSend = [];
    this.forgetting = null;
    if (this.isFull) this.session.clear();
  }

  /**
   * Starts a round in which the fetcher names only what changed: `add` for every partition whose fetch parameters
   * may have changed or that (re)joins, `forget` for every one that leaves; the others stay as the session holds
   * them. `buildChanges` then gives the very request a `begin` round adding every wanted partition would.
   * Only while a session is open (not `isFull`): a full request names every partition.
   */
  beginChanges(): void {
    if (this.isFull) throw new Error('FetchSessionHandler.beginChanges: a full fetch names every partition (use begin)');
    this.round++;
    this.toSend = [];
    this.forgetting = [];
  }

  /** In a `beginChanges` round: the fetcher no longer wants `key` (removed, or left out this round). */
  forget(key: string): void {
    const s = this.session.get(key);
    if (s === undefined) return;
    this.session.delete(key);
    this.forgetting!.push(s);
  }

  /** The request for a `beginChanges` round: the added partitions that changed and the forgotten ones, in session order. */
  buildChanges(): FetchRequestData {
    const gone = this.forgetting!;
    this.forgetting = null;
    if (gone.length > 1) gone.sort((a, b) => a.seq - b.seq);
    const forgotten: TopicPartition[] = gone.map((s) => ({ topic: s.topic, partition: s.partition }));
    return { sessionId: this.sessionId, sessionEpoch: this.epoch, partitions: this.toSend, forgottenTopicsData: forgotten };
  }

  /** The number of partitions in the session (after a build: the ones the request wants). */
  get size(): number {
    return this.session.size;
  }

  /** The fetcher wants this partition from these parameters. [src: FetchSessionHandler.Builder.add] */
  add(key: string, topic: string, partition: number, fetchOffset: number, lastFetchedEpoch: number, currentLeaderEpoch: number, logStartOffset: number, maxBytes: number): void {
    const s = this.session.get(key);
    if (s === undefined) {
      this.session.set(key, { key, topic, partition, fetchOffset, lastFetchedEpoch, currentLeaderEpoch, logStartOffset, maxBytes, round: this.round, seq: this.seqs++ });
      this.addedThisRound++;
    } else {
      if (s.round !== this.round) this.addedThisRound++;
      s.round = this.round;
      if (
        !this.isFull &&
        s.fetchOffset === fetchOffset &&
        s.lastFetchedEpoch === lastFetchedEpoch &&
        s.currentLeaderEpoch === currentLeaderEpoch &&
        s.logStartOffset === logStartOffset &&
        s.maxBytes === maxBytes
      ) {
        return; // unchanged: the session says it
      }
      s.fetchOffset = fetchOffset;
      s.lastFetchedEpoch = lastFetchedEpoch;
      s.currentLeaderEpoch = currentLeaderEpoch;
      s.logStartOffset = logStartOffset;
      s.maxBytes = maxBytes;
    }
    this.toSend.push({ topic, partition, fetchOffset, lastFetchedEpoch, currentLeaderEpoch, logStartOffset, maxBytes });
  }

  /** The request for this round: every partition when full, else the changed ones and those to forget. [src: Builder.build] */
  build(): FetchRequestData {
    const forgotten: TopicPartition[] = [];
    // Every session partition was added this round (the common case): none to forget, no walk.
    if (!this.isFull && this.addedThisRound !== this.session.size) {
      for (const s of this.session.values()) {
        if (s.round === this.round) continue;
        this.session.delete(s.key);
        forgotten.push({ topic: s.topic, partition: s.partition });
      }
    }
    return { sessionId: this.sessionId, sessionEpoch: this.epoch, partitions: this.toSend, forgottenTopicsData: forgotten };
  }

  /**
   * Reads the response's session fields; false when its partitions must not be used (a session error, or a full
   * response that does not answer every partition). [src: FetchSessionHandler.handleResponse]
   */
  handleResponse(r: FetchResponse): boolean {
    if (r.error !== 'NONE') {
      if (r.error === 'FETCH_SESSION_ID_NOT_FOUND') this.reset();
      else this.closeExistingAttemptNew();
      return false;
    }
    if (this.isFull) {
      if (r.partitions.length !== this.session.size) {
        this.reset();
        return false;
      }
      if (r.sessionId === INVALID_SESSION_ID) this.reset();
      else {
        this.sessionId = r.sessionId;
        this.epoch = nextEpoch(INITIAL_EPOCH);
      }
      return true;
    }
    if (r.sessionId === INVALID_SESSION_ID) this.reset();
    else this.epoch = nextEpoch(this.epoch);
    return true;
  }

  /** The request failed (timeout, disconnection): the next one is full and closes the session. [src: handleError] */
  handleError(): void {
    this.closeExistingAttemptNew();
  }

  /** Whether `error` is a session error (its response carries no partitions). */
  static isSessionError(error: KafkaError): boolean {
    return error === 'FETCH_SESSION_ID_NOT_FOUND' || error === 'INVALID_FETCH_SESSION_EPOCH';
  }

  /** [src: FetchMetadata.INITIAL] */
  private reset(): void {
    this.sessionId = INVALID_SESSION_ID;
    this.epoch = INITIAL_EPOCH;
  }

  /** [src: FetchMetadata.nextCloseExistingAttemptNew] */
  private closeExistingAttemptNew(): void {
    this.epoch = INITIAL_EPOCH;
  }

  /** The epoch a closing fetcher sends (no new session). [src: FetchMetadata.nextCloseExisting] */
  close(): void {
    this.epoch = FINAL_EPOCH;
  }
}
