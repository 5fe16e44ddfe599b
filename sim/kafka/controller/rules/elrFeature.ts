import type { MetadataView } from '../../metadata/metadataImage';
import { ELIGIBLE_LEADER_REPLICAS_VERSION, ELRV_1 } from '../../metadata/features';
import type { MetadataRecord } from '../../metadata/records';
import type { ControllerResult } from './controllerResult';

/**
 * Turns KIP-966 Eligible Leader Replicas on or off (UpdateFeatures on eligible.leader.replicas.version).
 * Turning it on first writes the safety records ELR needs: a cluster-level min.insync.replicas (from the
 * static config) when there is none, and the removal of every broker-level min.insync.replicas. Turning it off
 * writes level 0; partitions drop their ELR at their next change (the builder empties it with ELR off).
 * [metadata/.../controller/ConfigurationControlManager.java `updateFeatures`, `maybeGenerateElrSafetyRecords`]
 */
export function updateElrFeature(image: MetadataView, enabled: boolean, staticMinInsyncReplicas = 1): ControllerResult<void> {
  const records: MetadataRecord[] = [];
  if (enabled) {
    if (image.resourceConfigs('BROKER', '')?.get('min.insync.replicas') === undefined) {
      records.push({ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: '', name: 'min.insync.replicas', value: String(staticMinInsyncReplicas) });
    }
    for (const b of image.brokers()) {
      if (image.resourceConfigs('BROKER', String(b.id))?.get('min.insync.replicas') !== undefined) {
        records.push({ type: 'ConfigRecord', resourceType: 'BROKER', resourceName: String(b.id), name: 'min.insync.replicas', value: null });
      }
    }
  }
  records.push({ type: 'FeatureLevelRecord', name: ELIGIBLE_LEADER_REPLICAS_VERSION, featureLevel: enabled ? ELRV_1 : 0 });
  return { records, response: undefined, elections: [] };
}
