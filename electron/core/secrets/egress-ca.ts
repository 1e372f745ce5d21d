import forge from 'node-forge';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';

/** How long the CA is valid, and a leaf the proxy makes for a host (made again at each core start). */
const CA_YEARS = 10;
const LEAF_DAYS = 30;

function serial(): string {
  // Positive (a leading byte below 0x80), 16 bytes.
  return `01${randomBytes(15).toString('hex')}`;
}

/** Writes a file readable by its owner alone (the key), made with that mode, not chmodded after. */
function writePrivate(file: string, text: string): void {
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
}

/**
 * Boxdesk's per-installation certificate authority for the egress proxy (docs/security.md,
 * "Secrets"), made with node-forge at first use: its key stays in `<data dir>/secrets/ca-key.pem`
 * (0600, in a 0700 folder) and never leaves the core; boxes that use the proxy get its certificate.
 * It signs a leaf for each host the proxy opens HTTPS to on a box's behalf (the hosts of the
 * box's secrets), kept in memory.
 */
export class EgressCa {
  readonly certPem: string;
  private readonly key: forge.pki.rsa.PrivateKey;
  private readonly cert: forge.pki.Certificate;
  private readonly leafKey: forge.pki.rsa.KeyPair;
  private readonly leaves = new Map<string, tls.SecureContext>();

  constructor(dir: string) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const keyFile = path.join(dir, 'ca-key.pem');
    const certFile = path.join(dir, 'ca.pem');
    if (!fs.existsSync(keyFile) || !fs.existsSync(certFile)) {
      const made = EgressCa.make();
      writePrivate(keyFile, forge.pki.privateKeyToPem(made.key));
      fs.writeFileSync(certFile, forge.pki.certificateToPem(made.cert), { mode: 0o644 });
    }
    fs.chmodSync(keyFile, 0o600);
    this.key = forge.pki.privateKeyFromPem(fs.readFileSync(keyFile, 'utf8')) as forge.pki.rsa.PrivateKey;
    this.certPem = fs.readFileSync(certFile, 'utf8');
    this.cert = forge.pki.certificateFromPem(this.certPem);
    // One key for every leaf of this run (a leaf's key lives in memory only).
    this.leafKey = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  }

  private static make(): { key: forge.pki.rsa.PrivateKey; cert: forge.pki.Certificate } {
    const keys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = serial();
    cert.validity.notBefore = new Date(Date.now() - 60_000);
    cert.validity.notAfter = new Date(Date.now() + CA_YEARS * 365 * 86_400_000);
    const subject = [
      { name: 'commonName', value: `Boxdesk egress CA ${randomBytes(4).toString('hex')}` },
      { name: 'organizationName', value: 'Boxdesk (this installation)' },
    ];
    cert.setSubject(subject);
    cert.setIssuer(subject);
    cert.setExtensions([
      { name: 'basicConstraints', cA: true, critical: true, pathLenConstraint: 0 },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    cert.sign(keys.privateKey, forge.md.sha256.create());
    return { key: keys.privateKey, cert };
  }

  /** The CA's certificate after the public roots Node knows: a bundle for SSL_CERT_FILE and the like. */
  bundlePem(): string {
    return `${tls.rootCertificates.join('\n')}\n${this.certPem}`;
  }

  /** A TLS context presenting a leaf for `host`, signed by the CA (made once per host per run). */
  contextFor(host: string): tls.SecureContext {
    let context = this.leaves.get(host);
    if (context) return context;
    const cert = forge.pki.createCertificate();
    cert.publicKey = this.leafKey.publicKey;
    cert.serialNumber = serial();
    cert.validity.notBefore = new Date(Date.now() - 60_000);
    cert.validity.notAfter = new Date(Date.now() + LEAF_DAYS * 86_400_000);
    cert.setSubject([{ name: 'commonName', value: host }]);
    cert.setIssuer(this.cert.subject.attributes);
    const altNames = /^[0-9.]+$/.test(host) ? [{ type: 7, ip: host }] : [{ type: 2, value: host }];
    cert.setExtensions([
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ]);
    cert.sign(this.key, forge.md.sha256.create());
    context = tls.createSecureContext({
      key: forge.pki.privateKeyToPem(this.leafKey.privateKey),
      cert: `${forge.pki.certificateToPem(cert)}${this.certPem}`,
    });
    this.leaves.set(host, context);
    return context;
  }
}
