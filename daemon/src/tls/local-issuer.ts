import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { newCaSteps, trustCommand } from '../contract/lan';
import type { NameSettings } from '../http/own-names';
import type { Issuer, ServedCertificate, TrustedCa } from './issuer';
import { LocalCa, SERVER_DAYS, type Replaced } from './local-ca';
import { serverNames } from './names';
import { permittedFor, reviewNames, type NamesReview } from './name-constraints';

/**
 * `--tls auto`: the daemon's own CA issues its certificate, for every name LAN clients use that the
 * CA may certify (its name constraints: tls/name-constraints.ts), again when it is due or the names
 * change (a new address: the names are read again at every check).
 */
export class LocalCaIssuer implements Issuer {
  readonly mode = 'auto';
  readonly publicTrust = false;
  readonly failing = 'renewing the certificate from the local CA failed';
  ca: TrustedCa | null = null;
  /** The CA and what it may certify of the daemon's names (read again at every check), once open. */
  private opened?: { local: LocalCa; review: NamesReview };
  private replaced: Replaced | null = null;

  constructor(private readonly opts: { dataDir: string; settings: NameSettings & Pick<Config, 'port'>; log: Logger }) {}

  async open(): Promise<void> {
    const local = await LocalCa.open(join(this.opts.dataDir, 'tls'), 'Boxyard', permittedFor(this.opts.settings));
    const ca = { pem: local.certPem, fingerprint: local.fingerprint };
    this.ca = ca;
    this.replaced = await local.replaced();
    this.opened = { local, review: this.reviewNames(local) };
    this.report(this.opened.review, ca);
  }

  async held(now: Date): Promise<ServedCertificate | null> {
    const opened = this.openedCa();
    opened.review = this.reviewNames(opened.local);
    return opened.local.current(opened.review.certified, now);
  }

  async issue(): Promise<ServedCertificate> {
    const { local, review } = this.openedCa();
    const names = review.certified;
    const issued = await local.issue(names);
    this.opts.log.info({ names, not_after: issued.notAfter }, 'issued a server certificate from the local CA');
    return issued;
  }

  describe() {
    const o = this.opened;
    const local_ca = o && {
      name_constrained: o.local.permitted !== null,
      names_outside: o.review.outside,
      replace: o.review.replace,
      replaced: this.replaced,
    };
    return {
      message: `local CA ${this.ca?.fingerprint ?? ''}, server certificate for ${SERVER_DAYS} days`,
      ...(local_ca ? { local_ca } : {}),
    };
  }

  /** The maintenance loop opens its issuer before it asks for a certificate. */
  private openedCa(): { local: LocalCa; review: NamesReview } {
    if (!this.opened) throw new Error('the local CA issuer was asked for a certificate before open()');
    return this.opened;
  }

  private reviewNames(local: LocalCa): NamesReview {
    return reviewNames(this.opts.settings, local.permitted, serverNames(this.opts.settings));
  }

  /**
   * Says at start what the CA's name constraints leave out, and when a new CA is advised how to make it
   * (docs/https.md).
   */
  private report({ outside, replace }: NamesReview, ca: TrustedCa): void {
    const { log, settings, dataDir } = this.opts;
    const server = settings.publicUrl ?? `https://${hostname()}:${settings.port}`;
    const steps = newCaSteps(server, dataDir).join('; ');
    if (replace === 'unconstrained') {
      log.warn(
        { fingerprint: ca.fingerprint },
        'the local CA has no name constraints (it was made before Boxyard gave its CAs them): ' +
          `whoever copies its key can make a certificate for any site, which every client that trusts it accepts. It keeps working; to replace it: ${steps}`,
      );
    } else if (replace === 'names_outside') {
      log.warn(
        { names: outside },
        `the local CA's name constraints leave out ${outside.join(', ')}: they are not in the server certificate. A new CA covers them: ${steps}`,
      );
    } else if (outside.length > 0) {
      log.info(
        { names: outside },
        `left out of the server certificate, outside the local CA's name constraints: ${outside.join(', ')} (clients reach the daemon by its names and LAN addresses)`,
      );
    }
    if (this.replaced) {
      log.info(
        { previous_fingerprint: this.replaced.previous_fingerprint, at: this.replaced.at },
        `this local CA was made by boxyard tls new-ca in place of another: clients that trusted that one must trust this one: ${trustCommand(server, ca.fingerprint)}`,
      );
    }
  }
}
