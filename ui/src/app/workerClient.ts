import type { RunPayload, WorkerReply, WorkerRequest } from '../worker/protocol';

export interface Progress {
  readonly fraction: number;
  readonly events: number;
  readonly phase: string;
}

export interface Job {
  readonly promise: Promise<RunPayload>;
  cancel(): void;
}

export class JobCancelled extends Error {}

/** Runs one request in a fresh Web Worker (one per job, so cancelling is terminating it). */
export function startJob(req: WorkerRequest, onProgress: (p: Progress) => void): Job {
  const worker = new Worker(new URL('../worker/simWorker.ts', import.meta.url), { type: 'module' });
  let reject: (e: Error) => void = () => {};
  const promise = new Promise<RunPayload>((resolve, rej) => {
    reject = rej;
    worker.onmessage = (ev: MessageEvent<WorkerReply>) => {
      const m = ev.data;
      if (m.kind === 'progress') onProgress(m);
      else {
        worker.terminate();
        if (m.kind === 'done') resolve(m.payload);
        else rej(new Error(m.message));
      }
    };
    worker.onerror = (ev) => {
      ev.preventDefault();
      worker.terminate();
      rej(new Error(ev.message || 'the simulation worker failed'));
    };
  });
  worker.postMessage(req);
  return {
    promise,
    cancel: () => {
      worker.terminate();
      reject(new JobCancelled('cancelled'));
    },
  };
}
