/** One palette for every view, so a colour means the same thing everywhere. */

/** Leader epochs: a qualitative palette, cycled. */
const EPOCHS = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#e15759', '#bab0ac'];
export function epochColor(epoch: number): string {
  return epoch < 0 ? '#c8c8c8' : EPOCHS[epoch % EPOCHS.length]!;
}

export const STATE_COLORS: Record<string, string> = {
  up: '#2e9e5b',
  starting: '#7fb8e6',
  crashed: '#d64545',
  'powered off': '#3b3b3b',
  restarting: '#7fb8e6',
  paused: '#e0a526',
  stopping: '#c9a0dc',
  stopped: '#9b9b9b',
  fenced: '#8e5ec9',
  'cut off': '#e8743b',
  'not started': '#b9b9b9',
};

/** Timeline event categories. */
export const CATEGORY_COLORS: Record<string, string> = {
  fault: '#d64545',
  host: '#d64545',
  net: '#9aa5b1',
  disk: '#8c564b',
  log: '#8c564b',
  replica: '#4e79a7',
  controller: '#8e5ec9',
  raft: '#b39ddb',
  broker: '#6b7b8c',
  send: '#59a14f',
  producer: '#59a14f',
  consumer: '#f28e2b',
  group: '#f28e2b',
  share: '#17becf',
  scenario: '#555555',
  caption: '#0b7285',
  other: '#9aa5b1',
};

/** Messages in the sequence diagram, by request name (responses share their request's colour). */
const MESSAGE_COLORS: Record<string, string> = {
  Produce: '#2f7d32',
  Fetch: '#4e79a7',
  Metadata: '#9aa5b1',
  AlterPartition: '#8e5ec9',
  BrokerHeartbeat: '#b0a7c4',
  BrokerRegistration: '#8e5ec9',
  Vote: '#d08c2b',
  BeginQuorumEpoch: '#d08c2b',
  JoinGroup: '#f28e2b',
  SyncGroup: '#f28e2b',
  Heartbeat: '#f5b87a',
  OffsetCommit: '#e15759',
  OffsetFetch: '#e15759',
  FindCoordinator: '#f5b87a',
  ListOffsets: '#76b7b2',
  OffsetsForLeaderEpoch: '#76b7b2',
  CreateTopics: '#555555',
};
export function messageColor(type: string): string {
  const base = type.endsWith('Response') ? type.slice(0, -'Response'.length) : type;
  return MESSAGE_COLORS[base] ?? '#9aa5b1';
}

export const HIGHLIGHT = '#ff2d95';
export const LOST = '#d64545';
