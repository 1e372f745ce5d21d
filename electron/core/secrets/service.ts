import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ApiError } from '../../../shared/errors';
import type { Secret, SecretCreate } from '../../../shared/schemas/secrets';
import { now } from '../ids';
import { EgressCa } from './egress-ca';
import type { SecretStore, StoredSecret } from './secret-store';

/** Who holds a secret (boxes, by project/name): a secret held is not deleted. */
export type SecretHolders = (name: string) => string[];

function publicOf({ name, hosts, header, env, created_at }: StoredSecret): Secret {
  return { name, hosts, header, env, created_at };
}

/**
 * Secrets: write-only values bound to hosts (docs/security.md, "Secrets"). A value goes in once
 * and out only through the egress proxy, into requests to its hosts; nothing here answers with it.
 */
export class SecretService {
  private holders: SecretHolders = () => [];
  private ca: EgressCa | null = null;

  constructor(
    private readonly store: SecretStore,
    private readonly dataDir: string,
  ) {}

  /** Boxes name their holders (set by the boxes module). */
  useHolders(holders: SecretHolders): void {
    this.holders = holders;
  }

  create(input: SecretCreate): Secret {
    const hosts = [...new Set(input.hosts.map((h) => h.toLowerCase()))];
    const secret: StoredSecret = {
      name: input.name,
      value: input.value,
      hosts,
      header: input.header ?? null,
      env: '',
      created_at: now(),
      placeholder: `boxdesk-secret-${input.name}-${randomBytes(12).toString('hex')}`,
    };
    if (!this.store.insert(secret))
      throw new ApiError('already_exists', `a secret named "${input.name}" exists`, {
        hint: `remove it first (DELETE /v1/secrets/${input.name}) to give it another value`,
      });
    return publicOf(this.store.get(input.name)!);
  }

  list(): Secret[] {
    return this.store.all().map(publicOf);
  }

  delete(name: string): void {
    if (!this.store.get(name))
      throw new ApiError('not_found', `secret "${name}" not found; GET /v1/secrets lists them`);
    const holders = this.holders(name);
    if (holders.length)
      throw new ApiError('conflict', `secret "${name}" is given to ${holders.join(', ')}`, {
        hint: 'take it from those boxes first (update them without it), then remove it',
      });
    this.store.delete(name);
  }

  /** 404 naming the first of `names` that is no secret (`field`: where the request gave them). */
  check(names: readonly string[], field: string): void {
    names.forEach((name, i) => {
      if (!this.store.get(name))
        throw new ApiError('not_found', `secret "${name}" not found; GET /v1/secrets lists them`, {
          errors: [{ path: `${field}.${i}`, message: 'is not a secret; add it with POST /v1/secrets' }],
        });
    });
  }

  /** The named secrets with their values and placeholders, for the egress proxy (unknown names skipped). */
  resolve(names: readonly string[]): StoredSecret[] {
    return names.map((n) => this.store.get(n)).filter((s): s is StoredSecret => s !== undefined);
  }

  /** The installation's CA for the egress proxy, made (key and certificate in the data dir) at first use. */
  egressCa(): EgressCa {
    this.ca ??= new EgressCa(path.join(this.dataDir, 'secrets'));
    return this.ca;
  }

  close(): void {
    this.store.close();
  }
}
