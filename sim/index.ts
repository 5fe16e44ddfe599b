/**
 * kafkasim's public library API.
 */
export { murmur2, toPositive } from './kafka/client/murmur2';
export { partitionForKey } from './kafka/client/partitioner';
export { Scheduler } from './core/scheduler';
export { Random } from './core/random';
export { Trace, parseTrace, type TraceEvent, type TraceHeader } from './core/trace';
export { ms, seconds, toMs, formatTime, type Micros } from './core/time';
export { World } from './world/world';
