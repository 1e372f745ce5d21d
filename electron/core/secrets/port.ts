import type tls from 'node:tls';
import type { StoredSecret } from './secret-store';

export type { StoredSecret };

/** The installation's CA as the egress proxy and boxes use it (its key stays inside). */
export interface EgressCertificates {
  /** Its certificate (PEM), for boxes to trust. */
  readonly certPem: string;
  /** The public roots Node knows and the CA's certificate: a bundle for SSL_CERT_FILE and the like. */
  bundlePem(): string;
  /** A TLS context presenting a leaf for `host`, signed by the CA. */
  contextFor(host: string): tls.SecureContext;
}

/** What other modules use of secrets: boxes check and hold them, the egress proxy puts in their values. */
export interface SecretsPort {
  /** 404 naming the first of `names` that is no secret (`field`: where the request gave them). */
  check(names: readonly string[], field: string): void;
  /** The named secrets with their values and placeholders (unknown names skipped). */
  resolve(names: readonly string[]): StoredSecret[];
  /** The installation's CA, made at first use. */
  egressCa(): EgressCertificates;
  /** Boxes name the holders of a secret (a secret held is not deleted). */
  useHolders(holders: (name: string) => string[]): void;
}
