/**
 * The `share.version` feature (a finalized feature level, as `kafka-storage format --feature share.version=2` or
 * `kafka-features upgrade --feature share.version=2` sets it): 0 no share groups (the share-group APIs answer
 * UNSUPPORTED_VERSION), 1 share groups (KIP-932; production-ready and the default of a new cluster since 4.2),
 * 2 their dead-letter queue (KIP-1191; not the default: LATEST_PRODUCTION is still level 1).
 * [src: server-common/src/main/java/org/apache/kafka/server/common/ShareVersion.java `SV_0`..`SV_2`,
 * `LATEST_PRODUCTION`, `supportsShareGroups`, `supportsShareGroupDLQ`]
 */
export type ShareVersion = 0 | 1 | 2;

/** What a new cluster is formatted with. [ShareVersion.java `LATEST_PRODUCTION = SV_1`] */
export const DEFAULT_SHARE_VERSION: ShareVersion = 1;

/** [ShareVersion.java `supportsShareGroups`] */
export function supportsShareGroups(v: ShareVersion): boolean {
  return v >= 1;
}

/** [ShareVersion.java `supportsShareGroupDLQ`] */
export function supportsShareGroupDlq(v: ShareVersion): boolean {
  return v >= 2;
}
