import { ValidationError, join } from '../../core/validate';
import { BROKER_CONFIGS } from '../config/configs';

/**
 * The KRaft quorum's configs, with Kafka's names and defaults [raft/src/main/java/org/apache/kafka/raft/QuorumConfig.java].
 * `controller.quorum.voters` is a list of process ids here (Kafka writes `id@host:port`): the simulator's
 * network routes by process id. Voters are static (KIP-595); dynamic voters (KIP-853) are not modelled.
 */
export interface QuorumConfig {
  readonly 'controller.quorum.voters': readonly string[];
  readonly 'controller.quorum.election.timeout.ms': number;
  readonly 'controller.quorum.fetch.timeout.ms': number;
  readonly 'controller.quorum.election.backoff.max.ms': number;
  readonly 'controller.quorum.request.timeout.ms': number;
  readonly 'controller.quorum.retry.backoff.ms': number;
  readonly 'controller.quorum.append.linger.ms': number;
}

export const QUORUM_TIMING_KEYS = [
  'controller.quorum.election.timeout.ms',
  'controller.quorum.fetch.timeout.ms',
  'controller.quorum.election.backoff.max.ms',
  'controller.quorum.request.timeout.ms',
  'controller.quorum.retry.backoff.ms',
  'controller.quorum.append.linger.ms',
] as const;
export type QuorumTimingKey = (typeof QUORUM_TIMING_KEYS)[number];

/**
 * The quorum config for a set of voters: Kafka's defaults (one source: the broker config registry) overlaid
 * with validated overrides. Errors name the config, the bad value and what is allowed.
 */
export function quorumConfig(
  voters: readonly string[],
  overrides: Readonly<Partial<Record<QuorumTimingKey, unknown>>> = {},
): QuorumConfig {
  const path = 'controller.quorum.voters';
  if (!Array.isArray(voters) || voters.length === 0) throw new ValidationError(path, voters, 'a non-empty list of voter ids');
  const seen = new Set<string>();
  voters.forEach((v, i) => {
    if (typeof v !== 'string' || v.length === 0) throw new ValidationError(join(path, i), v, 'a non-empty process id');
    if (seen.has(v)) throw new ValidationError(join(path, i), v, 'a voter id listed only once');
    seen.add(v);
  });
  const out: Record<string, unknown> = { 'controller.quorum.voters': voters.slice() };
  for (const key of QUORUM_TIMING_KEYS) {
    const def = BROKER_CONFIGS[key];
    const raw = overrides[key];
    if (raw === undefined) {
      out[key] = def.default;
      continue;
    }
    const v = def.read(raw);
    if (v === undefined) throw new ValidationError(key, raw, def.allowed);
    out[key] = v;
  }
  for (const key of Object.keys(overrides)) {
    if (!(QUORUM_TIMING_KEYS as readonly string[]).includes(key)) {
      throw new ValidationError(key, overrides[key as QuorumTimingKey], `one of ${QUORUM_TIMING_KEYS.join(', ')}`);
    }
  }
  return out as unknown as QuorumConfig;
}
