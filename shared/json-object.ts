/**
 * `text` read as a JSON object, or null when there is none, it is not JSON or not an object:
 * for what a peer or a file outside the core's control may hold (a control message, a helper's
 * answer line, a Docker config file).
 */
export function parseJsonObject(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
