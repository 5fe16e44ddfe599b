/**
 * The server assignors a broker offers, by name: `group.consumer.assignors` lists them, the first is the
 * default, and a member may ask for one with `group.remote.assignor` (UNSUPPORTED_ASSIGNOR otherwise).
 * [group-coordinator/.../GroupCoordinatorConfig.java `CONSUMER_GROUP_ASSIGNORS_DEFAULT`]
 */
import type { ServerAssignor } from './groupSpec';
import { RANGE_ASSIGNOR } from './rangeAssignor';
import { UNIFORM_ASSIGNOR } from './uniformAssignor';

export const SERVER_ASSIGNORS = { uniform: UNIFORM_ASSIGNOR, range: RANGE_ASSIGNOR } as const;

export type ServerAssignorName = keyof typeof SERVER_ASSIGNORS;

export const SERVER_ASSIGNOR_NAMES = Object.keys(SERVER_ASSIGNORS) as ServerAssignorName[];

export function serverAssignor(name: ServerAssignorName): ServerAssignor {
  return SERVER_ASSIGNORS[name];
}
