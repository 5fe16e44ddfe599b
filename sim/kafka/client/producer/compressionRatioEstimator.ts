import type { CompressionType } from '../../records';

/** How fast the estimate follows a better observed ratio, and a worse one [CompressionRatioEstimator]. */
export const COMPRESSION_RATIO_IMPROVING_STEP = 0.005;
export const COMPRESSION_RATIO_DETERIORATE_STEP = 0.05;

/**
 * One step of the estimate of a topic's compression ratio (compressed / uncompressed): down slowly toward a
 * better observed ratio, up fast toward a worse one, never past the observation. It starts at 1, so a new
 * producer's first compressed batches hold no more records than uncompressed ones and fill up as the estimate
 * improves. [clients/.../common/record/CompressionRatioEstimator.java `updateEstimation`]
 */
export function nextCompressionRatioEstimate(current: number, observed: number): number {
  if (observed > current) return Math.max(current + COMPRESSION_RATIO_DETERIORATE_STEP, observed);
  if (observed < current) return Math.max(current - COMPRESSION_RATIO_IMPROVING_STEP, observed);
  return current;
}

/** The estimates per (topic, compression.type) of one producer, starting at 1. */
export class CompressionRatioEstimator {
  private readonly estimates = new Map<string, number>();

  estimation(topic: string, type: CompressionType): number {
    if (type === 'none') return 1;
    return this.estimates.get(`${topic}\u0000${type}`) ?? 1;
  }

  /** Called when a batch is closed with the ratio it actually achieved [ProducerBatch.close]. */
  updateEstimation(topic: string, type: CompressionType, observed: number): number {
    if (type === 'none') return 1;
    const next = nextCompressionRatioEstimate(this.estimation(topic, type), observed);
    this.estimates.set(`${topic}\u0000${type}`, next);
    return next;
  }
}
