/**
 * kafkasim's public library API.
 */
export { murmur2, toPositive } from './kafka/client/murmur2';
export { partitionForKey } from './kafka/client/partitioner';
export { Scheduler } from './core/scheduler';
export { Random } from './core/random';
export { Trace, dispatcher, fold, parseTrace, type Handlers, type TraceEvent, type TraceEventOf, type TraceHeader } from './core/trace';
export { TRACE_SCHEMA } from './scenario/traceKinds';
export { checkSavedTrace, readTrace } from './scenario/savedTrace';
export { ms, seconds, toMs, formatTime, type Micros } from './core/time';
export { World } from './world/world';
export { simulatedCluster, SimulatedCluster, type SimulatedClusterOptions, type RunContext } from './embed/simulatedCluster';
export type { RunResult } from './scenario/runner';
