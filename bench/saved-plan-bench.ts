import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSeededEmulator } from './bench-emulator.js';
import { type BenchSection, figure, round } from './bench-figure.js';
import { CLI_PATH } from './repo-root.js';
import { buildSyntheticAccount, rulesOnly, writeManifests } from './synthetic-account.js';

const SECTION = 'saved-plan';
const OWNER = 'bench';
const run = promisify(execFile);

/**
 * Makes the CLI print its own peak RSS on stderr as it exits, whatever way it
 * exits: the bench reads a child's peak from its own line, on any machine.
 */
const PEAK_RSS_REPORTER = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => writeSync(2, '\\nbench-max-rss-kb ' + process.resourceUsage().maxRSS + '\\n'));",
)}`;

interface CommandFigures {
  readonly ms: number;
  readonly peakMB: number;
}

/**
 * `plan --out FILE`, `show FILE` and `apply --plan FILE --dry-run` of an
 * account of N rules to create, each as a process of the built CLI: the
 * saved-plan flow of CI (plan on the pull request, apply the saved plan on
 * merge) at the size of the scale section's largest account. A saved plan of
 * 100,000 changes is a file of about 200 MB.
 */
export async function runSavedPlanBench(quick: boolean): Promise<BenchSection> {
  const entries = quick ? 2_000 : 100_000;
  const dir = await mkdtemp(join(tmpdir(), 'edgesync-bench-saved-'));
  const account = await buildSyntheticAccount({
    owner: OWNER,
    seedManaged: false,
    overlappingCidrs: true,
    size: rulesOnly(entries),
  });
  const manifests = join(dir, 'manifests');
  await writeManifests(account, manifests);
  const emulator = await startSeededEmulator(account.seed);
  const planFile = join(dir, 'plan.json');
  const env = {
    ...process.env,
    EDGE_API_URL: emulator.url,
    EDGE_API_KEY: emulator.apiKey,
    EDGESYNC_OWNER: OWNER,
  };
  const cli = async (args: readonly string[]): Promise<CommandFigures> => {
    const startedAt = performance.now();
    const { stderr } = await run(process.execPath, ['--import', PEAK_RSS_REPORTER, CLI_PATH, ...args], {
      cwd: dir,
      env,
      maxBuffer: 1024 ** 3,
    });
    const ms = performance.now() - startedAt;
    const kb = Number(/bench-max-rss-kb (\d+)/.exec(stderr)?.[1]);
    return { ms, peakMB: kb / 1024 };
  };
  try {
    const plan = await cli(['plan', '--out', planFile, manifests]);
    const fileMB = (await stat(planFile)).size / 1e6;
    const show = await cli(['show', planFile]);
    const apply = await cli(['apply', '--plan', planFile, '--dry-run', manifests]);
    const size = `${entries.toLocaleString('en-US')} creates`;
    const each = (name: string, figures: CommandFigures, note?: string) => [
      figure(SECTION, `${name}, ${size}: peak RSS`, Math.round(figures.peakMB), 'MB', note),
      figure(SECTION, `${name}, ${size}: time`, round(figures.ms / 1000, 1), 's'),
    ];
    return {
      section: SECTION,
      figures: [
        figure(SECTION, `saved plan of ${size}`, round(fileMB, 1), 'MB', 'the file `plan --out` writes'),
        ...each('plan --out', plan),
        ...each('show', show, 'reads the file in pieces (saved-plan-reader.ts)'),
        ...each('apply --plan --dry-run', apply, 'plans again, judges each saved action as it is read'),
      ],
      details: { entries, fileBytes: Math.round(fileMB * 1e6), plan, show, apply },
    };
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}
