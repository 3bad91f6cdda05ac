import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');

interface Container {
  name: string;
  args?: string[];
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  livenessProbe?: { httpGet?: { path: string } };
  readinessProbe?: { httpGet?: { path: string } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsUser?: number;
  };
}

interface Deployment {
  kind: string;
  spec: {
    replicas: number;
    template: {
      spec: {
        securityContext?: { runAsNonRoot?: boolean };
        containers: Container[];
        initContainers?: Container[];
      };
    };
  };
}

async function deployment(path: string): Promise<Deployment> {
  const docs = parseAllDocuments(await readFile(join(DEPLOY, path), 'utf8')).map(
    (doc) => doc.toJS() as Deployment,
  );
  const found = docs.find((doc) => doc.kind === 'Deployment');
  if (!found) throw new Error(`no Deployment in ${path}`);
  return found;
}

describe('deploy/kubernetes', () => {
  it.each(['kubernetes/git-sync/deployment.yaml', 'kubernetes/configmap/deployment.yaml'])(
    '%s runs one hardened edgesync watch with probes, limits and the key from a Secret',
    async (path) => {
      const spec = (await deployment(path)).spec;
      const edgesync = spec.template.spec.containers.find((c) => c.name === 'edgesync');

      expect(spec.replicas).toBe(1);
      expect(spec.template.spec.securityContext?.runAsNonRoot).toBe(true);
      expect(edgesync?.args?.[0]).toBe('watch');
      expect(edgesync?.args).toContain('--listen=0.0.0.0:9090');
      expect(edgesync?.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(edgesync?.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(edgesync?.env?.find((e) => e.name === 'EDGE_API_KEY')?.valueFrom?.secretKeyRef?.name).toBe(
        'edgesync-api',
      );
      expect(edgesync?.resources?.requests).toBeDefined();
      expect(edgesync?.resources?.limits?.memory).toBeDefined();
      expect(edgesync?.securityContext?.allowPrivilegeEscalation).toBe(false);
      expect(edgesync?.securityContext?.readOnlyRootFilesystem).toBe(true);
    },
  );

  it('syncs Git in a sidecar whose link the daemon watches', async () => {
    const spec = (await deployment('kubernetes/git-sync/deployment.yaml')).spec.template.spec;
    const gitSync = [...(spec.initContainers ?? []), ...spec.containers].find((c) => c.name === 'git-sync');
    const edgesync = spec.containers.find((c) => c.name === 'edgesync');

    expect(gitSync?.args).toContain('--link=current');
    expect(edgesync?.args?.[1]).toMatch(/^\/git\/current(\/|$)/);
  });

  it('the Secret holds no real key', async () => {
    const secret = parse(await readFile(join(DEPLOY, 'kubernetes/common/secret.yaml'), 'utf8')) as {
      stringData: Record<string, string>;
    };

    expect(secret.stringData['api-key']).toBe('REPLACE_ME');
  });
});

describe('deploy/github-actions/edgesync.yml', () => {
  interface Workflow {
    on: Record<string, unknown>;
    jobs: Record<string, { if: string; steps: { run?: string; uses?: string }[] }>;
  }

  it('validates and plans as markdown on pull requests (commenting), and applies with --yes on main', async () => {
    const workflow = parse(await readFile(join(DEPLOY, 'github-actions/edgesync.yml'), 'utf8')) as Workflow;
    const plan = workflow.jobs.plan;
    const apply = workflow.jobs.apply;
    const planRuns = plan?.steps.map((s) => s.run ?? '').join('\n') ?? '';
    const applyRuns = apply?.steps.map((s) => s.run ?? '').join('\n') ?? '';

    expect(Object.keys(workflow.on)).toEqual(['pull_request', 'push']);
    expect(plan?.if).toContain('pull_request');
    expect(planRuns).toMatch(/\bvalidate manifests\b/);
    expect(planRuns).toMatch(/\bplan manifests\b.*--format markdown/s);
    expect(plan?.steps.some((s) => s.uses?.startsWith('actions/github-script'))).toBe(true);
    expect(apply?.if).toContain("github.ref == 'refs/heads/main'");
    expect(applyRuns).toMatch(/\bapply manifests\b.*--yes/s);
    expect(planRuns + applyRuns).not.toMatch(/--force/);
  });
});
