import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assertBuilt, CLI } from './daemon-process.js';
import { writeConfigMapVolume } from './kubelet-volume.js';
import {
  generatorFile,
  type KubernetesObject,
  kubernetesSchemaErrors,
  kustomizationResources,
  readKustomization,
} from './kubernetes-objects.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const DEPLOY = join(ROOT, 'deploy');
const VARIANTS = ['git-sync', 'configmap'] as const;

interface Container {
  name: string;
  image: string;
  args?: string[];
  restartPolicy?: string;
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  livenessProbe?: { httpGet?: { path: string } };
  readinessProbe?: { httpGet?: { path: string } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsUser?: number;
    capabilities?: { drop?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface Volume {
  name: string;
  emptyDir?: Record<string, unknown>;
  configMap?: { name: string; items?: { key: string; path: string }[] };
}

interface PodSpec {
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
}

interface Deployment extends KubernetesObject {
  spec: { replicas: number; strategy?: { type: string }; template: { spec: PodSpec } };
}

async function variantObjects(variant: string): Promise<KubernetesObject[]> {
  return kustomizationResources(join(DEPLOY, 'kubernetes', variant));
}

async function deployment(variant: string): Promise<Deployment> {
  const found = (await variantObjects(variant)).find((object) => object.kind === 'Deployment');
  if (!found) throw new Error(`no Deployment in deploy/kubernetes/${variant}`);
  return found as Deployment;
}

function allContainers(spec: PodSpec): Container[] {
  return [...(spec.initContainers ?? []), ...spec.containers];
}

/** Kubernetes memory quantities as bytes (the binary and decimal suffixes the files use). */
function memoryBytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi|K|M|G)?$/.exec(quantity);
  if (!match?.[1]) throw new Error(`not a memory quantity: ${quantity}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, K: 1e3, M: 1e6, G: 1e9 }[match[2] ?? ''] ?? 1;
  return Number(match[1]) * unit;
}

async function packageVersion(): Promise<string> {
  return (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

describe('deploy/kubernetes', () => {
  it.each(VARIANTS)(
    'every object of the %s variant is valid against the Kubernetes schema',
    async (variant) => {
      const objects = await variantObjects(variant);

      const errors = (await Promise.all(objects.map(kubernetesSchemaErrors))).flat();

      expect(objects.map((object) => object.kind).sort()).toEqual(['Deployment', 'Namespace', 'Service']);
      expect(errors).toEqual([]);
    },
  );

  it('the schema check refuses a broken Deployment (it can fail)', async () => {
    const broken = structuredClone(await deployment('configmap'));
    const edgesync = broken.spec.template.spec.containers[0];
    if (edgesync?.resources?.limits) edgesync.resources.limits.memory = 'plenty';

    const errors = await kubernetesSchemaErrors(broken);

    expect(errors.join('\n')).toMatch(/resources\/limits\/memory/);
  });

  it.each(VARIANTS)(
    '%s runs one hardened edgesync watch with probes, limits and the key from a Secret',
    async (variant) => {
      const spec = (await deployment(variant)).spec;
      const pod = spec.template.spec;
      const edgesync = pod.containers.find((c) => c.name === 'edgesync');

      expect(spec.replicas).toBe(1);
      expect(spec.strategy?.type).toBe('Recreate');
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
      expect(edgesync?.args?.[0]).toBe('watch');
      expect(edgesync?.args).toContain('--listen=0.0.0.0:9090');
      expect(edgesync?.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(edgesync?.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(edgesync?.env?.find((e) => e.name === 'EDGE_API_KEY')?.valueFrom?.secretKeyRef?.name).toBe(
        'edgesync-api',
      );
      // The image's USER is numeric (1000), but the pod says so too for older runtimes.
      expect(edgesync?.securityContext?.runAsUser ?? 1000).toBe(1000);
      for (const container of allContainers(pod)) {
        // Pod Security "restricted", which the namespace enforces.
        expect(container.securityContext?.allowPrivilegeEscalation, container.name).toBe(false);
        expect(container.securityContext?.capabilities?.drop, container.name).toEqual(['ALL']);
        expect(container.securityContext?.readOnlyRootFilesystem, container.name).toBe(true);
        expect(container.resources?.requests?.memory, container.name).toBeDefined();
        expect(container.resources?.limits?.memory, container.name).toBeDefined();
      }
    },
  );

  it.each(VARIANTS)(
    '%s gives every container with a read-only root filesystem its own writable /tmp',
    async (variant) => {
      const pod = (await deployment(variant)).spec.template.spec;
      const emptyDirs = new Set((pod.volumes ?? []).filter((v) => v.emptyDir).map((v) => v.name));

      const tmpVolumes = allContainers(pod).map(
        (container) => container.volumeMounts?.find((mount) => mount.mountPath === '/tmp')?.name,
      );

      for (const name of tmpVolumes) expect(name !== undefined && emptyDirs.has(name)).toBe(true);
      // Two containers never share one /tmp.
      expect(new Set(tmpVolumes).size).toBe(tmpVolumes.length);
    },
  );

  it.each(VARIANTS)('%s sets the memory limit the documented account size needs', async (variant) => {
    const edgesync = (await deployment(variant)).spec.template.spec.containers.find(
      (c) => c.name === 'edgesync',
    );
    const operations = await readFile(join(ROOT, 'docs', 'operations.md'), 'utf8');

    const limit = edgesync?.resources?.limits?.memory ?? '0';

    // docs/operations.md: the default holds 50,000 entries, whose daemon peaked at 224 MB (VmHWM, in MiB) on Node 26
    // (the image's), with 1.5x headroom.
    expect(memoryBytes(limit)).toBeGreaterThanOrEqual(1.5 * 224 * 2 ** 20);
    expect(operations).toContain(`\`${limit}\``);
  });

  it('syncs Git in a git-sync v4 sidecar whose link the daemon watches', async () => {
    const pod = (await deployment('git-sync')).spec.template.spec;
    const gitSync = pod.initContainers?.find((c) => c.name === 'git-sync');
    const edgesync = pod.containers.find((c) => c.name === 'edgesync');
    const flags = (gitSync?.args ?? []).map((arg) => arg.split('=')[0]);

    // A native sidecar: an init container that keeps running.
    expect(gitSync?.restartPolicy).toBe('Always');
    expect(gitSync?.image).toMatch(/^registry\.k8s\.io\/git-sync\/git-sync:v4\.\d+\.\d+$/);
    expect(flags).toEqual(
      expect.arrayContaining(['--repo', '--ref', '--root', '--link', '--period', '--max-failures']),
    );
    // v3 names that v4 no longer reads.
    for (const v3 of ['--branch', '--rev', '--wait', '--dest', '--max-sync-failures'])
      expect(flags).not.toContain(v3);
    expect(gitSync?.args).toContain('--root=/git');
    expect(gitSync?.args).toContain('--link=current');
    expect(edgesync?.args?.[1]).toMatch(/^\/git\/current(\/|$)/);
    expect(edgesync?.volumeMounts?.find((m) => m.mountPath === '/git')?.readOnly).toBe(true);
  });

  it('the Secret holds no real key', async () => {
    const secret = parse(await readFile(join(DEPLOY, 'kubernetes/common/secret.yaml'), 'utf8')) as {
      stringData: Record<string, string>;
    };

    expect(secret.stringData['api-key']).toBe('REPLACE_ME');
  });
});

