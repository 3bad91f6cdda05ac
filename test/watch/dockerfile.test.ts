import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DockerInstruction, execForm, parseDockerfile } from './dockerfile-instructions.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The Dockerfile read as instructions. Running its steps outside Docker
 * (build, prune, the entrypoint serving /healthz) takes most of a minute, so
 * it is in the reliability suite: test/reliability/dockerfile-build.test.ts.
 */
describe('Dockerfile', () => {
  let instructions: DockerInstruction[];

  beforeAll(async () => {
    instructions = parseDockerfile(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
  });

  it('declares the CI Node major, two slim stages by digest, a numeric non-root user, tini and no HEALTHCHECK', async () => {
    const text = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
    const finalStage = Math.max(...instructions.map((i) => i.stage));
    const final = instructions.filter((i) => i.stage === finalStage);
    const args = globalArgs(instructions);

    const bases = instructions
      .filter((i) => i.keyword === 'FROM')
      .map((i) => expandArgs(i.args.split(' ')[0] ?? '', args));

    const nodeMajor = args.get('NODE_MAJOR');

    // .ci/run reads this line; the tag in FROM is what Dependabot moves, so the two must agree.
    expect(text.split('\n')).toContain('ARG NODE_MAJOR=26');
    expect(bases).toHaveLength(2);
    expect(new Set(bases).size).toBe(1);
    for (const base of bases) {
      expect(base).toMatch(/^node:\d+\.\d+\.\d+-slim@sha256:[0-9a-f]{64}$/);
      expect(base.split(/[:.]/)[1]).toBe(nodeMajor);
    }
    expect(final.find((i) => i.keyword === 'USER')?.args).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
    expect(final.some((i) => i.keyword === 'RUN' && /apt-get install .*\btini\b/.test(i.args))).toBe(true);
    // The image also runs one-shot plan/apply, which serve no /healthz.
    expect(instructions.some((i) => i.keyword === 'HEALTHCHECK')).toBe(false);
    expect(execForm(final.find((i) => i.keyword === 'ENTRYPOINT')?.args ?? '')[0]).toBe('/usr/bin/tini');
    expect(execForm(final.find((i) => i.keyword === 'CMD')?.args ?? '')).toEqual([
      'watch',
      '/manifests',
      '--listen',
      '0.0.0.0:9090',
    ]);
  });

  it('keeps examples/ (with its sample secret) out of the build context and the runtime image', async () => {
    const dockerignore = (await readFile(join(ROOT, '.dockerignore'), 'utf8'))
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const copies = instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);

    expect(dockerignore[0]).toBe('**');
    expect(
      dockerignore.filter((line) => line.startsWith('!')).some((line) => line.includes('examples')),
    ).toBe(false);
    expect(copies.some((args) => /\bexamples\b/.test(args))).toBe(false);
  });
});

/** The global `ARG NAME=default` lines (before the first FROM). */
function globalArgs(instructions: readonly DockerInstruction[]): Map<string, string> {
  const args = new Map<string, string>();
  for (const step of instructions.filter((i) => i.stage === -1 && i.keyword === 'ARG')) {
    const [name, value] = step.args.split('=');
    if (name && value !== undefined) args.set(name, value);
  }
  return args;
}

/** `${NAME}` and `$NAME` replaced by the ARG defaults; an unknown name throws. */
function expandArgs(text: string, args: ReadonlyMap<string, string>): string {
  return text.replace(/\$\{?([A-Z_][A-Z0-9_]*)\}?/g, (_, name: string) => {
    const value = args.get(name);
    if (value === undefined) throw new Error(`ARG ${name} has no default`);
    return value;
  });
}
