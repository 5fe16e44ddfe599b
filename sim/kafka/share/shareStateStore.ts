/**
 * Where share-partition state survives its leader: the role of the share coordinator and `__share_group_state`
 * (ReadShareGroupState / WriteShareGroupState). Here it is a store the cluster's brokers share, written at
 * once and durably on every change: a stand-in until the share coordinator is simulated (see README).
 * [src: share-coordinator/.../ShareCoordinatorShard.java; server/.../share/persister/DefaultStatePersister.java]
 */
import type { PersistedShareState } from './sharePartition';

export class ShareStateStore {
  private readonly states = new Map<string, PersistedShareState>();

  read(group: string, topic: string, partition: number): PersistedShareState | null {
    return this.states.get(`${group}\u0000${topic}\u0000${partition}`) ?? null;
  }

  write(group: string, topic: string, partition: number, state: PersistedShareState): void {
    this.states.set(`${group}\u0000${topic}\u0000${partition}`, state);
  }
}
