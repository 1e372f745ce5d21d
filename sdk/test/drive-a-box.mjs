/* global TextDecoder, AbortController */
// What a user's script does with the installed package: copied into an empty project beside its
// node_modules/@boxdesk/sdk and run there by sdk-pack.integration.test.ts. `new Boxdesk()` finds
// the core as the CLI does (here: BOXDESK_DATA_DIR's listening.json and token file).
import { Boxdesk, ApiError } from '@boxdesk/sdk';

const project = process.argv[2];
const bd = new Boxdesk({ project });
const out = {};

// The core's events, followed from the start: sdk-one's status changes and its deletion.
const abort = new AbortController();
const events = [];
const following = (async () => {
  for await (const e of bd.events({ signal: abort.signal })) {
    if (e.type === 'reset' || e.data?.box?.name !== 'sdk-one') continue;
    events.push(e.type === 'box.status' ? `status:${e.data.box.status}` : e.type);
    if (e.type === 'box.deleted') return;
  }
})();

const box = await bd.boxes.create({ name: 'sdk-one', tags: { made: 'sdk' } });
out.created = box.status;
out.echo = await box.exec(['echo', 'hi']);
out.shell = (await box.exec('echo $((6 * 7)) >&2; exit 3')).stderr + (await box.exec('exit 3')).exit_code;

await box.files.write('/workspace/notes/a.txt', 'hello from the sdk\n');
await box.files.write('/workspace/notes/b.bin', Uint8Array.of(0, 1, 2, 255));
out.read = new TextDecoder().decode(await box.files.read('/workspace/notes/a.txt'));
out.bytes = [...(await box.files.read('/workspace/notes/b.bin'))];
out.listed = (await box.files.list('/workspace/notes')).map((f) => `${f.path} ${f.size}`).sort();

const lines = [];
for await (const line of box.execStream(['sh', '-c', 'echo one; echo two >&2'])) lines.push(line.type);
out.streamed = lines;

const snap = await box.snapshot({ name: 'before-fork' });
out.snapshot = snap.id.startsWith('snap_');
const fork = await box.fork('sdk-fork');
out.fork = { status: fork.status, file: new TextDecoder().decode(await fork.files.read('/workspace/notes/a.txt')) };

out.stopped = (await box.stop()).status;
out.resumed = (await box.resume()).status;
out.afterResume = (await box.exec(['cat', '/workspace/notes/a.txt'])).stdout;

out.got = (await bd.boxes.get('sdk-one')).name;
out.list = (await bd.boxes.list()).map((b) => b.name).sort();

await fork.delete();
await box.delete();
try {
  await bd.boxes.get('sdk-one');
  out.afterDelete = 'still there';
} catch (err) {
  out.afterDelete = err instanceof ApiError ? err.code : String(err);
}
let timer;
await Promise.race([following, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
clearTimeout(timer);
abort.abort();
out.events = events;
process.stdout.write(JSON.stringify(out));
