import { apiByKey } from './apis';
import type { ApiDefinition } from './apis/api';
import { FrameReader } from './codec/frames';
import { decodeResponse } from './codec/requests';

/**
 * A real client's own traffic on one connection, read from the client's side: the requests it writes say which API
 * and version each correlation id is, so the answers can be decoded. The in-process bridge uses it to learn what
 * kafkajs does not report (the generation a JoinGroup answered) without reaching into the client.
 */
export class ClientTraffic {
  private readonly out = new FrameReader();
  private readonly in = new FrameReader();
  private readonly asked = new Map<number, { api: ApiDefinition; version: number }>();

  constructor(
    /** The API keys whose answers are wanted. */
    private readonly keys: ReadonlySet<number>,
    private readonly onResponse: (api: ApiDefinition, version: number, body: unknown) => void,
  ) {}

  /** Bytes the client wrote. */
  sent(bytes: Uint8Array): void {
    for (const f of this.out.push(bytes).frames) {
      if (f.length < 8) continue;
      const v = new DataView(f.buffer, f.byteOffset, f.byteLength);
      const api = apiByKey(v.getInt16(0));
      if (api && this.keys.has(api.key)) this.asked.set(v.getInt32(4), { api, version: v.getInt16(2) });
    }
  }

  /** Bytes the broker wrote back. */
  received(bytes: Uint8Array): void {
    for (const f of this.in.push(bytes).frames) {
      if (f.length < 4) continue;
      const cid = new DataView(f.buffer, f.byteOffset, f.byteLength).getInt32(0);
      const a = this.asked.get(cid);
      if (!a) continue;
      this.asked.delete(cid);
      let body: unknown;
      try {
        body = decodeResponse(a.api, a.version, f).body;
      } catch {
        continue; // an answer we cannot read tells us nothing; the client sees the same bytes and copes
      }
      this.onResponse(a.api, a.version, body);
    }
  }
}
