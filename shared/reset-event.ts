// Apart from events.ts, which holds every resource's event schemas: the event stream's readers
// (the SDK's among them) need this constant and none of those.

/**
 * Sent instead of a replay when Last-Event-ID is unknown or too old: the
 * client should refetch what it shows.
 */
export const RESET_EVENT = 'reset';
