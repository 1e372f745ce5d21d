import { Option, type Command } from 'commander';
import type { Box } from '../../shared/schemas/box';
import type { PublishRequest } from '../../shared/schemas/publishing';
import type { Context } from '../context';
import { openInBrowser } from '../open-browser';
import { UsageError, collect, wholeNumber } from '../options';
import type { Cli } from '../actions';
import { details } from '../output';
import { print } from '../print';
import { commandModule } from '../program';

function printPublished(ctx: Context, box: Box): void {
  print(ctx, box, () =>
    box.url
      ? `${box.url}\n` +
        (box.port_urls ?? []).map((p) => `${p.url}\n`).join('') +
        (ctx.stderr.isTTY
          ? details([
              ['port', box.port],
              ['auth', box.url_settings?.auth],
              ['domains', (box.published_domains ?? []).join(', ') || null],
            ])
              .split('\n')
              .map((l) => (l ? `  ${l}` : l))
              .join('\n')
          : '')
      : `box ${box.name} is not published\n`,
  );
}

/**
 * The URL a browser should open: with auth "token", a one-time link the core mints (a code good
 * once, for a minute, that the proxy swaps for its cookie); never a URL with a token in it.
 */
async function browserUrl(
  ctx: Context,
  name: string,
  bare: boolean | undefined,
): Promise<{ url: string; plain: string }> {
  const box = await ctx.client.getBox(ctx.project, name);
  if (!box.url)
    throw new UsageError(`box "${box.name}" is not published; publish it first: box publish ${box.name} --port N`);
  if (box.url_settings?.auth !== 'token' || bare) return { url: box.url, plain: box.url };
  return { url: (await ctx.client.createSignInLink(ctx.project, name)).url, plain: box.url };
}

function registerPublish(program: Command, cli: Cli): void {
  cli.action<{ port?: number; alsoPort?: string[]; domain?: string[]; auth?: 'public' | 'token' }>(
    program
      .command('publish <NAME>')
      .description("publish a box's web server at http://NAME--PROJECT.localhost:PROXY_PORT (prints the URL)")
      .option('--port <N>', "the box's port to publish (default: the box's port)", wholeNumber('--port', 1))
      .option(
        '--also-port <N>',
        'publish another port of the box too, at http://N.NAME--PROJECT.localhost:PROXY_PORT (repeatable)',
        collect,
      )
      .option('--domain <HOST>', 'also answer to this hostname (repeatable)', collect)
      .addOption(
        new Option(
          '--auth <MODE>',
          'public: anyone on this machine; token: a token that can read the project (default on first publish)',
        ).choices(['public', 'token']),
      ),
    async (ctx, [name], opts) => {
      if (opts.port !== undefined && opts.port > 65535)
        throw new UsageError(`--port must be at most 65535, got ${opts.port}`);
      const body: PublishRequest = {};
      if (opts.port !== undefined) body.port = opts.port;
      if (opts.alsoPort) {
        const ports = opts.alsoPort.map(Number);
        const wrong = opts.alsoPort.find((p, i) => !/^\d+$/.test(p) || ports[i]! < 1 || ports[i]! > 65535);
        if (wrong !== undefined) throw new UsageError(`--also-port ${wrong}: give a port number from 1 to 65535`);
        body.ports = ports;
      }
      if (opts.domain) body.domains = opts.domain;
      if (opts.auth) body.auth = opts.auth;
      printPublished(ctx, await ctx.client.publishBox(ctx.project, name!, body));
    },
  );
  cli.action(
    program
      .command('unpublish <NAME>')
      .description('stop publishing a box: its URL and domains stop answering at once'),
    async (ctx, [name]) => {
      const box = await ctx.client.unpublishBox(ctx.project, name!);
      print(ctx, box, () => `box ${box.name} unpublished\n`);
    },
  );
}

function registerOpen(program: Command, cli: Cli): void {
  cli.action<{ bare?: boolean; print?: boolean }>(
    program
      .command('open <NAME>')
      .description(
        "open a published box's URL in the system browser (xdg-open, open or start); prints the URL where there is none",
      )
      .option(
        '--bare',
        'with auth "token", open the plain URL (a 401 page until the browser is signed in) instead of a one-time sign-in link',
      )
      .option('--print', 'only print the URL (with auth "token", a sign-in link that works once, within a minute)'),
    async (ctx, [name], opts) => {
      const { url, plain } = await browserUrl(ctx, name!, opts.bare);
      if (!opts.print && (await openInBrowser(url))) {
        ctx.stderr.write(`opened ${plain}\n`);
        return;
      }
      if (!opts.print) ctx.stderr.write('no browser to open it with; open this URL yourself:\n');
      ctx.stdout.write(`${url}\n`);
    },
  );
}

/** `box publish`, `unpublish` and `open`: a box's web server at its own URL. */
export const publishing = commandModule('publishing', [registerPublish, registerOpen]);
