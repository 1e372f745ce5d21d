/**
 * The keys of the shell's own queries (the core's health, version and
 * settings). Each feature keeps the keys of its queries beside its hooks
 * (`features/<area>/use-*.ts`), and its module's event rules patch them.
 */
export const queryKeys = {
  health: ['health'] as const,
  version: ['version'] as const,
  system: ['system'] as const,
  regions: ['regions'] as const,
};
