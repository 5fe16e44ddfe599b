import type { Actor } from '../../core/actor';
import type { Scheduler, TimerId } from '../../core/scheduler';
import type { Micros } from '../../core/time';

/**
 * The clock and timers the log runs on. A broker passes its own (Actor.setTimer), so every pending flush,
 * file deletion and periodic task dies with the process, as Kafka's scheduler threads do.
 * [src: server-common/.../server/util/Scheduler.java]
 */
export interface TaskScheduler {
  readonly now: Micros;
  schedule(delayUs: Micros, fn: () => void): TimerId;
  cancel(id: TimerId): void;
}

/** The scheduler of a process: its timers die with it. */
export function actorTaskScheduler(actor: Actor): TaskScheduler {
  return {
    get now() {
      return actor.now;
    },
    schedule: (delayUs, fn) => actor.setTimer(delayUs, fn),
    cancel: (id) => actor.cancelTimer(id),
  };
}

/** Straight on the world's scheduler (tests, or a component that never dies). */
export function directTaskScheduler(scheduler: Scheduler): TaskScheduler {
  return {
    get now() {
      return scheduler.now;
    },
    schedule: (delayUs, fn) => scheduler.after(delayUs, fn, undefined, 'a log task'),
    cancel: (id) => {
      scheduler.cancel(id);
    },
  };
}
