import type { LocalCaJson } from '../contract/wire/overview';

/** The certificate the daemon serves: its key, its chain (leaf first), and its dates. */
export interface ServedCertificate {
  key: string;
  cert: string;
  notBefore: Date;
  notAfter: Date;
}

/** What /healthz and the overview say of the certificate. */
export interface TlsStatus {
  ok: boolean;
  mode: 'auto' | 'files' | 'acme';
  not_after: string | null;
  message: string;
  local_ca?: LocalCaJson;
}

/** The local CA clients trust (`--tls auto` only): served at /ca.pem, its fingerprint shown. */
export interface TrustedCa {
  pem: string;
  fingerprint: string;
}

/**
 * Where a certificate comes from, as Caddy's certmagic has issuers: the daemon's own CA
 * (tls/local-issuer.ts), the user's files (tls/file-issuer.ts) or ACME (tls/acme.ts). An issuer
 * keeps no timer and no status: when to ask it, what a failure means and what is served are
 * tls/maintenance.ts's.
 */
export interface Issuer {
  readonly mode: TlsStatus['mode'];
  /** Publicly trusted (ACME, the user's own): HSTS is sent only then. */
  readonly publicTrust: boolean;
  /** Set once `open` has run. */
  readonly ca: TrustedCa | null;
  /** Readies what it keeps (its folders, its CA, its ACME account's folder) before the first certificate. */
  open(): Promise<void>;
  /**
   * The certificate it holds now, checked (`tls/private-files.ts`'s `checkPair` at `now`, and
   * still for its names, CA or directory); null when it holds none that fits. Throws what makes
   * the held one unusable and cannot be cured by issuing one (the user's files: a bad pair).
   */
  held(now: Date): Promise<ServedCertificate | null>;
  /** A new certificate, kept for `held` to find. Absent: the issuer only reads (the user's files). */
  issue?(): Promise<ServedCertificate>;
  /** Calls `changed` when what it holds changed outside (a file written); answers the unsubscribe. */
  watch?(changed: () => void): () => void;
  /** ACME only: the answer to an HTTP-01 challenge token being validated now. */
  challenge?(token: string): string | undefined;
  /** What status says while all is well, and the local CA's review. */
  describe(): { message: string; local_ca?: LocalCaJson };
  /** How status words a failed check: `renewing the certificate through … failed`. */
  readonly failing: string;
  /** The error a start that got no certificate at all stops with. */
  startFailure?(err: unknown): Error;
}

/**
 * The certificate the daemon serves and keeps current (tls/maintenance.ts); the listener
 * (tls/listener.ts) does not know its issuer. `start` gives the first certificate or throws what is
 * wrong (the daemon does not start, never falling back to plain HTTP); later ones reach `onChange`.
 */
export interface CertificateSource {
  readonly mode: TlsStatus['mode'];
  readonly publicTrust: boolean;
  readonly ca: TrustedCa | null;
  start(onChange: (c: ServedCertificate) => void): Promise<ServedCertificate>;
  /** ACME only: the answer to an HTTP-01 challenge token being validated now. */
  readonly challenge?: (token: string) => string | undefined;
  /** Checks (and renews or reads) now: SIGHUP. */
  reload(): Promise<void>;
  status(): TlsStatus;
  stop(): void;
}
