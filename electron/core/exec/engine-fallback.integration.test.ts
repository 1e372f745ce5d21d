// The exec tests again, with no box agent: every exec through the engine's own exec, as a box made
// before the agent, or on an engine on another machine, gets it (engine/agent/, docs/protocol.md).
// The same tests run with the agent in exec-http.integration.test.ts and exec-socket.integration.test.ts.
process.env.BOXDESK_NO_AGENT = '1';
await import('./exec-http.integration.test');
await import('./exec-socket.integration.test');

export {};
