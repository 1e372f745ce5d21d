// Type-checked (not run) in the empty project with "moduleResolution": "nodenext": the package's
// declarations resolve and say what the SDK gives.
import { Boxdesk, type Box, type ExecResult, type FileStat } from '@boxdesk/sdk';

export async function typed(): Promise<[ExecResult, Uint8Array, FileStat[], string]> {
  const bd = new Boxdesk({ url: 'http://127.0.0.1:7420', token: 't' });
  const box: Box = await bd.boxes.create({ project: 'default', name: 'x', config: { cpus: 1 } });
  const result = await box.exec(['echo', 'hi'], { timeout_s: 5 });
  const code: number = result.exit_code;
  // With --skipLibCheck a declaration that failed to resolve would be `any`: these would then pass.
  // @ts-expect-error exec takes an argv array or a string, not a number
  await box.exec(42);
  // @ts-expect-error an exec result (shared/schemas/exec) has no such field
  void result.exitCode;
  // @ts-expect-error config.cpus is a number (the TypeBox schema's static type)
  await bd.boxes.create({ name: 'y', config: { cpus: 'two' } });
  return [result, await box.files.read('/etc/hostname'), await box.files.list('/'), String(code)];
}
