import { displayName } from '../../../sim/scenario/captionAnchors';

/**
 * What the UI calls each host. A scenario may name its brokers (`cluster.brokerNames`); every view then says
 * "paris" where it would say "broker 2" or "broker-2", as the scenario's captions do (sim/scenario/captionAnchors).
 * Broker ids stay what Kafka uses in ISR sets and describe tables.
 */
export class HostNames {
  constructor(private readonly brokerNames: readonly string[] | null) {}

  /** Whether the scenario named its brokers. */
  get named(): boolean {
    return this.brokerNames !== null;
  }

  /** A broker by id: its name, or "broker 2". */
  broker(id: number): string {
    return this.brokerNames?.[id - 1] ?? `broker ${id}`;
  }

  /** A host by id: a named broker by its name, "controller 1", a client by its id. */
  host(hostId: string): string {
    return displayName(hostId, this.brokerNames);
  }

  /** A lane's label on the timeline: a named broker by its name, any other host by its id, as before. */
  lane(hostId: string): string {
    return this.brokerNames && /^broker-\d+$/.test(hostId) ? this.host(hostId) : hostId;
  }

  /** A sentence about the trace with "broker-2" and "broker 2" said by the broker's name. */
  text(s: string): string {
    const names = this.brokerNames;
    if (!names) return s;
    return s.replace(/\b[Bb]roker[- ](\d+)\b/g, (w, n: string) => names[Number(n) - 1] ?? w);
  }
}