describe('deploy/kubernetes/configmap: updated in place through the kubelet ..data swap', () => {
  const dir = join(DEPLOY, 'kubernetes', 'configmap');
  let work: string;

  beforeAll(async () => {
    assertBuilt();
    work = await mkdtemp(join(tmpdir(), 'edgesync-configmap-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('generates the ConfigMap without a hash suffix, so a change does not roll the pod', async () => {
    const generator = (await readKustomization(dir)).configMapGenerator?.[0];
    const volume = (await deployment('configmap')).spec.template.spec.volumes?.find((v) => v.configMap);

    expect(generator?.options?.disableNameSuffixHash).toBe(true);
    expect(volume?.configMap?.name).toBe(generator?.name);
  });

  it("mounts every generated key at its file's path under manifests/, nested ones included", async () => {
    const generator = (await readKustomization(dir)).configMapGenerator?.[0];
    const items = (await deployment('configmap')).spec.template.spec.volumes?.find((v) => v.configMap)
      ?.configMap?.items;
    const files = (generator?.files ?? []).map((entry) => generatorFile(dir, entry));

    const expected = files.map(({ key, path }) => ({ key, path: relative(join(dir, 'manifests'), path) }));

    expect(items).toEqual(expected);
    expect(items?.some((item) => item.path.includes('/'))).toBe(true);
  });

  it('the mounted volume, laid out as the kubelet writes it, passes edgesync validate', async () => {
    const generator = (await readKustomization(dir)).configMapGenerator?.[0];
    const items = (await deployment('configmap')).spec.template.spec.volumes?.find((v) => v.configMap)
      ?.configMap?.items;
    const data = new Map<string, string>();
    for (const entry of generator?.files ?? []) {
      const { key, path } = generatorFile(dir, entry);
      data.set(key, await readFile(path, 'utf8'));
    }
    const projected = new Map((items ?? []).map((item) => [item.path, data.get(item.key) ?? '']));
    const mount = join(work, 'manifests');
    await writeConfigMapVolume(mount, projected);

    const result = await run(process.execPath, [CLI, 'validate', mount]).then(
      ({ stdout }) => ({ code: 0, out: stdout }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? 1,
        out: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );

    expect(result.out).not.toMatch(/error/i);
    expect(result.code).toBe(0);
  });
});

describe('the image deploy/ and the docs name', () => {
  it("is the project's own registry path (package.json repository)", async () => {
    const { repository } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      repository?: { url?: string };
    };

    const path = /github\.com\/([^/]+\/[^/.]+)(\.git)?$/.exec(repository?.url ?? '')?.[1];

    // The release workflow pushes to ghcr.io/${github.repository}.
    expect(`ghcr.io/${path?.toLowerCase()}`).toBe('ghcr.io/edgesync/edgesync');
  });

  it('is ghcr.io/edgesync/edgesync at the package version everywhere', async () => {
    const image = `ghcr.io/edgesync/edgesync:${await packageVersion()}`;
    const workflow = await readFile(join(DEPLOY, 'github-actions/edgesync.yml'), 'utf8');
    const operations = await readFile(join(ROOT, 'docs', 'operations.md'), 'utf8');

    const deployments = await Promise.all(VARIANTS.map(deployment));

    for (const found of deployments) {
      expect(found.spec.template.spec.containers.find((c) => c.name === 'edgesync')?.image).toBe(image);
    }
    expect(workflow).toContain(`EDGESYNC_IMAGE: ${image}`);
    expect(operations).toContain('ghcr.io/edgesync/edgesync');
    expect(`${workflow}\n${operations}`).not.toContain('ghcr.io/example/');
  });
});

describe('deploy/github-actions/edgesync.yml', () => {
  interface Workflow {
    on: Record<string, unknown>;
    jobs: Record<
      string,
      { if: string; steps: { run?: string; uses?: string; with?: Record<string, string> }[] }
    >;
  }

  it('validates and plans pull requests (commenting) and, on main, waits for the daemon or applies the reviewed plan, all through the action', async () => {
    const workflow = parse(await readFile(join(DEPLOY, 'github-actions/edgesync.yml'), 'utf8')) as Workflow;
    const commands = (name: string) =>
      (workflow.jobs[name]?.steps ?? [])
        .filter((s) => s.uses?.startsWith('edgesync/edgesync@'))
        .map((s) => s.with?.command ?? '');

    expect(Object.keys(workflow.on)).toEqual([
      'pull_request',
      'pull_request_target',
      'push',
      'workflow_dispatch',
    ]);
    expect(workflow.jobs.plan?.if).toContain('pull_request');
    expect(commands('validate')).toEqual(['validate']);
    expect(commands('plan')).toEqual(['plan']);
    expect(commands('merge')).toEqual([expect.stringMatching(/'apply'.*'wait'/)]);
    expect(workflow.jobs.merge?.if).toContain("github.ref == 'refs/heads/main'");
    // No step of the example runs edgesync by hand: the action's script does, and posts what happened.
    expect(
      Object.values(workflow.jobs)
        .flatMap((job) => job.steps.map((s) => s.run ?? ''))
        .join(''),
    ).toBe('');
  });
});
