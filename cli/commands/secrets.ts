import type { Command } from 'commander';
import type { Secret, SecretCreate } from '../../shared/schemas/secrets';
import type { Cli } from '../actions';
import type { Context } from '../context';
import { UsageError, collect } from '../options';
import { age, details } from '../output';
import { print, printList } from '../print';
import { commandModule } from '../program';

const columns = [
  { header: 'NAME', get: (s: Secret) => s.name },
  { header: 'HOSTS', get: (s: Secret) => s.hosts.join(',') },
  { header: 'HEADER', get: (s: Secret) => s.header ?? 'Authorization: Bearer' },
  { header: 'ENV', get: (s: Secret) => s.env },
  { header: 'AGE', get: (s: Secret) => age(s.created_at) },
];

/** Everything on stdin, less one trailing newline (`echo "$KEY" | box secret add …`). */
async function readStdin(stdin: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Asks for the value on the terminal without echoing it; Ctrl-C gives up. */
function askHidden(ctx: Context, question: string): Promise<string> {
  const { stdin, stderr } = ctx;
  stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err: Error | null) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (data: Buffer) => {
      for (const ch of data.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003') return done(new UsageError('no secret added'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

interface AddFlags {
  host?: string[];
  header?: string;
  valueStdin?: boolean;
}

/** The value: from stdin with --value-stdin, else asked on the terminal; never from the command line. */
async function valueOf(ctx: Context, name: string, opts: AddFlags): Promise<string> {
  if (opts.valueStdin) return readStdin(ctx.stdin);
  if (!ctx.stdin.isTTY)
    throw new UsageError('give the value on stdin with --value-stdin (a value is never taken from the command line)');
  return askHidden(ctx, `value of ${name} (not shown): `);
}

/** `box secret add|ls|rm`. */
function registerSecrets(program: Command, cli: Cli): void {
  const secret = program
    .command('secret')
    .description("secrets: values the egress proxy puts into a box's requests to their hosts only (add, ls, rm)");
  const add = secret
    .command('add <NAME>')
    .description(
      'add a secret; boxes given it (--secret on create/update) see a placeholder in $NAME (upper case, - as _)',
    )
    .option('--host <HOST>', 'a host its value goes to; *.example.com for its subdomains (repeatable)', collect)
    .option('--header <NAME>', 'the header added with the bare value where absent (default Authorization: Bearer)')
    .option('--value-stdin', 'read the value from stdin (otherwise it is asked for, hidden)');
  cli.action<AddFlags>(add, async (ctx, [name], opts) => {
    if (!opts.host?.length) throw new UsageError('give at least one --host the value may go to');
    const value = await valueOf(ctx, name!, opts);
    if (!value) throw new UsageError('the value is empty: nothing added');
    const body: SecretCreate = { name: name!, value, hosts: opts.host };
    if (opts.header !== undefined) body.header = opts.header;
    const made = await ctx.client.createSecret(body);
    print(ctx, made, () =>
      details([
        ['name', made.name],
        ['hosts', made.hosts.join(', ')],
        ['header', made.header ?? 'Authorization: Bearer <value>'],
        ['env', `${made.env} (a placeholder in boxes given it)`],
      ]),
    );
  });
  cli.action(secret.command('ls').description('list secrets (never their values)'), async (ctx) =>
    printList(ctx, await ctx.client.listSecrets(), columns, 'no secrets'),
  );
  cli.removal(
    secret.command('rm <NAME...>').description('remove secrets no box holds'),
    (ctx, name) => ctx.client.deleteSecret(name),
    (name) => `secret ${name} removed`,
  );
}

export const secrets = commandModule(
  'secrets',
  [registerSecrets],
  `"secret add" takes the value from stdin (--value-stdin) or asks for it without echo; never
from the command line, where other users' ps and your shell history would see it. A box given
a secret (--secret NAME on create or update) sees a placeholder in $NAME; its requests to the
secret's hosts through the egress proxy (HTTPS_PROXY in the box) carry the value.`,
);
