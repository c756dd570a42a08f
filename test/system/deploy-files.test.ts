import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../daemon/src/config';

/**
 * deploy/ is read by Docker, Compose, nginx and Kubernetes, none of which run here: this
 * checks that what they are given is what the daemon understands and agrees with itself. Every
 * setting parses as the daemon parses it, the port is the same everywhere, the daemons behind nginx
 * are the Compose services, and Kubernetes runs several replicas probed on /readyz.
 */
const deploy = (file: string) => readFileSync(join(__dirname, '..', '..', 'deploy', file), 'utf8');

/** The Dockerfile's ENV settings (`ENV A=1 B=2`, continued lines included). */
function dockerfileEnv(): Record<string, string> {
  const text = deploy('Dockerfile').replace(/\\\n/g, ' ');
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (!/^ENV\s/.test(line)) continue;
    for (const m of line.slice(4).matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]] = m[2].replace(/^"|"$/g, '');
  }
  return env;
}

type ComposeService = {
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  image?: string;
  build?: unknown;
};
type K8sEnv = { name: string; value?: string; valueFrom?: unknown };
type K8sDoc = {
  kind: string;
  spec: {
    replicas?: number;
    template?: {
      spec: {
        containers: Array<{
          env: K8sEnv[];
          ports: Array<{ name: string; containerPort: number }>;
          readinessProbe: { httpGet: { path: string; port: string } };
        }>;
      };
    };
  };
};

describe('deploy/: Dockerfile, Compose, nginx and Kubernetes agree with the daemon', () => {
  const image = dockerfileEnv();
  const compose = load(deploy('compose.yaml')) as { services: Record<string, ComposeService> };
  const daemons = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);

  it('the image listens on 0.0.0.0:8080 with its data folder in /data', () => {
    expect(loadConfig(image)).toMatchObject({ host: '0.0.0.0', port: 8080, dataDir: '/data' });
    expect(deploy('Dockerfile')).toMatch(/^EXPOSE 8080$/m);
  });

  it('Compose runs two daemons on PostgreSQL and the bucket, with settings the daemon parses', () => {
    expect(daemons.map(([name]) => name)).toEqual(['boxyard-1', 'boxyard-2']);
    for (const [, s] of daemons) {
      const config = loadConfig({ ...image, ...s.environment });
      expect(config).toMatchObject({
        port: 8080,
        trustProxy: true,
        database: 'postgres://boxyard:boxyard@postgres:5432/boxyard',
      });
      expect(config.blobs).toMatch(/^s3:\/\/boxes\/boxyard\/\?endpoint=http:\/\/minio:9000/);
      expect(s.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:8080/readyz');
    }
  });

  it("nginx balances over exactly the Compose daemons, on the daemon's port", () => {
    const servers = [...deploy('nginx.conf').matchAll(/^\s*server\s+([\w.-]+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(servers).toEqual(daemons.map(([name]) => `${name}:8080`));
  });

  it('Kubernetes runs two or more replicas on that port, ready by /readyz, with settings the daemon parses', () => {
    const docs = loadAll(deploy('k8s/boxyard.yaml')) as K8sDoc[];
    const deployment = docs.find((d) => d.kind === 'Deployment');
    assert(deployment?.spec.template, 'k8s/boxyard.yaml has no Deployment with a pod template');
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    const container = deployment.spec.template.spec.containers[0];
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080 }]);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    // Secrets stand in as examples: the daemon must accept the shape of each.
    const examples: Record<string, string> = {
      BOXYARD_DATABASE_URL: 'postgres://boxyard:secret@postgres:5432/boxyard',
      BOXYARD_ADMIN_PASSWORD: 'a-long-password',
    };
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value ?? examples[e.name] ?? 'from-a-secret']));
    expect(loadConfig({ ...image, ...env })).toMatchObject({
      port: 8080,
      trustProxy: true,
      database: examples.BOXYARD_DATABASE_URL,
      drainSeconds: 20,
    });
    expect(docs.find((d) => d.kind === 'Service')).toBeDefined();
  });

  it('the Prometheus scrape config is valid (promtool), scrapes every Compose daemon with the token they are given', async () => {
    const prom = load(deploy('prometheus.yml')) as {
      scrape_configs: Array<{
        metrics_path: string;
        authorization: { type: string; credentials_file: string };
        static_configs: Array<{ targets: string[] }>;
      }>;
    };
    const job = prom.scrape_configs[0];
    expect(job.metrics_path).toBe('/metrics');
    const port = loadConfig({ ...image, ...daemons[0][1].environment }).port;
    expect(job.static_configs[0].targets.sort()).toEqual(daemons.map(([name]) => `${name}:${port}`).sort());
    for (const [, s] of daemons)
      expect(loadConfig({ ...image, ...s.environment }).metricsToken).toBe(deploy('boxyard-metrics-token').trim());
    expect(job.authorization.credentials_file).toBe('/etc/prometheus/boxyard-metrics-token');
    const prometheus = compose.services.prometheus as ComposeService & { volumes: string[] };
    expect(prometheus.volumes).toContain('./boxyard-metrics-token:/etc/prometheus/boxyard-metrics-token:ro');
    const have = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
    expect(have || process.env.CI !== 'true', 'CI=true requires promtool (apt-get install prometheus)').toBe(true);
    if (have) {
      // promtool reads the token file: the same config with the file beside it.
      const dir = mkdtempSync(join(tmpdir(), 'boxyard-prom-'));
      writeFileSync(join(dir, 'token'), deploy('boxyard-metrics-token'));
      writeFileSync(
        join(dir, 'prometheus.yml'),
        deploy('prometheus.yml').replace('/etc/prometheus/boxyard-metrics-token', join(dir, 'token')),
      );
      const checked = spawnSync('promtool', ['check', 'config', join(dir, 'prometheus.yml')], { encoding: 'utf8' });
      rmSync(dir, { recursive: true, force: true });
      expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    }
  });
});
