export const BUILD_OUTPUTS: string[];
export const BUILD_SOURCES: string[];
/** True when every output exists and no source is newer than the oldest of them. */
export function buildIsCurrent(root: string, outputs?: string[], sources?: string[]): boolean;
