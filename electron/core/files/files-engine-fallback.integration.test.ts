// The files tests again, with no box agent: every file call through the engine's archive calls, as a
// box made before the agent, or on an engine on another machine, gets it (engine/agent/, docs/protocol.md).
// The same tests run with the agent in files.integration.test.ts.
process.env.BOXDESK_NO_AGENT = '1';
await import('./files.integration.test');

export {};
