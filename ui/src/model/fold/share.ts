import type { Handlers, TraceEvent, TraceEventBase } from '../../../../sim/core/trace';
import { SHARE_MARK } from '../shareLabels';
import { DEAD_LETTER_KIND, deadLetterFields } from '../shareState';
import type { IndexContext, IndexFold } from './context';

/** A member id without its random suffix ("worker-2-7025a8b1" -> "worker-2"), until share.assignment names it. */
function shortName(memberId: string): string {
  return memberId.replace(/-[0-9a-f]{8}$/, '');
}

/**
 * Share groups' notable moments on the broker that leads the share-partition: acquisition locks that expired,
 * records archived (given up on), and records written to the dead-letter topic (KIP-1191).
 */
export function shareIndex(c: IndexContext): IndexFold {
  const names = new Map<string, string>();
  const name = (id: string) => names.get(id) ?? shortName(id);
  const handlers: Handlers = {
    'share.assignment': (e) => void names.set(e.memberId, e.node),
    'share.transition': (e) => {
      if (e.cause === 'lock-expired') c.mark(e, c.lane, 'lock-expired', SHARE_MARK.lockExpired(e, name));
      else if (e.to === 'ARCHIVED' && e.cause !== 'gap' && e.cause !== 'log-start') c.mark(e, c.lane, 'archived', SHARE_MARK.archived(e, name));
    },
  };
  // share.dead-letter is read by its fields (deadLetterFields), so it is routed by name.
  const loose = handlers as unknown as Record<string, (e: TraceEventBase) => void>;
  loose[DEAD_LETTER_KIND] = (e) => {
    const d = deadLetterFields(e);
    if (d) c.mark(e as unknown as TraceEvent, c.lane, 'dead-letter', SHARE_MARK.deadLetter(d));
  };
  return { handlers };
}
