/** Every react-query key in one place, so the event stream can find what to patch. */
export const queryKeys = {
  boxes: (project: string) => ['boxes', project] as const,
  allBoxes: ['boxes'] as const,
  box: (project: string, name: string) => ['box', project, name] as const,
  allBoxDetails: ['box'] as const,
  bases: ['bases'] as const,
  tokens: ['tokens'] as const,
  system: ['system'] as const,
  health: ['health'] as const,
  version: ['version'] as const,
};
