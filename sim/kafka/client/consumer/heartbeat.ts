import type { Micros } from '../../../core/time';
import { ms } from '../../../core/time';
import type { ExponentialBackoff } from '../backoff';

/**
 * The classic member's three clocks [clients/.../consumer/internals/Heartbeat.java]:
 * - heartbeat: when the next Heartbeat is due (heartbeat.interval.ms after the last one, or a backoff after a failure);
 * - session: a member that hears no successful heartbeat response for session.timeout.ms assumes the coordinator is gone;
 * - poll: the application must call poll() within max.poll.interval.ms, else the member leaves the group.
 */
export class HeartbeatTimers {
  private heartbeatDueUs: Micros;
  private sessionDeadlineUs: Micros;
  private pollDeadlineUs: Micros;
  private attempts = 0;
  inFlight = false;
  lastPollUs: Micros;

  constructor(
    private readonly intervalMs: number,
    private readonly sessionTimeoutMs: number,
    private readonly maxPollIntervalMs: number,
    private readonly backoff: ExponentialBackoff,
    nowUs: Micros,
  ) {
    this.heartbeatDueUs = nowUs + ms(intervalMs);
    this.sessionDeadlineUs = nowUs + ms(sessionTimeoutMs);
    this.pollDeadlineUs = nowUs + ms(maxPollIntervalMs);
    this.lastPollUs = nowUs;
  }

  /** The application called poll(). */
  poll(nowUs: Micros): void {
    this.pollDeadlineUs = nowUs + ms(this.maxPollIntervalMs);
    this.lastPollUs = nowUs;
  }

  sentHeartbeat(nowUs: Micros): void {
    this.inFlight = true;
    this.heartbeatDueUs = nowUs + ms(this.intervalMs);
  }

  failHeartbeat(nowUs: Micros): void {
    this.inFlight = false;
    this.heartbeatDueUs = nowUs + ms(this.backoff.backoff(this.attempts++));
  }

  receiveHeartbeat(nowUs: Micros): void {
    this.inFlight = false;
    this.attempts = 0;
    this.sessionDeadlineUs = nowUs + ms(this.sessionTimeoutMs);
  }

  shouldHeartbeat(nowUs: Micros): boolean {
    return nowUs >= this.heartbeatDueUs;
  }

  sessionTimeoutExpired(nowUs: Micros): boolean {
    return nowUs >= this.sessionDeadlineUs;
  }

  pollTimeoutExpired(nowUs: Micros): boolean {
    return nowUs >= this.pollDeadlineUs;
  }

  /** When the heartbeat thread must look again. */
  nextCheckUs(): Micros {
    return Math.min(this.heartbeatDueUs, this.sessionDeadlineUs, this.pollDeadlineUs);
  }

  /**
   * Restarts the session, poll and heartbeat deadlines from now (after a successful join; Kafka's
   * Heartbeat.java calls this "reset timeouts"). Simulated deadlines, named apart from the real-timer API.
   */
  restartDeadlines(nowUs: Micros): void {
    this.sessionDeadlineUs = nowUs + ms(this.sessionTimeoutMs);
    this.pollDeadlineUs = nowUs + ms(this.maxPollIntervalMs);
    this.heartbeatDueUs = nowUs + ms(this.intervalMs);
  }

  resetSessionTimeout(nowUs: Micros): void {
    this.sessionDeadlineUs = nowUs + ms(this.sessionTimeoutMs);
  }
}
